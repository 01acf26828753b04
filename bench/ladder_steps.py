"""A step of a bot ladder: two bots' tournament over some deals, played by
worker processes, with the deals found in the cache taken from it
(``bench/bots.py``, ``bench/levels.py``)."""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from dataclasses import dataclass
from pathlib import Path

from deal_cache import CACHE, Cache, source_hash

from baohuang.bots import is_bot
from baohuang.engine.rules import RuleSet
from baohuang.tournament.core import Tournament, play_deals
from baohuang.tournament.execute import default_jobs
from baohuang.tournament.records import DealResult
from baohuang.tournament.stats import TournamentReport, build_report


@dataclass(frozen=True, slots=True)
class Step:
    upper: str
    lower: str
    deals: int
    format: str = "duplicate"


@dataclass(frozen=True, slots=True)
class StepResult:
    step: Step
    report: TournamentReport | None
    seconds: float
    missing: tuple[str, ...] = ()
    cached: int = 0
    source: str = ""
    #: every deal's result, in deal order
    deals: tuple[DealResult, ...] = ()


def ladder_options(parser: argparse.ArgumentParser, *, deals: int, out: Path,
                   search_steps: str, search_format: str) -> None:
    """The options every ladder command has, in a group of their own: the deals, seed,
    workers, rules, Guard inference, the steps a searching bot plays (``search_steps``
    names them in the help; ``search_format`` is their default format), the cache and
    the page written (``deals`` and ``out``: the command's defaults)."""
    group = parser.add_argument_group("ladder options (bench/bots.py and bench/levels.py)")
    group.add_argument("--deals", type=int, default=deals,
                       help=f"deals per step (default {deals})")
    group.add_argument("--seed", type=int, default=0, help="seed of the deals (default 0)")
    group.add_argument("--jobs", type=int, default=default_jobs(),
                       help="worker processes (default: the cores)")
    group.add_argument("--rules", default="shandong", help="rule preset (default shandong)")
    group.add_argument("--inference-every", type=int, default=10, metavar="K",
                       help="score the Guard inference on every K-th deal (default 10)")
    group.add_argument("--search-deals", type=int, default=None, metavar="N",
                       help=f"deals of {search_steps} (default: --deals)")
    group.add_argument("--search-format", default=search_format,
                       choices=("duplicate", "challenger"),
                       help=f"format of {search_steps} (default {search_format}; "
                            "challenger: the upper bot alone in each seat, 5 seats of 6 "
                            "games a deal instead of duplicate's 25 of 10)")
    group.add_argument("--clock", choices=("cpu", "wall"), default="cpu",
                       help="what think-time bots think by and decisions are timed by "
                            "(default cpu: each worker process's CPU time, as if it had a core "
                            "to itself however busy the machine; wall: the clock a player "
                            "waits by)")
    group.add_argument("--cache", type=Path, default=CACHE,
                       help=f"per-deal results cache (default {CACHE})")
    group.add_argument("--no-cache", action="store_true",
                       help="play every deal again and do not record them")
    group.add_argument("--out", type=Path, default=out,
                       help=f"the page written (default bench/{out.name})")


def parse_step(text: str, deals: int) -> Step:
    parts = [p.strip() for p in text.split(",")]
    if len(parts) not in (2, 3, 4) or not all(parts):
        raise argparse.ArgumentTypeError(
            f"--step takes UPPER,LOWER[,DEALS[,FORMAT]], not {text!r}")
    return Step(parts[0], parts[1], int(parts[2]) if len(parts) >= 3 else deals,
                parts[3] if len(parts) == 4 else "duplicate")


# -- the per-deal cache ----------------------------------------------------------


def timed_play(bots: list[str], rules: RuleSet, seed: int, deals: list[int], every: int,
               fmt: str, clock: str) -> tuple[list[DealResult], float]:
    """:func:`play_deals` with decision times, and the seconds it took."""
    start = time.perf_counter()
    out = play_deals(bots, rules, seed, deals, every, True, fmt, clock)
    return out, time.perf_counter() - start


def _play(t: Tournament, deals: list[int], jobs: int
          ) -> Iterator[tuple[list[DealResult], float]]:
    """The deals' results and their worker seconds, a chunk at a time, as the
    workers finish them (chunks of at most 5 deals, so that little is lost
    when a run is interrupted)."""
    args = (list(t.bots), t.rules, t.seed)
    every = t.inference_every if t.inference else 0
    size = min(5, t.chunk_size(jobs))
    parts = [deals[i:i + size] for i in range(0, len(deals), size)]
    if jobs == 1:
        for part in parts:
            yield timed_play(*args, part, every, t.format, t.clock)
        return
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        pending: set[Future[tuple[list[DealResult], float]]] = {
            pool.submit(timed_play, *args, part, every, t.format, t.clock) for part in parts}
        while pending:
            done, pending = wait(pending, return_when=FIRST_COMPLETED)
            for fut in done:
                yield fut.result()


def run_step(step: Step, seed: int, rules: RuleSet, jobs: int,
             inference_every: int, cache: Cache, clock: str = "cpu") -> StepResult:
    """Play ``step`` (the deals not in ``cache``), think times and decision times
    measured by ``clock`` (``baohuang.tournament.core.CLOCKS``)."""
    missing = tuple(b for b in (step.upper, step.lower) if not is_bot(b))
    if missing:
        return StepResult(step, None, 0.0, missing)
    t = Tournament([step.upper, step.lower], step.deals, seed, rules, timing=True,
                   inference_every=inference_every, format=step.format, clock=clock)
    source = source_hash((step.upper, step.lower))
    every = t.inference_every if t.inference else 0

    def key(d: int) -> str:
        return Cache.key(step, rules, seed, d, every > 0 and d % every == 0, source, clock)

    results: dict[int, DealResult] = {}
    seconds = 0.0
    for d in range(step.deals):
        found = cache.get(key(d))
        if found is not None:
            results[d] = found[0]
            seconds += found[1]
    todo = [d for d in range(step.deals) if d not in results]
    cached = len(results)
    for part, took in _play(t, todo, jobs):
        seconds += took
        for r in part:
            results[r.deal] = r
            cache.put(key(r.deal), r, took / len(part))
        print(f"\r  {step.upper} vs {step.lower}: {len(results)}/{step.deals} deals "
              f"({cached} from the cache)", end="", file=sys.stderr, flush=True)
    print(file=sys.stderr)
    ordered = tuple(results[d] for d in range(step.deals))
    report = build_report(t.labels, seed, rules, step.deals, ordered, inference=t.inference,
                          format=step.format)
    return StepResult(step, report, seconds, cached=cached, source=source, deals=ordered)
