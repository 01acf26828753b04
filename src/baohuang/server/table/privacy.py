"""Who may see a private table: its members (its owner and the people seated at it)
and whoever holds its invitation code — not whoever learned its id (docs/protocol.md
§2, SECURITY.md).  And which lookups are counted against the code-lookup limits: any
by a key that is not shaped as a table's id.

>>> is_table_id("0a1b2c3d4e"), is_table_id("K7PQ2M"), is_table_id("0A1B2C3D4E")
(True, False, False)
>>> admits(private=False, code="K7PQ2M", members=[3], key="0a1b2c3d4e", user_id=None)
True
>>> [admits(private=True, code="K7PQ2M", members=[3, None], key=key, user_id=user)
...  for key, user in (("0a1b2c3d4e", None), ("0a1b2c3d4e", 4), ("0a1b2c3d4e", 3),
...                    (" k7pq2m ", None))]
[False, False, True, True]
"""

from __future__ import annotations

import string
from collections.abc import Iterable
from typing import Any

__all__ = ["admits", "admits_json", "is_table_id"]

#: a table's id is ``secrets.token_hex(5)``: ten lowercase hexadecimal digits
TABLE_ID_LENGTH = 10
_HEX = frozenset(string.hexdigits.lower())


def is_table_id(key: str) -> bool:
    """Whether ``key`` has the shape of a table's id (looking one up is not a code
    lookup: ids are 40 random bits, and a private table's id admits its members only)."""
    return len(key) == TABLE_ID_LENGTH and all(ch in _HEX for ch in key)


def admits(*, private: bool, code: str, members: Iterable[int | None], key: str,
           user_id: int | None, members_only: bool = False) -> bool:
    """Whether a client that asked for a table by ``key`` may see it: any table that is
    not private; a private one when ``key`` is its code (any case), or when the client's
    user is one of its ``members``.  A ``members_only`` table (a 每日挑战 deal, whose
    cards others have not all played yet) admits its members alone, code or not."""
    if members_only:
        return user_id is not None and user_id in set(members)
    if not private or key.strip().upper() == code:
        return True
    return user_id is not None and user_id in set(members)


def admits_json(table: dict[str, Any], key: str, user_id: int | None) -> bool:
    """:func:`admits` for a TableState (a cluster directory's entry of a table that
    another node runs)."""
    members = [table.get("owner")] + [seat.get("user_id") for seat in table.get("seats", ())
                                      if isinstance(seat, dict)]
    return admits(private=bool(table.get("private")), code=str(table.get("code")),
                  members=members, key=key, user_id=user_id,
                  members_only=table.get("challenge") is not None)
