"""The difficulty ladder: every level against the one below it, in one command.

Runs the levels of ``baohuang.bots.levels`` (简单 easy < 普通 normal < 困难
hard < 大师 expert) in duplicate play, each pair of neighbours over
``--deals`` deals (every deal played 10 times: the upper bot alone in each
seat against four copies of the lower one and the other way round, so the
seats rotate through both bots), then the strongest level against today's
``search`` and against ``heuristic`` (the issue's target), and writes
``bench/bots.md``: per step the mean score a game with its 95% interval,
win rates, the split by role, think time per move (p50/p99), the Guard
inference's accuracy by round (from the tournaments), openskill
(Plackett–Luce) ratings of all the bots from the same deals, and the belief
model's accuracy table of ``bench/belief.py``.

A full run (2,000 deals a step, the levels' own think times) takes days on
one core; ``--think-scale S`` multiplies the expert level's think time
(``expert-N`` is the level thinking ``N`` ms a move) and ``--search`` picks
the reference search budget, so a small run shows the command works:

    nice -n 19 python bench/levels.py --deals 6 --think-scale 0.05 --search search-100
    python bench/levels.py                      # the full ladder (see bench/bots.md)

Deals are cached as in ``bench/bots.py`` (``bench/deal_cache.py``; ``--cache``,
``--no-cache``).  Think-time bots think by the CPU time of their worker process
(``--clock cpu``, the default): a level that thinks 0.8 s a move gets 0.8 s of a
core however busy the machine is, so a ladder run beside other work measures the
levels as they play with a core to themselves (``--clock wall``: by the wall
clock, as at a table).
"""

from __future__ import annotations

import argparse
import itertools
import math
import shlex
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from belief import measure
from belief import render as render_belief
from deal_cache import Cache
from ladder_report import code_note, render
from ladder_steps import Step, StepResult, ladder_options, run_step
from openskill.models import PlackettLuce

from baohuang.bots.levels import EXPERT_ROLES, EXPERT_THINK, HARD_BOT, LEVELS
from baohuang.engine.rules import RuleSet
from baohuang.tournament.records import DealResult

DEFAULT_DEALS = 2000
OUT = Path(__file__).with_name("bots.md")


def level_names(scale: float) -> dict[str, str]:
    """Bot names of the levels at ``scale`` times their think time."""
    if scale == 1.0:
        return {lv.name: lv.name for lv in LEVELS}
    return {"easy": "easy", "normal": "normal", "hard": "hard",
            "expert": f"expert-{max(1, round(EXPERT_THINK * 1000 * scale))}"}


def searching(bot: str) -> bool:
    """Whether ``bot`` searches (its games cost think time)."""
    return bot.split("-", 1)[0] in ("expert", "search", "belief")


def ladder(names: dict[str, str], search: str, deals: int, *,
           search_deals: int | None = None, search_format: str = "duplicate",
           references: tuple[str, ...] = ("search", "heuristic")) -> list[Step]:
    """Every level against the one below it, then the top level against each
    of ``references`` (``search`` stands for ``search``, the reference search
    bot); a step with a searching bot is played over ``search_deals`` deals
    (default ``deals``) in ``search_format``."""
    order = [names[lv.name] for lv in LEVELS]
    pairs = list(itertools.pairwise(order))
    top = order[-1]
    pairs += [(search if ref == "search" else ref, top) for ref in references]
    steps: list[Step] = []
    for low, up in pairs:
        if searching(up) or searching(low):
            steps.append(Step(up, low, deals if search_deals is None else search_deals,
                              search_format))
        else:
            steps.append(Step(up, low, deals))
    return steps


@dataclass(slots=True)
class Rated:
    mu: float
    sigma: float
    matches: int = 0


def openskill_ratings(steps: list[tuple[Step, list[DealResult]]]) -> dict[str, Rated]:
    """Plackett–Luce ratings from the deals: each deal of a step is one match
    between its two bots, won by the one whose seats scored more a game
    over the deal's games (equal: a draw); steps in order, deals in order."""
    model = PlackettLuce()
    ratings: dict[str, Rated] = {}
    for step, results in steps:
        for bot in (step.upper, step.lower):
            ratings.setdefault(bot, Rated(model.rating().mu, model.rating().sigma))
        for r in results:
            totals: list[float] = [0.0, 0.0]   # bot 0 is the upper one, 1 the lower
            seats: list[int] = [0, 0]
            for g in r.games:
                for who, score in zip(g.lineup, g.scores, strict=True):
                    totals[who] += score
                    seats[who] += 1
            mean = [t / n if n else 0.0 for t, n in zip(totals, seats, strict=True)]
            a, b = ratings[step.upper], ratings[step.lower]
            if mean[0] > mean[1]:
                ranks = [1.0, 2.0]
            elif mean[0] < mean[1]:
                ranks = [2.0, 1.0]
            else:
                ranks = [1.0, 1.0]
            new = model.rate([[model.rating(mu=a.mu, sigma=a.sigma)],
                              [model.rating(mu=b.mu, sigma=b.sigma)]], ranks=ranks)
            a.mu, a.sigma = float(new[0][0].mu), float(new[0][0].sigma)
            b.mu, b.sigma = float(new[1][0].mu), float(new[1][0].sigma)
            a.matches += 1
            b.matches += 1
    return ratings


def render_ratings(ratings: dict[str, Rated], names: dict[str, str]) -> str:
    labels = {names[lv.name]: f"{lv.zh} / {lv.en}" for lv in LEVELS}
    lines = ["## Openskill ratings", "",
             "Plackett–Luce (openskill) ratings from the same deals: each deal of a step is a "
             "match between its two bots, won by the one whose seats scored more a game "
             "over the deal's games (10 in the duplicate format, 6 in the challenger).  "
             "*ordinal* is μ − 3σ; the interval is μ ± 1.96σ.",
             "", "| bot | level | μ | σ | 95% interval | ordinal | deals |",
             "|---|---|---|---|---|---|---|"]
    for name, r in sorted(ratings.items(), key=lambda kv: -kv[1].mu):
        lines.append(f"| {name} | {labels.get(name, '—')} | {r.mu:.2f} | {r.sigma:.2f} | "
                     f"[{r.mu - 1.96 * r.sigma:.2f}, {r.mu + 1.96 * r.sigma:.2f}] | "
                     f"{r.mu - 3 * r.sigma:.2f} | {r.matches} |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--think-scale", type=float, default=1.0, metavar="S",
                        help="multiply the levels' think times by S (default 1)")
    parser.add_argument("--search", default="search",
                        help="today's search bot to compare the top level with "
                             "(default search: 1,000 playouts a move)")
    parser.add_argument("--references", default="search,heuristic",
                        help="bots the top level also meets, comma-separated "
                             "(search: --search; empty: none)")
    parser.add_argument("--belief-games", type=int, default=150,
                        help="games of the belief accuracy table (0: keep the table "
                             "already in the file)")
    ladder_options(parser, deals=DEFAULT_DEALS, out=OUT,
                   search_steps="the steps where a searching bot plays",
                   search_format="duplicate")
    args = parser.parse_args(argv)
    rules = RuleSet.preset(args.rules)
    code = code_note()
    cache = Cache(None if args.no_cache else args.cache)
    names = level_names(args.think_scale)
    references = tuple(r for r in args.references.split(",") if r)
    steps = ladder(names, args.search, args.deals, search_deals=args.search_deals,
                   search_format=args.search_format, references=references)
    command = "python bench/levels.py " + " ".join(shlex.quote(a) for a in (
        argv if argv is not None else sys.argv[1:]))
    kept = _belief_section(args.out) if args.belief_games == 0 else None
    results: list[StepResult] = []
    rated: list[tuple[Step, list[DealResult]]] = []
    for i, step in enumerate(steps):
        res = run_step(step, args.seed, rules, args.jobs, args.inference_every, cache,
                       args.clock)
        results.append(res)
        rated.append((step, list(res.deals)))
        pending = [f"{s.upper} vs {s.lower}" for s in steps[i + 1:]]
        text = render(results, command.strip(), args.seed, args.jobs, rules, code, pending,
                      _notes(names, args, results), title="Bot difficulty ladder",
                      script="bench/levels.py", clock=args.clock)
        args.out.write_text(text + "\n" + render_ratings(openskill_ratings(rated), names)
                            + ("\n" + kept if kept else ""))
        if res.report is not None:
            pair = res.report.pairs[f"{step.upper} vs {step.lower}"]
            print(f"{step.upper} vs {step.lower}: mean {pair.mean:+.3f} "
                  f"CI {pair.ci95}, {res.seconds:.0f} s", flush=True)
    if args.belief_games:
        start = time.perf_counter()
        rows = measure(args.belief_games, args.seed, "heuristic", 4, 16, rules)
        belief = render_belief(rows, f"python bench/belief.py --games {args.belief_games} "
                                     f"--seed {args.seed}", time.perf_counter() - start)
        with args.out.open("a") as f:
            f.write("\n" + belief)
    print(f"wrote {args.out}")
    return 0


def _belief_section(path: Path) -> str | None:
    from belief import section
    return section(path)


def full_run_hours(results: list[StepResult], scale: float,
                   deals: int = DEFAULT_DEALS) -> float:
    """A rough estimate of the full ladder's hours on one core from a scaled
    run: each step's worker seconds a deal times ``deals``, divided by
    ``scale`` for steps with a searching bot (their time is nearly all think
    time, which grows with the scale's inverse)."""
    total = 0.0
    for r in results:
        if r.report is None or not r.step.deals:
            continue
        per_deal = r.seconds / r.step.deals
        thinks = searching(r.step.upper) or searching(r.step.lower)
        total += per_deal * deals / (scale if thinks and scale > 0 else 1.0)
    return total / 3600


def deals_needed(mean: float, ci95: tuple[float, float], deals: int) -> float | None:
    """Deals for a step of this ``mean`` to have its 95% interval exclude 0 with
    80% power, from the spread of a deal's mean that ``ci95`` over ``deals``
    deals shows (``None`` when the mean is 0 or the interval has no width).

    >>> round(deals_needed(0.1, (-0.1, 0.3), 100))
    816
    """
    sd = (ci95[1] - ci95[0]) / (2 * 1.96) * math.sqrt(deals)
    if mean == 0 or sd == 0:
        return None
    return (2.80 * sd / mean) ** 2


def deals_needed_note(r: StepResult) -> str:
    assert r.report is not None
    pair = r.report.pairs[f"{r.step.upper} vs {r.step.lower}"]
    name = f"{r.step.upper} vs {r.step.lower}"
    if pair.ci95 is None:
        return f"{name}: —"
    n = deals_needed(pair.mean, pair.ci95, r.step.deals)
    if n is None:
        return f"{name}: no difference measured (every game alike)" if \
            pair.ci95[0] == pair.ci95[1] else f"{name}: mean 0, no size would do"
    return f"{name}: about {n:,.0f} ({pair.mean:+.3f} a game)"


def _notes(names: dict[str, str], args: argparse.Namespace,
           results: list[StepResult]) -> list[str]:
    levels = ", ".join(f"`{names[lv.name]}` {lv.zh} / {lv.en}" for lv in LEVELS)
    out = ["", f"**Levels** (weakest first): {levels}.  `easy` is `heuristic` with a third of "
           "its plays at random; `normal` is `heuristic`; `hard` is the network trained by "
           f"self-play (`{HARD_BOT}`, bench/learned.md); `expert` is `{HARD_BOT}` with its "
           f"play as a {' or '.join(sorted(EXPERT_ROLES))} searched: the `belief` "
           f"search (deals drawn from `baohuang.bots.belief`) anchored on `{HARD_BOT}`, "
           f"thinking {EXPERT_THINK:g} s a move by its own clock"
           + (" (here the CPU time of its worker process: `--clock cpu`)." if args.clock == "cpu"
              else " (here the wall clock: `--clock wall`).")]
    if args.think_scale != 1.0:
        out += ["", f"**Scaled run**: the expert's think time × {args.think_scale:g} "
                "(`expert-N`: N ms a move) and the reference search is "
                f"`{args.search}`, so that the whole ladder fits in a short run on a shared "
                "machine; the levels as players meet them think the full times.  "
                + ("" if args.clock == "cpu" else
                   "Under load a think-time bot gets less of a core in the same time, so "
                   "these numbers understate the search levels."),
                "", f"**Full-size estimate**: from this run's worker seconds a deal, the "
                f"full ladder ({DEFAULT_DEALS:,} deals a step at the levels' own think "
                f"times) would take about {full_run_hours(results, args.think_scale):,.0f} "
                "hours of one core (steps still to come not counted), so it is meant for "
                "a dedicated machine: `nice -n 19 python bench/levels.py --jobs N`."]
    needed = [deals_needed_note(r) for r in results if r.report is not None]
    if needed:
        out += ["", "**Deals a step would need** to show its measured mean as significant "
                "(95% interval excluding 0 with 80% power: n = (2.80 σ / mean)², σ the "
                "standard deviation of a deal's mean from the interval): "
                + "; ".join(needed) + "."]
    out += ["", "Think-time bots are not reproducible move for move (how far a search "
            "gets depends on the machine"
            + (", not on its load: they think by the CPU time of their worker process"
               if args.clock == "cpu" else " and its load")
            + "); the scores of `easy`, `normal` and `hard` are."]
    return out


if __name__ == "__main__":
    sys.exit(main())
