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

from .engine.actions import Action, ActionKind, ActionParseError
from .engine.cards import (
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
from .engine.game import Game
from .engine.hints import hint_order
from .engine.match import Match
from .engine.plays import InvalidPlay, Shape, beats, classify
from .engine.rules import (
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
from .engine.scoring import ScoreParts, TributeBasis, score_parts, settle, tribute_transfers
from .engine.state import IllegalAction, Result, Stage
from .engine.views import View

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
                    "ScoreParts",
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
                    "hint_order",
                    "make_deck",
                    "parse_card",
                    "parse_cards",
                    "score_parts",
                    "settle",
                    "tribute_transfers",
]
