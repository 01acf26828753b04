"""The difficulty ladder script (``bench/levels.py``): neighbouring levels in
order, the top level against today's search and heuristic, openskill ratings
that follow the deals' winners, and one file with every table."""

from __future__ import annotations

import importlib
import re
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest

from baohuang import RuleSet

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def levels() -> Iterator[ModuleType]:
    sys.path.insert(0, str(ROOT / "bench"))
    try:
        # bench/levels.py, which imports bench/bots.py and bench/belief.py
        yield importlib.import_module("levels")
    finally:
        sys.path.remove(str(ROOT / "bench"))


def test_the_ladder_climbs_the_levels_then_meets_search_and_heuristic(
        levels: ModuleType) -> None:
    names = levels.level_names(0.1)
    assert names == {"easy": "easy", "normal": "normal", "hard": "hard",
                     "expert": "expert-80"}
    steps = levels.ladder(names, "search-100", 7)
    assert [(s.upper, s.lower) for s in steps] == [
        ("normal", "easy"), ("hard", "normal"), ("expert-80", "hard"),
        ("expert-80", "search-100"), ("expert-80", "heuristic")]
    assert all(s.format == "duplicate" and s.deals == 7 for s in steps)
    assert levels.level_names(1.0)["expert"] == "expert"


def test_ratings_follow_who_scored_more_in_each_deal(levels: ModuleType,
                                                     tmp_path: Path) -> None:
    steps = sys.modules["ladder_steps"]     # bench/ladder_steps.py, imported by bench/levels.py
    cache = sys.modules["deal_cache"]
    rules = RuleSet.preset("shandong")
    step = steps.Step("normal", "easy", 4)
    result = steps.run_step(step, 3, rules, 1, 10, cache.Cache(tmp_path / "cache.jsonl"))
    assert len(result.deals) == 4
    ratings = levels.openskill_ratings([(step, list(result.deals))])
    wins = 0
    for deal in result.deals:
        mine = [s for g in deal.games for who, s in zip(g.lineup, g.scores, strict=True)
                if who == 0]
        theirs = [s for g in deal.games for who, s in zip(g.lineup, g.scores, strict=True)
                  if who == 1]
        wins += sum(mine) / len(mine) > sum(theirs) / len(theirs)
    normal, easy = ratings["normal"], ratings["easy"]
    assert normal.matches == easy.matches == 4
    if wins > 2:
        assert normal.mu > easy.mu
    elif wins < 2:
        assert normal.mu < easy.mu
    text = levels.render_ratings(ratings, levels.level_names(1.0))
    assert "| normal | 普通 / Normal |" in text and "| easy | 简单 / Easy |" in text
    # the page's roles of a duplicate step: each bot's games, then its lone seats alone
    # (5 a deal: the upper bot alone against four of the lower one in each seat)
    page = sys.modules["ladder_report"].render([result], "python bench/levels.py", 3, 1,
                                               rules, "code", [], [])
    for name, games in (("normal", 100), ("normal, alone", 20), ("easy, alone", 20)):
        row = next(line for line in page.splitlines()
                   if line.startswith(f"| normal vs easy | {name} |"))
        assert sum(map(int, re.findall(r"\((\d+)\)", row))) == games, row


def test_search_steps_may_take_fewer_deals_another_format_and_fewer_references(
        levels: ModuleType) -> None:
    names = levels.level_names(1.0)
    steps = levels.ladder(names, "search", 300, search_deals=12,
                          search_format="challenger", references=("heuristic",))
    assert [(s.upper, s.lower, s.deals, s.format) for s in steps] == [
        ("normal", "easy", 300, "duplicate"), ("hard", "normal", 300, "duplicate"),
        ("expert", "hard", 12, "challenger"), ("expert", "heuristic", 12, "challenger")]


def test_deals_needed_grows_as_the_mean_shrinks(levels: ModuleType) -> None:
    # a deal's mean spreads with σ = 1 (interval ±1.96/√100 over 100 deals)
    ci = (-0.196, 0.196)
    assert round(levels.deals_needed(0.28, ci, 100)) == 100
    assert round(levels.deals_needed(0.14, ci, 100)) == 400
    assert levels.deals_needed(0.0, ci, 100) is None
