"""Per-seat views (issue 2 §4): everything a seat may know and nothing more."""

from __future__ import annotations

import json
import random
from typing import Any

import msgspec
import pytest
from helpers import A, act, actor, examples, find_game, play_in_order, rules, stage, through_roles
from hypothesis import given, settings
from hypothesis import strategies as st

import baohuang as bh
from baohuang import Game, Stage

SJ_STAR = bh.GUARD_CARD
VIEWERS: tuple[int | None, ...] = (None, 0, 1, 2, 3, 4)


def to_guard_stage(solo: bool, seed_from: int = 0) -> Game:
    game = find_game(rules(), lambda g: (SJ_STAR in g.hand(actor(g))) == solo,
                     range(seed_from, 4000))
    act(game, A.ACCEPT)
    while stage(game) is not Stage.GUARD:
        act(game, A.DECLINE)
    return game


def assert_json(view: bh.View) -> dict[str, Any]:
    data = view.to_dict()
    text = json.dumps(data, ensure_ascii=False)
    assert json.loads(text) == data
    return data


def test_own_hand_only_and_counts_of_others() -> None:
    game = Game.new(seed=5)
    for seat in range(5):
        view = game.view(seat)
        assert list(view.hand) == game.hand(seat)
        assert view.hands == {}
        assert view.hand_counts == tuple(len(game.hand(s)) for s in range(5))
        data = assert_json(view)
        assert data["hands"] == {}
    spectator = game.view(None)
    assert spectator.hand == () and spectator.role is None and spectator.legal_actions == ()


def test_legal_actions_only_in_the_view_of_the_seat_to_act() -> None:
    game = Game.new(seed=5)
    seat = actor(game)
    assert list(game.view(seat).legal_actions) == game.legal_actions()
    assert all(game.view(s).legal_actions == () for s in VIEWERS if s != seat)


def test_guard_stage_hides_who_decides() -> None:
    for solo in (False, True):
        game = to_guard_stage(solo)
        g = actor(game)
        assert game.view(g).to_act == g and game.view(g).legal_actions
        for viewer in VIEWERS:
            if viewer != g:
                view = game.view(viewer)
                assert view.to_act is None and view.legal_actions == ()
                assert view.guard is None
                assert assert_json(view)["to_act"] is None


def test_the_guard_is_known_only_to_himself_until_public() -> None:
    game = to_guard_stage(False)
    e, g = game.emperor, game.guard
    act(game, A.GUARD_HIDDEN)
    through_roles(game)
    for viewer in VIEWERS:
        view = game.view(viewer)
        if viewer == g:
            assert view.guard == g and view.role == "guard"
        else:
            assert view.guard is None
            assert view.role == ("emperor" if viewer == e else None if viewer is None
                                 else "rebel")
        text = json.dumps(assert_json(view))
        if viewer != g:
            assert f'"guard": {g}' not in text
    # the Guard's decision is an event without its seat for the others
    for viewer in VIEWERS:
        evs = [ev for ev in game.events_for(viewer) if ev["type"] == "guard"]
        assert evs == [{"type": "guard", "open": False, **({"seat": g} if viewer == g else {})}]


def _role_events(game: Game, viewer: int) -> list[dict[str, Any]]:
    evs = game.view(viewer).events
    return [ev for ev in evs if ev["type"] not in ("deal", "candidate")]


def test_hidden_solo_looks_like_a_normal_game_to_the_others() -> None:
    solo = to_guard_stage(True)
    normal = to_guard_stage(False)
    act(solo, A.SOLO_HIDDEN)
    act(normal, A.GUARD_HIDDEN)
    for game in (solo, normal):
        assert game.stage is Stage.REBELLION
    # a seat that is neither Emperor nor Guard in both games
    es, en, gn = solo.emperor, normal.emperor, normal.guard
    assert es is not None and en is not None and gn is not None
    for k in range(1, 5):
        vs, vn = (es + k) % 5, (en + k) % 5
        if vn == gn:
            continue
        a, b = solo.view(vs), normal.view(vn)
        assert (a.role, a.guard, a.solo, a.stake, a.to_act is None) == \
            (b.role, b.guard, b.solo, b.stake, b.to_act is None)
        assert a.role == "rebel" and a.solo is None

        def shape(events: list[dict[str, Any]], e: int) -> list[tuple[str, int | None]]:
            return [(ev["type"], None if "seat" not in ev else (ev["seat"] - e) % 5)
                    for ev in events]
        assert shape(_role_events(solo, vs), es) == shape(_role_events(normal, vn), en)
    # the solo Emperor knows
    assert solo.view(es).solo == "hidden" and solo.view(es).role == "emperor"


def test_roles_unknown_before_the_guard_is_found() -> None:
    game = Game.new(seed=3)
    for viewer in range(5):
        view = game.view(viewer)
        assert view.role is None and view.guard is None and view.emperor is None
    e = actor(game)
    assert game.view(None).candidate == e
    act(game, game.legal_actions()[0].kind)
    assert game.view(None).candidate is None


def test_abdication_cards_are_shown_only_to_giver_and_receiver() -> None:
    game = Game.new(rules("lianzhong_simple"), 8)
    first = actor(game)
    act(game, A.ABDICATE)
    act(game, A.ABDICATE)       # the second decliner adds a card
    giver, receiver = (first - 1) % 5, (first - 2) % 5
    for viewer in VIEWERS:
        ev = [e for e in game.events_for(viewer) if e["type"] == "abdicate"][-1]
        assert ev["seat"] == giver and ev["to"] == receiver and ev["count"] == 2
        if viewer in (giver, receiver):
            assert len(ev["cards"]) == 2 and "BJ*" in ev["cards"]
        else:
            assert "cards" not in ev and "private" not in ev


def test_views_after_the_game_show_everything() -> None:
    game = to_guard_stage(False)
    g = game.guard
    act(game, A.GUARD_HIDDEN)
    through_roles(game)
    e = game.emperor
    assert e is not None and g is not None
    play_in_order(game, [e, g], reveal=False)
    assert game.is_over
    for viewer in VIEWERS:
        view = game.view(viewer)
        assert view.guard == g and view.result is not None
        assert view.hands == {s: tuple(game.hand(s)) for s in range(5) if game.hand(s)}
        assert view.to_act is None and view.stage is Stage.OVER
        assert_json(view)


def test_played_cards_are_public() -> None:
    game = to_guard_stage(False)
    act(game, A.GUARD_OPEN)
    through_roles(game)
    lead = game.legal_actions()[0]
    game.apply(lead)
    for viewer in VIEWERS:
        view = game.view(viewer)
        assert view.played == lead.cards
        assert view.last_play == (view.emperor, lead.cards)


@pytest.mark.parametrize("seat", [-1, 5, 10])
def test_bad_seat(seat: int) -> None:
    with pytest.raises(ValueError, match="seat"):
        Game.new(seed=0).view(seat)


def test_every_view_of_a_whole_game_is_plain_json() -> None:
    for preset in ("shandong", "seed001_216"):
        game = Game.new(rules(preset), 9)
        n = 0
        while not game.is_over:
            if n % 7 == 0:
                for viewer in VIEWERS:
                    assert_json(game.view(viewer))
            legal = game.legal_actions()
            game.apply(legal[n % len(legal)])
            n += 1
        for viewer in VIEWERS:
            assert_json(game.view(viewer))


@settings(max_examples=examples(15), deadline=None)
@given(seed=st.integers(0, 10_000), preset=st.sampled_from(sorted(bh.PRESETS)))
def test_views_kept_between_moves_equal_views_made_afresh(seed: int, preset: str) -> None:
    """A game keeps parts of its views from move to move (the public part, hand counts,
    the play to beat, sorted hands, seen events): at every state of a random game each
    seat's view equals the one a game rebuilt from the record makes from nothing."""
    game = Game.new(bh.RuleSet.preset(preset), seed=seed)
    rng = random.Random(seed)
    while True:
        fresh = Game.from_record(game.record())
        for seat in VIEWERS:
            assert game.view(seat) == fresh.view(seat)
        if game.is_over:
            break
        game.apply(rng.choice(game.legal_actions()))


_SOME_CARDS = sorted(set(bh.make_deck("full")))[:40]


@settings(max_examples=200, deadline=None)
@given(before=st.lists(st.sampled_from(_SOME_CARDS), max_size=40),
       gone=st.sets(st.integers(0, 39)),
       got=st.lists(st.sampled_from(_SOME_CARDS), max_size=3),
       extra=st.dictionaries(st.sampled_from(_SOME_CARDS), st.integers(-2, 0), max_size=3))
def test_a_changed_hand_is_shown_in_order(before: list[bh.Card], gone: set[int],
                                          got: list[bh.Card],
                                          extra: dict[bh.Card, int]) -> None:
    """A hand shown before and changed since (cards gone, cards got, counts at 0 or
    below left in its Counter) is shown as its cards sorted afresh would be."""
    from collections import Counter

    from baohuang.engine.viewvalues import _less
    shown = tuple(sorted(before))
    hand = Counter(card for i, card in enumerate(shown) if i not in gone)
    hand.update(got)
    for card, n in extra.items():
        if card not in hand:
            hand[card] = n
    assert _less(shown, hand) == tuple(sorted(hand.elements()))


def test_the_view_parts_are_declared_once_by_name_and_type() -> None:
    """A view's public and own values are declared with View's names, order and types
    and made by name, so every value is where its name says, for every seat of every
    stage; a part that gives a field another type than View's is refused, and so is a
    value given under a name the part does not declare."""
    from baohuang.engine.viewparts import OwnValues, PublicValues
    from baohuang.engine.views import OWN_FIELDS, PUBLIC_FIELDS, View, types_alike

    assert PublicValues.__struct_fields__ == PUBLIC_FIELDS
    assert OwnValues.__struct_fields__ == OWN_FIELDS
    for preset in ("shandong", "wurenju"):
        game = Game.new(rules(preset), seed=7)
        while True:
            for seat in (None, *range(5)):
                view = game.view(seat)
                public, own = game.view_values(seat)
                assert public == tuple(getattr(view, n) for n in PUBLIC_FIELDS)
                assert own == tuple(getattr(view, n) for n in OWN_FIELDS)
            if game.is_over:
                break
            game.apply(random.Random(game.version).choice(game.legal_actions()))

    class Wrong(msgspec.Struct):
        kicks: str                                  # View says int

    assert types_alike(View, PublicValues, OwnValues)
    assert not types_alike(View, Wrong)
    with pytest.raises(TypeError, match="seats"):
        OwnValues(seats=1)                          # type: ignore[call-arg]
