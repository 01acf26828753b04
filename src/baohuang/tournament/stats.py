"""Summaries of a duplicate tournament: mean score with a 95% confidence
interval, win rate, the split by role and seat, decision times, and the
accuracy of Guard inference.

**Confidence intervals.**  Deals are the independent unit: the games of one
deal share its cards, so they are not independent of each other.  A mean is
the total score over the total number of games, and its interval is the
cluster (ratio-estimator) interval with deals as clusters::

    mean = Σ_d S_d / Σ_d n_d
    se²  = D / (D − 1) · Σ_d (S_d − mean · n_d)² / (Σ_d n_d)²
    ci95 = mean ± t(0.975, D − 1) · se

where ``S_d`` and ``n_d`` are the bot's score and number of games in deal
``d`` and ``D`` the number of deals.  For a bot's overall mean ``n_d`` is
the same in every deal and this is exactly the usual interval of the
per-deal paired means; for a role (which a bot holds in some deals only) it
stays honest about the deals being the unit.  With one deal there is no
interval (``None``).

>>> round(t_975(10), 3), round(t_975(1000), 3)
(2.228, 1.962)
>>> mean_ci([3.0, -1.0, 2.0, 0.0], [1, 1, 1, 1])
(1.0, (-1.905, 3.905))
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ..engine.rules import RuleSet
from ..engine.state import Result
from .records import DealResult, GuardTally, Timing

__all__ = [
    "ROLES",
    "BotStats",
    "RoleStats",
    "TournamentReport",
    "accuracy",
    "brier",
    "build_report",
    "inference_row",
    "mean_ci",
    "role_cells",
    "role_of",
    "t_975",
    "tally_guard",
    "uniform_base",
]

ROLES = ("emperor", "guard", "rebel", "solo")

# Two-sided 95% quantiles of Student's t for 1..30 degrees of freedom.
_T975 = (12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
         2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
         2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042)


def t_975(df: int) -> float:
    """Student's t quantile 0.975 (tabled to 30 degrees of freedom, then
    1.96 + 2.4/df, within 0.002 of the exact value)."""
    if df < 1:
        raise ValueError(f"degrees of freedom must be at least 1, not {df}")
    return _T975[df - 1] if df <= len(_T975) else 1.959964 + 2.4 / df


def mean_ci(sums: Sequence[float], counts: Sequence[int]
            ) -> tuple[float, tuple[float, float] | None]:
    """Mean of games clustered by deal and its 95% interval (see module doc);
    ``sums[d]``/``counts[d]``: total score and games in deal ``d``."""
    n = sum(counts)
    if n == 0:
        return 0.0, None
    mean = sum(sums) / n
    deals = len(sums)
    if deals < 2:
        return mean, None
    ss = sum((s - mean * c) ** 2 for s, c in zip(sums, counts, strict=True))
    se = math.sqrt(deals / (deals - 1) * ss) / n
    half = t_975(deals - 1) * se
    return mean, (round(mean - half, 3), round(mean + half, 3))


def role_of(result: Result) -> tuple[str, ...]:
    """Each seat's role in a finished game: ``emperor``, ``guard``,
    ``rebel``, or ``solo`` (the Emperor playing alone, 独保).

    >>> from baohuang import Result
    >>> role_of(Result((1, 2, None, None, None), (6, 3, -3, -3, -3), 0, 1, None))
    ('emperor', 'guard', 'rebel', 'rebel', 'rebel')
    >>> role_of(Result((None, 1, None, None, None), (-24, 6, 6, 6, 6), 0, 0, "open"))
    ('solo', 'rebel', 'rebel', 'rebel', 'rebel')
    """
    roles = []
    for seat in range(5):
        if seat == result.emperor:
            roles.append("solo" if result.solo else "emperor")
        elif seat == result.guard:
            roles.append("guard")
        else:
            roles.append("rebel")
    return tuple(roles)


# -- Guard inference -----------------------------------------------------------



def accuracy(probs: Sequence[float], guard: int) -> float:
    """1 when the Guard has the highest probability, 1/k when he is one of
    k seats tied for it, else 0.

    >>> accuracy((0.0, 0.5, 0.5, 0.0, 0.0), 2), accuracy((0.1, 0.6, 0.3, 0.0, 0.0), 2)
    (0.5, 0.0)
    """
    top = max(probs)
    tied = [s for s, p in enumerate(probs) if p == top]
    return 1.0 / len(tied) if guard in tied else 0.0


def brier(probs: Sequence[float], guard: int) -> float:
    """Σ_s (p_s − [s is the Guard])² over the five seats: 0 is perfect.

    >>> round(brier((0.0, 1/3, 1/3, 1/3, 0.0), 1), 4)
    0.6667
    """
    return sum((p - (s == guard)) ** 2 for s, p in enumerate(probs))


def uniform_base(seat: int, emperor: int) -> tuple[float, ...]:
    """Uniform over the seats that are neither the viewer nor the Emperor."""
    others = [s for s in range(5) if s not in (seat, emperor)]
    return tuple(1.0 / len(others) if s in others else 0.0 for s in range(5))


def tally_guard(tally: GuardTally, viewer: str, round_no: int, guard: int,
                probs: Sequence[float], base: Sequence[float]) -> None:
    """Add one question to the Guard inference to ``tally``."""
    acc = tally.setdefault((viewer, round_no), [0.0] * 5)
    acc[0] += 1
    acc[1] += accuracy(probs, guard)
    acc[2] += brier(probs, guard)
    acc[3] += accuracy(base, guard)
    acc[4] += brier(base, guard)


# -- the report ------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class RoleStats:
    """Games, mean score (with 95% interval) and win rate of one bot in one
    role (or overall)."""

    games: int
    total: int
    mean: float
    ci95: tuple[float, float] | None
    win_rate: float

    def to_dict(self) -> dict[str, Any]:
        return {"games": self.games, "mean": round(self.mean, 4),
                "ci95": None if self.ci95 is None else list(self.ci95),
                "win_rate": round(self.win_rate, 4)}


def role_cells(by_role: dict[str, RoleStats]) -> list[str]:
    """``mean (games)`` of each of :data:`ROLES`, ``—`` for a role never held (a
    report's row of a bot by role)."""
    return [f"{r.mean:+.2f} ({r.games})" if r.games else "—"
            for r in (by_role[role] for role in ROLES)]


@dataclass(frozen=True, slots=True)
class BotStats:
    """One bot's results over the whole tournament: over all its games, by role,
    by seat, and by role in its lone seats alone (``alone``: the games where it
    sat alone against four copies of another bot).  In duplicate play ``by_role``
    also counts the seats of its four copies around another bot's lone seat, whose
    scores are that bot's doing as much as its own (strong copies carry a weak
    rebel); ``alone`` is what it makes of a role by itself."""

    label: str
    overall: RoleStats
    by_role: dict[str, RoleStats]
    by_seat: dict[int, RoleStats]
    alone: dict[str, RoleStats]

    @property
    def games(self) -> int:
        return self.overall.games

    @property
    def total(self) -> int:
        return self.overall.total

    @property
    def mean(self) -> float:
        return self.overall.mean

    @property
    def ci95(self) -> tuple[float, float] | None:
        return self.overall.ci95

    @property
    def win_rate(self) -> float:
        return self.overall.win_rate

    def to_dict(self) -> dict[str, Any]:
        out = self.overall.to_dict()
        out["total"] = self.overall.total
        out["by_role"] = {r: s.to_dict() for r, s in self.by_role.items()}
        out["by_role_alone"] = {r: s.to_dict() for r, s in self.alone.items()}
        out["by_seat"] = {str(s): {"games": v.games, "mean": round(v.mean, 4)}
                          for s, v in self.by_seat.items()}
        return out


@dataclass(frozen=True, slots=True)
class TournamentReport:
    """The result of a tournament (``to_dict`` is the ``--json`` output)."""

    seed: int
    deals: int
    rules: RuleSet
    games: int
    bots: dict[str, BotStats]
    pairs: dict[str, RoleStats]
    inference: dict[str, dict[int, list[float]]] | None
    timing: dict[str, Timing] | None
    format: str = "duplicate"

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "bots": {k: v.to_dict() for k, v in self.bots.items()},
            "deals": self.deals,
            "seed": self.seed,
            "format": self.format,
            "games": self.games,
            "rules": self.rules.to_dict(),
            "pairs": {k: v.to_dict() for k, v in self.pairs.items()},
        }
        if self.inference is not None:
            out["inference"] = {viewer: {str(r): inference_row(v) for r, v in rounds.items()}
                                for viewer, rounds in self.inference.items()}
        if self.timing is not None:
            out["timing"] = {k: v.to_dict() for k, v in self.timing.items()}
        return out


class _Clustered:
    """Per-deal score sums, game counts and wins of one subset of games."""

    __slots__ = ("counts", "sums", "wins")

    def __init__(self, deals: int) -> None:
        self.sums = [0] * deals
        self.counts = [0] * deals
        self.wins = 0

    def add(self, d: int, score: int) -> None:
        self.sums[d] += score
        self.counts[d] += 1
        self.wins += score > 0

    def stats(self) -> RoleStats:
        mean, ci = mean_ci(self.sums, self.counts)
        games = sum(self.counts)
        return RoleStats(games, sum(self.sums), mean, ci, self.wins / games if games else 0.0)


def build_report(labels: Sequence[str], seed: int, rules: RuleSet, deals: int,
                 results: Sequence[DealResult], *, inference: bool,
                 format: str = "duplicate") -> TournamentReport:
    """Summarise the deals' results (in deal order, so the floating-point
    sums do not depend on which worker played which deal).

    ``duplicate``: every seat of every game is a game of the bot in it; the
    pair ``A vs B`` is ``A``'s games in the games between the two.
    ``challenger``: a bot's games are the challenger's lone seat and the
    seats of an opponent's all-same baseline game; the pair ``A vs B`` is the
    challenger's score minus ``B``'s score in the same seat of the baseline."""
    n = len(labels)
    overall = [_Clustered(deals) for _ in range(n)]
    by_role = [{r: _Clustered(deals) for r in ROLES} for _ in range(n)]
    by_seat = [{s: _Clustered(deals) for s in range(5)} for _ in range(n)]
    alone = [{r: _Clustered(deals) for r in ROLES} for _ in range(n)]
    pairs: dict[tuple[int, int], _Clustered] = {}
    for a in range(n):
        for b in range(a + 1, n):
            if format != "challenger" or a == 0:
                pairs[(a, b)] = _Clustered(deals)
    guard: GuardTally = {}
    timing: dict[str, Timing] | None = None
    games = 0

    def count(d: int, who: int, seat: int, score: int, role: str, lone: bool) -> None:
        overall[who].add(d, score)
        by_role[who][role].add(d, score)
        by_seat[who][seat].add(d, score)
        if lone:
            alone[who][role].add(d, score)

    for d, res in enumerate(results):
        games += len(res.games)
        if format == "challenger":
            base = {g.lineup[0]: g for g in res.games if len(set(g.lineup)) == 1}
            for g in res.games:
                if len(set(g.lineup)) == 1:
                    for seat in range(5):
                        count(d, g.lineup[0], seat, g.scores[seat], g.roles[seat], False)
                    continue
                seat = g.lineup.index(0)
                other = g.lineup[(seat + 1) % 5]
                count(d, 0, seat, g.scores[seat], g.roles[seat], True)
                pairs[(0, other)].add(d, g.scores[seat] - base[other].scores[seat])
        else:
            for g in res.games:
                low = min(g.lineup)
                pair = pairs[(low, max(g.lineup))]
                for seat, (who, score, role) in enumerate(zip(g.lineup, g.scores, g.roles,
                                                              strict=True)):
                    count(d, who, seat, score, role, g.lineup.count(who) == 1)
                    if who == low:
                        pair.add(d, score)
        for key, sums in sorted(res.guard.items()):
            acc = guard.setdefault(key, [0.0] * 5)
            for i, v in enumerate(sums):
                acc[i] += v
        if res.timing:
            if timing is None:
                timing = {label: Timing(label) for label in labels}
            for t in res.timing:
                timing[t.label].merge(t)
    bots = {labels[i]: BotStats(labels[i], overall[i].stats(),
                                {r: c.stats() for r, c in by_role[i].items()},
                                {s: c.stats() for s, c in by_seat[i].items()},
                                {r: c.stats() for r, c in alone[i].items()})
            for i in range(n)}
    pair_stats = {f"{labels[a]} vs {labels[b]}": c.stats() for (a, b), c in pairs.items()}
    return TournamentReport(seed, deals, rules, games, bots, pair_stats,
                            _inference_table(guard) if inference else None, timing, format)


def inference_row(sums: Sequence[float]) -> dict[str, float]:
    """Means of a :data:`GuardTally` entry (or of several added up)."""
    k = sums[0]
    return {"n": int(k), "accuracy": round(sums[1] / k, 4), "brier": round(sums[2] / k, 4),
            "base_accuracy": round(sums[3] / k, 4), "base_brier": round(sums[4] / k, 4)}


def _inference_table(guard: GuardTally) -> dict[str, dict[int, list[float]]]:
    out: dict[str, dict[int, list[float]]] = {}
    for (viewer, round_no), sums in sorted(guard.items()):
        out.setdefault(viewer, {})[round_no] = sums
    return out
