"""What a table was created with."""

from __future__ import annotations

from dataclasses import dataclass

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
