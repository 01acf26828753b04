"""Learning-environment speed: environment steps per second, observation and action
mask included, with random legal actions.

Two kinds of loop, each beside its peer in the same run:

*The lean loop* (``baohuang_v0.raw_env``, ``VectorEnv``): what an agent loop does
per decision when written for speed: ``observe(agent)`` (the observation vector and
the 0/1 mask over all 29,379 actions, both built from the seat's view) and
``step(index)``, the random policy picking among ``legal_indexes()`` (the 1s of the
mask as a list, which RLCard hands its players too).  Its peers: RLCard's Dou Dizhu
environment (``rlcard.make("doudizhu")``) stepped by hand, a random index among its
state's ``legal_actions`` (goal: 5x), and OpenSpiel's C++ ``dou_dizhu`` with the
acting player's observation tensor every step (goal: 0.3x).  ``VectorEnv`` plays the
same games ``--batch`` at a time (observations ``[n, 485]`` and masks ``[n, 29379]``
stacked; one step is one decision in one game).

*The loops the frameworks document*, as written in their documentation:

- PettingZoo's (``docs/rl.md``): ``env = baohuang_v0.env()``, ``for agent in
  env.agent_iter()``, ``env.last()``, ``env.action_space(agent).sample(mask)``,
  ``env.step(action)`` — goal: 3x RLCard's Dou Dizhu played by RLCard's own loop
  below;
- RLCard's: ``env.set_agents([RandomAgent(num_actions=env.num_actions), ...])`` and
  ``env.run()``, for ``rlcard.make("baohuang")`` and ``rlcard.make("doudizhu")`` —
  goal: ours at least 1x theirs.  ``run()`` is evaluation by default
  (``RandomAgent.eval_step``, which builds a list of ``num_actions`` entries a step:
  29,379 here, 27,472 in Dou Dizhu); ``run(is_training=True)`` calls
  ``RandomAgent.step``.  Both are measured, and the PettingZoo loop's ratio is given
  against each.  RLCard's random agents draw from NumPy's global random state, seeded
  here.

Rounds of all the loops alternate, so that all see the same load; the ratios of one
run are what to read (``--cpu``: every rate is the CPU time of this process, fairer on
a loaded machine).

    python bench/env.py                 # about a minute and a half
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

import numpy as np

import baohuang as bh
from baohuang.env import VectorEnv, baohuang_v0

DEFAULT_GAMES = 400
DEFAULT_RUN_GAMES = 40
DEFAULT_ROUNDS = 4
TARGET_RATIO = 5.0
TARGET_OPENSPIEL = 0.3
TARGET_STANDARD = 3.0
TARGET_RLCARD_RUN = 1.0
#: RLCard's Dou Dizhu games per game of ours in its ``run()`` loops (its games are
#: about a quarter as long: ~60 decisions against ~250)
DOUDIZHU_PER_GAME = 4
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


def bench_standard(preset: str, seeds: range) -> tuple[int, float]:
    """(steps, seconds) of random games played by the loop PettingZoo documents, as
    ``docs/rl.md`` writes it (``env()``, ``agent_iter``, ``last``, the action space's
    ``sample(mask)``).  Only the decisions are counted: each game's last five
    iterations step its agents out with ``None``."""
    env = baohuang_v0.env(preset)
    steps = 0
    start = clock()
    for seed in seeds:
        env.reset(seed=seed)
        for agent in env.agent_iter():
            observation, _reward, termination, truncation, _info = env.last()
            if termination or truncation:
                action = None
            else:
                action = env.action_space(agent).sample(observation["action_mask"])
                steps += 1
            env.step(action)
    return steps, clock() - start


def bench_rlcard_run(make: Callable[[str, int], Any], name: str, games: int, seed: int,
                     training: bool) -> tuple[int, float]:
    """(steps, seconds) of ``games`` games of RLCard's environment ``name`` played by
    RLCard's loop with its random agents (``env.run``), one step per action taken."""
    from rlcard.agents import RandomAgent

    env = make(name, seed)
    env.set_agents([RandomAgent(num_actions=env.num_actions) for _ in range(env.num_players)])
    np.random.seed(seed)
    steps = 0
    start = clock()
    for _ in range(games):
        trajectories, _payoffs = env.run(is_training=training)
        steps += sum((len(t) - 1) // 2 for t in trajectories)
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


def load_rlcard() -> Callable[[str, int], Any] | None:
    """A maker of RLCard's environments (``doudizhu``, ``baohuang``), or None without
    rlcard."""
    try:
        import rlcard
    except ImportError:
        return None

    def make(name: str, seed: int) -> Any:
        return rlcard.make(name, config={"seed": seed})
    return make


def bench_rlcard(make: Callable[[str, int], Any], seeds: range) -> tuple[int, float]:
    """(steps, seconds) of random games of RLCard's Dou Dizhu environment."""
    env = make("doudizhu", seeds.start)
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
    parser.add_argument("--run-games", type=int, default=DEFAULT_RUN_GAMES,
                        help="games of rlcard.make('baohuang') per RLCard run() loop "
                             f"(default {DEFAULT_RUN_GAMES}; Dou Dizhu plays "
                             f"{DOUDIZHU_PER_GAME}x as many)")
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
    if args.games < args.rounds or args.run_games < args.rounds or args.rounds < 1:
        parser.error("--games and --run-games must be at least --rounds, which must be "
                     "at least 1")
    return args


def _line(name: str, total: list[Any], note: str = "") -> float:
    rate: float = total[0] / total[1]
    print(f"{name:<46}{total[0]:>8} steps  {total[1]:6.2f} s  {rate:>9,.0f} steps/s{note}")
    return rate


def _ratio(what: str, ratio: float, goal: float) -> None:
    print(f"  {what:<64} {ratio:5.2f}x (goal {goal:g}x: "
          f"{'met' if ratio >= goal else 'not met'})")


def main(argv: Sequence[str] | None = None) -> int:
    global clock
    args = parse_args(argv)
    clock = time.process_time if args.cpu else time.perf_counter
    make = None if args.no_rlcard else load_rlcard()
    spiel = None if args.no_openspiel else load_openspiel()
    per_round = args.games // args.rounds
    run_games = args.run_games // args.rounds
    names = ["lean", "vector", "engine", "standard"]
    if make is not None:
        names += ["rlcard", "bh_eval", "dou_eval", "bh_train", "dou_train"]
    if spiel is not None:
        names.append("openspiel")
    totals: dict[str, list[Any]] = {name: [0, 0.0] for name in names}
    for k in range(args.rounds):
        seeds = range(k * per_round, (k + 1) * per_round)
        for name in names:
            if name == "lean":
                steps, seconds = bench_baohuang(args.preset, seeds)
            elif name == "vector":
                steps, seconds = bench_vector(args.preset, seeds, args.batch)
            elif name == "engine":
                steps, seconds = bench_engine(args.preset, seeds)
            elif name == "standard":
                steps, seconds = bench_standard(args.preset, seeds)
            elif name == "rlcard":
                assert make is not None
                steps, seconds = bench_rlcard(make, seeds)
            elif name == "openspiel":
                steps, seconds = bench_openspiel(spiel, seeds)
            else:
                assert make is not None
                env_name = "baohuang" if name.startswith("bh") else "doudizhu"
                games = run_games * (1 if env_name == "baohuang" else DOUDIZHU_PER_GAME)
                steps, seconds = bench_rlcard_run(make, env_name, games, k,
                                                  name.endswith("train"))
            totals[name][0] += steps
            totals[name][1] += seconds
        print(f"  round {k + 1}/{args.rounds} done", file=sys.stderr)
    print(f"Random play, observation and action mask every step; Python "
          f"{sys.version.split()[0]}; {'CPU time' if args.cpu else 'wall clock'}; "
          f"preset {args.preset}")
    print("The lean loop:")
    rate = _line("  baohuang_v0.raw_env", totals["lean"])
    vrate = _line(f"  VectorEnv ({args.batch} games)", totals["vector"],
                  "   (batch API, stacked observations and masks)")
    _line("  engine alone (view)", totals["engine"], "   (no observation, mask or env)")
    if make is not None:
        peer = _line("  rlcard doudizhu, stepped by hand", totals["rlcard"])
        _ratio("raw_env / RLCard doudizhu", rate / peer, TARGET_RATIO)
        _ratio("VectorEnv / RLCard doudizhu", vrate / peer, TARGET_RATIO)
    elif args.no_rlcard:
        print("  RLCard skipped (--no-rlcard).")
    else:
        print("  rlcard is not installed (pip install -e '.[bench]'): no RLCard comparison.")
    if spiel is not None:
        peer = _line("  openspiel dou_dizhu (C++)", totals["openspiel"],
                     "   (observation tensor every step)")
        _ratio("raw_env / OpenSpiel dou_dizhu", rate / peer, TARGET_OPENSPIEL)
        _ratio("VectorEnv / OpenSpiel dou_dizhu", vrate / peer, TARGET_OPENSPIEL)
    elif args.no_openspiel:
        print("  OpenSpiel skipped (--no-openspiel).")
    else:
        print("  open_spiel is not installed (pip install -e '.[rl]'): no OpenSpiel "
              "comparison.")
    print("The loops the frameworks document:")
    standard = _line("  baohuang_v0.env(), agent_iter, sample(mask)", totals["standard"])
    if make is not None:
        bh_eval = _line("  rlcard baohuang, RandomAgent, run()", totals["bh_eval"])
        dou_eval = _line("  rlcard doudizhu, RandomAgent, run()", totals["dou_eval"])
        bh_train = _line("  rlcard baohuang, run(is_training=True)", totals["bh_train"])
        dou_train = _line("  rlcard doudizhu, run(is_training=True)", totals["dou_train"])
        _ratio("PettingZoo loop / RLCard doudizhu run()", standard / dou_eval,
               TARGET_STANDARD)
        _ratio("PettingZoo loop / RLCard doudizhu stepped by hand",
               standard / (totals["rlcard"][0] / totals["rlcard"][1]), TARGET_STANDARD)
        _ratio("PettingZoo loop / RLCard doudizhu run(is_training=True)",
               standard / dou_train, TARGET_STANDARD)
        _ratio("rlcard baohuang / doudizhu, run()", bh_eval / dou_eval, TARGET_RLCARD_RUN)
        _ratio("rlcard baohuang / doudizhu, run(is_training=True)", bh_train / dou_train,
               TARGET_RLCARD_RUN)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
