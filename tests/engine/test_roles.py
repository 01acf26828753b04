"""The role phase (docs/rules.md §6) on real deals: every abdication kind, 逼位/流局
and 抢独 (the Guard in both guard modes: test_roles_guard.py)."""

from __future__ import annotations

from collections import Counter

from helpers import (
    A,
    act,
    actor,
    callable_cards,
    decline_until,
    event_types,
    find_game,
    four_identical,
    holder,
    jokers,
    kinds,
    rules,
    stage,
    through_roles,
    triples,
)

import baohuang as bh
from baohuang import Action, Game, Stage

BJ_STAR, SJ_STAR = bh.EMPEROR_CARD, bh.GUARD_CARD


# -- skip_two_if_solo (山东/潍坊) ------------------------------------------------

def test_candidate_without_the_guard_card_is_asked_with_accept_only() -> None:
    game = find_game(rules(), lambda g: SJ_STAR not in g.hand(actor(g)))
    assert stage(game) is Stage.EMPEROR
    assert game.to_act == holder(game, BJ_STAR)
    assert game.legal_actions() == [Action(A.ACCEPT)]
    act(game, A.ACCEPT)
    assert game.emperor == holder(game, BJ_STAR)


def test_skip_two_passes_the_emperor_card_to_seat_plus_two_and_the_passer_guards() -> None:
    game = find_game(rules(), lambda g: SJ_STAR in g.hand(actor(g)))
    passer = actor(game)
    assert kinds(game) == [A.ACCEPT, A.ABDICATE]
    before = len(game.hand(passer))
    act(game, A.ABDICATE)
    emperor = (passer + 2) % 5
    assert game.emperor == emperor
    assert BJ_STAR in game.hand(emperor) and SJ_STAR in game.hand(passer)
    assert len(game.hand(passer)) == before - 1 and len(game.hand(emperor)) == 34
    assert stage(game) is Stage.EMPEROR_SOLO and game.to_act == emperor
    decline_until(game, Stage.GUARD)
    assert game.guard == passer and game.to_act == passer
    assert kinds(game) == [A.GUARD_OPEN, A.GUARD_HIDDEN]
    assert {"type": "abdicate", "seat": passer, "to": emperor, "count": 1} in \
        game.events_for(None)


def test_skip_two_candidate_keeping_both_cards_plays_solo() -> None:
    game = find_game(rules(), lambda g: SJ_STAR in g.hand(actor(g)))
    seat = actor(game)
    act(game, A.ACCEPT)
    decline_until(game, Stage.GUARD)
    assert game.emperor == game.guard == seat == game.to_act
    assert kinds(game) == [A.SOLO_OPEN, A.SOLO_HIDDEN]


# -- to_prev (联众 classic) ----------------------------------------------------

CLASSIC = rules("lianzhong_classic")


def test_to_prev_passes_only_the_emperor_card_to_the_previous_seat() -> None:
    game = find_game(CLASSIC, lambda g: bool(callable_cards(g, actor(g))))
    seat = actor(game)
    assert seat is not None
    assert kinds(game) == [A.ACCEPT, A.ABDICATE]
    act(game, A.ABDICATE)
    prev = (seat - 1) % 5
    assert game.to_act == prev and BJ_STAR in game.hand(prev)
    assert len(game.hand(seat)) == 43 and len(game.hand(prev)) == 44


def test_to_prev_candidate_who_cannot_call_may_only_abdicate() -> None:
    game = find_game(CLASSIC, lambda g: not callable_cards(g, actor(g)))
    assert kinds(game) == [A.ABDICATE]


def test_to_prev_second_time_round_the_holder_must_accept() -> None:
    game = find_game(CLASSIC, lambda g: bool(callable_cards(g, actor(g)))
                     and not four_identical(g, actor(g)))
    first = actor(game)
    for _ in range(5):
        act(game, A.ABDICATE)
    assert game.to_act == first and BJ_STAR in game.hand(first)
    assert game.legal_actions() == [Action(A.ACCEPT)]
    act(game, A.ACCEPT)
    assert game.emperor == first


def test_to_prev_second_round_four_identical_may_still_decline() -> None:
    game = find_game(CLASSIC, lambda g: bool(callable_cards(g, actor(g)))
                     and four_identical(g, actor(g)))
    first = actor(game)
    for _ in range(5):
        act(game, A.ABDICATE)
    assert game.to_act == first
    assert kinds(game) == [A.ACCEPT, A.ABDICATE]


def test_to_prev_second_round_cannot_call_must_pass_on() -> None:
    game = find_game(CLASSIC, lambda g: not callable_cards(g, actor(g)))
    for _ in range(5):
        act(game, A.ABDICATE)
    assert kinds(game) == [A.ABDICATE]


# -- to_prev_with_two (联众 simple) ----------------------------------------------

SIMPLE = rules("lianzhong_simple")


def _no_two_in_chain(g: Game) -> bool:
    c = g.to_act
    assert c is not None
    return any(not [x for x in g.hand((c - i) % 5) if x.rank is bh.Rank.TWO] for i in (1, 2, 3))


def test_to_prev_with_two_adds_a_two_or_the_highest_card_then_redeals() -> None:
    game = find_game(SIMPLE, _no_two_in_chain)
    first = actor(game)
    travelling: list[bh.Card] = [BJ_STAR]
    for i in range(10):
        seat = actor(game)
        assert seat is not None and seat == (first - i) % 5
        assert set(kinds(game)) == {A.ACCEPT, A.ABDICATE}
        own = Counter(game.hand(seat)) - Counter(travelling)
        added: bh.Card | None = None
        if i:      # the first candidate passes the Emperor card alone
            twos = sorted(c for c in own if c.rank is bh.Rank.TWO)
            added = twos[0] if twos else max(c for c in own if not c.is_joker)
        size = len(game.hand(seat))
        act(game, A.ABDICATE)
        if i == 9:
            break
        nxt = (seat - 1) % 5
        if added is not None:
            travelling.append(added)
        assert game.to_act == nxt
        assert len(game.hand(seat)) == size - len(travelling)
        assert Counter(travelling) <= Counter(game.hand(nxt))
        if added is not None and added.rank is not bh.Rank.TWO:
            assert not [c for c in own if c.rank is bh.Rank.TWO]
    # two full rounds without an Emperor: a fresh deal
    assert stage(game) is Stage.EMPEROR and game.view(0).deal_no == 1
    assert "redeal" in event_types(game)
    assert sorted(len(game.hand(s)) for s in range(5)) == [33, 33, 34, 34, 34]
    assert any(c.rank is not bh.Rank.TWO and not c.is_joker for c in travelling)


# -- clockwise_with_two (seed 001) --------------------------------------------------

SEED001 = rules("seed001_216")


def test_clockwise_needs_three_identical_to_accept() -> None:
    able = find_game(SEED001, lambda g: bool(callable_cards(g, actor(g))))
    assert kinds(able) == [A.ACCEPT, A.ABDICATE]
    unable = find_game(SEED001, lambda g: not callable_cards(g, actor(g)))
    assert kinds(unable) == [A.ABDICATE]


def test_clockwise_passes_to_the_next_seat_with_a_two_and_returns_then_redeals() -> None:
    def has_twoless_decliner(g: Game) -> bool:
        c = g.to_act
        assert c is not None
        return any(not [x for x in g.hand((c + i) % 5) if x.rank is bh.Rank.TWO]
                   for i in (1, 2, 3, 4))
    game = find_game(SEED001, has_twoless_decliner)
    first = actor(game)
    twos: list[bh.Card] = []
    for i in range(5):
        seat = actor(game)
        assert seat == (first + i) % 5
        own = Counter(game.hand(seat)) - Counter(twos) - Counter([BJ_STAR])
        mine = sorted(c for c in own if c.rank is bh.Rank.TWO)
        act(game, A.ABDICATE)
        if i and mine:
            twos.append(mine[0])
        holder_now = (seat + 1) % 5
        assert Counter([BJ_STAR, *twos]) <= Counter(game.hand(holder_now))
    assert 0 < len(twos) < 4          # somebody had no 2 and added none
    # everything returns to the first candidate, who chooses once more
    assert game.to_act == first and game.stage is Stage.EMPEROR
    assert len(game.hand(first)) == 44 + len(twos)
    act(game, A.ABDICATE)
    assert game.view(0).deal_no == 1 and "redeal" in event_types(game)


# -- 逼位 / 流局 -----------------------------------------------------------------

FORCED = rules("lianzhong_simple", abdication="to_prev", forced_call=True,
               forced_call_rule="one_set_of_three")


def _forced_seat(g: Game, one_set: bool = True) -> int | None:
    c = g.to_act
    assert c is not None
    for i in range(5):
        seat = (c - i) % 5
        held = len(triples(g, seat))
        if held == 1 if one_set else held >= 1:
            return seat
    return None


def test_forced_call_makes_the_first_with_exactly_one_triple_emperor() -> None:
    """The older reading, ``forced_call_rule = one_set_of_three``."""
    game = find_game(FORCED, lambda g: _forced_seat(g) not in (None, g.to_act))
    expected = _forced_seat(game)
    assert expected is not None
    for _ in range(5):
        act(game, A.ABDICATE)
    assert game.emperor == expected and BJ_STAR in game.hand(expected)
    assert "forced" in event_types(game) and game.view(0).deal_no == 0


def test_no_triple_anywhere_is_a_void_deal() -> None:
    game = find_game(FORCED, lambda g: _forced_seat(g) is None)
    for _ in range(5):
        act(game, A.ABDICATE)
    assert game.emperor is None and game.stage is Stage.EMPEROR
    assert game.view(0).deal_no == 1
    assert any(e["type"] == "redeal" and "流局" in e["reason"] for e in game.events_for(None))


# -- 抢独 --------------------------------------------------------------------------

def test_emperor_solo_wins_before_anybody_may_steal() -> None:
    game = Game.new(rules(), 1)
    through_roles(game, lambda g: A.SOLO_OPEN if g.stage is Stage.EMPEROR_SOLO else None)
    assert game.solo == "open" and game.guard == game.emperor
    assert "steal" not in event_types(game) and "decline_steal" not in event_types(game)


def test_steal_order_is_upstream_from_the_emperor_and_the_nearest_claimant_wins() -> None:
    game = Game.new(rules(), 2)
    act(game, game.legal_actions()[0].kind)
    e = game.emperor
    assert e is not None
    act(game, A.DECLINE)
    assert stage(game) is Stage.STEAL and game.to_act == (e - 1) % 5
    act(game, A.DECLINE)
    assert game.to_act == (e - 2) % 5
    act(game, A.STEAL)        # e-3 and e-4 would also claim, but are never asked
    assert game.emperor == game.guard == (e - 2) % 5
    assert game.solo == "open" and game.view(0).solo == "open"
    steal = [ev for ev in game.events_for(None) if ev["type"] in ("steal", "decline_steal")]
    assert [ev["seat"] for ev in steal] == [(e - 1) % 5, (e - 2) % 5]
    assert stage(game) is Stage.KICK


def test_all_declining_the_steal_leads_to_the_guard() -> None:
    game = Game.new(rules(), 2)
    act(game, game.legal_actions()[0].kind)
    e = game.emperor
    assert e is not None
    asked = decline_until(game, Stage.GUARD)
    assert asked == [e, (e - 1) % 5, (e - 2) % 5, (e - 3) % 5, (e - 4) % 5]


def _meets(g: Game, seat: int) -> bool:
    return jokers(g, seat) >= 3 and four_identical(g, seat)


def test_steal_requirement_three_jokers_and_four_identical() -> None:
    def pred(g: Game) -> bool:
        c = g.to_act
        assert c is not None
        others = [(c - i) % 5 for i in (1, 2, 3, 4)]
        return (bool(callable_cards(g, c)) and any(_meets(g, s) for s in others)
                and not all(_meets(g, s) for s in others))
    game = find_game(CLASSIC, pred)
    act(game, A.ACCEPT)
    assert kinds(game) == [A.SOLO_OPEN, A.DECLINE]    # the Emperor himself needs nothing
    act(game, A.DECLINE)
    while stage(game) is Stage.STEAL:
        seat = actor(game)
        assert seat is not None
        if _meets(game, seat):
            assert kinds(game) == [A.STEAL, A.DECLINE]
            act(game, A.STEAL)
            assert game.emperor == seat and game.solo == "open"
            return
        assert kinds(game) == [A.DECLINE]
        act(game, A.DECLINE)
    raise AssertionError("nobody could steal")
