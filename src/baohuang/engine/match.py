"""A match: consecutive games at one table, with running totals and tribute
(进贡, docs/rules.md §9).

>>> import baohuang as bh
>>> match = bh.Match(bh.RuleSet.preset("seed001_216"), seed=3, games=2)
>>> while not match.is_over:
...     match.game.apply(match.game.legal_actions()[0])
...     moved = match.advance()
>>> len(match.results), len(match.totals)
(2, 5)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .game import Game
from .rules import RuleSet
from .scoring import TributeBasis
from .state import Result

__all__ = ["Match"]


class Match:
    """``games`` consecutive games.  The first is dealt from seat 0, each
    later one from the previous Emperor; with ``tribute`` on, last game's
    losers give tribute to its winners after the deal.

    ``seeds``, when given, deals game ``index`` from ``seeds(index)`` instead of the
    sequence computed from ``seed`` (a server draws each game's seed from
    :mod:`secrets`, so that no deal can be computed from another)."""

    def __init__(self, rules: RuleSet | None = None, seed: int = 0, games: int = 1, *,
                 seeds: Callable[[int], int] | None = None) -> None:
        if games < 1:
            raise ValueError("a match has at least one game")
        self.rules = rules or RuleSet()
        self.seed = int(seed)
        self.games = games
        self._seeds = seeds
        self.results: list[Result] = []
        self.records: list[dict[str, Any]] = []
        self.totals = [0] * 5
        self.game = Game.new(self.rules, self.game_seed(0), dealer=0)

    def game_seed(self, index: int) -> int:
        """The seed of game ``index`` (reproducible from the match seed, unless the
        match was given a seed source)."""
        if self._seeds is not None:
            return int(self._seeds(index))
        return self.seed * 1000 + index

    @property
    def index(self) -> int:
        """Number of the current game, from 0."""
        return len(self.results)

    @property
    def is_over(self) -> bool:
        return len(self.results) >= self.games

    def advance(self) -> bool:
        """When the current game is over: record it, add its scores, and deal
        the next one.  Returns True when it moved on."""
        game = self.game
        if not game.is_over or len(self.results) >= self.games:
            return False
        result = game.result
        assert result is not None
        self.results.append(result)
        self.records.append(game.record())
        self.totals = [t + s for t, s in zip(self.totals, result.scores, strict=True)]
        if self.is_over:
            return True
        tribute = None
        if (self.rules.tribute and result.emperor is not None and result.guard is not None
                and result.left is None):
            tribute = TributeBasis(result.emperor, result.guard, result.solo,
                                   result.royal_won, result.order)
        dealer = result.emperor if result.emperor is not None else 0
        self.game = Game.new(self.rules, self.game_seed(self.index), dealer=dealer,
                             tribute=tribute)
        return True

    def record(self) -> dict[str, Any]:
        return {"rules": self.rules.to_dict(), "seed": self.seed, "games": self.games,
                "records": list(self.records) + ([] if self.is_over else [self.game.record()]),
                "totals": list(self.totals)}
