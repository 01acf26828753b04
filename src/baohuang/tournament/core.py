"""Duplicate tournaments between bots (复式比赛): the same deals, every bot in
every seat.

A tournament is a fixed set of deals.  Deal ``i`` uses the game seed
``derive_seed(seed, "deal", i)``; each deal is played once per seat
arrangement (:func:`arrangements`).  There are two formats:

``duplicate`` (the default)
    * every pair of bots ``(A, B)`` plays its own duplicate set of ten games:
      ``A`` alone in seat 0, 1, …, 4 against four ``B`` (challenger 1 vs 4),
      then ``B`` alone in each seat against four ``A`` (teams swapped);
    * with more than two bots every pair plays its ten games on every deal
      (a round robin of duplicate matches), so every bot sits in every seat
      of every deal, and meets every other bot equally often.

``challenger``
    The first bot is the challenger.  For every other bot ``B`` it plays
    alone in seat 0, 1, …, 4 against four ``B``, and ``B`` plays the deal
    once with all five seats (the *baseline*): six games per deal and
    opponent.  Only the lone seat of a challenger game and the seats of the
    baseline count as games of a bot, and the pair ``A vs B`` is scored by
    the challenger's score minus ``B``'s score in the same seat of the
    baseline: what one seat gains when ``A`` takes it over from ``B``.
    The challenger plays 5 seats per deal instead of 25, which makes it the
    affordable format when the challenger is slow (``search``); it measures
    the challenger among the opponent's bots only (never its own team-mates).

Each bot instance is new for every game and gets the seed
``derive_seed(seed, "bot", deal, seat)``: the same bot in the same seat of the
same deal starts from the same seed whichever arrangement it is in.  So a bot
playing against itself scores exactly 0, and the only thing that differs
between two games of a deal is who sits where.

A *game* of a bot is one seat it held in one game (in "A alone against four
B", A plays one game and B four).  Scores are the seats' scores of the
finished game; the role of a seat is read from the game's
:class:`~baohuang.Result` (``emperor``, ``guard``, ``rebel``, or ``solo`` for
an Emperor playing alone).  Deals are independent, so a tournament gives the
same numbers with any number of worker processes or on a Ray cluster.

>>> from baohuang.tournament.core import Tournament
>>> from baohuang import RuleSet
>>> t = Tournament(["hosted", "random"], deals=2, seed=1,
...                rules=RuleSet().with_option("rebellion=off"), inference=False)
>>> len(t.lineups), t.lineups[0], t.lineups[5]
(10, (0, 1, 1, 1, 1), (1, 0, 0, 0, 0))
>>> report = t.run()
>>> report.bots["hosted"].games, report.bots["random"].games
(50, 50)
>>> report.bots["hosted"].total == -report.bots["random"].total   # zero-sum scores
True
"""

from __future__ import annotations

import hashlib
import itertools
import math
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..bots import Bot, make_bot
from ..bots.base import is_bot, unknown_bot
from ..engine.game import Game
from ..engine.rules import RuleSet
from ..engine.state import Stage
from ..engine.views import View
from .records import DealResult, GameSummary, GuardTally, Timing
from .stats import (
    TournamentReport,
    build_report,
    role_of,
    tally_guard,
    uniform_base,
)

__all__ = [
    "CLOCKS",
    "FORMATS",
    "Executor",
    "GuardInference",
    "Tournament",
    "TournamentError",
    "arrangements",
    "derive_seed",
    "guard_inference",
    "labels_for",
    "play_deal",
    "play_deals",
    "play_here",
]

#: What a bot with a think time (``expert``, ``search`` with ``time_limit``) measures it
#: by, and what decision times are timed by: ``wall``, the clock a player waits by, as at
#: a table; ``cpu``, the CPU time of the process that plays the games (all its threads:
#: a network's BLAS threads count) — what a bot would think with a
#: core to itself, however busy the machine is (for measuring strength).
CLOCKS: dict[str, Callable[[], float]] = {"wall": time.perf_counter, "cpu": time.process_time}

SEATS = range(5)
Progress = Callable[[int], None]
#: Tournament formats (see the module doc).
FORMATS = ("duplicate", "challenger")


class TournamentError(ValueError):
    """A tournament that cannot be run as asked (unknown bot, too few bots,
    no deals, a missing optional dependency)."""


def derive_seed(*parts: object) -> int:
    """A 63-bit seed from the parts (stable across machines and Python runs).

    >>> derive_seed(7, "deal", 0) == derive_seed(7, "deal", 0) != derive_seed(7, "deal", 1)
    True
    """
    text = "baohuang-tournament/" + "/".join(str(p) for p in parts)
    return int.from_bytes(hashlib.blake2b(text.encode(), digest_size=8).digest(), "big") >> 1


def arrangements(n_bots: int, format: str = "duplicate") -> list[tuple[int, ...]]:
    """The seat arrangements of one deal: entry ``s`` of a lineup is the
    index of the bot in seat ``s``.  Ten per pair of bots (``duplicate``), or
    six per opponent of the challenger, bot 0 (``challenger``).

    >>> arrangements(2)[:2], len(arrangements(3))
    ([(0, 1, 1, 1, 1), (1, 0, 1, 1, 1)], 30)
    >>> arrangements(2, "challenger")[4:]
    [(1, 1, 1, 1, 0), (1, 1, 1, 1, 1)]
    """
    if n_bots < 2:
        raise TournamentError(f"a tournament needs at least two bots, not {n_bots}")
    if format not in FORMATS:
        raise TournamentError(f"unknown tournament format {format!r} "
                              f"(one of: {', '.join(FORMATS)})")
    out: list[tuple[int, ...]] = []
    if format == "challenger":
        for b in range(1, n_bots):
            out.extend(tuple(0 if s == seat else b for s in SEATS) for seat in SEATS)
            out.append((b,) * 5)
        return out
    for a, b in itertools.combinations(range(n_bots), 2):
        for alone, rest in ((a, b), (b, a)):
            out.extend(tuple(alone if s == seat else rest for s in SEATS) for seat in SEATS)
    return out


def labels_for(names: Sequence[str]) -> list[str]:
    """Report labels for bot names: a repeated name gets ``#2``, ``#3``, …

    >>> labels_for(["random", "hosted", "random"])
    ['random', 'hosted', 'random#2']
    """
    seen: dict[str, int] = {}
    out = []
    for name in names:
        seen[name] = seen.get(name, 0) + 1
        out.append(name if seen[name] == 1 else f"{name}#{seen[name]}")
    return out


Inference = Callable[[View], Sequence[float]]


@dataclass(frozen=True, slots=True)
class GuardInference:
    """The Guard inference of ``bots/inference.py`` and its base rate."""

    probabilities: Inference
    base: Inference | None     # ``base_probabilities`` if it has one


def guard_inference() -> GuardInference | None:
    """``bots.inference.guard_probabilities`` (and ``base_probabilities``)
    if that module exists."""
    try:
        from ..bots import inference
    except ImportError:
        return None
    fn = getattr(inference, "guard_probabilities", None)
    base = getattr(inference, "base_probabilities", None)
    if not callable(fn):
        return None
    return GuardInference(fn, base if callable(base) else None)


def _ask_guard(game: Game, round_no: int, infer: GuardInference, tally: GuardTally) -> None:
    """At the start of a round, ask the inference who the hidden Guard is
    from every rebel's view and from the Emperor's (who in the Guard-card
    mode does not know either).  Seats that know the Guard are not asked."""
    emperor, guard = game.emperor, game.guard
    assert emperor is not None and guard is not None
    for seat in SEATS:
        if seat == guard and seat != emperor:
            continue
        view = game.view(seat)
        if view.guard is not None or view.solo is not None:
            continue    # 明保, revealed, open solo, or the Emperor's own solo
        probs = tuple(infer.probabilities(view))
        if len(probs) != 5:
            raise TournamentError(f"guard_probabilities gave {len(probs)} numbers, not 5")
        base = uniform_base(seat, emperor) if infer.base is None else tuple(infer.base(view))
        tally_guard(tally, "emperor" if seat == emperor else "rebel", round_no, guard,
                    probs, base)


def _play_game(rules: RuleSet, game_seed: int, bots: list[Bot], lineup: tuple[int, ...],
               infer: GuardInference | None, tally: GuardTally,
               timing: dict[int, Timing] | None,
               clock: Callable[[], float] = time.perf_counter) -> GameSummary:
    game = Game.new(rules, game_seed)
    rounds = 0
    while not game.is_over:
        seat = game.to_act
        assert seat is not None
        view = game.view(seat)
        if game.stage is Stage.PLAY and view.last_play is None:
            rounds += 1
            if infer is not None:
                _ask_guard(game, rounds, infer, tally)
        legal = game.legal_actions()
        if timing is None:
            action = bots[seat].choose(view, legal)
        else:
            start = clock()
            action = bots[seat].choose(view, legal)
            clocks = timing[lineup[seat]]
            clocks.add(clock() - start)
            playouts = getattr(bots[seat], "last_playouts", None)
            if isinstance(playouts, int):
                clocks.playouts += playouts
        game.apply(action)
    result = game.result
    assert result is not None
    return GameSummary(lineup, tuple(result.scores), role_of(result), rounds)


def play_deal(bot_names: Sequence[str], rules: RuleSet, seed: int, deal: int, *,
              inference: bool = True, timing: bool = False,
              format: str = "duplicate", clock: str = "wall") -> DealResult:
    """Play every arrangement of deal number ``deal``, think times and decision times
    measured by ``clock`` (:data:`CLOCKS`).

    >>> r = play_deal(["hosted", "random"], RuleSet(), seed=3, deal=0, inference=False)
    >>> len(r.games), sorted({g.lineup[0] for g in r.games})
    (10, [0, 1])
    """
    labels = labels_for(bot_names)
    game_seed = derive_seed(seed, "deal", deal)
    infer = guard_inference() if inference else None
    clocks = {i: Timing(label) for i, label in enumerate(labels)} if timing else None
    result = DealResult(deal, game_seed)
    timer = CLOCKS[clock]
    for lineup in arrangements(len(bot_names), format):
        bots = [make_bot(bot_names[lineup[s]], derive_seed(seed, "bot", deal, s))
                for s in SEATS]
        for bot in bots:
            if hasattr(bot, "clock"):       # (a bot with a think time: search's own clock)
                setattr(bot, "clock", timer)  # noqa: B010
        result.games.append(_play_game(rules, game_seed, bots, lineup, infer,
                                       result.guard, clocks, timer))
    if clocks is not None:
        result.timing = [clocks[i] for i in range(len(labels))]
    return result


def play_deals(bot_names: Sequence[str], rules: RuleSet, seed: int, deals: Sequence[int],
               inference_every: int = 1, timing: bool = False,
               format: str = "duplicate", clock: str = "wall") -> list[DealResult]:
    """:func:`play_deal` for several deals (one task of a worker), asking the
    Guard inference on every ``inference_every``-th deal (0: never)."""
    return [play_deal(bot_names, rules, seed, d, timing=timing, format=format, clock=clock,
                      inference=inference_every > 0 and d % inference_every == 0)
            for d in deals]


def chunks(deals: int, size: int) -> Iterator[range]:
    """Deal numbers ``0..deals-1`` in ranges of ``size`` (the unit of work)."""
    for start in range(0, deals, size):
        yield range(start, min(deals, start + size))


@dataclass
class Tournament:
    """A tournament: ``bots`` by registry name, ``deals`` deals from ``seed``
    under ``rules`` (default: the ``shandong`` preset), in ``format``
    ``duplicate`` or ``challenger`` (the first bot alone against the others;
    see the module doc).  With
    ``inference`` the Guard inference is scored on every
    ``inference_every``-th deal (it costs time: every rebel's view is built
    at the start of every round); ``timing`` measures decision times.  ``clock``
    (:data:`CLOCKS`) is what think times and decision times are measured by."""

    bots: Sequence[str]
    deals: int
    seed: int = 0
    rules: RuleSet = field(default_factory=RuleSet)
    inference: bool = True
    timing: bool = False
    inference_every: int = 1
    format: str = "duplicate"
    clock: str = "wall"

    def __post_init__(self) -> None:
        if self.clock not in CLOCKS:
            raise TournamentError(f"unknown clock {self.clock!r} "
                                  f"(one of: {', '.join(CLOCKS)})")
        self.bots = list(self.bots)
        unknown = [b for b in self.bots if not is_bot(b)]
        if unknown:
            raise unknown_bot(unknown[0])
        if len(self.bots) < 2:
            raise TournamentError(f"a tournament needs at least two bots, got {len(self.bots)}")
        if self.deals < 1:
            raise TournamentError(f"deals must be at least 1, not {self.deals}")
        if self.inference_every < 1:
            raise TournamentError(f"inference_every must be at least 1, "
                                  f"not {self.inference_every}")
        if self.inference and guard_inference() is None:
            self.inference = False
        self.labels = labels_for(self.bots)
        self.lineups = arrangements(len(self.bots), self.format)

    @property
    def games(self) -> int:
        """How many games the tournament plays."""
        return self.deals * len(self.lineups)

    def chunk_size(self, workers: int) -> int:
        """Deals per task: small enough for a smooth progress bar and even
        load, large enough to keep the overhead per task small."""
        return max(1, min(20, math.ceil(self.deals / (8 * max(1, workers)))))

    def run(self, executor: Executor | None = None, *,
            progress: Progress | None = None) -> TournamentReport:
        """Play every deal with ``executor`` (default: :func:`play_here`, in this
        process; :mod:`.execute` has worker processes and Ray) and summarise.  The
        report does not depend on how the deals were spread over workers."""
        results = (executor or play_here)(self, progress)
        results.sort(key=lambda r: r.deal)
        if [r.deal for r in results] != list(range(self.deals)):
            raise TournamentError("some deals are missing from the workers' results")
        return build_report(self.labels, self.seed, self.rules, self.deals, results,
                            inference=self.inference, format=self.format)


#: How a tournament's deals are played: the results of every deal, in any order
#: (reporting progress as deals finish).
Executor = Callable[[Tournament, "Progress | None"], list[DealResult]]


def task_args(t: Tournament, deals: range) -> tuple[Any, ...]:
    """The arguments of :func:`play_deals` for ``deals`` of ``t``."""
    return (t.bots, t.rules, t.seed, list(deals), t.inference_every if t.inference else 0,
            t.timing, t.format, t.clock)


def play_here(t: Tournament, progress: Progress | None) -> list[DealResult]:
    """Play every deal of ``t`` in this process, one range of deals after another."""
    results: list[DealResult] = []
    for deals in chunks(t.deals, t.chunk_size(1)):
        results.extend(play_deals(*task_args(t, deals)))
        if progress is not None:
            progress(len(deals))
    return results
