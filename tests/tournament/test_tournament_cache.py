"""The ladder script's per-deal cache (``bench/bots.py``): an interrupted or
shorter run is continued from the deals already played, with the same
numbers as a run from scratch."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType

import pytest

from baohuang import RuleSet
from baohuang.tournament.core import Tournament

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def bench() -> ModuleType:
    sys.path.insert(0, str(ROOT / "bench"))     # bench/bots.py imports its sibling modules
    try:
        spec = importlib.util.spec_from_file_location("bench_bots", ROOT / "bench" / "bots.py")
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules["bench_bots"] = module
        spec.loader.exec_module(module)
    finally:
        sys.path.remove(str(ROOT / "bench"))
    return module


def test_a_continued_run_reuses_the_cache_and_matches_a_fresh_run(
        bench: ModuleType, tmp_path: Path) -> None:
    cache_file = tmp_path / "cache.jsonl"
    out = tmp_path / "bots.md"
    rules = RuleSet.preset("shandong")
    step = bench.Step("heuristic", "hosted", 3, "challenger")
    first = bench.run_step(step, 4, rules, 1, 2, bench.Cache(cache_file))
    assert first.cached == 0
    assert len(cache_file.read_text().splitlines()) == 3
    longer = bench.Step("heuristic", "hosted", 5, "challenger")
    resumed = bench.run_step(longer, 4, rules, 1, 2, bench.Cache(cache_file))
    assert resumed.cached == 3
    assert len(cache_file.read_text().splitlines()) == 5
    fresh = Tournament(["heuristic", "hosted"], 5, 4, rules, inference_every=2,
                       format="challenger").run()
    assert resumed.report is not None
    got, want = resumed.report.to_dict(), fresh.to_dict()
    got.pop("timing")
    assert got == want
    # a line cut short by an interrupted run is skipped, not fatal
    with cache_file.open("a") as f:
        f.write('{"key": "cut')
    again = bench.run_step(longer, 4, rules, 1, 2, bench.Cache(cache_file))
    assert again.cached == 5
    # another seed, format or source is another key
    other = bench.run_step(bench.Step("heuristic", "hosted", 1, "duplicate"), 4, rules, 1, 2,
                           bench.Cache(cache_file))
    assert other.cached == 0
    assert bench.main(["--step", "heuristic,hosted,5,challenger", "--seed", "4", "--jobs", "1",
                       "--inference-every", "2", "--cache", str(cache_file),
                       "--out", str(out)]) == 0
    text = out.read_text()
    assert "| heuristic vs hosted | challenger | 5 |" in text


def test_cache_keys_follow_the_source_the_step_runs_on(bench: ModuleType) -> None:
    # the search bot's files do not change the key of a step without it
    source_hash = sys.modules["deal_cache"].source_hash     # bench/deal_cache.py
    assert source_hash(("hosted", "random")) != source_hash(("search", "heuristic"))
    assert source_hash(("search-200", "heuristic")) == source_hash(("search", "heuristic"))
    assert source_hash(("heuristic", "hosted")) != source_hash(("hosted", "random"))
    key = bench.Cache.key(bench.Step("a", "b", 1), RuleSet(), 0, 7, True, "abc")
    assert json.loads(key)[5] == 7
