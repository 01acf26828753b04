"""复盘 (game review): CPU time per seat's game, and agreement with the expert bot.

1. *Time*: ``--games`` games of ``heuristic`` bots (seeds ``--seed`` on), each
   reviewed for one seat (the seat ``game % 5``) at the default budget
   (:class:`baohuang.bots.review.ReviewSettings`); CPU seconds
   (``time.process_time``) per review: mean, median, max, and decisions reviewed.
2. *Agreement*: at every ``--every``-th decision of those reviews with more than one
   choice weighed, the ``expert`` level's answer (its own think time) is looked up
   among the review's choices: how often it is the review's best choice, in its
   top three, and the mean expected score the review says it loses.

The tables are written to ``bench/review.md`` (``--out``).

    python bench/review.py --games 10 --seed 0
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import baohuang as bh
from baohuang.bots import make_bot
from baohuang.bots.review import ReviewSettings, review_record


def play(seed: int) -> bh.Game:
    game = bh.Game.new(seed=seed)
    bots = [make_bot("heuristic", seed=s) for s in range(5)]
    while not game.is_over:
        seat = game.to_act
        assert seat is not None
        game.apply(bots[seat].choose(game.view(seat), game.legal_actions()))
    return game


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=10)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--every", type=int, default=2)
    parser.add_argument("--out", type=Path, default=Path(__file__).with_name("review.md"))
    args = parser.parse_args(argv)
    settings = ReviewSettings()
    times: list[float] = []
    counts: list[int] = []
    top1 = top3 = asked = 0
    losses: list[float] = []
    for g in range(args.games):
        seed = args.seed + g
        seat = g % 5
        game = play(seed)
        record = game.record()
        start = time.process_time()
        review = review_record(record, seat, settings)
        times.append(time.process_time() - start)
        counts.append(len(review.decisions))
        replay = bh.Game.from_record({**record, "actions": []})
        wanted = {d.index: d for d in review.decisions[::args.every]}
        expert = make_bot("expert", seed=seed)
        for i, raw in enumerate(record["actions"]):
            decision = wanted.get(i)
            if decision is not None and len(decision.choices) > 1:
                answer = expert.choose(replay.view(seat), replay.legal_actions())
                ranked = [c.action for c in decision.choices]
                match = next((k for k, c in enumerate(decision.choices)
                              if c.action == answer or _same_shape(c.action, answer)), None)
                asked += 1
                if match is not None:
                    top1 += match == 0
                    top3 += match < 3
                    losses.append(decision.choices[match].loss)
                del ranked
            replay.apply(bh.Action.from_dict(raw))
        print(f"game {seed} seat {seat}: {times[-1]:.1f} s CPU, {counts[-1]} decisions",
              file=sys.stderr)
    lines = [
        "# 复盘 (game review): cost and agreement",
        "",
        f"`python bench/review.py --games {args.games} --seed {args.seed} "
        f"--every {args.every}`; default budget: {settings.playouts} playouts a "
        f"decision, at most {settings.max_choices} choices, "
        f"{settings.cpu_seconds:g} s CPU a review.",
        "",
        "| reviews | decisions (mean) | CPU s mean | median | max |",
        "|---:|---:|---:|---:|---:|",
        f"| {len(times)} | {statistics.mean(counts):.1f} | {statistics.mean(times):.1f} | "
        f"{statistics.median(times):.1f} | {max(times):.1f} |",
        "",
        "Agreement with the `expert` level's answer at the same decisions (its answer "
        "found among the review's choices; a play counts as found when the review "
        "weighed a play of the same cards' ranks):",
        "",
        "| decisions | expert's answer weighed | review's best | in review's top 3 | "
        "mean loss the review gives it |",
        "|---:|---:|---:|---:|---:|",
        f"| {asked} | {len(losses)} | {top1 / max(1, asked):.0%} | "
        f"{top3 / max(1, asked):.0%} | "
        f"{statistics.mean(losses) if losses else 0:.2f} |",
        "",
    ]
    args.out.write_text("\n".join(lines), encoding="utf-8")
    print("\n".join(lines))
    return 0


def _same_shape(a: bh.Action, b: bh.Action) -> bool:
    """Two plays of the same ranks (they differ only by which copies)."""
    from baohuang.engine.cards import RANK_OF
    return (a.kind is b.kind is bh.ActionKind.PLAY
            and sorted(RANK_OF[c] for c in a.cards) == sorted(RANK_OF[c] for c in b.cards))


if __name__ == "__main__":
    raise SystemExit(main())
