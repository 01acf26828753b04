"""Strength of a network against the ``heuristic`` bot: a duplicate tournament
(:mod:`baohuang.tournament`) over fixed deals, every seat rotated."""

from __future__ import annotations

from typing import Any

import baohuang as bh

from ..bots.base import BOTS
from ..tournament.core import Tournament
from .bot import LearnedBot
from .model import QNetwork

__all__ = ["against_heuristic"]


def against_heuristic(network: QNetwork, *, deals: int, seed: int = 0,
                      rules: bh.RuleSet | None = None, opponent: str = "heuristic",
                      name: str = "learned-eval") -> dict[str, Any]:
    """Mean score per game of ``network`` against ``opponent`` in the duplicate
    format, with its 95% interval (deals are the independent unit)."""
    BOTS[name] = lambda seed: LearnedBot(seed, network)
    try:
        report = Tournament([name, opponent], deals=deals, seed=seed,
                            rules=rules or bh.RuleSet.preset("shandong"),
                            inference=False).run()
    finally:
        del BOTS[name]
    pair = report.pairs[f"{name} vs {opponent}"]
    return {"deals": deals, "eval_games": report.games, "mean": pair.mean,
            "ci95": None if pair.ci95 is None else list(pair.ci95)}
