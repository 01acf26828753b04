"""Invariants over random games of every preset and random option mixes
(hypothesis): cards are conserved, exactly one seat acts, games end,
replay is identical, views never leak, scores add up."""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

from helpers import deck_now, examples, snapshot
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import baohuang as bh
from baohuang import Action, ActionKind, Game, RuleSet, Stage

A = ActionKind
MAX_ACTIONS = 4000
ROLE_STAGES = (Stage.EMPEROR, Stage.EMPEROR_SOLO, Stage.STEAL, Stage.CALL, Stage.GUARD,
               Stage.REBELLION, Stage.KICK)

OPTIONS: dict[str, list[Any]] = {
    "deck": ["full", "no345", "shandong165"],
    "hold_back_emperor_card": [True, False],
    "guard_mode": ["card", "call"],
    "called_card_high": [True, False],
    "abdication": ["none", "skip_two_if_solo", "to_prev", "to_prev_with_two",
                   "clockwise_with_two", "clockwise_then_two"],
    "forced_call": [True, False],
    "forced_call_rule": ["three_not_four", "one_set_of_three"],
    "steal_solo": [True, False],
    "steal_solo_requires": ["nothing", "three_jokers_and_four_identical"],
    "rebellion": [True, False],
    "kick": [True, False],
    "lead_after_out": ["teammate", "next", "apply"],
    "scoring": ["shandong", "placement", "wurenju"],
    "kaopai": [True, False],
    "hold_sixes": [True, False],
    "jokers_with_twos": [True, False],
    "leave_ends_game": [True, False],
}


@st.composite
def rule_sets(draw: st.DrawFn) -> RuleSet:
    rules = RuleSet.preset(draw(st.sampled_from(list(bh.PRESETS))))
    changes = {}
    for name, values in OPTIONS.items():
        if draw(st.booleans()):
            changes[name] = draw(st.sampled_from(values))
    options = rules.to_dict() | changes
    # the combinations the rules refuse (each has its own test)
    if options["guard_mode"] != "call":
        options["called_card_high"] = False
    if options["deck"] != "full":
        options["hold_back_emperor_card"] = True
    return RuleSet.from_dict(options)


def leaking_event(ev: dict[str, Any], viewer: int | None) -> bool:
    """Whether a view's event shows cards that only other seats may see."""
    if "private" in ev:
        return True
    if ev["type"] in ("abdicate", "tribute") and ("cards" in ev or "card" in ev):
        return viewer not in (ev.get("seat"), ev.get("to"))
    return False


def check_views(game: Game) -> None:
    over = game.is_over
    public_guard = game.view(None).guard
    for viewer in (None, 0, 1, 2, 3, 4):
        view = game.view(viewer)
        assert list(view.hand) == ([] if viewer is None else game.hand(viewer))
        if not over:
            assert view.hands == {}
            if view.guard is not None:
                assert viewer == game.guard or view.guard == public_guard
            if viewer is not None and viewer != game.guard:
                assert view.role != "guard"
            if game.solo == "hidden" and viewer != game.emperor and public_guard is None:
                assert view.solo is None
        for ev in view.events:
            assert not leaking_event(ev, viewer), ev
            if ev["type"] == "guard" and not ev["open"] and view.guard is None:
                assert "seat" not in ev          # 暗保/暗独保 does not name its seat
        if viewer != game.to_act:
            assert view.legal_actions == ()
        if game.stage is Stage.GUARD and viewer != game.to_act:
            assert view.to_act is None


def play_random(game: Game, rng: random.Random, leave_chance: float) -> tuple[int, list[int]]:
    """Random legal actions to the end, checking invariants on the way.
    Returns (actions taken, seats that left)."""
    played: Counter[bh.Card] = Counter()
    left: list[int] = []
    n = 0
    while not game.is_over:
        seat = game.to_act
        assert seat is not None and 0 <= seat < 5          # exactly one seat acts
        legal = game.legal_actions()
        assert legal and len(set(legal)) == len(legal)
        assert game.stage in (*ROLE_STAGES, Stage.PLAY)
        if game.stage is Stage.PLAY:
            assert all(a.kind in (A.PLAY, A.PASS, A.ASK_LEAD) for a in legal)
            if n % 25 == 0:
                assert seat not in game.view(None).out
            if game.rules.hold_sixes:                       # 憋6: sixes only with the last play
                size = len(game.hand(seat))
                assert all(len(a.cards) == size for a in legal
                           if a.kind is A.PLAY and any(c.rank is bh.Rank.SIX for c in a.cards))
        else:
            assert all(a.kind not in (A.PLAY, A.PASS, A.ASK_LEAD) for a in legal)
        if rng.random() < leave_chance:
            who = rng.randrange(5)
            if who not in left:
                game.apply(Action(A.LEAVE, seat=who))
                left.append(who)
                continue
        action = rng.choice(legal)
        game.apply(action)
        if action.kind is A.PLAY:
            played.update(action.cards)
        n += 1
        assert n < MAX_ACTIONS, "the game did not end"
        hands: Counter[bh.Card] = Counter()
        for s in range(5):
            hands.update(game.hand(s))
        assert hands + played == deck_now(game)             # cards are conserved
        if n % 60 == 0:
            check_views(game)
    assert game.to_act is None and game.legal_actions() == []
    check_views(game)
    return n, left


def check_scores(game: Game, left: list[int]) -> None:
    result = game.result
    assert result is not None
    rules = game.rules
    penalty = rules.leave_penalty
    if result.left is not None:                               # leaving ended it
        assert result.scores == tuple(-penalty if s == result.left else 0 for s in range(5))
        return
    e, g = result.emperor, result.guard
    assert e is not None and g is not None
    places = [p for p in result.places if p is not None]
    assert sorted(places) == list(range(1, len(places) + 1))
    assert sorted(result.order) == [0, 1, 2, 3, 4]
    scores = list(result.scores)
    for s in left:
        scores[s] += penalty
    royal = {e} if result.solo else {e, g}
    view = game.view(None)
    if rules.scoring is not bh.Scoring.PLACEMENT:
        rebels = view.rebels
        doubled = scores[rebels[0]] // 2 if len(rebels) == 1 else 0
        assert sum(scores) == doubled                         # zero-sum but a lone rebel
        assert (scores[e] > 0) is bool(result.royal_won) or scores[e] == 0
        if rules.scoring is bh.Scoring.WURENJU:               # the game ends when decided
            order = [s for s in result.order if result.places[s] is not None]
            assert bh.engine.scoring.decided(order, e, g, bool(result.solo))
            assert not bh.engine.scoring.decided(order[:-1], e, g, bool(result.solo))
    else:
        side = scores[e]
        assert all(scores[s] == side for s in royal)
        assert all(scores[s] == -side for s in range(5) if s not in royal)
        assert sum(1 for p in result.places if p is None) == 1
    assert result.royal_won is (None if scores[e] == 0 else scores[e] > 0)


@settings(max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rules=rule_sets(), seed=st.integers(0, 10**6), choice=st.integers(0, 10**6))
def test_random_games_keep_every_invariant(rules: RuleSet, seed: int, choice: int) -> None:
    game = Game.new(rules, seed)
    play_random(game, random.Random(choice), leave_chance=0.0)
    check_scores(game, [])
    again = Game.from_record(game.record())                    # replay is identical
    assert snapshot(again) == snapshot(game)


@settings(max_examples=examples(25), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rules=rule_sets(), seed=st.integers(0, 10**6), choice=st.integers(0, 10**6))
def test_random_games_with_leaving(rules: RuleSet, seed: int, choice: int) -> None:
    game = Game.new(rules, seed)
    _, left = play_random(game, random.Random(choice), leave_chance=0.004)
    check_scores(game, [] if rules.leave_ends_game else left)
    assert Game.from_record(game.record()).result == game.result


@settings(max_examples=20, deadline=None)
@given(preset=st.sampled_from(list(bh.PRESETS)), seed=st.integers(0, 10**6),
       stop=st.integers(0, 200))
def test_replay_from_any_point_continues_identically(preset: str, seed: int, stop: int) -> None:
    game = Game.new(RuleSet.preset(preset), seed)
    rng = random.Random(seed)
    for _ in range(stop):
        if game.is_over:
            break
        game.apply(rng.choice(game.legal_actions()))
    copy = Game.from_record(game.record())
    assert snapshot(copy) == snapshot(game)
    while not game.is_over:
        action = rng.choice(game.legal_actions())
        game.apply(action)
        copy.apply(action)
    assert copy.result == game.result and copy.record() == game.record()


@settings(max_examples=examples(40), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rules=rule_sets(), seed=st.integers(0, 10**6), choice=st.integers(0, 10**6))
def test_fast_legal_plays_equal_the_general_generator(rules: RuleSet, seed: int,
                                                      choice: int) -> None:
    """The engine builds play actions straight from the hand for speed; at
    every play decision they must equal the shapes-then-cards generator."""
    from baohuang.engine import moves

    game = Game.new(rules, seed)
    rng = random.Random(choice)
    for _ in range(MAX_ACTIONS):
        if game.is_over:
            break
        if game.stage is Stage.PLAY:
            state = game._st
            assert moves.legal_actions(state) == moves.legal(state, [])
        legal = game.legal_actions()
        game.apply(legal[rng.randrange(len(legal))])
    assert game.is_over
