"""Scores (docs/rules.md §8.1, §8.2) and tribute transfers (§9) as functions."""

from __future__ import annotations

import itertools
from collections import Counter

import pytest
from helpers import rules

from baohuang import Card, TributeBasis, parse_cards, settle, tribute_transfers

PLACEMENT = rules(scoring="placement")


@pytest.mark.parametrize("places", list(itertools.permutations([1, 2, 3, 4, 5])))
def test_two_against_three_formula(places: tuple[int, ...]) -> None:
    e, g = 0, 3
    scores = settle(places, e, g)
    guard = 6 - (places[e] + places[g])
    assert scores[g] == guard and scores[e] == 2 * guard
    assert all(scores[s] == -guard for s in (1, 2, 4))
    assert sum(scores) == 0
    assert -3 <= scores[g] <= 3 and -6 <= scores[e] <= 6


def test_two_against_three_extremes() -> None:
    assert settle([1, 2, None, None, None], 0, 1) == (6, 3, -3, -3, -3)
    # all rebels out: the royal pair takes the worst places (4 and 5)
    assert settle([None, None, 1, 2, 3], 0, 1) == (-6, -3, 3, 3, 3)
    assert settle([1, None, 2, 3, 4], 0, 1) == (0, 0, 0, 0, 0)


def test_open_solo_table() -> None:
    assert settle([1, None, None, None, None], 0, 0, solo="open") == (24, -6, -6, -6, -6)
    assert settle([None, None, 1, None, None], 0, 0, solo="open") == (-24, 6, 6, 6, 6)


@pytest.mark.parametrize(("place", "emperor", "other"), [
    (1, 12, -3), (2, 0, 0), (3, -12, 3), (4, -12, 3), (5, -12, 3), (None, -12, 3)])
def test_hidden_solo_table(place: int | None, emperor: int, other: int) -> None:
    places: list[int | None] = [None] * 5
    places[2] = place
    others = [p for p in (1, 2, 3, 4, 5) if p != place]
    for seat in (0, 1):
        places[seat] = others.pop(0)
    scores = settle(places, 2, 2, solo="hidden")
    assert scores[2] == emperor
    assert all(scores[s] == other for s in range(5) if s != 2)
    assert sum(scores) == 0


def test_guard_open_doubles() -> None:
    base = settle([1, 3, 2, 4, 5], 0, 2)
    assert base == (6, -3, 3, -3, -3)
    assert settle([1, 3, 2, 4, 5], 0, 2, guard_open=True) == tuple(2 * s for s in base)


@pytest.mark.parametrize("rebels", [(1, 3), (1, 3, 4), (2, 4)])
def test_standing_rebellion_doubles(rebels: tuple[int, ...]) -> None:
    base = settle([2, 1, 5, 3, 4], 0, 2)
    assert settle([2, 1, 5, 3, 4], 0, 2, rebels=rebels) == tuple(2 * s for s in base)


def test_hidden_solo_revealed_by_rebellion_doubles() -> None:
    assert settle([1, None, 2, None, 3], 0, 0, solo="hidden", rebels=(1, 2)) == \
        (24, -6, -6, -6, -6)
    assert settle([3, 1, 2, None, None], 0, 0, solo="hidden", rebels=(1, 2, 4), kicks=1) == \
        (-48, 12, 12, 12, 12)


@pytest.mark.parametrize("kicks", [0, 1, 2, 3])
def test_each_kick_doubles(kicks: int) -> None:
    base = settle([4, 5, 1, 2, 3], 0, 1)
    assert settle([4, 5, 1, 2, 3], 0, 1, kicks=kicks) == tuple(s * 2 ** kicks for s in base)
    assert settle([4, 5, 1, 2, 3], 0, 1, guard_open=True, kicks=kicks) == \
        tuple(s * 2 ** (kicks + 1) for s in base)
    assert settle([1, 2, 3, 4, 5], 0, 0, solo="open", kicks=kicks)[0] == 24 * 2 ** kicks


@pytest.mark.parametrize("rebel", [1, 3, 4, 2])
def test_lone_rebel_doubles_only_his_own_score(rebel: int) -> None:
    places = [3, 4, 1, 2, 5]
    base = settle(places, 0, 2)
    scores = settle(places, 0, 2, rebels=(rebel,))
    for seat in range(5):
        assert scores[seat] == base[seat] * (2 if seat == rebel else 1)
    assert sum(scores) == base[rebel]     # not zero-sum by exactly his doubling


def test_placement_scoring_example_of_seed_001() -> None:
    # Emperor 1st (+4), Guard 二落 (-2): the royal side has 2, the rebels -2.
    scores = settle([1, 2, 3, 4, 5], 0, 3, rules=PLACEMENT)
    assert scores == (2, -2, -2, 2, -2)


def test_placement_draw_and_solo() -> None:
    assert settle([1, 2, 3, 4, 5], 0, 4, rules=PLACEMENT) == (0, 0, 0, 0, 0)
    # open solo doubles: 1st = 4 points, doubled
    assert settle([1, 2, 3, 4, None], 0, 0, rules=PLACEMENT, solo="open") == (8, -8, -8, -8, -8)
    assert settle([2, 1, 3, 4, None], 0, 0, rules=PLACEMENT, solo="hidden") == (2, -2, -2, -2, -2)
    assert settle([5, 1, 3, 4, 2], 0, 0, rules=PLACEMENT, solo="open") == (-8, 8, 8, 8, 8)
    # the one player not out takes 5th place
    assert settle([None, 1, 2, 3, 4], 0, 2, rules=PLACEMENT) == (-2, 2, -2, 2, 2)


def test_settle_rejects_bad_input() -> None:
    with pytest.raises(ValueError, match="5 entries"):
        settle([1, 2, 3], 0, 1)
    with pytest.raises(ValueError, match="distinct"):
        settle([1, 1, 2, 3, 4], 0, 1)
    with pytest.raises(ValueError, match="distinct"):
        settle([0, 1, 2, 3, 4], 0, 1)
    with pytest.raises(ValueError, match="guard == emperor"):
        settle([1, 2, 3, 4, 5], 0, 1, solo="open")
    with pytest.raises(ValueError, match="solo"):
        settle([1, 2, 3, 4, 5], 0, 0)
    with pytest.raises(ValueError, match="emperor"):
        settle([1, 2, 3, 4, 5], 7, 1)


# -- tribute -------------------------------------------------------------------

def _hands(*texts: str) -> list[Counter[Card]]:
    return [Counter(parse_cards(t)) for t in texts]


def _moves(transfers: list[tuple[int, int, Card]]) -> set[tuple[int, int, str]]:
    return {(g, r, str(c)) for g, r, c in transfers}


HANDS = _hands("2 9 9 7", "A K 8", "BJ 10 7", "A 6 6", "9 8 8")


def test_royal_won_emperor_takes_highest_and_lowest_guard_the_middle() -> None:
    basis = TributeBasis(emperor=0, guard=1, solo=None, royal_won=True, order=(0, 3, 1, 2, 4))
    assert _moves(tribute_transfers(basis, HANDS)) == {
        (2, 0, "BJ"), (3, 1, "A"), (4, 0, "9")}


def test_rebels_won_take_highest_first_in_finishing_order() -> None:
    basis = TributeBasis(emperor=0, guard=1, solo=None, royal_won=False, order=(4, 2, 3, 1, 0))
    # pool: Emperor's 2 and 9, Guard's A -> 2, A, 9 to seats 4, 2, 3
    assert tribute_transfers(basis, HANDS) == [
        (0, 4, parse_cards("2")[0]), (1, 2, parse_cards("A")[0]), (0, 3, parse_cards("9")[0])]


@pytest.mark.parametrize(("solo", "k"), [("hidden", 1), ("open", 2)])
def test_solo_tribute(solo: str, k: int) -> None:
    won = TributeBasis(2, 2, solo, True, (2, 0, 1, 3, 4))     # type: ignore[arg-type]
    moves = tribute_transfers(won, HANDS)
    assert len(moves) == 4 * k and all(r == 2 for _, r, _ in moves)
    assert Counter(g for g, _, _ in moves) == {0: k, 1: k, 3: k, 4: k}
    lost = TributeBasis(2, 2, solo, False, (3, 0, 4, 1, 2))   # type: ignore[arg-type]
    hands = _hands("6", "6", "BJ 2 A K Q J 10 9", "6", "6")
    moves = tribute_transfers(lost, hands)
    assert all(g == 2 for g, _, _ in moves)
    got = [str(c) for _, _, c in moves]
    assert got == ["BJ", "2", "A", "K", "Q", "J", "10", "9"][:4 * k]
    receivers = [r for _, r, _ in moves]
    assert receivers == [s for s in (3, 0, 4, 1) for _ in range(k)]


def test_no_tribute_after_a_draw() -> None:
    assert tribute_transfers(TributeBasis(0, 1, None, None, (0, 1, 2, 3, 4)), HANDS) == []


def test_tribute_gives_an_ordinary_joker_before_a_marked_one() -> None:
    hands = _hands("7", "7", "BJ* BJ", "6", "6")
    basis = TributeBasis(0, 1, None, True, (0, 1, 2, 3, 4))
    assert (2, 0, parse_cards("BJ")[0]) in tribute_transfers(basis, hands)


def test_tribute_basis_round_trip_and_errors() -> None:
    basis = TributeBasis(0, 1, "hidden", True, (0, 1, 2, 3, 4))
    assert TributeBasis.from_dict(basis.to_dict()) == basis
    for bad in ({"emperor": 0, "guard": 1, "order": [0, 1, 2, 3]},
                {"emperor": 9, "guard": 1, "order": [0, 1, 2, 3, 4]},
                {"emperor": 0, "guard": 1, "solo": "both", "order": [0, 1, 2, 3, 4]}):
        with pytest.raises(ValueError):
            TributeBasis.from_dict(bad)
