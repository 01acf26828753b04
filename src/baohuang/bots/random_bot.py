"""A bot that picks uniformly among the legal actions (the ladder's floor)."""

from __future__ import annotations

import random
from collections.abc import Sequence

from ..engine.actions import Action
from ..engine.views import View
from .base import register

__all__ = ["RandomBot"]


@register("random")
class RandomBot:
    """Uniformly random legal actions, reproducible from its seed."""

    name = "random"

    def __init__(self, seed: int = 0) -> None:
        self._rng = random.Random(seed)

    def choose(self, view: View, legal: Sequence[Action]) -> Action:
        if not legal:
            raise ValueError("no legal action to choose from")
        return legal[self._rng.randrange(len(legal))]
