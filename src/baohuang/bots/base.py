"""The bot interface and the registry of bots by name."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from importlib.metadata import entry_points
from typing import Protocol, runtime_checkable

from ..engine.actions import Action
from ..engine.views import View

__all__ = ["BOTS", "BUDGETS", "Bot", "UnknownBot", "bot_names", "is_bot", "load_plugins",
           "make_bot", "register", "register_budget"]


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
#: bots that take a budget: ``NAME-N`` is bot ``NAME`` with budget ``N`` (playouts)
BudgetFactory = Callable[[int, int], Bot]
BUDGETS: dict[str, BudgetFactory] = {}
#: the largest budget a ``NAME-N`` name may ask for
MAX_BUDGET = 1_000_000


def register(name: str) -> Callable[[BotFactory], BotFactory]:
    """Class decorator: make a bot available by ``name``."""
    def deco(factory: BotFactory) -> BotFactory:
        BOTS[name] = factory
        return factory
    return deco


def register_budget(name: str) -> Callable[[BudgetFactory], BudgetFactory]:
    """Decorator: ``factory(seed, budget)`` makes bot ``name`` with another budget,
    available as ``name-N`` (``search-250``: the search bot with 250 playouts)."""
    def deco(factory: BudgetFactory) -> BudgetFactory:
        BUDGETS[name] = factory
        return factory
    return deco


#: the entry-point group of bots that optional parts provide (``learned``: baohuang.learn)
PLUGIN_GROUP = "baohuang.bots"
_plugins_loaded = False


def load_plugins() -> None:
    """Register the bots of the ``baohuang.bots`` entry points whose module imports
    (the ``learned`` bot needs the ``rl`` extra); once per process."""
    global _plugins_loaded
    if _plugins_loaded:
        return
    _plugins_loaded = True
    for ep in entry_points(group=PLUGIN_GROUP):
        if ep.name in BOTS:
            continue
        try:
            BOTS[ep.name] = ep.load()
        except ImportError:                  # its extra is not installed
            continue


def bot_names() -> list[str]:
    load_plugins()
    return list(BOTS)


def _budgeted(name: str) -> tuple[BudgetFactory, int] | None:
    base, dash, budget = name.rpartition("-")
    factory = BUDGETS.get(base)
    if not dash or factory is None or not budget.isdigit():
        return None
    n = int(budget)
    return (factory, n) if 1 <= n <= MAX_BUDGET else None


def is_bot(name: str) -> bool:
    """Whether :func:`make_bot` knows ``name``.

    >>> import baohuang.bots
    >>> is_bot("heuristic"), is_bot("search-250"), is_bot("search-0"), is_bot("hosted-5")
    (True, True, False, False)
    """
    if name not in BOTS:
        load_plugins()
    return name in BOTS or _budgeted(name) is not None


def unknown_bot(name: str) -> UnknownBot:
    """The error for a name :func:`make_bot` does not know."""
    load_plugins()
    budgets = "".join(f", {b}-N" for b in BUDGETS)
    return UnknownBot(f"unknown bot {name!r} (one of: {', '.join(BOTS)}{budgets}; "
                      f"N from 1 to {MAX_BUDGET:,})")


def make_bot(name: str, seed: int = 0) -> Bot:
    """A new bot by name (``random``, ``hosted``, …, or ``search-N`` for another
    budget) with its own seed."""
    factory = BOTS.get(name)
    if factory is None:
        load_plugins()
        factory = BOTS.get(name)
    if factory is not None:
        return factory(seed)
    budgeted = _budgeted(name)
    if budgeted is None:
        raise unknown_bot(name)
    return budgeted[0](seed, budgeted[1])
