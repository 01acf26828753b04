"""Strength ladder of the bots: tournaments between neighbours.

Runs ``random < hosted < heuristic < search`` as three matches (hosted vs
random, heuristic vs hosted, search vs heuristic; see ``baohuang.tournament.core``
for the formats), each over ``--deals`` deals, and writes ``bench/bots-classic.md``:
per step the upper bot's mean score per game (its gain per seat in the
challenger format) with its 95% interval (deals are the unit), whether the
step is significant, win rates and the split by role, time per decision
(p50/p99) of both bots and their ratio, playouts/s when the bot counts
playouts, and the Guard inference's accuracy by round.  A step whose bot is
not registered is listed as not run.  Every number in the file is
reproducible from the seed with ``baohuang tournament --bots UPPER,LOWER
--deals N --seed S --format F`` (times are not: they depend on the machine
and its load).

The first two steps use the ``duplicate`` format.  The search step uses the
``challenger`` format by default (``--search-format``): the search bot alone
in each seat against four heuristic bots, against the all-heuristic game of
the same deal.  That is 5 search seats per deal instead of 25 (the duplicate
format's "four search against one heuristic" games are four fifths of its
cost), so 2,000 deals fit in about an hour of one core.

Every finished deal is appended to a cache (``--cache``, JSON lines; default
``~/.cache/baohuang/bench-bots.jsonl``) keyed by the step, format, rules,
seed, deal and a hash of the package source the step's bots and the
tournament run on; a run finds the deals it has already played there, so an
interrupted run loses nothing and a run can be continued later with more
deals.  ``--no-cache`` plays everything again.

    python bench/bots.py                              # 2,000 deals per step
    python bench/bots.py --deals 200 --jobs 2         # quicker
    python bench/bots.py --step search,heuristic,300  # one step, 300 deals
    python bench/bots.py --step search,heuristic,300,duplicate
    python bench/bots.py --search-iterations 200      # search at a smaller budget
"""

from __future__ import annotations

import argparse
import datetime as dt
import hashlib
import json
import os
import platform
import shlex
import subprocess
import sys
import time
from collections.abc import Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from baohuang.bots import bot_names, is_bot
from baohuang.engine.rules import RuleSet
from baohuang.tournament.core import Tournament, play_deals
from baohuang.tournament.execute import default_jobs
from baohuang.tournament.records import DealResult, GameSummary, Timing
from baohuang.tournament.stats import (
    ROLES,
    RoleStats,
    TournamentReport,
    build_report,
    inference_row,
)

LADDER = (("hosted", "random"), ("heuristic", "hosted"), ("search", "heuristic"))
DEFAULT_DEALS = 2000
OUT = Path(__file__).with_name("bots-classic.md")
CACHE = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "baohuang" / \
    "bench-bots.jsonl"
#: Source files only one bot family runs (the rest of the package is shared).
BOT_FILES = {
    "search": ("bots/search/search.py", "bots/search/sampler.py", "bots/search/rollout.py",
               "bots/search/belief_search.py", "bots/belief.py"),
    "heuristic": ("bots/heuristic.py", "bots/hand_eval.py"),
}
#: The package modules a ladder runs on (those loaded by the imports above)
#: and their source as it was loaded, read before any game is played: every
#: run hashes the same files, and an edit made while a run goes on does not
#: change the keys of the code that run is playing.
SOURCE_FILES = {Path(str(m.__file__)): Path(str(m.__file__)).read_bytes()
                for name, m in sorted(sys.modules.items())
                if (name == "baohuang" or name.startswith("baohuang."))
                and getattr(m, "__file__", None)}
#: The bots a bot plays through (``search`` asks ``heuristic`` first).
USES = {"search": ("search", "heuristic"), "heuristic": ("heuristic",),
        "belief": ("search", "heuristic"), "hard": ("search", "heuristic"),
        "expert": ("search", "heuristic"), "easy": ("heuristic",),
        "normal": ("heuristic",)}


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


def parse_step(text: str, deals: int) -> Step:
    parts = [p.strip() for p in text.split(",")]
    if len(parts) not in (2, 3, 4) or not all(parts):
        raise argparse.ArgumentTypeError(
            f"--step takes UPPER,LOWER[,DEALS[,FORMAT]], not {text!r}")
    return Step(parts[0], parts[1], int(parts[2]) if len(parts) >= 3 else deals,
                parts[3] if len(parts) == 4 else "duplicate")


# -- the per-deal cache ----------------------------------------------------------

def family(bot: str) -> str:
    """``search-200`` is a ``search`` bot."""
    return bot.split("-", 1)[0]


def source_hash(bots: tuple[str, ...]) -> str:
    """A hash of the package source these bots and the tournament run on: every
    loaded ``baohuang`` module except the files of bot families not used."""
    used = {b for bot in bots for b in USES.get(family(bot), (family(bot),))}
    skip = {f for fam, files in BOT_FILES.items() if fam not in used for f in files}
    root = Path(sys.modules["baohuang"].__file__ or "").parent
    digest = hashlib.sha256()
    for path, text in sorted(SOURCE_FILES.items()):
        rel = path.relative_to(root).as_posix()
        if rel not in skip:
            digest.update(rel.encode())
            digest.update(text)
    return digest.hexdigest()[:16]


def deal_to_json(r: DealResult) -> dict[str, Any]:
    return {"deal": r.deal, "game_seed": r.game_seed,
            "games": [[list(g.lineup), list(g.scores), list(g.roles), g.rounds]
                      for g in r.games],
            "guard": [[viewer, rnd, sums] for (viewer, rnd), sums in r.guard.items()],
            "timing": [{"label": t.label, "hist": sorted(t.hist.items()),
                        "decisions": t.decisions, "seconds": t.seconds,
                        "playouts": t.playouts} for t in r.timing]}


def deal_from_json(d: dict[str, Any]) -> DealResult:
    games = [GameSummary(tuple(lu), tuple(sc), tuple(ro), rounds)
             for lu, sc, ro, rounds in d["games"]]
    guard = {(viewer, rnd): list(sums) for viewer, rnd, sums in d["guard"]}
    timing = [Timing(t["label"], {int(b): k for b, k in t["hist"]}, t["decisions"],
                     t["seconds"], t["playouts"]) for t in d["timing"]]
    return DealResult(d["deal"], d["game_seed"], games, guard, timing)


class Cache:
    """Finished deals of earlier runs, one JSON object a line."""

    def __init__(self, path: Path | None) -> None:
        self.path = path
        self.entries: dict[str, dict[str, Any]] = {}
        if path is not None and path.exists():
            for line in path.read_text().splitlines():
                try:
                    entry = json.loads(line)
                except json.JSONDecodeError:
                    continue        # a line cut short by an interrupted run
                if isinstance(entry, dict) and "key" in entry and "result" in entry:
                    self.entries[entry["key"]] = entry["result"]

    @staticmethod
    def key(step: Step, rules: RuleSet, seed: int, deal: int, inference: bool,
            source: str) -> str:
        return json.dumps([step.upper, step.lower, step.format, rules.to_dict(), seed, deal,
                           inference, source], sort_keys=True)

    def get(self, key: str) -> tuple[DealResult, float] | None:
        """A cached deal and the worker seconds it took."""
        found = self.entries.get(key)
        return None if found is None else (deal_from_json(found), found["seconds"])

    def put(self, key: str, result: DealResult, seconds: float) -> None:
        data = deal_to_json(result)
        data["seconds"] = seconds
        self.entries[key] = data
        if self.path is not None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            with self.path.open("a") as f:
                f.write(json.dumps({"key": key, "result": data}) + "\n")


def timed_play(bots: list[str], rules: RuleSet, seed: int, deals: list[int], every: int,
               fmt: str) -> tuple[list[DealResult], float]:
    """:func:`play_deals` with decision times, and the seconds it took."""
    start = time.perf_counter()
    out = play_deals(bots, rules, seed, deals, every, True, fmt)
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
            yield timed_play(*args, part, every, t.format)
        return
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        pending: set[Future[tuple[list[DealResult], float]]] = {
            pool.submit(timed_play, *args, part, every, t.format) for part in parts}
        while pending:
            done, pending = wait(pending, return_when=FIRST_COMPLETED)
            for fut in done:
                yield fut.result()


def run_step(step: Step, seed: int, rules: RuleSet, jobs: int,
             inference_every: int, cache: Cache) -> StepResult:
    missing = tuple(b for b in (step.upper, step.lower) if not is_bot(b))
    if missing:
        return StepResult(step, None, 0.0, missing)
    t = Tournament([step.upper, step.lower], step.deals, seed, rules, timing=True,
                   inference_every=inference_every, format=step.format)
    source = source_hash((step.upper, step.lower))
    every = t.inference_every if t.inference else 0

    def key(d: int) -> str:
        return Cache.key(step, rules, seed, d, every > 0 and d % every == 0, source)

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


def _ci(stats: RoleStats) -> str:
    if stats.ci95 is None:
        return "—"
    return f"[{stats.ci95[0]:+.3f}, {stats.ci95[1]:+.3f}]"


def _verdict(stats: RoleStats) -> str:
    if stats.ci95 is None:
        return "—"
    if stats.ci95[0] > 0:
        return "yes (upper better)"
    if stats.ci95[1] < 0:
        return "**no: lower bot better**"
    return "no (interval holds 0)"


def code_note() -> str:
    """Which code was measured: the commit, and a hash of the package source
    (which also covers changes not yet committed)."""
    root = Path(__file__).resolve().parent.parent
    digest = hashlib.sha256()
    for path in sorted((root / "src" / "baohuang").rglob("*.py")):
        digest.update(path.relative_to(root).as_posix().encode())
        digest.update(path.read_bytes())
    try:
        commit = subprocess.run(["git", "-C", str(root), "rev-parse", "--short", "HEAD"],
                                capture_output=True, text=True, check=True).stdout.strip()
        dirty = subprocess.run(["git", "-C", str(root), "status", "--porcelain", "src"],
                               capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        commit, dirty = "unknown", ""
    state = " plus uncommitted changes in src/" if dirty else ""
    return f"commit {commit}{state}; source sha256 {digest.hexdigest()[:16]}"


def register_search_variant(iterations: int) -> str:
    """The name of ``search`` with another playout budget: ``search-N``, which
    the bot registry makes (``baohuang tournament --bots search-N,…`` too)."""
    return f"search-{iterations}"


def machine_note() -> str:
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    return (f"{cpu}, {default_jobs()} usable cores, Python {platform.python_version()} on "
            f"{platform.system()} {platform.release()}; load average at the end {load}")


def render(results: list[StepResult], command: str, seed: int, jobs: int,
           rules: RuleSet, code: str, pending: list[str], notes: list[str], *,
           title: str = "Bot strength ladder", script: str = "bench/bots.py") -> str:
    now = dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC")
    lines = [
        f"# {title}",
        "",
        f"Regenerated by `{script}`; do not edit by hand.",
        "",
        f"- command: `{command}`",
        f"- date: {now}",
        f"- machine: {machine_note()}",
        f"- code (at the start of the run): {code}",
        f"- worker processes: {jobs}; rules: {rules.preset_name() or rules.to_dict()}; "
        f"seed: {seed}",
        *([f"- **run in progress**: still to come: {', '.join(pending)}"] if pending else []),
        "",
        "Formats (see `baohuang/tournament/core.py`): **duplicate**: each deal is played 10 "
        "times, the upper bot alone in each seat against four copies of the lower one and "
        "the other way round, so both bots hold every seat's cards equally often; *mean* "
        "is the upper bot's mean score per game (one seat in one game).  **challenger**: "
        "each deal is played 6 times, the upper bot alone in each seat against four copies "
        "of the lower one, and once by five copies of the lower one (the baseline); "
        "*mean* is the upper bot's score minus the lower bot's score in the same seat of "
        "the baseline game, per seat: what a seat gains when the upper bot takes it over.  "
        "Scores are the shandong table's; *95% CI* is the interval of the mean with deals "
        "as the independent unit, and the step is significant when it excludes 0.  "
        "Reproduce the scores with `baohuang tournament --bots UPPER,LOWER --deals N "
        "--seed S --format F` (`search-N` is the `search` bot with N playouts per "
        "decision).  *worker time* is the seconds one worker "
        "process spent on the step's deals (including deals taken from the cache, timed "
        "when they were played).",
        "",
        "## Ladder",
        "",
        "| step | format | deals | upper games | upper mean | 95% CI | significant | "
        "upper win rate | lower win rate | worker time |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in results:
        s = r.step
        if r.report is None:
            lines.append(f"| {s.upper} vs {s.lower} | {s.format} | — | — | — | — | not run: "
                         f"{', '.join(r.missing)} not registered | — | — | — |")
            continue
        up, low = r.report.bots[s.upper], r.report.bots[s.lower]
        pair = r.report.pairs[f"{s.upper} vs {s.lower}"]
        lines.append(f"| {s.upper} vs {s.lower} | {s.format} | {s.deals} | {up.games} | "
                     f"{pair.mean:+.3f} | {_ci(pair)} | {_verdict(pair)} | "
                     f"{up.win_rate:.1%} | {low.win_rate:.1%} | {r.seconds:.0f} s |")
    ran_steps = [r for r in results if r.report is not None]
    if ran_steps:
        lines += ["", "Source hash of each step (its cache key: the package files the step's "
                  "bots and the tournament run on) and the deals taken from the cache:", ""]
        lines += [f"- {r.step.upper} vs {r.step.lower}: source {r.source}, {r.cached} of "
                  f"{r.step.deals} deals from the cache" for r in ran_steps]
    lines += notes
    ran = [r for r in results if r.report is not None]
    if ran:
        lines += ["", "## By role (mean score per game, games in brackets)", "",
                  "In the challenger format the upper bot's games are its lone seats and "
                  "the lower bot's are the seats of the baseline game (the same seats of "
                  "the same deals).", "",
                  "| step | bot | " + " | ".join(ROLES) + " |",
                  "|---|---|" + "---|" * len(ROLES)]
        for r in ran:
            assert r.report is not None
            for name in (r.step.upper, r.step.lower):
                bot = r.report.bots[name]
                cells = [f"{bot.by_role[role].mean:+.2f} ({bot.by_role[role].games})"
                         if bot.by_role[role].games else "—" for role in ROLES]
                lines.append(f"| {r.step.upper} vs {r.step.lower} | {name} | "
                             + " | ".join(cells) + " |")
        lines += ["", "## Time per decision", "",
                  "Wall-clock time of `bot.choose(view, legal)` only (the view is built "
                  "outside), measured inside the worker processes while the others ran; "
                  "the ratio is the bot's p50 over the lower bot's p50 in the same run.", "",
                  "| step | bot | decisions | p50 ms | p99 ms | mean ms | p50 ratio | "
                  "playouts/s |",
                  "|---|---|---|---|---|---|---|---|"]
        for r in ran:
            assert r.report is not None and r.report.timing is not None
            peer = r.report.timing[r.step.lower].quantile(0.5)
            for name in (r.step.upper, r.step.lower):
                t = r.report.timing[name]
                d = t.to_dict()
                ratio = t.quantile(0.5) / peer if peer else 0.0
                lines.append(f"| {r.step.upper} vs {r.step.lower} | {name} | {t.decisions} | "
                             f"{d['p50_ms']:.4f} | {d['p99_ms']:.4f} | {d['mean_ms']:.4f} | "
                             f"{ratio:.3g}× | {d.get('playouts_per_s', '—')} |")
        lines += _inference_section(ran)
    return "\n".join(lines) + "\n"


def _inference_section(ran: list[StepResult]) -> list[str]:
    lines: list[str] = []
    buckets = ((1, 1), (2, 2), (3, 3), (4, 4), (5, 5), (6, 10), (11, 20), (21, 40),
               (41, 10**9))
    for r in ran:
        assert r.report is not None
        if not r.report.inference or "rebel" not in r.report.inference:
            continue
        if not lines:
            lines += ["", "## Guard inference (rebels' views while the Guard is hidden)", "",
                      "`guard_probabilities(view)` asked (on every deal whose number is a "
                      "multiple of `--inference-every`) at the start of every round from "
                      "every rebel's view while the Guard is hidden from it; accuracy = the "
                      "Guard has the highest probability (ties share), Brier = Σ over seats "
                      "(p − [Guard])²; base = `base_probabilities` (uniform over the seats "
                      "that may be the Guard, without behaviour).  The truth of a hidden "
                      "solo is the Emperor.", ""]
        rounds = r.report.inference["rebel"]
        lines += [f"**{r.step.upper} vs {r.step.lower}**", "",
                  "| round | questions | accuracy | base accuracy | Brier | base Brier |",
                  "|---|---|---|---|---|---|"]
        for lo, hi in buckets:
            sums = [0.0] * 5
            for k, v in rounds.items():
                if lo <= k <= hi:
                    sums = [a + b for a, b in zip(sums, v, strict=True)]
            if not sums[0]:
                continue
            row = inference_row(sums)
            name = str(lo) if lo == hi else (f"{lo}–{hi}" if hi < 10**9 else f"{lo}+")
            lines.append(f"| {name} | {row['n']} | {row['accuracy']:.3f} | "
                         f"{row['base_accuracy']:.3f} | {row['brier']:.3f} | "
                         f"{row['base_brier']:.3f} |")
        lines.append("")
    return lines


def notes_for(results: list[StepResult]) -> list[str]:
    """Explanations the numbers need (written by the script, not by hand)."""
    out: list[str] = []
    for r in results:
        if r.report is None:
            continue
        pair = r.report.pairs[f"{r.step.upper} vs {r.step.lower}"]
        if (r.step.upper, r.step.lower) == ("hosted", "random") and pair.ci95 is not None \
                and pair.ci95[1] < 0:
            out += ["", "**hosted vs random**: `hosted` is the 托管 default policy exactly as "
                    "docs/rules.md §10 documents it: in the play phase it leads its lowest single "
                    "card and never follows a play (a follower passes).  Against "
                    "random bots it therefore gives up every trick it could have contested, "
                    "and random, which sometimes follows, scores better.  The "
                    "policy is kept as documented, since it is what a player who times out "
                    "gets; this step of the ladder does not hold for it."]
        if family(r.step.upper) == "search" and r.step.format == "challenger":
            out += ["", f"**{r.step.upper} vs {r.step.lower}** is played in the challenger "
                    "format: the duplicate format's other 20 seats of a deal (four search "
                    "bots against one heuristic) would make the step five times as "
                    "expensive, and 2,000 deals of it do not fit in a run of a few hours on "
                    "one core."]
        if r.step.upper.startswith("search-"):
            out += ["", f"`{r.step.upper}` is the `search` bot with "
                    f"{r.step.upper.split('-', 1)[1]} playouts per decision instead of its "
                    "default 1,000, for the same reason.  A smaller comparison on other "
                    "deals (60 challenger deals, seed 11) found no loss of strength from the "
                    "smaller budget: `search-250` gained +0.31 [−0.48, +1.10] per seat over "
                    "heuristic and `search-1000` +0.26 [−0.40, +0.91], at 12.8 and 51.5 ms "
                    "per decision on average."]
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--deals", type=int, default=DEFAULT_DEALS,
                        help=f"deals per step (default {DEFAULT_DEALS})")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--jobs", type=int, default=default_jobs())
    parser.add_argument("--rules", default="shandong")
    parser.add_argument("--step", action="append", default=None,
                        metavar="UPPER,LOWER[,DEALS[,FORMAT]]",
                        help="run this step instead of the ladder (repeatable)")
    parser.add_argument("--inference-every", type=int, default=10, metavar="K",
                        help="score the Guard inference on every K-th deal (default 10)")
    parser.add_argument("--search-deals", type=int, default=None, metavar="N",
                        help="deals of the search step (default: --deals)")
    parser.add_argument("--search-iterations", type=int, default=None, metavar="N",
                        help="run the search step with N playouts per decision instead "
                             "of the registered bot's default")
    parser.add_argument("--search-format", default="challenger",
                        choices=("duplicate", "challenger"),
                        help="format of the search step (default challenger: 5 search "
                             "seats per deal instead of 25)")
    parser.add_argument("--cache", type=Path, default=CACHE,
                        help=f"per-deal results cache (default {CACHE})")
    parser.add_argument("--no-cache", action="store_true",
                        help="play every deal again and do not record them")
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args(argv)
    rules = RuleSet.preset(args.rules)
    code = code_note()
    cache = Cache(None if args.no_cache else args.cache)
    search = "search"
    if args.search_iterations is not None and "search" in bot_names():
        search = register_search_variant(args.search_iterations)
    if args.step:
        steps = [parse_step(s, args.deals) for s in args.step]
    else:
        steps = [Step(search, low, args.search_deals or args.deals, args.search_format)
                 if up == "search" else Step(up, low, args.deals) for up, low in LADDER]
    command = "python bench/bots.py " + " ".join(shlex.quote(a) for a in (
        argv if argv is not None else sys.argv[1:]))
    results: list[StepResult] = []
    for i, step in enumerate(steps):
        res = run_step(step, args.seed, rules, args.jobs, args.inference_every, cache)
        results.append(res)
        pending = [f"{s.upper} vs {s.lower}" for s in steps[i + 1:]]
        # written after every step, so that a long run leaves what it measured
        args.out.write_text(render(results, command.strip(), args.seed, args.jobs, rules, code,
                                   pending, notes_for(results)))
        if res.report is None:
            print(f"{step.upper} vs {step.lower}: not run ({', '.join(res.missing)} "
                  "not registered)")
            continue
        pair = res.report.pairs[f"{step.upper} vs {step.lower}"]
        assert res.report.timing is not None
        ratio = (res.report.timing[step.upper].quantile(0.5)
                 / max(res.report.timing[step.lower].quantile(0.5), 1e-12))
        print(f"{step.upper} vs {step.lower} ({step.format}): {step.deals} deals "
              f"({res.cached} cached), mean {pair.mean:+.3f} CI {_ci(pair)} "
              f"({_verdict(pair)}), time per decision p50 ratio {ratio:.3g}×, "
              f"{res.seconds:.0f} s", flush=True)
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
