"""Learning-environment speed: environment steps per second, observation and action
mask included, with random legal actions.

One *step* of ours is what an agent loop does per decision of the PettingZoo
environment (``baohuang_v0.raw_env``): ``observe(agent)`` (the observation vector
and the 0/1 mask over all 29,379 actions, both built from the seat's view) and
``step(index)``.  The random policy picks among ``legal_indexes()``, the 1s of the
mask as a list (RLCard hands its players that list too).

When ``rlcard`` is importable (``pip install -e '.[bench]'``) the same run also
steps RLCard's Dou Dizhu environment (``rlcard.make("doudizhu")``), whose ``step``
returns the next player's state with its observation (``obs``, 790 numbers) and
legal actions; a random legal action is taken each step.  Rounds of the two
alternate, so that both see the same load, and the ratio ours / RLCard's is
printed (goal: 5x or more).

The same games are also played through the batch API, ``baohuang.env.VectorEnv``
(``--batch`` games side by side, each step one decision in each game, observations
``[n, 485]`` and masks ``[n, 29379]`` stacked), counted the same way: one step is
one decision in one game.

When ``pyspiel`` is importable (the ``rl`` extra installs open_spiel) it also plays
OpenSpiel's C++ ``dou_dizhu`` with random legal actions, building the acting
player's observation tensor every step, and prints ours / OpenSpiel's (goal: 0.3x or
more).

    python bench/env.py                 # about half a minute
    python bench/env.py --games 100     # quicker, noisier
    python bench/env.py --cpu           # CPU time of this process (a loaded machine)
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections.abc import Callable, Sequence
from typing import Any

import baohuang as bh
from baohuang.env import VectorEnv, baohuang_v0

DEFAULT_GAMES = 400
DEFAULT_ROUNDS = 4
TARGET_RATIO = 5.0
TARGET_OPENSPIEL = 0.3
DEFAULT_BATCH = 16
#: the clock every bench reads (``--cpu``: the process's CPU time)
clock = time.perf_counter


def bench_baohuang(preset: str, seeds: range) -> tuple[int, float]:
    """(steps, seconds) of random games of the PettingZoo environment."""
    env = baohuang_v0.raw_env(preset)
    rng = random.Random(seeds.start)
    steps = 0
    start = clock()
    for seed in seeds:
        env.reset(seed=seed)
        while not env.terminations[env.agent_selection]:
            env.observe(env.agent_selection)            # observation and mask
            legal = env.legal_indexes()
            env.step(legal[rng.randrange(len(legal))])
            steps += 1
    return steps, clock() - start


def bench_vector(preset: str, seeds: range, batch: int) -> tuple[int, float]:
    """(steps, seconds) of ``len(seeds)`` random games played ``batch`` at a time by
    :class:`VectorEnv` (a step of it: one decision in each of its games; counted
    here as ``batch`` steps)."""
    envs = VectorEnv(batch, preset)
    rng = random.Random(seeds.start)
    steps = games = 0
    start = clock()
    envs.reset(seed=seeds.start)
    while games < len(seeds):
        legal = envs.legal_indexes()
        _, _, ended, _, _ = envs.step([choices[rng.randrange(len(choices))]
                                       for choices in legal])
        steps += batch
        games += int(ended.sum())
    return steps, clock() - start


def bench_engine(preset: str, seeds: range) -> tuple[int, float]:
    """(steps, seconds) of the same random games on the bare engine: the acting seat's
    view, its legal actions and ``apply``, no observation, mask or environment (the
    ceiling of any environment over this engine)."""
    rules = bh.RuleSet.preset(preset)
    rng = random.Random(seeds.start)
    steps = 0
    start = clock()
    for seed in seeds:
        game = bh.Game.new(rules, seed)
        while not game.is_over:
            legal = game.view(game.to_act).legal_actions
            game.apply(legal[rng.randrange(len(legal))])
            steps += 1
    return steps, clock() - start


def load_rlcard() -> Callable[[int], Any] | None:
    """A maker of RLCard's Dou Dizhu environment, or None without rlcard."""
    try:
        import rlcard
    except ImportError:
        return None

    def make(seed: int) -> Any:
        return rlcard.make("doudizhu", config={"seed": seed})
    return make


def bench_rlcard(make: Callable[[int], Any], seeds: range) -> tuple[int, float]:
    """(steps, seconds) of random games of RLCard's Dou Dizhu environment."""
    env = make(seeds.start)
    rng = random.Random(seeds.start)
    steps = 0
    start = clock()
    for _ in seeds:
        state, _player = env.reset()
        while not env.is_over():
            legal = list(state["legal_actions"])
            state, _player = env.step(legal[rng.randrange(len(legal))])
            steps += 1
    return steps, clock() - start


def load_openspiel() -> Any | None:
    """OpenSpiel's C++ Dou Dizhu game, or None without open_spiel."""
    try:
        import pyspiel
    except ImportError:
        return None
    return pyspiel.load_game("dou_dizhu")


def bench_openspiel(game: Any, seeds: range) -> tuple[int, float]:
    """(steps, seconds) of random games of OpenSpiel's C++ Dou Dizhu, the acting
    player's observation tensor built every step (chance outcomes are not steps)."""
    rng = random.Random(seeds.start)
    steps = 0
    start = clock()
    for _ in seeds:
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes = state.chance_outcomes()
                state.apply_action(outcomes[rng.randrange(len(outcomes))][0])
                continue
            state.observation_tensor(state.current_player())
            legal = state.legal_actions()
            state.apply_action(legal[rng.randrange(len(legal))])
            steps += 1
    return steps, clock() - start


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=DEFAULT_GAMES,
                        help=f"games per environment (default {DEFAULT_GAMES})")
    parser.add_argument("--rounds", type=int, default=DEFAULT_ROUNDS,
                        help=f"alternating rounds (default {DEFAULT_ROUNDS})")
    parser.add_argument("--preset", default="shandong", choices=list(bh.PRESETS))
    parser.add_argument("--batch", type=int, default=DEFAULT_BATCH,
                        help=f"games side by side in VectorEnv (default {DEFAULT_BATCH})")
    parser.add_argument("--cpu", action="store_true",
                        help="measure the CPU time of this process instead of the wall "
                             "clock (every peer runs in this process, on one thread)")
    parser.add_argument("--no-rlcard", action="store_true", help="skip the RLCard peer")
    parser.add_argument("--no-openspiel", action="store_true",
                        help="skip the OpenSpiel peer")
    args = parser.parse_args(argv)
    if args.games < args.rounds or args.rounds < 1:
        parser.error("--games must be at least --rounds, which must be at least 1")
    return args


def _compare(name: str, peer: list[Any], rate: float, goal: float, note: str = "") -> None:
    """The peer's line (steps, seconds, steps/s) and the ratio of ours to it."""
    peer_rate = peer[0] / peer[1]
    ratio = rate / peer_rate
    print(f"{name}{peer[0]:>8} steps  {peer[1]:6.2f} s  {peer_rate:>9,.0f} steps/s{note}")
    print(f"ratio {ratio:.2f}x (goal {goal:g}x: {'met' if ratio >= goal else 'not met'})")


def main(argv: Sequence[str] | None = None) -> int:
    global clock
    args = parse_args(argv)
    clock = time.process_time if args.cpu else time.perf_counter
    make = None if args.no_rlcard else load_rlcard()
    spiel = None if args.no_openspiel else load_openspiel()
    per_round = args.games // args.rounds
    ours = [0, 0.0]
    batched = [0, 0.0]
    bare = [0, 0.0]
    theirs = [0, 0.0]
    cpp = [0, 0.0]
    for k in range(args.rounds):
        seeds = range(k * per_round, (k + 1) * per_round)
        steps, seconds = bench_baohuang(args.preset, seeds)
        ours[0] += steps
        ours[1] += seconds
        steps, seconds = bench_vector(args.preset, seeds, args.batch)
        batched[0] += steps
        batched[1] += seconds
        steps, seconds = bench_engine(args.preset, seeds)
        bare[0] += steps
        bare[1] += seconds
        if make is not None:
            steps, seconds = bench_rlcard(make, seeds)
            theirs[0] += steps
            theirs[1] += seconds
        if spiel is not None:
            steps, seconds = bench_openspiel(spiel, seeds)
            cpp[0] += steps
            cpp[1] += seconds
        print(f"  round {k + 1}/{args.rounds} done", file=sys.stderr)
    rate = ours[0] / ours[1]
    print(f"Random play, observation and action mask every step; Python "
          f"{sys.version.split()[0]}; {'CPU time' if args.cpu else 'wall clock'}")
    print(f"baohuang_v0 ({args.preset:<9})  {ours[0]:>8} steps  {ours[1]:6.2f} s  "
          f"{rate:>9,.0f} steps/s")
    vrate = batched[0] / batched[1]
    print(f"VectorEnv ({args.batch:>3} games)   {batched[0]:>8} steps  {batched[1]:6.2f} s  "
          f"{vrate:>9,.0f} steps/s   (batch API, stacked observations and masks)")
    print(f"engine alone (view)      {bare[0]:>8} steps  {bare[1]:6.2f} s  "
          f"{bare[0] / bare[1]:>9,.0f} steps/s   (no observation, mask or env)")
    if make is None and args.no_rlcard:
        print("RLCard skipped (--no-rlcard).")
    elif make is None:
        print("rlcard is not installed (pip install -e '.[bench]'): no RLCard comparison.")
    else:
        _compare("rlcard doudizhu          ", theirs, rate, TARGET_RATIO)
        _compare("  (VectorEnv against it) ", theirs, vrate, TARGET_RATIO)
    if spiel is None and args.no_openspiel:
        print("OpenSpiel skipped (--no-openspiel).")
    elif spiel is None:
        print("open_spiel is not installed (pip install -e '.[rl]'): no OpenSpiel comparison.")
    else:
        _compare("openspiel dou_dizhu (C++)", cpp, rate, TARGET_OPENSPIEL,
                 "   (observation tensor every step)")
        _compare("  (VectorEnv against it) ", cpp, vrate, TARGET_OPENSPIEL)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
