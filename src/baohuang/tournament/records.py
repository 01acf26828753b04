"""The plain records of a tournament that the runner, its executors and the
statistics all use: what one deal contributes (:class:`DealResult`, with a
:class:`GameSummary` per game), Guard inference tallies and decision times."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

__all__ = ["DealResult", "GameSummary", "GuardTally", "Timing"]

#: Per (viewer, round number): [questions, accuracy, Brier, base accuracy, base Brier]
#: (sums over the questions asked).
GuardTally = dict[tuple[str, int], list[float]]


# -- decision times ------------------------------------------------------------

_BINS_PER_DECADE = 40


@dataclass(slots=True)
class Timing:
    """Decision times of one bot: a log histogram (5.9% wide bins), their
    count and total, and the playouts it made (a bot that searches tells how
    many playouts its last choice took in ``last_playouts``)."""

    label: str
    hist: dict[int, int] = field(default_factory=dict)
    decisions: int = 0
    seconds: float = 0.0
    playouts: int = 0

    def add(self, dt: float) -> None:
        b = math.floor(math.log10(max(dt, 1e-9)) * _BINS_PER_DECADE)
        self.hist[b] = self.hist.get(b, 0) + 1
        self.decisions += 1
        self.seconds += dt

    def merge(self, other: Timing) -> None:
        for b, k in other.hist.items():
            self.hist[b] = self.hist.get(b, 0) + k
        self.decisions += other.decisions
        self.seconds += other.seconds
        self.playouts += other.playouts

    def quantile(self, q: float) -> float:
        """Seconds at quantile ``q`` (middle of its histogram bin)."""
        if not self.decisions:
            return 0.0
        need = q * self.decisions
        seen = 0
        for b in sorted(self.hist):
            seen += self.hist[b]
            if seen >= need:
                return float(10 ** ((b + 0.5) / _BINS_PER_DECADE))
        return float(10 ** ((max(self.hist) + 0.5) / _BINS_PER_DECADE))

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "decisions": self.decisions,
            "p50_ms": round(self.quantile(0.5) * 1e3, 4),
            "p99_ms": round(self.quantile(0.99) * 1e3, 4),
            "mean_ms": round(self.seconds / max(1, self.decisions) * 1e3, 4),
        }
        if self.playouts:
            out["playouts"] = self.playouts
            out["playouts_per_s"] = round(self.playouts / self.seconds, 1)
        return out


@dataclass(frozen=True, slots=True)
class GameSummary:
    """One finished game of a deal: who sat where, the scores, the roles."""

    lineup: tuple[int, ...]
    scores: tuple[int, ...]
    roles: tuple[str, ...]
    rounds: int


@dataclass(slots=True)
class DealResult:
    """Everything one deal contributes to a tournament (small and picklable)."""

    deal: int
    game_seed: int
    games: list[GameSummary] = field(default_factory=list)
    guard: GuardTally = field(default_factory=dict)
    timing: list[Timing] = field(default_factory=list)
