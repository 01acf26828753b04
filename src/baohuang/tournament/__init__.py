"""Duplicate tournaments between bots (``baohuang tournament``): :mod:`.core` (the
deals, the seat arrangements and the runner), :mod:`.records` (what a deal
contributes), :mod:`.stats` (the report), :mod:`.execute` (worker processes and Ray)
and :mod:`.cli` (the command)."""

from __future__ import annotations

from .core import FORMATS, Tournament, TournamentError
from .stats import TournamentReport

__all__ = ["FORMATS", "Tournament", "TournamentError", "TournamentReport"]
