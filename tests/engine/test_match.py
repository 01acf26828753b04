"""Matches of consecutive games with running totals and tribute (docs/rules.md §9)."""

from __future__ import annotations

import random
from collections import Counter

import pytest
from helpers import rules

import baohuang as bh
from baohuang import Card, Game, Match, TributeBasis

SEED001 = rules("seed001_216")


def _hand(game: Game, seat: int) -> Counter[Card]:
    hand = Counter(game.hand(seat))
    hand.pop(bh.EMPEROR_CARD, None)   # dealt after the tribute (联众: held back)
    return hand


def tribute_diff(basis: TributeBasis, seed: int, dealer: int = 0,
                 ) -> tuple[list[Counter[Card]], list[Counter[Card]], list[Counter[Card]]]:
    """(hands before tribute, cards each seat gained, cards each seat lost)."""
    before = Game.new(SEED001, seed, dealer=dealer)
    after = Game.new(SEED001, seed, dealer=dealer, tribute=basis)
    pre = [_hand(before, s) for s in range(5)]
    post = [_hand(after, s) for s in range(5)]
    return pre, [post[s] - pre[s] for s in range(5)], [pre[s] - post[s] for s in range(5)]


def top_rank(hand: Counter[Card]) -> int:
    return max(c.rank for c in hand)


def ranks(cards: Counter[Card]) -> list[int]:
    return sorted((c.rank for c in cards.elements()), reverse=True)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_royal_win_emperor_takes_highest_and_lowest_guard_the_middle(seed: int) -> None:
    basis = TributeBasis(0, 1, None, True, (0, 3, 1, 4, 2))
    pre, gained, lost = tribute_diff(basis, seed)
    given = {}
    for rebel in (2, 3, 4):
        assert sum(lost[rebel].values()) == 1 and not gained[rebel]
        card = next(iter(lost[rebel]))
        assert card.rank == top_rank(pre[rebel])       # his highest card
        given[rebel] = card.rank
    assert sum(gained[0].values()) == 2 and sum(gained[1].values()) == 1
    three = sorted(given.values())
    assert ranks(gained[1]) == [three[1]]
    assert ranks(gained[0]) == [three[2], three[0]]
    assert not lost[0] and not lost[1]


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_rebel_win_they_take_highest_first_in_finishing_order(seed: int) -> None:
    basis = TributeBasis(0, 1, None, False, (3, 1, 4, 0, 2))
    pre, gained, lost = tribute_diff(basis, seed)
    assert sum(lost[0].values()) == 2 and sum(lost[1].values()) == 1
    e_top = ranks(pre[0])[:2]
    assert ranks(lost[0]) == e_top and ranks(lost[1]) == [top_rank(pre[1])]
    pool = sorted([*e_top, top_rank(pre[1])], reverse=True)
    assert [ranks(gained[s]) for s in (3, 4, 2)] == [[pool[0]], [pool[1]], [pool[2]]]


@pytest.mark.parametrize(("solo", "k"), [("hidden", 1), ("open", 2)])
def test_solo_tribute_one_card_each_doubled_for_open(solo: str, k: int) -> None:
    won = TributeBasis(2, 2, solo, True, (2, 0, 1, 3, 4))  # type: ignore[arg-type]
    pre, gained, lost = tribute_diff(won, 4)
    assert sum(gained[2].values()) == 4 * k
    for s in (0, 1, 3, 4):
        assert sum(lost[s].values()) == k and ranks(lost[s]) == ranks(pre[s])[:k]
    lose = TributeBasis(2, 2, solo, False, (4, 0, 3, 1, 2))  # type: ignore[arg-type]
    pre, gained, lost = tribute_diff(lose, 4)
    top = ranks(pre[2])[:4 * k]
    assert ranks(lost[2]) == top
    for i, s in enumerate((4, 0, 3, 1)):
        assert ranks(gained[s]) == top[i * k:(i + 1) * k]


def test_no_tribute_after_a_draw_or_with_the_option_off() -> None:
    draw = TributeBasis(0, 1, None, None, (0, 2, 3, 1, 4))
    _, gained, lost = tribute_diff(draw, 5)
    assert not any(gained) and not any(lost)
    basis = TributeBasis(0, 1, None, True, (0, 3, 1, 4, 2))
    off = Game.new(rules("shandong"), 5, tribute=basis)
    plain = Game.new(rules("shandong"), 5)
    assert [off.hand(s) for s in range(5)] == [plain.hand(s) for s in range(5)]
    assert off.record()["tribute"] is None


def test_tribute_cards_are_shown_to_giver_and_receiver_only() -> None:
    basis = TributeBasis(0, 1, None, True, (0, 3, 1, 4, 2))
    game = Game.new(SEED001, 2, tribute=basis)
    for viewer in (None, 0, 1, 2, 3, 4):
        evs = [e for e in game.events_for(viewer) if e["type"] == "tribute"]
        assert len(evs) == 3
        for ev in evs:
            mine = viewer in (ev["seat"], ev["to"])
            assert ("card" in ev) == mine


def play_match(seed: int, games: int, preset: str = "seed001_216") -> Match:
    match = Match(rules(preset), seed=seed, games=games)
    rng = random.Random(seed)
    steps = 0
    while not match.is_over:
        assert not match.advance()          # the game is not over yet
        match.game.apply(rng.choice(match.game.legal_actions()))
        if match.game.is_over:
            assert match.advance()
        steps += 1
        assert steps < 10000
    return match


def test_match_chains_games_dealer_tribute_and_totals() -> None:
    match = play_match(0, 3)
    assert len(match.results) == 3 and not match.advance()
    assert match.totals == [sum(r.scores[s] for r in match.results) for s in range(5)]
    records = match.record()["records"]
    assert records[0]["dealer"] == 0 and records[0]["tribute"] is None
    for prev, rec in zip(match.results, records[1:], strict=False):
        assert rec["dealer"] == prev.emperor
        assert prev.emperor is not None and prev.guard is not None
        expected = TributeBasis(prev.emperor, prev.guard, prev.solo, prev.royal_won, prev.order)
        assert rec["tribute"] == expected.to_dict()
    assert [r["seed"] for r in records] == [match.game_seed(i) for i in range(3)]


def test_match_after_a_draw_has_no_tribute() -> None:
    for seed in range(30):
        match = play_match(seed, 2)
        if match.results[0].royal_won is None:
            second = Game.from_record(match.record()["records"][1])
            assert not [e for e in second.events_for(None) if e["type"] == "tribute"]
            fresh = Game.new(SEED001, match.game_seed(1), dealer=second.view(None).dealer)
            deal = Game.from_record({**second.record(), "actions": []})
            assert [deal.hand(s) for s in range(5)] == [fresh.hand(s) for s in range(5)]
            return
    raise AssertionError("no drawn first game in 30 matches")


def test_match_without_tribute_option() -> None:
    match = play_match(1, 2, "shandong")
    assert all(r["tribute"] is None for r in match.record()["records"])
    assert match.totals == [a + b for a, b in zip(match.results[0].scores,
                                                   match.results[1].scores, strict=True)]


def test_match_needs_a_game() -> None:
    with pytest.raises(ValueError, match="at least one game"):
        Match(games=0)
