"""The bot interface and the registry of bots by name."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Protocol, runtime_checkable

from ..actions import Action
from ..views import View

__all__ = ["BOTS", "Bot", "UnknownBot", "bot_names", "make_bot", "register"]


class UnknownBot(ValueError):
    """A bot name that is not registered."""


@runtime_checkable
class Bot(Protocol):
    """A player.  It sees only its own view and the legal actions, never the
    game; given its seed, its choices are deterministic."""

    name: str

    def choose(self, view: View, legal: Sequence[Action]) -> Action:
        """One of ``legal``."""
        ...


BotFactory = Callable[[int], Bot]
BOTS: dict[str, BotFactory] = {}


def register(name: str) -> Callable[[BotFactory], BotFactory]:
    """Class decorator: make a bot available by ``name``."""
    def deco(factory: BotFactory) -> BotFactory:
        BOTS[name] = factory
        return factory
    return deco


def bot_names() -> list[str]:
    return list(BOTS)


def make_bot(name: str, seed: int = 0) -> Bot:
    """A new bot by name (``random``, ``hosted``, …) with its own seed."""
    try:
        factory = BOTS[name]
    except KeyError:
        raise UnknownBot(f"unknown bot {name!r} (one of: {', '.join(BOTS)})") from None
    return factory(seed)
