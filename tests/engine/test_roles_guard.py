"""The Guard in the role phase (docs/rules.md §6): in card mode the holder of the Guard
card, 明保/暗保, rebellion and kicks; in call mode the called card's holder, a call of
four copies as a solo, and what may not be called."""

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
    holder,
    kinds,
    rules,
    stage,
)

import baohuang as bh
from baohuang import Action, Game, Stage

SJ_STAR = bh.GUARD_CARD
CLASSIC = rules("lianzhong_classic")
SEED001 = rules("seed001_216")


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
