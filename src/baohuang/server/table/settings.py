"""What a table was created with."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ...engine.rules import RuleSet

__all__ = ["Settings"]


@dataclass(frozen=True, slots=True)
class Settings:
    """What a table was created with."""

    id: str
    code: str
    owner: int | None
    preset: str | None
    rules: RuleSet
    timeout: float
    games: int
    seed: int
    autostart: bool
    created: float
    #: a practice table: unrated, its seed may be chosen by its creator
    practice: bool = False
    #: the 记牌器 (card counter) is shown at this table (public information only)
    counter: bool = True
    #: a private table: not in the lobby list (its link or code only); free chat
    private: bool = False
    #: 准备 between the games of a match: seconds until the next deal starts without
    #: the seats not yet ready (they are dealt in on 托管); ``None``: no countdown, the
    #: deal waits for every person at the table
    ready_wait: float | None = None
    #: 空位由电脑补齐: the bot that takes every seat still empty when the owner starts
    #: (``None``: the owner fills seats himself)
    fill_bots: str | None = None
    #: 每日挑战: a challenge deal's table (``{"day", "deal", "deals"}``, the deal
    #: numbered from 1): its player alone may see it, and it is never rematched
    #: (``baohuang.server.challenge``); ``None``: any other table
    challenge: dict[str, Any] | None = None
    #: 亲友圈: the club this table was opened in (only its members sit; its scored games
    #: count in the club's ledger); ``None``: no club
    club: int | None = None
