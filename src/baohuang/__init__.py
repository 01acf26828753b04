"""保皇 (Baohuang): the five-player, four-deck card game of Shandong.

>>> import baohuang as bh
>>> bh.beats("BJ BJ J J J", "SJ SJ 9 9 9")
True
>>> game = bh.Game.new(seed=1)
>>> view = game.view(game.to_act)
>>> len(view.hand) > 30
True
"""

from __future__ import annotations

from .actions import Action, ActionKind, ActionParseError
from .cards import (
                    EMPEROR_CARD,
                    GUARD_CARD,
                    TEHUA_CARD,
                    Card,
                    CardParseError,
                    Deck,
                    Rank,
                    Suit,
                    format_cards,
                    make_deck,
                    parse_card,
                    parse_cards,
)
from .game import Game
from .match import Match
from .plays import InvalidPlay, Shape, beats, classify
from .rules import (
                    PRESETS,
                    Abdication,
                    ForcedCallRule,
                    GuardMode,
                    LeadAfterOut,
                    RuleError,
                    RuleSet,
                    Scoring,
                    StealRequirement,
)
from .scoring import TributeBasis, settle, tribute_transfers
from .state import IllegalAction, Result, Stage
from .views import View

__version__ = "0.1.0"

__all__ = [
                    "EMPEROR_CARD",
                    "GUARD_CARD",
                    "PRESETS",
                    "TEHUA_CARD",
                    "Abdication",
                    "Action",
                    "ActionKind",
                    "ActionParseError",
                    "Card",
                    "CardParseError",
                    "Deck",
                    "ForcedCallRule",
                    "Game",
                    "GuardMode",
                    "IllegalAction",
                    "InvalidPlay",
                    "LeadAfterOut",
                    "Match",
                    "Rank",
                    "Result",
                    "RuleError",
                    "RuleSet",
                    "Scoring",
                    "Shape",
                    "Stage",
                    "StealRequirement",
                    "Suit",
                    "TributeBasis",
                    "View",
                    "__version__",
                    "beats",
                    "classify",
                    "format_cards",
                    "make_deck",
                    "parse_card",
                    "parse_cards",
                    "settle",
                    "tribute_transfers",
]
