"""The `learned` bot: its strength against training time, and its time per decision.

    python bench/learned.py curve RUN_DIR          # eval.jsonl of a training run as a table
    python bench/learned.py timing --games 20      # the shipped bot's time per decision
    python bench/learned.py departs W.npz --margins 1,2,3   # a guided network's margin rule

The strength of the shipped weights over many fixed deals is the tournament's job:

    baohuang tournament --bots learned,heuristic --deals 2000 --no-inference

(``bench/learned.md`` has the numbers.)  ``curve`` prints one row per evaluation of a
run (``baohuang train`` evaluates against the heuristic bot every ``--eval-minutes``):
training time, the process's CPU time, games and updates so far, and the mean score per
game of the network's seat against the heuristic bot with its 95% interval.  ``departs``
plays games of five heuristic seats and counts, at every decision with a choice, whether
a guided network (weights file ``W.npz``) would depart from the heuristic's choice under
each margin, role phase and play apart.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

import numpy as np

import baohuang as bh
from baohuang.bots import make_bot
from baohuang.learn.bot import LearnedBot
from baohuang.learn.model import QNetwork


def curve(run: Path) -> None:
    rows = [json.loads(line) for line in (run / "eval.jsonl").read_text().splitlines()
            if line.strip()]
    print("| training time | CPU time | games | updates | deals | mean vs heuristic "
          "| 95% interval |")
    print("|---:|---:|---:|---:|---:|---:|---|")
    for r in rows:
        ci = r["ci95"]
        shown = "—" if ci is None else f"[{ci[0]:+.3f}, {ci[1]:+.3f}]"
        print(f"| {r['elapsed_s'] / 60:.0f} min | {r['cpu_s'] / 60:.0f} min | {r['games']:,} | "
              f"{r['updates']:,} | {r['deals']} | {r['mean']:+.3f} | {shown} |")


def timing(games: int, preset: str) -> None:
    rules = bh.RuleSet.preset(preset)
    times: list[float] = []
    for seed in range(games):
        game = bh.Game.new(rules, seed=seed, dealer=seed % 5)
        bots = [make_bot("learned" if s % 2 == 0 else "heuristic", seed=s) for s in range(5)]
        while not game.is_over:
            seat = game.to_act
            assert seat is not None
            view, legal = game.view(seat), game.legal_actions()
            start = time.perf_counter()
            action = bots[seat].choose(view, legal)
            if seat % 2 == 0 and len(legal) > 1:
                times.append(time.perf_counter() - start)
            game.apply(action)
    times.sort()
    ms = [1000 * t for t in times]
    print(f"learned, {preset}: {len(ms)} decisions with a choice in {games} games: "
          f"median {statistics.median(ms):.2f} ms, p99 {ms[int(0.99 * (len(ms) - 1))]:.2f} ms, "
          f"max {ms[-1]:.2f} ms")


def departs(weights: Path, margins: list[float], games: int, preset: str) -> None:
    network = QNetwork.load(weights)
    if not network.guided:
        raise SystemExit(f"{weights}: not a guided network")
    rules = bh.RuleSet.preset(preset)
    bot = LearnedBot(0, network)
    heuristic = make_bot("heuristic")
    gaps: dict[str, list[float]] = {"role phase": [], "play": []}
    for seed in range(games):
        game = bh.Game.new(rules, seed=1000 + seed, dealer=seed % 5)
        while not game.is_over:
            seat = game.to_act
            assert seat is not None
            view, legal = game.view(seat), game.legal_actions()
            action = heuristic.choose(view, legal)
            if len(legal) > 1:
                hint = legal.index(action)
                values = bot.values(view, legal, hint)
                stage = "play" if view.stage is bh.Stage.PLAY else "role phase"
                gaps[stage].append(max(values) - values[hint])
            game.apply(action)
    for stage, found in gaps.items():
        arr = np.asarray(found)
        shares = "  ".join(f"margin {m:g}: {np.mean(arr > m):.1%}" for m in margins)
        print(f"{stage}, {len(arr)} decisions: departs at {shares}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    c = sub.add_parser("curve", help="a training run's evaluations as a table")
    c.add_argument("run", type=Path)
    t = sub.add_parser("timing", help="the shipped bot's time per decision")
    t.add_argument("--games", type=int, default=20)
    t.add_argument("--preset", default="shandong")
    d = sub.add_parser("departs", help="how often a guided network departs from the "
                                       "heuristic's choice, by margin")
    d.add_argument("weights", type=Path)
    d.add_argument("--margins", default="0.5,1,2,3")
    d.add_argument("--games", type=int, default=20)
    d.add_argument("--preset", default="shandong")
    args = parser.parse_args(argv)
    if args.command == "curve":
        curve(args.run)
    elif args.command == "departs":
        departs(args.weights, [float(m) for m in args.margins.split(",")], args.games,
                args.preset)
    else:
        timing(args.games, args.preset)
    return 0


if __name__ == "__main__":
    sys.exit(main())
