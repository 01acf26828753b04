"""Strength ladder of the bots: duplicate tournaments between neighbours.

Runs ``random < hosted < heuristic < search`` as three duplicate matches
(hosted vs random, heuristic vs hosted, search vs heuristic; see
``baohuang.tournament`` for the format), each over ``--deals`` deals, and
writes ``bench/bots.md``: per step the upper bot's mean score per game with
its 95% interval (deals are the unit), whether the step is significant, win
rates and the split by role, time per decision (p50/p99) of both bots and
their ratio, playouts/s when the bot counts playouts, and the Guard
inference's accuracy by round.  A step whose bot is not registered is listed
as not run.  Every number in the file is reproducible from the seed with
``baohuang tournament --bots UPPER,LOWER --deals N --seed S`` (times are
not: they depend on the machine and its load).

    python bench/bots.py                              # 2,000 deals per step
    python bench/bots.py --deals 200 --jobs 2         # quicker
    python bench/bots.py --step search,heuristic,300  # one step, 300 deals
    python bench/bots.py --search-iterations 200      # search at a smaller budget
"""

from __future__ import annotations

import argparse
import datetime as dt
import hashlib
import os
import platform
import shlex
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from baohuang.bots import bot_names
from baohuang.rules import RuleSet
from baohuang.tournament import Tournament
from baohuang.tournament_exec import default_jobs
from baohuang.tournament_stats import ROLES, RoleStats, TournamentReport, inference_row

LADDER = (("hosted", "random"), ("heuristic", "hosted"), ("search", "heuristic"))
DEFAULT_DEALS = 2000
OUT = Path(__file__).with_name("bots.md")


@dataclass(frozen=True, slots=True)
class Step:
    upper: str
    lower: str
    deals: int


@dataclass(frozen=True, slots=True)
class StepResult:
    step: Step
    report: TournamentReport | None
    seconds: float
    missing: tuple[str, ...] = ()


def parse_step(text: str, deals: int) -> Step:
    parts = [p.strip() for p in text.split(",")]
    if len(parts) not in (2, 3) or not all(parts):
        raise argparse.ArgumentTypeError(f"--step takes UPPER,LOWER[,DEALS], not {text!r}")
    return Step(parts[0], parts[1], int(parts[2]) if len(parts) == 3 else deals)


def run_step(step: Step, seed: int, rules: RuleSet, jobs: int,
             inference_every: int) -> StepResult:
    missing = tuple(b for b in (step.upper, step.lower) if b not in bot_names())
    if missing:
        return StepResult(step, None, 0.0, missing)
    t = Tournament([step.upper, step.lower], step.deals, seed, rules, timing=True,
                   inference_every=inference_every)
    done = 0

    def progress(k: int) -> None:
        nonlocal done
        done += k
        print(f"\r  {step.upper} vs {step.lower}: {done}/{step.deals} deals", end="",
              file=sys.stderr, flush=True)

    start = time.perf_counter()
    report = t.run(jobs, progress=progress)
    print(file=sys.stderr)
    return StepResult(step, report, time.perf_counter() - start)


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
    """Register ``search`` with another playout budget under ``search-N``
    (worker processes inherit it: they are forked from this one)."""
    from baohuang.bots import register
    from baohuang.bots.search import SearchBot

    name = f"search-{iterations}"

    def make(seed: int) -> SearchBot:
        return SearchBot(seed, iterations=iterations)

    register(name)(make)
    return name


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
           rules: RuleSet, code: str, pending: list[str]) -> str:
    now = dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC")
    lines = [
        "# Bot strength ladder",
        "",
        "Regenerated by `bench/bots.py`; do not edit by hand.",
        "",
        f"- command: `{command}`",
        f"- date: {now}",
        f"- machine: {machine_note()}",
        f"- code (at the start of the run): {code}",
        f"- worker processes: {jobs}; rules: {rules.preset_name() or rules.to_dict()}; "
        f"seed: {seed}",
        *([f"- **run in progress**: still to come: {', '.join(pending)}"] if pending else []),
        "",
        "Format: duplicate (see `baohuang/tournament.py`): each deal is played 10 times, "
        "the upper bot alone in each seat against four copies of the lower one and the "
        "other way round, so both bots hold every seat's cards equally often.  A *game* "
        "of a bot is one seat in one game; *mean* is the mean score per game (shandong "
        "table), *95% CI* its interval with deals as the independent unit.  The step is "
        "significant when the interval excludes 0.  Reproduce the scores with "
        "`baohuang tournament --bots UPPER,LOWER --deals N --seed S` (a `search-N` "
        "step is the `search` bot with N playouts per decision, registered by this "
        "script).",
        "",
        "## Ladder",
        "",
        "| step | deals | games each | upper mean | 95% CI | significant | "
        "upper win rate | lower win rate | wall time |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for r in results:
        s = r.step
        if r.report is None:
            lines.append(f"| {s.upper} vs {s.lower} | — | — | — | — | not run: "
                         f"{', '.join(r.missing)} not registered | — | — | — |")
            continue
        up, low = r.report.bots[s.upper], r.report.bots[s.lower]
        lines.append(f"| {s.upper} vs {s.lower} | {s.deals} | {up.games} | {up.mean:+.3f} | "
                     f"{_ci(up.overall)} | {_verdict(up.overall)} | {up.win_rate:.1%} | "
                     f"{low.win_rate:.1%} | {r.seconds:.0f} s |")
    ran = [r for r in results if r.report is not None]
    if ran:
        lines += ["", "## By role (mean score per game, games in brackets)", "",
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


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--deals", type=int, default=DEFAULT_DEALS,
                        help=f"deals per step (default {DEFAULT_DEALS})")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--jobs", type=int, default=default_jobs())
    parser.add_argument("--rules", default="shandong")
    parser.add_argument("--step", action="append", default=None, metavar="UPPER,LOWER[,DEALS]",
                        help="run this step instead of the ladder (repeatable)")
    parser.add_argument("--inference-every", type=int, default=10, metavar="K",
                        help="score the Guard inference on every K-th deal (default 10)")
    parser.add_argument("--search-deals", type=int, default=None, metavar="N",
                        help="deals of the search step (default: --deals)")
    parser.add_argument("--search-iterations", type=int, default=None, metavar="N",
                        help="run the search step with N playouts per decision instead "
                             "of the registered bot's default")
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args(argv)
    rules = RuleSet.preset(args.rules)
    code = code_note()
    search = "search"
    if args.search_iterations is not None and "search" in bot_names():
        search = register_search_variant(args.search_iterations)
    if args.step:
        steps = [parse_step(s, args.deals) for s in args.step]
    else:
        steps = [Step(search, low, args.search_deals or args.deals) if up == "search"
                 else Step(up, low, args.deals) for up, low in LADDER]
    command = "python bench/bots.py " + " ".join(shlex.quote(a) for a in (
        argv if argv is not None else sys.argv[1:]))
    results: list[StepResult] = []
    for i, step in enumerate(steps):
        res = run_step(step, args.seed, rules, args.jobs, args.inference_every)
        results.append(res)
        pending = [f"{s.upper} vs {s.lower}" for s in steps[i + 1:]]
        # written after every step, so that a long run leaves what it measured
        args.out.write_text(render(results, command.strip(), args.seed, args.jobs, rules, code,
                                   pending))
        if res.report is None:
            print(f"{step.upper} vs {step.lower}: not run ({', '.join(res.missing)} "
                  "not registered)")
            continue
        up = res.report.bots[step.upper]
        assert res.report.timing is not None
        ratio = (res.report.timing[step.upper].quantile(0.5)
                 / max(res.report.timing[step.lower].quantile(0.5), 1e-12))
        print(f"{step.upper} vs {step.lower}: {step.deals} deals, mean {up.mean:+.3f} "
              f"CI {_ci(up.overall)} ({_verdict(up.overall)}), win rate {up.win_rate:.1%}, "
              f"time per decision p50 ratio {ratio:.3g}×, {res.seconds:.0f} s", flush=True)
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
