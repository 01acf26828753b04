"""The end of a game (docs/rules.md §7, §8): two against three, an open or hidden
solo, placement scoring, the lone rebel, and the multipliers of a standing rebellion
and kicks on the final scores."""

from __future__ import annotations

import pytest
from helpers import (
    A,
    actor,
    find_game,
    in_play,
    play_in_order,
    rebels_of,
    rules,
    through_roles,
)

import baohuang as bh
from baohuang import Stage, settle


def test_two_against_three_ends_when_both_royals_are_out() -> None:
    game = in_play(rules())
    e, g = game.emperor, game.guard
    assert e is not None and g is not None
    play_in_order(game, [e, g])
    result = game.result
    assert result is not None and result.order[:2] == (e, g)
    assert result.places[e] == 1 and result.places[g] == 2
    assert all(result.places[r] is None for r in rebels_of(game))
    assert result.scores[e] == 6 and result.scores[g] == 3
    assert all(result.scores[r] == -3 for r in rebels_of(game))
    assert result.royal_won is True


def test_two_against_three_ends_when_the_three_rebels_are_out() -> None:
    game = in_play(rules(), guard_open=True)
    e, g = game.emperor, game.guard
    assert e is not None and g is not None
    rebels = rebels_of(game)
    play_in_order(game, rebels)
    result = game.result
    assert result is not None
    assert result.places[e] is None and result.places[g] is None
    stake = 2 * 2 ** game.view(None).kicks        # 明保 doubles
    assert result.scores == settle(result.places, e, g, guard_open=True,
                                   kicks=game.view(None).kicks)
    assert result.scores[g] == -3 * stake and result.scores[e] == -6 * stake
    assert result.royal_won is False


def test_the_royal_game_goes_on_while_one_of_each_side_is_in() -> None:
    game = in_play(rules())
    e, g = game.emperor, game.guard
    r = rebels_of(game)
    assert e is not None and g is not None
    play_in_order(game, [r[0], e, r[1], g])
    result = game.result
    assert result is not None and result.order[:4] == (r[0], e, r[1], g)
    assert result.places[g] == 4 and result.places[r[2]] is None
    assert result.scores[g] == 6 - (2 + 4)


def test_open_solo_emperor_first() -> None:
    game = in_play(rules(), solo="open")
    e = game.emperor
    assert e is not None
    play_in_order(game, [e])
    result = game.result
    assert result is not None and result.places[e] == 1
    stake = 2 ** game.view(None).kicks
    assert result.scores[e] == 24 * stake
    assert sum(p is not None for p in result.places) == 1


def test_open_solo_ends_when_anyone_else_goes_out_first() -> None:
    game = in_play(rules(), solo="open")
    e = game.emperor
    assert e is not None
    other = (e + 2) % 5
    play_in_order(game, [other])
    result = game.result
    assert result is not None and result.places[other] == 1 and result.places[e] is None
    assert result.scores[e] == -24 * 2 ** game.view(None).kicks
    assert result.royal_won is False


@pytest.mark.parametrize(("place", "score"), [(1, 12), (2, 0), (None, -12)])
def test_hidden_solo_ends(place: int | None, score: int) -> None:
    game = in_play(rules(), solo="hidden")
    e = game.emperor
    assert e is not None
    o1, o2 = (e + 1) % 5, (e + 3) % 5
    order = {1: [e], 2: [o1, e], None: [o1, o2]}[place]
    play_in_order(game, order)
    result = game.result
    assert result is not None
    assert result.places[e] == place
    assert sum(p is not None for p in result.places) == len(order)
    assert result.scores[e] == score
    assert result.royal_won is (None if score == 0 else score > 0)


def test_placement_scoring_ends_when_four_are_out() -> None:
    r = rules("shandong", scoring="placement", steal_solo=False, rebellion=False, kick=False)
    game = in_play(r)
    e, g = game.emperor, game.guard
    assert e is not None and g is not None
    rebels = rebels_of(game)
    play_in_order(game, [e, rebels[0], g, rebels[1]])
    result = game.result
    assert result is not None
    assert result.places[rebels[2]] is None
    assert sorted(p for p in result.places if p is not None) == [1, 2, 3, 4]
    # royal 1st (+4) and 3rd (0): +4 for each royal, -4 for each rebel
    assert result.scores[e] == result.scores[g] == 4
    assert all(result.scores[s] == -4 for s in rebels)


def test_lone_rebel_gets_double_at_the_end() -> None:
    game = find_game(rules(), lambda g: bh.GUARD_CARD not in g.hand(actor(g)))
    lone = (actor(game) + 1) % 5
    through_roles(game, lambda g: A.REBEL if g.stage is Stage.REBELLION and
                  g.to_act == lone else None)
    e, g = game.emperor, game.guard
    assert e is not None and g is not None and game.view(None).rebels == (lone,)
    play_in_order(game, [e, g], reveal=False)
    result = game.result
    assert result is not None
    assert result.scores[lone] == 2 * -3
    assert all(result.scores[s] == -3 for s in rebels_of(game) if s != lone)
    assert (result.scores[e], result.scores[g]) == (6, 3)
    assert sum(result.scores) == -3


def test_standing_rebellion_and_kick_multiply_the_final_scores() -> None:
    game = find_game(rules(), lambda g: bh.GUARD_CARD not in g.hand(actor(g)))
    through_roles(game, lambda g: A.REBEL if g.stage is Stage.REBELLION else
                  A.KICK if g.stage is Stage.KICK else None)
    e, g = game.emperor, game.guard
    assert e is not None and g is not None and game.view(None).stake == 4
    play_in_order(game, [g, e])
    result = game.result
    assert result is not None
    assert (result.scores[e], result.scores[g]) == (24, 12)
    assert all(result.scores[s] == -12 for s in rebels_of(game)) and sum(result.scores) == 0


def test_guard_open_kicked_by_rebels_quadruples() -> None:
    game = find_game(rules(), lambda g: bh.GUARD_CARD not in g.hand(actor(g)))
    through_roles(game, lambda g: A.GUARD_OPEN if g.stage is Stage.GUARD else
                  A.KICK if g.stage is Stage.KICK else None)
    e, g = game.emperor, game.guard
    assert e is not None and g is not None
    assert game.view(None).kicks == 1 and game.view(None).stake == 4
    play_in_order(game, [e, g])
    result = game.result
    assert result is not None and (result.scores[e], result.scores[g]) == (24, 12)


def test_hidden_solo_revealed_by_rebellion_scores_double() -> None:
    game = find_game(rules(), lambda g: bh.GUARD_CARD in g.hand(actor(g)))
    through_roles(game, lambda g: A.REBEL if g.stage is Stage.REBELLION else None)
    e = game.emperor
    assert game.solo == "hidden" and e is not None and game.view(None).guard == e
    play_in_order(game, [e])
    result = game.result
    assert result is not None and result.scores[e] == 24
    assert all(result.scores[s] == -6 for s in range(5) if s != e)
