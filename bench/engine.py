"""Engine speed: random legal actions over whole games, role phase included.

For each preset, plays ``--games`` games (seeds 0, 1, …) in which the seat to
act always picks a uniformly random action from ``game.legal_actions()``, and
prints decisions per second and games per second.  A *decision* is one
``game.apply`` call (role-phase answers, plays and passes alike).

When ``rlcard`` is importable (``pip install -e '.[bench]'``) the same run also
plays RLCard's bare Dou Dizhu ``Game`` with random legal actions and prints our
decisions/s divided by RLCard's.  RLCard's game hands out the legal actions of
the player to act in the state returned by ``init_game()`` / ``step()``
(``state["actions"]``, which is what RLCard's own environment reads), so one
``step`` is one decision there, legal-action generation included.

    python bench/engine.py                      # about a minute
    python bench/engine.py --games 200          # quicker, noisier
    python bench/engine.py --views              # also build the acting seat's view
    python bench/engine.py --profile            # cProfile of the first preset
"""

from __future__ import annotations

import argparse
import cProfile
import io
import itertools
import pstats
import random
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import baohuang as bh
from baohuang.engine.rules import PRESETS

DEFAULT_GAMES = 2000
DEFAULT_ROUNDS = 10
TARGET_RATIO = 10.0


@dataclass(frozen=True, slots=True)
class Measurement:
    """Totals of one timed run."""

    engine: str
    rules: str
    games: int
    decisions: int
    seconds: float

    @property
    def decisions_per_second(self) -> float:
        return self.decisions / self.seconds if self.seconds else 0.0

    @property
    def games_per_second(self) -> float:
        return self.games / self.seconds if self.seconds else 0.0


def play_random_game(rules: bh.RuleSet, seed: int, views: bool) -> int:
    """One whole game with random legal actions; returns the number of decisions."""
    rng = random.Random(seed)
    game = bh.Game.new(rules, seed=seed)
    decisions = 0
    while not game.is_over:
        if views:
            game.view(game.to_act)
        legal = game.legal_actions()
        game.apply(legal[rng.randrange(len(legal))])
        decisions += 1
    return decisions


def bench_baohuang(rules: bh.RuleSet, seeds: range, views: bool) -> tuple[int, float]:
    """Decisions made and seconds taken over the games of ``seeds``."""
    decisions = 0
    start = time.perf_counter()
    for seed in seeds:
        decisions += play_random_game(rules, seed, views)
    return decisions, time.perf_counter() - start


def load_rlcard_game() -> Callable[[], Any] | None:
    """RLCard's Dou Dizhu game class, or None when rlcard is not installed."""
    try:
        from rlcard.games.doudizhu.game import DoudizhuGame
    except ImportError:
        return None
    factory: Callable[[], Any] = DoudizhuGame
    return factory


def bench_rlcard(factory: Callable[[], Any], seeds: range) -> tuple[int, float]:
    """RLCard's Dou Dizhu with random legal actions: decisions and seconds."""
    decisions = 0
    start = time.perf_counter()
    for seed in seeds:
        rng = random.Random(seed)
        game = factory()
        game.np_random.seed(seed)
        state, _ = game.init_game()
        while not game.is_over():
            legal = state["actions"]
            state, _ = game.step(legal[rng.randrange(len(legal))])
            decisions += 1
    return decisions, time.perf_counter() - start


def chunks(first: int, count: int, rounds: int) -> list[range]:
    """``count`` seeds from ``first`` split into ``rounds`` nearly equal ranges."""
    bounds = [first + count * i // rounds for i in range(rounds + 1)]
    return [range(a, b) for a, b in itertools.pairwise(bounds) if b > a]


def format_table(rows: Sequence[Measurement], peer: Measurement | None) -> str:
    """The results as an aligned text table (ratio column only with a peer)."""
    header = ["engine", "rules", "games", "decisions", "dec/game", "seconds",
              "decisions/s", "games/s"]
    if peer is not None:
        header.append("vs rlcard")
    lines: list[list[str]] = [header]
    for m in [*rows, *([peer] if peer is not None else [])]:
        line = [m.engine, m.rules, str(m.games), str(m.decisions),
                f"{m.decisions / m.games:.1f}", f"{m.seconds:.2f}",
                f"{m.decisions_per_second:,.0f}", f"{m.games_per_second:,.1f}"]
        if peer is not None:
            ratio = m.decisions_per_second / peer.decisions_per_second
            line.append(f"{ratio:.2f}x")
        lines.append(line)
    widths = [max(len(line[i]) for line in lines) for i in range(len(header))]
    out = []
    for k, line in enumerate(lines):
        cells = [cell.ljust(w) if i < 2 else cell.rjust(w)
                 for i, (cell, w) in enumerate(zip(line, widths, strict=True))]
        out.append("  ".join(cells).rstrip())
        if k == 0:
            out.append("  ".join("-" * w for w in widths))
    return "\n".join(out)


def profile(name: str, rules: bh.RuleSet, games: int, seed: int, views: bool) -> str:
    """cProfile of ``games`` random games: the top functions by own time."""
    profiler = cProfile.Profile()
    profiler.enable()
    for i in range(games):
        play_random_game(rules, seed + i, views)
    profiler.disable()
    text = io.StringIO()
    stats = pstats.Stats(profiler, stream=text)
    stats.sort_stats("tottime").print_stats(20)
    return f"cProfile, {games} games of {name} (sorted by own time):\n{text.getvalue()}"


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description="Random-play speed of the baohuang engine, with RLCard's Dou Dizhu "
                    "as the comparison peer when rlcard is installed.")
    parser.add_argument("--games", type=int, default=DEFAULT_GAMES,
                        help=f"games per preset (default {DEFAULT_GAMES})")
    parser.add_argument("--rlcard-games", type=int, default=None,
                        help="RLCard games (default: the same as --games)")
    parser.add_argument("--presets", nargs="+", default=list(PRESETS), choices=list(PRESETS),
                        metavar="PRESET", help=f"presets to run (default: all: "
                                               f"{', '.join(PRESETS)})")
    parser.add_argument("--seed", type=int, default=0, help="seed of the first game")
    parser.add_argument("--rounds", type=int, default=DEFAULT_ROUNDS,
                        help="interleave the engines in this many rounds "
                             f"(default {DEFAULT_ROUNDS})")
    parser.add_argument("--views", action="store_true",
                        help="also build the acting seat's view before every decision")
    parser.add_argument("--no-rlcard", action="store_true", help="skip the RLCard peer")
    parser.add_argument("--profile", action="store_true",
                        help="afterwards, print a cProfile of the first preset")
    args = parser.parse_args(argv)
    if args.games < 1:
        parser.error(f"--games must be at least 1, not {args.games}")
    if args.rounds < 1:
        parser.error(f"--rounds must be at least 1, not {args.rounds}")
    if args.rlcard_games is not None and args.rlcard_games < 1:
        parser.error(f"--rlcard-games must be at least 1, not {args.rlcard_games}")
    return args


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    factory = None if args.no_rlcard else load_rlcard_game()
    peer_games = args.rlcard_games or args.games
    totals: dict[str, list[float]] = {name: [0, 0.0] for name in args.presets}
    peer_total: list[float] = [0, 0.0]
    # Interleave the engines round by round, so that a change in machine load
    # during the run hits all of them alike and the ratio stays fair.
    ours = chunks(args.seed, args.games, args.rounds)
    theirs = chunks(args.seed, peer_games, args.rounds)
    for k in range(args.rounds):
        for name in args.presets:
            if k < len(ours):
                d, t = bench_baohuang(bh.RuleSet.preset(name), ours[k], args.views)
                totals[name][0] += d
                totals[name][1] += t
        if factory is not None and k < len(theirs):
            d, t = bench_rlcard(factory, theirs[k])
            peer_total[0] += d
            peer_total[1] += t
        print(f"  round {k + 1}/{args.rounds} done", file=sys.stderr)
    rows = [Measurement("baohuang", name, args.games, int(d), t)
            for name, (d, t) in totals.items()]
    peer = None
    if factory is not None:
        peer = Measurement("rlcard", "doudizhu", peer_games, int(peer_total[0]),
                           peer_total[1])
    print(f"Random legal actions over whole games (role phase included)"
          f"{', with a view per decision' if args.views else ''}; Python "
          f"{sys.version.split()[0]}")
    print(format_table(rows, peer))
    if peer is None:
        print("rlcard is not installed (pip install -e '.[bench]'): no comparison.")
    else:
        default = next((m for m in rows if m.rules == "shandong"), rows[0])
        ratio = default.decisions_per_second / peer.decisions_per_second
        verdict = "meets" if ratio >= TARGET_RATIO else "is below"
        print(f"{default.rules}: {ratio:.2f}x RLCard's decisions/s, which {verdict} "
              f"the target of {TARGET_RATIO:g}x.")
    if args.profile:
        name = args.presets[0]
        print()
        print(profile(name, bh.RuleSet.preset(name), max(1, args.games // 10), args.seed,
                      args.views))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
