"""Speed of the ``search`` bot: rollout playouts per second and time per decision.

Two measurements, each per preset:

1. *Playouts.*  From the first lead of ``--deals`` real deals (role phase
   answered by 托管), whole play phases are played out by the rollout
   policy, once on rank counts by :class:`baohuang.bots.search.rollout.Simulator`
   and once through the engine (``Game.copy()`` then ``game.apply`` of the
   same policy's move, found among ``game.legal_actions()``), which is what a
   search built on the public game API would have to do.  Prints playouts/s
   of both and their ratio.  The target is 2,000 playouts/s on one core.
2. *Decisions.*  ``--games`` games with one ``search`` bot at its default
   budget (or ``--iterations``) against four ``--opponent`` bots, the search
   seat rotating.  Every decision with more than one legal action is timed
   (wall clock and CPU time); prints p50/p99/max and playouts/s including
   all overhead (sampling, building states).  The target is ≤ 1 s per
   decision.

3. *Strength* (with ``--strength N``): a duplicate comparison on ``N``
   deals: the search bot in one seat (rotating with the deal) against four
   ``--opponent`` bots, minus what the opponent bot scored in that seat of
   the same deal when all five seats were its own.  Prints the mean
   difference per game with a 95% confidence interval.

Playout rates are per CPU second of this process (one core), so that other
work on the machine does not distort them; decision times are printed both
as wall clock and as CPU time.

    python bench/search.py                    # a few minutes
    python bench/search.py --games 2 --deals 20 --presets shandong
    python bench/search.py --games 0 --strength 200 --presets shandong
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass

import baohuang as bh
from baohuang.bots import SearchBot, hosted_action, make_bot
from baohuang.bots.search.rollout import PlayState, Simulator
from baohuang.bots.search.search import DEFAULT_ITERATIONS
from baohuang.engine.plays import classify
from baohuang.engine.rules import PRESETS
from baohuang.engine.scoring import SoloKind

TARGET_PLAYOUTS = 2000.0
TARGET_SECONDS = 1.0


@dataclass(frozen=True, slots=True)
class PlayoutSpeed:
    rules: str
    playouts: int
    seconds: float
    engine_playouts: int
    engine_seconds: float

    @property
    def rate(self) -> float:
        return self.playouts / self.seconds

    @property
    def engine_rate(self) -> float:
        return self.engine_playouts / self.engine_seconds


@dataclass(frozen=True, slots=True)
class DecisionSpeed:
    rules: str
    wall: list[float]
    cpu: list[float]
    playouts: int

    @staticmethod
    def quantile(xs: Sequence[float], q: float) -> float:
        ordered = sorted(xs)
        return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def opening(rules: bh.RuleSet, seed: int) -> bh.Game:
    """A deal with its role phase answered by 托管, at the first lead."""
    game = bh.Game.new(rules, seed=seed)
    while game.stage is not bh.Stage.PLAY:
        seat = game.to_act
        assert seat is not None
        game.apply(hosted_action(game.view(seat), game.legal_actions()))
    return game


def start_state(sim: Simulator, game: bh.Game) -> PlayState:
    counts = []
    for seat in range(5):
        c = [0] * 18
        for card in game.hand(seat):
            c[card >> 4] += 1
        counts.append(c)
    assert game.emperor is not None and game.guard is not None
    solo: SoloKind | None = ("open" if game.solo == "open" else "hidden" if game.solo
                             else None)
    return sim.opening(counts, game.emperor, game.guard, solo)


def engine_playout(sim: Simulator, game: bh.Game, start: PlayState,
                   rng: random.Random) -> None:
    """The same policy's playout, applied through the public game API."""
    game = game.copy()
    shadow = start.copy()
    rules = game.rules
    while not game.is_over:
        shape, ask = sim.choose(shadow, rng)
        legal = game.legal_actions()
        if shape is None:
            kind = bh.ActionKind.ASK_LEAD if ask else bh.ActionKind.PASS
            action = next(a for a in legal if a.kind is kind)
        else:
            action = next(a for a in legal if a.kind is bh.ActionKind.PLAY
                          and tuple(classify(a.cards, rules)) == shape)
        sim.play(shadow, shape, ask_lead=ask)
        game.apply(action)


def bench_playouts(name: str, deals: int, seconds: float, seed: int) -> PlayoutSpeed:
    rules = bh.RuleSet.preset(name)
    sim = Simulator(rules)
    games = [opening(rules, seed + i) for i in range(deals)]
    starts = [start_state(sim, g) for g in games]
    rng = random.Random(seed)
    n = 0
    begin = time.process_time()
    while time.process_time() - begin < seconds:
        for st in starts:
            sim.run(st.copy(), rng)
            n += 1
    fast = time.process_time() - begin
    m = 0
    begin = time.process_time()
    while time.process_time() - begin < seconds / 2 or m == 0:
        for game, st in zip(games, starts, strict=True):
            engine_playout(sim, game, st, rng)
            m += 1
    slow = time.process_time() - begin
    return PlayoutSpeed(name, n, fast, m, slow)


def bench_decisions(name: str, games: int, iterations: int, opponent: str,
                    seed: int) -> DecisionSpeed:
    rules = bh.RuleSet.preset(name)
    wall: list[float] = []
    cpu: list[float] = []
    playouts = 0
    for i in range(games):
        seat_of_search = i % 5
        bots: list[bh.bots.Bot] = [make_bot(opponent, 100 + s) for s in range(5)]
        search = SearchBot(seed=i, iterations=iterations)
        bots[seat_of_search] = search
        game = bh.Game.new(rules, seed=seed + i)
        while not game.is_over:
            seat = game.to_act
            assert seat is not None
            view, legal = game.view(seat), game.legal_actions()
            if seat == seat_of_search and len(legal) > 1:
                w, c = time.perf_counter(), time.process_time()
                action = search.choose(view, legal)
                wall.append(time.perf_counter() - w)
                cpu.append(time.process_time() - c)
                playouts += search.last_playouts
            else:
                action = bots[seat].choose(view, legal)
            game.apply(action)
    return DecisionSpeed(name, wall, cpu, playouts)


def play_game(rules: bh.RuleSet, seed: int, bots: Sequence[bh.bots.Bot]) -> tuple[int, ...]:
    game = bh.Game.new(rules, seed=seed)
    while not game.is_over:
        seat = game.to_act
        assert seat is not None
        game.apply(bots[seat].choose(game.view(seat), game.legal_actions()))
    assert game.result is not None
    return game.result.scores


def bench_strength(name: str, deals: int, iterations: int, opponent: str,
                   seed: int) -> list[int]:
    """Per deal: the search seat's score minus the opponent bot's in that seat."""
    rules = bh.RuleSet.preset(name)
    diffs = []
    for i in range(deals):
        deal = seed + 10_000 + i
        seat = i % 5
        base = play_game(rules, deal, [make_bot(opponent, 100 + s) for s in range(5)])
        bots: list[bh.bots.Bot] = [make_bot(opponent, 100 + s) for s in range(5)]
        bots[seat] = SearchBot(seed=i, iterations=iterations)
        diffs.append(play_game(rules, deal, bots)[seat] - base[seat])
    return diffs


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description="Speed of the search bot's playouts and "
                                                 "decisions, with engine playouts as the peer.")
    parser.add_argument("--presets", nargs="+", default=list(PRESETS), choices=list(PRESETS),
                        metavar="PRESET")
    parser.add_argument("--deals", type=int, default=40, help="deals for playout speed")
    parser.add_argument("--seconds", type=float, default=4.0,
                        help="seconds of simulator playouts per preset")
    parser.add_argument("--games", type=int, default=3,
                        help="games per preset for decision times (0: skip)")
    parser.add_argument("--iterations", type=int, default=DEFAULT_ITERATIONS,
                        help=f"search budget (default {DEFAULT_ITERATIONS}, the registry's)")
    parser.add_argument("--opponent", default="heuristic", help="the other four bots")
    parser.add_argument("--strength", type=int, default=0,
                        help="deals for a duplicate strength comparison (0: skip)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    if args.deals < 1 or args.games < 0 or args.iterations < 1 or args.seconds <= 0:
        parser.error("--deals, --iterations and --seconds must be positive, --games ≥ 0")
    if args.opponent not in bh.bots.bot_names():
        parser.error(f"unknown bot {args.opponent!r} (one of: "
                     f"{', '.join(bh.bots.bot_names())})")
    return args


def report_strength(args: argparse.Namespace) -> None:
    print()
    print(f"strength: search ({args.iterations} playouts) in one seat vs four "
          f"{args.opponent}, minus {args.opponent} in that seat (duplicate deals)")
    for name in args.presets:
        diffs = bench_strength(name, args.strength, args.iterations, args.opponent, args.seed)
        mean = statistics.mean(diffs)
        half = 1.96 * statistics.stdev(diffs) / len(diffs) ** 0.5 if len(diffs) > 1 else 0.0
        print(f"{name:<18} deals {len(diffs):>5}  mean {mean:+.3f} ± {half:.3f} per game",
              flush=True)


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    print(f"search bot speed; Python {sys.version.split()[0]}")
    print()
    print("playouts per CPU second (one core):")
    print(f"{'rules':<18} {'playouts/s':>11} {'engine/s':>9} {'ratio':>7}")
    speeds = []
    for name in args.presets:
        p = bench_playouts(name, args.deals, args.seconds, args.seed)
        speeds.append(p)
        print(f"{name:<18} {p.rate:>11,.0f} {p.engine_rate:>9,.0f} "
              f"{p.rate / p.engine_rate:>6.1f}x", flush=True)
    worst = min(speeds, key=lambda p: p.rate)
    verdict = "meets" if worst.rate >= TARGET_PLAYOUTS else "is below"
    print(f"slowest: {worst.rules} {worst.rate:,.0f} playouts/s (whole play phases from the "
          f"first lead), which {verdict} the target of {TARGET_PLAYOUTS:,.0f}/s")
    if args.games:
        report_decisions(args)
    if args.strength:
        report_strength(args)
    return 0


def report_decisions(args: argparse.Namespace) -> None:
    print()
    print(f"decisions: {args.iterations} playouts each, one search seat vs four "
          f"{args.opponent}")
    print(f"{'rules':<18} {'decisions':>9} {'p50 s':>7} {'p99 s':>7} {'max s':>7} "
          f"{'cpu p99':>8} {'playouts/s':>11}")
    worst_p99 = 0.0
    for name in args.presets:
        d = bench_decisions(name, args.games, args.iterations, args.opponent, args.seed)
        if not d.wall:
            continue
        p99 = d.quantile(d.wall, 0.99)
        worst_p99 = max(worst_p99, p99)
        print(f"{name:<18} {len(d.wall):>9} {statistics.median(d.wall):>7.3f} {p99:>7.3f} "
              f"{max(d.wall):>7.3f} {d.quantile(d.cpu, 0.99):>8.3f} "
              f"{d.playouts / sum(d.cpu):>11,.0f}", flush=True)
    verdict = "meets" if worst_p99 <= TARGET_SECONDS else "is above"
    print(f"worst p99 {worst_p99:.3f} s per decision, which {verdict} the target of "
          f"{TARGET_SECONDS:g} s")


if __name__ == "__main__":
    raise SystemExit(main())
