"""What a 亲友圈 (club) is made with, checked: its name, short description, default rules
(a preset, options, the time limit, the games of a match) and what its members may do;
its limits; and its invitation codes, drawn from :mod:`secrets`.

>>> spec = check_club({"name": " 周五牌友 ", "preset": "shandong", "timeout": 20,
...                    "approval": True})
>>> spec.name, spec.timeout, spec.approval, spec.watchers
('周五牌友', 20.0, True, True)
>>> check_club({"name": ""})
Traceback (most recent call last):
...
baohuang.server.table.lobby.LobbyError: bad_name: a club's name has 1 to 24 characters
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from typing import Any

from ..table.lobby import CODE_ALPHABET, LobbyError, check_spec
from ..table.seating import plain_text

__all__ = ["CLUBS_PER_OWNER", "CLUBS_PER_USER", "CODE_LENGTH", "MEMBERS_PER_CLUB", "ClubSpec",
           "check_club", "clean_text", "new_code"]

#: the longest name and description of a club (characters)
NAME_MAX, DESCRIPTION_MAX = 24, 200
#: the clubs one player may own, and be in (a member or asking to join)
CLUBS_PER_OWNER, CLUBS_PER_USER = 10, 50
#: the members of one club (those asking to join included)
MEMBERS_PER_CLUB = 500
#: an invitation code's length (a table's code has 6 characters: never mistaken)
CODE_LENGTH = 8
#: what a club's rules are made of (a ``CreateTable`` body's fields)
RULE_FIELDS = ("preset", "options", "timeout", "games")
_FLAGS = ("approval", "custom_rules", "watchers")


@dataclass(frozen=True, slots=True)
class ClubSpec:
    """A checked club body (docs/protocol.md §2 Clubs)."""

    name: str
    description: str
    preset: str
    options: dict[str, Any]
    timeout: float
    games: int
    #: the owner or an admin approves who joins by the code
    approval: bool = False
    #: a member opening a table may change the club's rules for it
    custom_rules: bool = False
    #: who is not a member may watch the club's tables (with a table's link)
    watchers: bool = True

    def row(self) -> dict[str, Any]:
        return {"name": self.name, "description": self.description, "preset": self.preset,
                "options": self.options, "timeout": self.timeout, "games": self.games,
                "approval": self.approval, "custom_rules": self.custom_rules,
                "watchers": self.watchers}


def clean_text(value: Any, field: str, low: int, high: int) -> str:
    """A text field as plain text (control and format characters out, runs of spaces
    one), ``low`` to ``high`` characters."""
    code = f"bad_{field}"
    if not isinstance(value, str):
        raise LobbyError(code, f"'{field}' must be text")
    clean = " ".join(plain_text(value[:high * 4]).split())
    if not low <= len(clean) <= high:
        raise LobbyError(code, f"a club's {field} has {low} to {high} characters")
    return clean


def check_club(body: Any, current: ClubSpec | None = None) -> ClubSpec:
    """Check a club's body (a new club's, or the changes to ``current``); raise
    :class:`LobbyError` naming what is wrong."""
    if not isinstance(body, dict):
        raise LobbyError("bad_request", "the body must be a JSON object")
    extra = sorted(set(body) - {"name", "description", *RULE_FIELDS, *_FLAGS})
    if extra:
        raise LobbyError("bad_request", f"unknown field {extra[0]!r}")
    old = current.row() if current is not None else {
        "description": "", "preset": "shandong", "options": {}, "timeout": 30.0, "games": 1,
        "approval": False, "custom_rules": False, "watchers": True}
    merged = {**old, **body}
    name = clean_text(merged.get("name"), "name", 1, NAME_MAX)
    description = clean_text(merged.get("description", ""), "description", 0,
                             DESCRIPTION_MAX)
    # (the rules are checked as a table's would be: a club's table is made with them)
    check_spec({key: merged[key] for key in RULE_FIELDS})
    flags = {}
    for flag in _FLAGS:
        if not isinstance(merged[flag], bool):
            raise LobbyError("bad_request", f"{flag!r} must be true or false")
        flags[flag] = merged[flag]
    return ClubSpec(name, description, str(merged["preset"]), dict(merged["options"]),
                    float(merged["timeout"]), int(merged["games"]), **flags)


def new_code() -> str:
    """A fresh invitation code (40 random bits)."""
    return "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))
