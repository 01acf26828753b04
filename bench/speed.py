"""Speed of the search's parts: playouts, uniform deals and belief deals.

Collects the play-phase views of ``--games`` games of ``heuristic`` bots
(every ``--every``-th decision, the seat to act), then measures, per CPU
second of this process:

- *playouts*: :meth:`baohuang.bots.search.rollout.Simulator.run` from the
  true position of each view (its rank counts), to the end of the game;
- *uniform deals*: :meth:`baohuang.bots.search.sampler.DealSampler.sample`
  (the ``search`` bot's deals) with the rank counts of every hand, as the
  search reads them;
- *belief set-ups*: :class:`baohuang.bots.belief.Belief` built for a view
  (what the ``belief`` bot and the levels do once a decision, with their
  ``samples`` and ``resample``);
- *belief deals*: :meth:`~baohuang.bots.belief.Belief.sample` of a built
  belief, with the rank counts of every hand.

The work is fixed (``--repeat`` passes over the views), so the script can
also run under ``valgrind --tool=callgrind`` to count instructions, which a
loaded machine does not change (``--only`` picks one part):

    python bench/speed.py --games 12
    valgrind --tool=callgrind python bench/speed.py --games 4 --only playouts
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections.abc import Callable

import baohuang as bh
from baohuang.bots import make_bot
from baohuang.bots.belief import Belief
from baohuang.bots.hand_eval import rank_counts_of
from baohuang.bots.search.belief_search import BELIEF_SAMPLES, RESAMPLE
from baohuang.bots.search.rollout import PlayState, Simulator
from baohuang.bots.search.sampler import DealSampler
from baohuang.bots.search.worlds import root_facts
from baohuang.engine.scoring import SoloKind
from baohuang.engine.views import View

PARTS = ("playouts", "uniform", "setups", "belief")


def positions(games: int, every: int, seed: int) -> list[tuple[View, PlayState]]:
    """Views of the seat to act at play-phase decisions (more than one legal
    action) and the true positions."""
    rules = bh.RuleSet()
    sim = Simulator(rules)
    out: list[tuple[View, PlayState]] = []
    for g in range(games):
        game = bh.Game.new(rules, seed=seed + g)
        bots = [make_bot("heuristic", seed=s) for s in range(5)]
        k = 0
        while not game.is_over:
            seat = game.to_act
            assert seat is not None
            view = game.view(seat)
            legal = game.legal_actions()
            if game.stage is bh.Stage.PLAY and len(legal) > 1:
                k += 1
                if k % every == 0:
                    assert game.emperor is not None and game.guard is not None
                    solo: SoloKind | None = ("open" if game.solo == "open" else
                                             "hidden" if game.solo else None)
                    counts = [rank_counts_of(game.hand(s)) for s in range(5)]
                    out.append((view, sim.state(counts, game.emperor, game.guard, solo,
                                                to_act=seat, **root_facts(view, rules))))
            game.apply(bots[seat].choose(view, legal))
    return out


def rate(work: Callable[[], int]) -> tuple[int, float]:
    start = time.process_time()
    n = work()
    return n, time.process_time() - start


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--games", type=int, default=12)
    parser.add_argument("--every", type=int, default=3,
                        help="every K-th play-phase decision is a position")
    parser.add_argument("--repeat", type=int, default=20,
                        help="playouts and deals per position")
    parser.add_argument("--seed", type=int, default=100)
    parser.add_argument("--only", choices=PARTS, default=None)
    args = parser.parse_args(argv)
    found = positions(args.games, args.every, args.seed)
    print(f"{len(found)} positions from {args.games} games", flush=True)
    rules = bh.RuleSet()
    sim = Simulator(rules)
    rng = random.Random(args.seed)
    repeat: int = args.repeat

    def playouts() -> int:
        for _, st in found:
            for _ in range(repeat):
                sim.run(st.copy(), rng)
        return len(found) * repeat

    def uniform() -> int:
        for view, _ in found:
            deals = DealSampler(view)
            for _ in range(repeat):
                world = deals.sample(rng)
                for s in range(5):
                    world.counts(s)
        return len(found) * repeat

    def setups() -> int:
        for view, _ in found:
            Belief(view, samples=BELIEF_SAMPLES, resample=RESAMPLE)
        return len(found)

    built = ([Belief(view, samples=BELIEF_SAMPLES, resample=RESAMPLE) for view, _ in found]
             if args.only in (None, "belief") else [])

    def belief() -> int:
        for b in built:
            for _ in range(repeat):
                world = b.sample(rng)
                for s in range(5):
                    world.counts(s)
        return len(built) * repeat

    parts = {"playouts": playouts, "uniform": uniform, "setups": setups, "belief": belief}
    for name in PARTS:
        if args.only not in (None, name):
            continue
        n, seconds = rate(parts[name])
        print(f"{name}: {n} in {seconds:.2f} CPU s = {n / seconds:,.0f}/s", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
