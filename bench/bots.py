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
--deals N --seed S --format F`` (times are not: they depend on the machine,
and with ``--clock wall`` on its load).

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
import shlex
import sys
from pathlib import Path

from deal_cache import Cache
from ladder_report import ci_text, code_note, notes_for, render, verdict
from ladder_steps import Step, StepResult, ladder_options, parse_step, run_step

from baohuang.bots import bot_names
from baohuang.engine.rules import RuleSet

LADDER = (("hosted", "random"), ("heuristic", "hosted"), ("search", "heuristic"))
DEFAULT_DEALS = 2000
OUT = Path(__file__).with_name("bots-classic.md")


def register_search_variant(iterations: int) -> str:
    """The name of ``search`` with another playout budget: ``search-N``, which
    the bot registry makes (``baohuang tournament --bots search-N,…`` too)."""
    return f"search-{iterations}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--step", action="append", default=None,
                        metavar="UPPER,LOWER[,DEALS[,FORMAT]]",
                        help="run this step instead of the ladder (repeatable)")
    parser.add_argument("--search-iterations", type=int, default=None, metavar="N",
                        help="run the search step with N playouts per decision instead "
                             "of the registered bot's default")
    ladder_options(parser, deals=DEFAULT_DEALS, out=OUT, search_steps="the search step",
                   search_format="challenger")
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
        res = run_step(step, args.seed, rules, args.jobs, args.inference_every, cache,
                       args.clock)
        results.append(res)
        pending = [f"{s.upper} vs {s.lower}" for s in steps[i + 1:]]
        # written after every step, so that a long run leaves what it measured
        args.out.write_text(render(results, command.strip(), args.seed, args.jobs, rules, code,
                                   pending, notes_for(results), clock=args.clock))
        if res.report is None:
            print(f"{step.upper} vs {step.lower}: not run ({', '.join(res.missing)} "
                  "not registered)")
            continue
        pair = res.report.pairs[f"{step.upper} vs {step.lower}"]
        assert res.report.timing is not None
        ratio = (res.report.timing[step.upper].quantile(0.5)
                 / max(res.report.timing[step.lower].quantile(0.5), 1e-12))
        print(f"{step.upper} vs {step.lower} ({step.format}): {step.deals} deals "
              f"({res.cached} cached), mean {pair.mean:+.3f} CI {ci_text(pair)} "
              f"({verdict(pair)}), time per decision p50 ratio {ratio:.3g}×, "
              f"{res.seconds:.0f} s", flush=True)
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
