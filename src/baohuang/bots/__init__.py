"""Bots: players that choose from ``(view, legal_actions)`` only.

>>> import baohuang as bh
>>> from baohuang.bots import make_bot
>>> game = bh.Game.new(seed=2)
>>> bots = [make_bot("hosted", seed=s) for s in range(5)]
>>> while not game.is_over:
...     seat = game.to_act
...     game.apply(bots[seat].choose(game.view(seat), game.legal_actions()))
>>> game.result is not None
True
"""

from __future__ import annotations

from .base import BOTS, Bot, bot_names, is_bot, make_bot, register, register_budget
from .heuristic import HeuristicBot
from .hosted import HostedBot, hosted_action
from .levels import LEVELS, Level, offered_levels
from .random_bot import RandomBot
from .search.belief_search import BeliefSearchBot
from .search.search import SearchBot

__all__ = [
           "BOTS",
           "LEVELS",
           "BeliefSearchBot",
           "Bot",
           "HeuristicBot",
           "HostedBot",
           "Level",
           "RandomBot",
           "SearchBot",
           "bot_names",
           "hosted_action",
           "is_bot",
           "make_bot",
           "offered_levels",
           "register",
           "register_budget",
]
