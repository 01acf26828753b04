"""The deal sampler of the search bot: every sampled deal agrees with the view."""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

import pytest
from helpers import random_state
from hypothesis import given, settings
from hypothesis import strategies as st

import baohuang as bh
from baohuang import EMPEROR_CARD, GUARD_CARD, Game, GuardMode, Stage
from baohuang.bots import hosted_action
from baohuang.bots.search.sampler import DealSampler, SamplerError, World
from baohuang.engine.cards import parse_card
from baohuang.engine.state import callable_kinds

PRESETS = list(bh.PRESETS)


def current_deal_events(view: bh.View) -> list[dict[str, Any]]:
    """The view's events since the last deal, in their JSON form."""
    events = list(view.events)
    starts = [i for i, ev in enumerate(events) if ev["type"] == "deal"]
    return events[starts[-1] if starts else 0:]


def given_away(view: bh.View) -> list[tuple[int, bh.Card, int]]:
    """(receiver, card, event index) for every card this seat saw go to
    another seat (tribute it gave, cards it passed with the Emperor card),
    while the receiver has not passed cards on since."""
    out = []
    events = current_deal_events(view)
    for i, ev in enumerate(events):
        if ev.get("seat") != view.seat or ev["type"] not in ("tribute", "abdicate"):
            continue
        moved_on = any((e["type"] in ("abdicate", "tribute") and e.get("seat") == ev["to"])
                       or e["type"] == "forced" for e in events[i + 1:])
        if moved_on:
            continue
        if ev["type"] == "tribute" and "card" in ev:
            out.append((ev["to"], parse_card(ev["card"]), i))
        elif "cards" in ev:
            out.extend((ev["to"], parse_card(c), i) for c in ev["cards"])
    return out


def check_world(game: Game, view: bh.View, world: World) -> None:
    """Everything the view knows holds in ``world``."""
    me = view.seat
    assert me is not None
    rules = game.rules
    assert world.hands[me] == view.hand
    assert [len(h) for h in world.hands] == list(view.hand_counts)
    everything = Counter(view.played)
    for hand in world.hands:
        everything.update(hand)
    # the 特画 is the Guard's copy of the called card (none in a hidden-solo deal)
    assert everything[bh.TEHUA_CARD] <= 1
    if everything[bh.TEHUA_CARD]:
        assert view.called is not None and world.guard not in (None, world.emperor)
        assert bh.TEHUA_CARD in world.hands[world.guard] or bh.TEHUA_CARD in view.played
        everything[view.called] += everything.pop(bh.TEHUA_CARD)
    assert everything == Counter(bh.make_deck(rules.deck)), "cards are not conserved"
    # the Emperor card's way is public
    holder = next((s for s in range(5) if EMPEROR_CARD in game.hand(s)), None)
    if holder is not None:
        assert EMPEROR_CARD in world.hands[holder]
    if view.guard is not None:
        assert world.guard == view.guard
    events = current_deal_events(view)
    # cards this seat passed on stay with the receiver, less what it played since
    pending: Counter[tuple[int, bh.Card]] = Counter()
    for receiver, card, i in given_away(view):
        if receiver == me:
            continue
        played = sum(1 for ev in events[i:] if ev["type"] == "play" and ev["seat"] == receiver
                     for c in ev["cards"] if parse_card(c) == card)
        pending[(receiver, card)] = max(pending[(receiver, card)], 0) + 1 - played
    for (receiver, card), k in pending.items():
        assert Counter(world.hands[receiver])[card] >= k, f"{card} left seat {receiver}"
    # a seat that gave this seat tribute kept nothing higher (进贡 gives the highest)
    for i, ev in enumerate(events):
        if ev["type"] == "tribute" and ev["to"] == me and "card" in ev:
            giver, rank = ev["seat"], parse_card(ev["card"]) >> 4
            if any(e["type"] in ("abdicate", "forced") and (e.get("to") == giver or
                                                           e.get("seat") == giver)
                   for e in events[i:]):
                continue
            assert all(c >> 4 <= rank for c in world.hands[giver] if c != EMPEROR_CARD)
    stolen_or_early = any(ev["type"] == "solo" and (ev.get("stolen") or not any(
        e["type"] in ("decline_solo",) for e in events)) and rules.steal_solo for ev in events)
    fixed = view.stage not in (Stage.EMPEROR, Stage.EMPEROR_SOLO, Stage.STEAL, Stage.CALL)
    if rules.guard_mode is GuardMode.CARD:
        if world.guard is not None and GUARD_CARD not in view.played and not stolen_or_early:
            assert GUARD_CARD in world.hands[world.guard]
    elif (view.called is None and view.emperor is not None and view.emperor != me
          and view.solo is None):
        # an Emperor who has still to call can call (叫得起)
        assert callable_kinds(Counter(world.hands[view.emperor]))
    elif view.called is not None and fixed and world.guard is not None:
        e = view.emperor
        assert e is not None
        called = view.called
        by_emperor = sum(1 for ev in events if ev["type"] == "play" and ev["seat"] == e
                         for c in ev["cards"] if parse_card(c) == called)
        copies = bh.make_deck(rules.deck).count(called)
        # the Guard's copy may have become 特画 (called_card_high)
        held = [Counter(h)[called] + Counter(h)[bh.TEHUA_CARD] for h in world.hands]
        if world.guard == e:
            assert held[e] == copies - by_emperor
        else:
            assert held[e] == 3 - by_emperor
            assert sum(held) == copies - sum(1 for c in view.played
                                             if c in (called, bh.TEHUA_CARD))
            assert all(held[s] == 0 for s in range(5) if s not in (e, world.guard))


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(PRESETS), st.integers(0, 10**6), st.integers(0, 450))
def test_sampled_deals_agree_with_the_view(preset: str, seed: int, steps: int) -> None:
    game = random_state(bh.RuleSet.preset(preset), seed, steps)
    if game.is_over:
        return
    rng = random.Random(seed)
    for seat in range(5):
        view = game.view(seat)
        sampler = DealSampler(view)
        for _ in range(3):
            check_world(game, view, sampler.sample(rng))


@pytest.mark.parametrize("preset", PRESETS)
def test_the_true_deal_is_never_ruled_out(preset: str) -> None:
    """Over many states the real Guard keeps a positive weight and the cards
    the sampler forces on a seat are cards that seat really holds."""
    checked = 0
    for seed in range(12):
        for steps in (3, 12, 40, 120, 260):
            game = random_state(bh.RuleSet.preset(preset), seed, steps)
            if game.is_over:
                continue
            state_guard = game.guard
            for seat in range(5):
                sampler = DealSampler(game.view(seat), use_inference=False)
                weights = sampler.guard_weights()
                if None not in weights:
                    if state_guard is None:     # card mode before the Guard stage
                        truth = next(s for s in range(5) if GUARD_CARD in game.hand(s)) \
                            if any(GUARD_CARD in game.hand(s) for s in range(5)) else None
                    else:
                        truth = state_guard
                    if truth is not None and game.solo != "open":
                        assert weights.get(truth, 0) > 0, (preset, seed, steps, seat)
                checked += 1
    assert checked > 100


@pytest.mark.parametrize("preset", ["lianzhong_classic", "seed001_216"])
def test_role_phase_deals_of_call_mode_agree_with_the_view(preset: str) -> None:
    """Early states, where the Emperor has still to call a card."""
    rng = random.Random(3)
    checked = 0
    for seed in range(12):
        for steps in (1, 2, 3, 4, 6):
            game = random_state(bh.RuleSet.preset(preset), seed, steps)
            if game.is_over:
                continue
            for seat in range(5):
                view = game.view(seat)
                sampler = DealSampler(view)
                for _ in range(4):
                    check_world(game, view, sampler.sample(rng))
                checked += view.called is None and view.emperor not in (None, seat)
    assert checked >= 20


def test_tribute_bounds_the_givers_cards() -> None:
    """In the second game of a ``seed001_216`` match, a seat that received
    tribute knows the giver kept nothing higher; samples respect it."""
    rules = bh.RuleSet.preset("seed001_216")
    checked = 0
    for seed in range(6):
        match = bh.Match(rules, seed=seed, games=2)
        rng = random.Random(seed)
        while match.index == 0:
            game = match.game
            seat = game.to_act
            assert seat is not None
            game.apply(hosted_action(game.view(seat), game.legal_actions()))
            match.advance()
        game = match.game
        for _ in range(rng.randrange(0, 40)):
            legal = game.legal_actions()
            game.apply(legal[rng.randrange(len(legal))])
        for seat in range(5):
            view = game.view(seat)
            sampler = DealSampler(view)
            checked += bool(sampler.caps)
            for _ in range(5):
                check_world(game, view, sampler.sample(rng))
    assert checked >= 5


def test_the_hidden_guard_is_drawn_among_several_seats() -> None:
    game = Game.new(seed=11)
    while game.stage is not Stage.PLAY:
        legal = game.legal_actions()
        game.apply(next(a for a in legal if a.kind in (bh.ActionKind.ACCEPT,
                                                      bh.ActionKind.DECLINE,
                                                      bh.ActionKind.GUARD_HIDDEN,
                                                      bh.ActionKind.SOLO_HIDDEN)))
    rebel = next(s for s in range(5) if s not in (game.emperor, game.guard))
    sampler = DealSampler(game.view(rebel))
    rng = random.Random(0)
    guards = Counter(sampler.sample(rng).guard for _ in range(300))
    assert rebel not in guards
    assert len(guards) >= 3, guards
    assert guards[game.guard] > 0


def test_the_same_random_state_draws_the_same_deal() -> None:
    game = random_state(bh.RuleSet.preset("lianzhong_classic"), 5, 60)
    view = game.view(2)
    a = DealSampler(view).sample(random.Random(9))
    b = DealSampler(view).sample(random.Random(9))
    assert a == b


def test_a_spectator_view_cannot_be_sampled() -> None:
    with pytest.raises(SamplerError, match="spectator"):
        DealSampler(Game.new(seed=1).view(None))
