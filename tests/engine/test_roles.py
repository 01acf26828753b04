"""The role phase (docs/rules.md §6) on real deals: every abdication kind, 逼位/流局,
抢独, both guard modes and the declarations in order."""

from __future__ import annotations

from collections import Counter

from helpers import (
    A,
    act,
    actor,
    callable_cards,
    find_game,
    four_identical,
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


def holder(game: Game, card: bh.Card) -> int:
    return next(s for s in range(5) if card in game.hand(s))


def event_types(game: Game) -> list[str]:
    return [e["type"] for e in game.events_for(None)]


def decline_until(game: Game, until: Stage) -> list[int]:
    """Answer ``decline`` (or the only legal answer) until ``until``; the seats asked."""
    asked = []
    while stage(game) is not until:
        asked.append(game.to_act)
        k = kinds(game)
        act(game, A.DECLINE if A.DECLINE in k else k[0])
    return [s for s in asked if s is not None]


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


# -- the Guard: card mode ----------------------------------------------------------------

def two_v_three(seed_from: int = 0) -> Game:
    """A shandong deal whose candidate keeps the throne without the Guard card,
    stopped at the Guard's decision."""
    game = find_game(rules(), lambda g: SJ_STAR not in g.hand(actor(g)), range(seed_from, 4000))
    act(game, A.ACCEPT)
    decline_until(game, Stage.GUARD)
    return game


def test_card_mode_guard_is_the_holder_of_the_guard_card() -> None:
    game = two_v_three()
    assert game.guard == holder(game, SJ_STAR) != game.emperor
    assert game.to_act == game.guard


def test_guard_open_is_public_doubles_and_rebels_may_kick() -> None:
    game = two_v_three()
    e, g = game.emperor, game.guard
    assert e is not None and g is not None
    act(game, A.GUARD_OPEN)
    for seat in range(5):
        assert game.view(seat).guard == g and game.view(seat).guard_open
    assert game.view(None).stake == 2
    rebels = [(e + i) % 5 for i in range(1, 5) if (e + i) % 5 != g]
    asked = []
    votes = iter([A.KICK, A.DECLINE, A.KICK])
    while stage(game) is Stage.KICK:
        asked.append(game.to_act)
        act(game, next(votes))
    assert asked == rebels            # each rebel once, from the Emperor's 下家
    assert stage(game) is Stage.PLAY and game.view(None).kicks == 1
    assert game.view(None).stake == 4
    assert "kick_stands" in event_types(game)


def test_a_single_rebel_kick_does_not_stand() -> None:
    game = two_v_three()
    act(game, A.GUARD_OPEN)
    votes = iter([A.DECLINE, A.KICK, A.DECLINE])
    while stage(game) is Stage.KICK:
        act(game, next(votes))
    assert game.view(None).kicks == 0 and game.view(None).stake == 2


def test_guard_hidden_asks_every_other_seat_about_rebellion() -> None:
    game = two_v_three()
    e, g = game.emperor, game.guard
    assert e is not None
    act(game, A.GUARD_HIDDEN)
    assert stage(game) is Stage.REBELLION
    asked = decline_until(game, Stage.PLAY)
    assert asked == [(e + i) % 5 for i in range(1, 5)]       # the hidden Guard too
    assert g in asked
    assert game.view(None).guard is None and game.view(None).rebels == ()


def test_standing_rebellion_reveals_doubles_then_a_royal_kick() -> None:
    game = two_v_three()
    e, g = game.emperor, game.guard
    assert e is not None and g is not None
    act(game, A.GUARD_HIDDEN)
    votes = {(e + 1) % 5: A.REBEL, (e + 2) % 5: A.DECLINE, (e + 3) % 5: A.REBEL,
             (e + 4) % 5: A.DECLINE}
    while stage(game) is Stage.REBELLION:
        assert game.to_act is not None
        act(game, votes[game.to_act])
    rebels = ((e + 1) % 5, (e + 3) % 5)
    assert game.view(None).guard == g and game.view(None).rebels == rebels
    assert game.view(None).stake == 2
    assert "rebellion_stands" in event_types(game)
    # the Emperor is asked first; the Guard after him
    assert stage(game) is Stage.KICK and game.to_act == e
    act(game, A.DECLINE)
    assert game.to_act == g
    act(game, A.KICK)
    assert stage(game) is Stage.PLAY and game.view(None).kicks == 1
    assert game.view(None).stake == 4


def test_emperor_kick_after_rebellion_is_enough() -> None:
    game = two_v_three()
    e = game.emperor
    assert e is not None
    act(game, A.GUARD_HIDDEN)
    while stage(game) is Stage.REBELLION:
        act(game, A.REBEL)
    act(game, A.KICK)
    assert stage(game) is Stage.PLAY and game.view(None).kicks == 1


def test_a_lone_rebel_does_not_reveal_the_guard() -> None:
    game = two_v_three()
    e = game.emperor
    assert e is not None
    act(game, A.GUARD_HIDDEN)
    lone = (e + 2) % 5
    while stage(game) is Stage.REBELLION:
        act(game, A.REBEL if game.to_act == lone else A.DECLINE)
    assert stage(game) is Stage.PLAY
    assert game.view(None).guard is None and game.view(None).stake == 1
    assert game.view(None).rebels == (lone,)
    assert "rebellion_stands" not in event_types(game)


def test_hidden_solo_rebellion_reveals_the_solo_and_only_the_emperor_may_kick() -> None:
    game = find_game(rules(), lambda g: SJ_STAR in g.hand(actor(g)))
    e = actor(game)
    act(game, A.ACCEPT)
    decline_until(game, Stage.GUARD)
    act(game, A.SOLO_HIDDEN)
    for seat in range(5):
        if seat != e:
            assert game.view(seat).solo is None
    while stage(game) is Stage.REBELLION:
        act(game, A.REBEL)
    for viewer in (None, 0, 1, 2, 3, 4):
        view = game.view(viewer)
        assert view.solo == "hidden" and view.guard == e and view.stake == 2
    assert stage(game) is Stage.KICK and game.to_act == e
    act(game, A.DECLINE)
    assert stage(game) is Stage.PLAY and game.view(None).kicks == 0


def test_open_solo_is_kicked_by_its_four_rebels() -> None:
    game = find_game(rules(), lambda g: SJ_STAR in g.hand(actor(g)))
    e = actor(game)
    assert e is not None
    act(game, A.ACCEPT)
    decline_until(game, Stage.GUARD)
    act(game, A.SOLO_OPEN)
    asked = []
    while stage(game) is Stage.KICK:
        asked.append(game.to_act)
        act(game, A.KICK)
    assert asked == [(e + i) % 5 for i in range(1, 5)]
    assert game.view(None).kicks == 1 and game.solo == "open"


def test_no_rebellion_or_kick_stage_when_the_options_are_off() -> None:
    game = two_v_three()
    g2 = Game.new(rules(rebellion=False, kick=False), game.seed)
    act(g2, A.ACCEPT)
    decline_until(g2, Stage.GUARD)
    act(g2, A.GUARD_HIDDEN)
    assert stage(g2) is Stage.PLAY and "no_rebel" not in event_types(g2)
    g3 = Game.new(rules(kick=False), game.seed)
    act(g3, A.ACCEPT)
    decline_until(g3, Stage.GUARD)
    act(g3, A.GUARD_OPEN)
    assert stage(g3) is Stage.PLAY and "no_kick" not in event_types(g3)


# -- the Guard: call mode ------------------------------------------------------------

def test_call_mode_the_holder_of_the_fourth_copy_is_guard() -> None:
    game = find_game(CLASSIC, lambda g: any(n == 3 for c, n in Counter(g.hand(actor(g))).items()
                                            if c.rank < bh.Rank.TWO))
    e = actor(game)
    assert e is not None
    act(game, A.ACCEPT)
    decline_until(game, Stage.CALL)
    assert game.to_act == e
    calls = [a for a in game.legal_actions() if a.kind is not A.SOLO_OPEN]
    assert {a.cards[0] for a in calls} == set(callable_cards(game, e))
    assert all(a.kind is A.CALL and len(a.cards) == 1 for a in calls)
    three = next(a for a in calls if Counter(game.hand(e))[a.cards[0]] == 3)
    game.apply(three)
    card = three.cards[0]
    guard = next(s for s in range(5) if s != e and card in game.hand(s))
    assert game.guard == guard and game.to_act == guard
    assert game.view(None).called == card
    assert kinds(game) == [A.GUARD_OPEN, A.GUARD_HIDDEN]
    for seat in range(5):
        assert game.view(seat).guard == (guard if seat == guard else None)


def test_call_mode_calling_four_copies_is_solo() -> None:
    game = find_game(CLASSIC, lambda g: any(n == 4 for c, n in Counter(g.hand(actor(g))).items()
                                            if c.rank < bh.Rank.TWO))
    e = actor(game)
    act(game, A.ACCEPT)
    decline_until(game, Stage.CALL)
    four = next(a for a in game.legal_actions()
                if a.kind is A.CALL and Counter(game.hand(e))[a.cards[0]] == 4)
    game.apply(four)
    # seed 002: "叫自己手中四张同花色同点数的牌“暗独保”": calling four is hidden solo
    assert stage(game) is Stage.GUARD and game.guard == e == game.to_act
    assert kinds(game) == [A.SOLO_HIDDEN]
    act(game, A.SOLO_HIDDEN)
    assert game.solo == "hidden" and game.stage is Stage.REBELLION   # classic: 造反 on
    assert all(game.view(s).solo is None for s in range(5) if s != e)


def test_call_mode_cannot_call_a_two_or_a_joker() -> None:
    game = find_game(SEED001, lambda g: bool(callable_cards(g, actor(g))) and any(
        n >= 3 and c.rank is bh.Rank.TWO for c, n in Counter(g.hand(actor(g))).items()))
    act(game, A.ACCEPT)
    assert stage(game) is Stage.CALL
    assert not [a for a in game.legal_actions() if a.cards and a.cards[0].rank >= bh.Rank.TWO]
    two = next(c for c, n in Counter(game.hand(actor(game))).items()
               if n >= 3 and c.rank is bh.Rank.TWO)
    try:
        game.apply(Action(A.CALL, (two,)))
    except bh.IllegalAction as exc:
        assert "call" in exc.reason
    else:
        raise AssertionError("a 2 was called")


def test_call_mode_with_no_abdication_passes_an_uncallable_throne_on() -> None:
    r = rules("lianzhong_classic", abdication="none", steal_solo=False)
    game = find_game(r, lambda g: g.stage is Stage.CALL and "abdicate" in event_types(g))
    assert game.to_act == game.emperor
    e = game.emperor
    assert e is not None and callable_cards(game, e)
    passes = [ev for ev in game.events_for(None) if ev["type"] == "abdicate"]
    assert passes[-1]["to"] == e
    for ev in passes:
        assert ev["to"] == (ev["seat"] + 1) % 5
