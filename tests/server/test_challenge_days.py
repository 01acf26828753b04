"""The arithmetic of 每日挑战 (``server/challenge/days.py``) and its bots: matchpoints
and differences as properties; a day's deals are a function of its seed and date; and
the bot levels a challenge accepts answer a position always the same way, whatever
they saw before and whatever their seed (so every player of a deal meets the same
opponents), while the level it refuses does not."""

from __future__ import annotations

import pytest
from helpers import examples
from hypothesis import given, settings
from hypothesis import strategies as st

import baohuang as bh
from baohuang.bots import is_bot, make_bot
from baohuang.server.challenge.days import (
    day_bounds,
    day_of,
    deal_of,
    differences,
    matchpoints,
    ranking,
)
from baohuang.server.challenge.service import DETERMINISTIC_BOTS

scores = st.lists(st.integers(-40, 40), min_size=1, max_size=30)


@settings(max_examples=examples(200), deadline=None)
@given(scores)
def test_matchpoints_share_the_deal_evenly_and_follow_the_scores(values: list[int]) -> None:
    points = matchpoints(values)
    assert sum(points) == pytest.approx(len(values) / 2)     # every pair gives out 1
    for a, pa in zip(values, points, strict=True):
        for b, pb in zip(values, points, strict=True):
            assert (pa > pb) == (a > b) and (pa == pb) == (a == b)
    assert sum(differences(values)) == pytest.approx(0, abs=1e-9)


@settings(max_examples=examples(100), deadline=None)
@given(st.dictionaries(st.integers(1, 6), st.lists(st.integers(-20, 20), min_size=1,
                                                   max_size=8), min_size=1))
def test_the_ranking_is_the_mean_of_each_players_matchpoints(deals: dict[int, list[int]]
                                                             ) -> None:
    results = {deal: [(user, f"p{user}", score) for user, score in enumerate(values)]
               for deal, values in deals.items()}
    standings = ranking(results)
    for standing in standings:
        mine = [matchpoints(values)[standing.user_id] for values in deals.values()
                if standing.user_id < len(values)]
        assert standing.played == len(mine)
        assert standing.matchpoints == pytest.approx(sum(mine) / len(mine))
    assert [s.rank for s in standings] == sorted(s.rank for s in standings)
    assert standings[0].rank == 1


def test_a_days_deals_come_from_its_seed_and_date_only() -> None:
    seed = "ab" * 32
    deals = [deal_of(seed, "2026-12-07", n) for n in range(1, 7)]
    assert deals == [deal_of(seed, "2026-12-07", n) for n in range(1, 7)]
    assert len({d.table_seed for d in deals}) == 6
    assert all(0 <= d.table_seed < 2**31 and 0 <= d.seat < 5 for d in deals)
    assert deal_of("cd" * 32, "2026-12-07", 1) != deals[0]
    assert deal_of(seed, "2026-12-08", 1) != deals[0]


def test_a_day_is_the_calendar_day_of_the_servers_zone() -> None:
    start, end = day_bounds("2026-12-07", "Asia/Shanghai")
    assert end - start == 24 * 3600
    assert day_of(start, "Asia/Shanghai") == "2026-12-07"
    assert day_of(end - 0.001, "Asia/Shanghai") == "2026-12-07"
    assert day_of(end, "Asia/Shanghai") == "2026-12-08"
    assert day_of(start, "UTC") == "2026-12-06"


def _positions(seed: int) -> list[tuple[bh.View, list[bh.Action], int]]:
    """Every decision of a game played by heuristic bots: the view, the legal actions."""
    game = bh.Game.new(bh.RuleSet.preset("shandong"), seed * 1000, dealer=0)
    players = [make_bot("heuristic", seed=s) for s in range(5)]
    seen = []
    while not game.is_over:
        seat = game.to_act
        assert seat is not None
        legal = list(game.legal_actions())
        view = game.view(seat)
        seen.append((view, legal, seat))
        game.apply(players[seat].choose(view, legal))
    return seen


@pytest.mark.parametrize("level", sorted(DETERMINISTIC_BOTS))
def test_a_challenge_bot_answers_a_position_always_the_same_way(level: str) -> None:
    if not is_bot(level):
        pytest.skip(f"{level} is not installed")
    positions = _positions(20261207)[::3]
    # one bot that has seen every position in order, and a fresh one (another seed) for
    # each position alone
    player = make_bot(level, seed=1)
    in_order = [player.choose(view, legal) for view, legal, _ in positions]
    alone = [make_bot(level, seed=99 + i).choose(view, legal)
             for i, (view, legal, _) in enumerate(positions)]
    assert in_order == alone


def test_the_easy_level_is_not_one_of_them() -> None:
    """(Its slips are random: two seeds answer some position differently.)"""
    assert "easy" not in DETERMINISTIC_BOTS
    positions = _positions(20261207)
    first = [make_bot("easy", seed=1).choose(v, legal) for v, legal, _ in positions]
    second = [make_bot("easy", seed=2).choose(v, legal) for v, legal, _ in positions]
    assert first != second


@settings(max_examples=examples(100), deadline=None)
@given(st.lists(st.integers(-40, 40), min_size=2, max_size=12))
def test_players_equal_over_the_day_share_a_rank(values: list[int]) -> None:
    """Each of ``len(values)`` deals gives every player one of the scores, a different one
    each time: over the day all are equal and all rank first, in whatever order each
    player's matchpoints add up."""
    n = len(values)
    results = {deal: [(user, f"p{user}", values[(user + deal) % n]) for user in range(n)]
               for deal in range(n)}
    assert {s.rank for s in ranking(results)} == {1}
