"""Duplicate tournaments: the seat arrangements, reproducibility from the
seed, scores that add up, and the ``baohuang tournament`` command."""

from __future__ import annotations

import importlib.util
import json
import os
import sys
import time
from collections import Counter
from typing import Any, ClassVar

import pytest
from hypothesis import given
from hypothesis import strategies as st
from typer.testing import CliRunner

from baohuang import RuleSet
from baohuang.bots import SearchBot, make_bot
from baohuang.bots.base import BOTS, UnknownBot
from baohuang.cli import app
from baohuang.tournament.core import (
    Tournament,
    TournamentError,
    arrangements,
    derive_seed,
    guard_inference,
    play_deal,
)
from baohuang.tournament.execute import local
from baohuang.tournament.records import Timing
from baohuang.tournament.stats import ROLES, TournamentReport, mean_ci

runner = CliRunner()


def cli_json(*args: str) -> dict[str, Any]:
    result = runner.invoke(app, ["tournament", *args, "--json"])
    assert result.exit_code == 0, result.output
    data: dict[str, Any] = json.loads(result.stdout)
    return data


@given(st.integers(min_value=2, max_value=6))
def test_every_bot_sits_in_every_seat_and_meets_every_other_bot_equally(n: int) -> None:
    lineups = arrangements(n)
    assert len(lineups) == 10 * n * (n - 1) // 2
    for bot in range(n):
        assert all(any(lu[seat] == bot for lu in lineups) for seat in range(5))
    meetings = Counter(frozenset(lu) for lu in lineups)
    assert set(meetings.values()) == {10}
    # challenger 1 vs 4 and teams swapped, in each seat
    for a in range(n):
        for b in range(a + 1, n):
            for alone, rest in ((a, b), (b, a)):
                for seat in range(5):
                    lineup = tuple(alone if s == seat else rest for s in range(5))
                    assert lineup in lineups


def test_every_bot_sat_in_every_seat_of_every_deal_in_play() -> None:
    t = Tournament(["hosted", "random"], deals=2, seed=11, inference=False)
    for deal in range(t.deals):
        result = play_deal(t.bots, t.rules, t.seed, deal, inference=False)
        assert result.game_seed == derive_seed(11, "deal", deal)
        assert len(result.games) == 10
        for bot in (0, 1):
            assert {s for g in result.games for s in range(5) if g.lineup[s] == bot} == set(
                range(5))
        # one deal: the same cards in every arrangement, so the Emperor card
        # starts in the same seat and both bots hold every seat's cards
        assert all(len(set(g.roles)) >= 2 for g in result.games)


@pytest.fixture(scope="module")
def small() -> TournamentReport:
    """hosted against random over three deals (seed 1), Guard inference on."""
    return Tournament(["hosted", "random"], deals=3, seed=1).run()


def test_same_seed_same_results_and_different_seed_different_deals(
        small: TournamentReport) -> None:
    again = Tournament(["hosted", "random"], deals=3, seed=1).run().to_dict()
    assert again == small.to_dict()
    other = Tournament(["hosted", "random"], deals=1, seed=2, inference=False).run()
    assert other.bots["hosted"].by_seat != small.bots["hosted"].by_seat


def test_two_jobs_give_the_same_report_as_one(small: TournamentReport) -> None:
    two = Tournament(["hosted", "random"], deals=3, seed=1).run(local(2))
    assert two.to_dict() == small.to_dict()


def test_a_bot_against_itself_scores_exactly_zero() -> None:
    # Every bot instance's seed depends on (seed, deal, seat) only, so the
    # two copies play identical games and the duplicate set cancels out.
    report = Tournament(["random", "random"], deals=2, seed=2, inference=False).run()
    assert set(report.bots) == {"random", "random#2"}
    assert report.bots["random"].total == 0 == report.bots["random#2"].total
    assert report.bots["random"].mean == 0.0


def test_scores_are_zero_sum_without_rebellion() -> None:
    rules = RuleSet.preset("shandong").with_option("rebellion=off")
    report = Tournament(["random", "hosted"], deals=3, seed=9, rules=rules,
                        inference=False).run()
    assert report.bots["random"].total + report.bots["hosted"].total == 0
    assert report.bots["random"].mean == -report.bots["hosted"].mean


def test_a_bots_lone_seats_are_split_by_role_apart_from_its_copies() -> None:
    # In each game one bot sits alone against four copies of the other: with zero-sum
    # scores a bot's lone seats make what the other's copies lose, and the lone seats
    # alone are 5 of a bot's 25 seats a deal, by the roles they had.
    rules = RuleSet.preset("shandong").with_option("rebellion=off")
    report = Tournament(["random", "hosted"], deals=3, seed=9, rules=rules,
                        inference=False).run()
    one, other = report.bots["random"], report.bots["hosted"]
    for bot, peer in ((one, other), (other, one)):
        assert sum(r.games for r in bot.alone.values()) == 15
        lone = sum(r.total for r in bot.alone.values())
        copies = peer.total - sum(r.total for r in peer.alone.values())
        assert lone == -copies != 0
        for role in ROLES:
            assert bot.alone[role].games <= bot.by_role[role].games
    data = report.to_dict()["bots"]["hosted"]["by_role_alone"]
    assert {role: data[role]["games"] for role in ROLES} == {
        role: other.alone[role].games for role in ROLES}


def test_scores_are_zero_sum_except_a_lone_rebels_doubling() -> None:
    # A failed 造反 doubles one player's score: the game's sum is then half
    # of that player's score; otherwise it is exactly zero.
    lone = 0
    for deal in range(3):
        for g in play_deal(["random", "hosted"], RuleSet(), 4, deal, inference=False).games:
            total = sum(g.scores)
            if total:
                lone += 1
                assert any(score == 2 * total for score in g.scores), g
    assert lone > 0     # random bots do say 造反 alone on these deals


def test_report_numbers_agree_with_each_other(small: TournamentReport) -> None:
    report = small
    assert report.games == 30
    for bot in report.bots.values():
        assert bot.games == 75      # 5 + 4 × 5 seats per deal, 25 × 3 deals
        assert sum(r.games for r in bot.by_role.values()) == bot.games
        assert sum(r.total for r in bot.by_role.values()) == bot.total
        assert sum(s.games for s in bot.by_seat.values()) == bot.games
        assert bot.mean == pytest.approx(bot.total / bot.games)
        assert bot.ci95 is not None and bot.ci95[0] <= bot.mean <= bot.ci95[1]
        assert 0.0 <= bot.win_rate <= 1.0
    assert report.pairs["hosted vs random"].mean == report.bots["hosted"].mean


def test_confidence_interval_follows_the_per_deal_means() -> None:
    mean, ci = mean_ci([4.0, -2.0, 6.0], [2, 2, 2])     # per-deal means 2, -1, 3
    assert mean == pytest.approx(4 / 3)
    assert ci is not None
    # sd of (2, -1, 3) is 2.0817; t(0.975, 2) = 4.303
    half = 4.303 * 2.0817 / 3 ** 0.5
    assert ci == pytest.approx((4 / 3 - half, 4 / 3 + half), abs=2e-3)
    assert mean_ci([5.0], [1]) == (5.0, None)


def test_three_bots_play_a_round_robin_of_duplicate_pairs() -> None:
    report = Tournament(["hosted", "random", "random"], deals=1, seed=0,
                        inference=False).run()
    assert report.games == 30
    assert set(report.pairs) == {"hosted vs random", "hosted vs random#2",
                                 "random vs random#2"}
    assert report.pairs["random vs random#2"].total == 0
    assert all(bot.games == 50 for bot in report.bots.values())


@pytest.mark.skipif(guard_inference() is None, reason="no Guard inference yet")
def test_guard_inference_is_scored_by_round(small: TournamentReport) -> None:
    data = small.to_dict()
    for viewer in ("rebel", "emperor"):
        rounds = data["inference"][viewer]
        assert "1" in rounds
        for row in rounds.values():
            assert row["n"] > 0
            assert 0.0 <= row["accuracy"] <= 1.0 and 0.0 <= row["base_accuracy"] <= 1.0
            assert 0.0 <= row["brier"] <= 2.0 and 0.0 <= row["base_brier"] <= 2.0
    # without the inference the report has no such section
    assert "inference" not in Tournament(["hosted", "random"], deals=1,
                                         inference=False).run().to_dict()


def test_cli_prints_one_json_object_with_the_documented_keys() -> None:
    data = cli_json("--bots", "hosted,random", "--deals", "2", "--seed", "7",
                    "--no-inference")
    assert data["deals"] == 2 and data["seed"] == 7
    assert set(data["bots"]) == {"hosted", "random"}
    for bot in data["bots"].values():
        assert isinstance(bot["games"], int) and bot["games"] == 50
        assert isinstance(bot["mean"], float) and isinstance(bot["win_rate"], float)
        lo, hi = bot["ci95"]
        assert lo <= bot["mean"] <= hi
        assert set(bot["by_role"]) == set(ROLES) == set(bot["by_role_alone"])
        for role in [*bot["by_role"].values(), *bot["by_role_alone"].values()]:
            assert {"games", "mean", "ci95", "win_rate"} <= set(role)


def test_cli_is_reproducible_and_jobs_do_not_change_it() -> None:
    args = ("--bots", "random,hosted", "--deals", "2", "--seed", "3", "--rules",
            "lianzhong_simple", "--option", "hold_sixes=on", "--no-inference")
    first = cli_json(*args)
    assert first == cli_json(*args)
    assert first == cli_json(*args, "--jobs", "2")
    assert first["rules"]["hold_sixes"] is True and first["rules"]["deck"] == "no345"


def test_cli_table_names_every_bot() -> None:
    result = runner.invoke(app, ["tournament", "--bots", "hosted,random", "--deals", "1",
                                 "--no-inference"])
    assert result.exit_code == 0, result.output
    assert "hosted" in result.stdout and "random" in result.stdout
    assert "by role, lone seats only" in result.stdout


@pytest.mark.parametrize(("args", "words"), [
    (["--bots", "hosted,nosuchbot"], ["--bots", "unknown bot 'nosuchbot'", "hosted"]),
    (["--bots", "hosted"], ["--bots", "at least two bots"]),
    (["--bots", "hosted,random", "--rules", "nosuchrules"], ["--rules", "nosuchrules"]),
    (["--bots", "hosted,random", "--option", "kaopia=on"], ["--option", "kaopia"]),
    (["--bots", "hosted,random", "--deals", "0"], ["--deals"]),
    (["--bots", "hosted,random", "--clock", "sundial"], ["--clock", "sundial", "wall, cpu"]),
])
def test_cli_bad_input_gets_a_clear_error(args: list[str], words: list[str]) -> None:
    result = runner.invoke(app, ["tournament", *args, "--json"])
    assert result.exit_code != 0
    assert result.stdout == ""
    message = " ".join(result.stderr.split())
    for word in words:
        assert word in message


def test_library_rejects_unknown_bots_and_empty_tournaments() -> None:
    with pytest.raises(UnknownBot, match="nosuchbot"):
        Tournament(["hosted", "nosuchbot"], deals=1)
    for name in ("search-0", "search-x", "hosted-5", "search-"):
        with pytest.raises(UnknownBot, match=r"search-N"):
            Tournament(["hosted", name], deals=1)


def test_a_budget_in_the_name_plays_search_with_that_many_playouts() -> None:
    """``search-N`` from the command line is the bench ladder's search step."""
    bot = make_bot("search-7", seed=1)
    assert isinstance(bot, SearchBot) and bot.iterations == 7
    result = runner.invoke(app, ["tournament", "--bots", "search-7,hosted", "--deals", "1",
                                 "--format", "challenger", "--no-inference", "--json"])
    assert result.exit_code == 0, result.output
    assert set(json.loads(result.stdout)["bots"]) == {"search-7", "hosted"}
    with pytest.raises(TournamentError, match="deals"):
        Tournament(["hosted", "random"], deals=0)


def test_ray_without_ray_installed_says_how_to_get_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "ray", None)     # as if Ray were not installed
    result = runner.invoke(app, ["tournament", "--bots", "hosted,random", "--deals", "1",
                                 "--ray", "local", "--json"])
    assert result.exit_code == 1
    assert result.stdout == ""
    assert "pip install 'baohuang[ray]'" in " ".join(result.stderr.split())


@pytest.mark.skipif(importlib.util.find_spec("ray") is None or not os.environ.get(
    "BAOHUANG_TEST_RAY"), reason="needs Ray and BAOHUANG_TEST_RAY=1 (starts a Ray instance)")
def test_ray_tasks_give_the_same_report_as_local_processes() -> None:
    args = ("--bots", "hosted,random", "--deals", "3", "--seed", "8", "--no-inference")
    assert cli_json(*args, "--ray", "local") == cli_json(*args)


def test_decision_times_are_reported_within_a_bin_width() -> None:
    t = Timing("bot")
    for ms in range(1, 101):            # 1 ms … 100 ms
        t.add(ms / 1000)
    assert t.decisions == 100
    assert t.quantile(0.5) == pytest.approx(0.050, rel=0.06)
    assert t.quantile(0.99) == pytest.approx(0.099, rel=0.06)
    other = Timing("bot", playouts=0)
    other.add(1.0)
    other.playouts = 500
    t.merge(other)
    assert t.decisions == 101 and t.to_dict()["playouts"] == 500
    assert t.to_dict()["playouts_per_s"] == pytest.approx(500 / t.seconds, rel=1e-3)


def test_timed_tournament_counts_every_decision_of_both_bots() -> None:
    report = Tournament(["hosted", "random"], deals=1, seed=3, inference=False,
                        timing=True).run()
    assert report.timing is not None
    assert all(t.decisions > 0 for t in report.timing.values())
    assert "timing" in report.to_dict()


class _ClockProbe:
    """A bot with a think-time clock, as the search bots have: it notes the clock it
    was given when it decides."""

    name = "clock-probe"
    seen: ClassVar[set[Any]] = set()

    def __init__(self, seed: int = 0) -> None:
        self.clock: Any = time.perf_counter

    def choose(self, view: Any, legal: Any) -> Any:
        _ClockProbe.seen.add(self.clock)
        return legal[0]


@pytest.mark.parametrize(("clock", "expected"), [("wall", time.perf_counter),
                                                 ("cpu", time.process_time)])
def test_think_time_bots_think_by_the_tournaments_clock(
        monkeypatch: pytest.MonkeyPatch, clock: str, expected: Any) -> None:
    """``--clock cpu``: a bot with a think time gets the CPU time of the process playing,
    so a search thinks as long on a busy machine as on an idle one (``wall``: as at a
    table)."""
    monkeypatch.setitem(BOTS, "clock-probe", _ClockProbe)
    monkeypatch.setattr(_ClockProbe, "seen", set())
    play_deal(["clock-probe", "hosted"], RuleSet(), seed=1, deal=0, inference=False,
              clock=clock)
    assert _ClockProbe.seen == {expected}


def test_cli_times_decisions_by_cpu_time_with_the_cpu_clock() -> None:
    result = runner.invoke(app, ["tournament", "--bots", "expert-1,hosted", "--deals", "1",
                                 "--format", "challenger", "--no-inference", "--timing",
                                 "--clock", "cpu"])
    assert result.exit_code == 0, result.output
    assert "CPU time per decision" in result.stdout and "expert-1" in result.stdout


def test_challenger_format_puts_the_first_bot_alone_in_each_seat_then_a_baseline() -> None:
    lineups = arrangements(3, "challenger")
    assert len(lineups) == 12
    for other in (1, 2):
        for seat in range(5):
            assert tuple(0 if s == seat else other for s in range(5)) in lineups
        assert (other,) * 5 in lineups
    assert not any(lu.count(0) > 1 for lu in lineups)
    with pytest.raises(TournamentError, match="format 'swiss'"):
        arrangements(2, "swiss")


def test_challenger_gain_is_its_score_minus_the_baseline_score_of_the_same_seat() -> None:
    rules = RuleSet()
    report = Tournament(["heuristic", "hosted"], deals=2, seed=5, rules=rules,
                        inference=False, format="challenger").run()
    gain = 0
    base_total = 0
    for deal in range(2):
        games = play_deal(["heuristic", "hosted"], rules, 5, deal, inference=False,
                          format="challenger").games
        assert len(games) == 6
        base = next(g for g in games if g.lineup == (1,) * 5)
        base_total += sum(base.scores)
        for g in games:
            if g is not base:
                seat = g.lineup.index(0)
                gain += g.scores[seat] - base.scores[seat]
    pair = report.pairs["heuristic vs hosted"]
    assert pair.games == 10 and pair.total == gain
    assert report.bots["heuristic"].games == 10       # its lone seats only
    assert report.bots["hosted"].games == 10          # the baseline's seats
    assert report.bots["hosted"].total == base_total
    assert report.to_dict()["format"] == "challenger"
    # a bot against itself gains exactly nothing
    same = Tournament(["random", "random"], deals=2, seed=2, inference=False,
                      format="challenger").run()
    assert same.pairs["random vs random#2"].total == 0
    # with more opponents the challenger meets each of them, and only them
    three = Tournament(["hosted", "random", "random"], deals=1, seed=2, inference=False,
                       format="challenger").run()
    assert three.games == 12
    assert set(three.pairs) == {"hosted vs random", "hosted vs random#2"}
    assert three.pairs["hosted vs random"].total == three.pairs["hosted vs random#2"].total
    assert three.bots["hosted"].games == 10


def test_cli_runs_the_challenger_format_and_names_a_bad_format() -> None:
    data = cli_json("--bots", "hosted,random", "--deals", "2", "--format", "challenger",
                    "--no-inference")
    assert data["format"] == "challenger" and data["games"] == 12
    assert data["bots"]["hosted"]["games"] == 10
    assert cli_json("--bots", "hosted,random", "--deals", "1",
                    "--no-inference")["format"] == "duplicate"
    result = runner.invoke(app, ["tournament", "--bots", "hosted,random", "--format", "swiss",
                                 "--json"])
    assert result.exit_code != 0 and result.stdout == ""
    message = " ".join(result.stderr.split())
    assert "--format" in message and "swiss" in message
