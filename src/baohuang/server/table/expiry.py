"""When a table leaves the lobby, as pure logic (the lobby's sweeper asks it, at the
table's time): a finished table is forgotten once it has been kept long enough and
nobody is connected to it, and a table nobody plays at is dissolved (reason ``idle``)
once it has been idle for ``table_idle`` — no player connected and no move made.

>>> from baohuang.server.table.seats import Seat
>>> seats = [Seat(name="Li", user_id=1, away_since=30.0), Seat.for_bot("normal", 1)]
>>> idle_since(seats, moved_at=12.0)                 # (the bot does not count)
30.0
>>> sweep(status="playing", finished_at=None, connected=False, idle=30.0, now=100.0,
...       keep_finished=600.0, table_idle=60.0)
<Sweep.DISSOLVE: 'dissolve'>
"""

from __future__ import annotations

from collections.abc import Sequence
from enum import Enum

from .seats import Seat

__all__ = ["Sweep", "idle_since", "sweep"]


class Sweep(Enum):
    """What the lobby's sweeper does with a table."""

    #: a finished table nobody is connected to, kept long enough: it leaves the lobby
    FORGET = "forget"
    #: a table nobody plays at: dissolved (reason ``idle``), its game abandoned
    DISSOLVE = "dissolve"


def idle_since(seats: Sequence[Seat | None], moved_at: float) -> float | None:
    """Since when (the table's clock) no player has been connected and no move made —
    the last move (``moved_at``) or the last player going away, whichever is later;
    ``None`` while a player is connected.  Bots count for nothing."""
    since = moved_at
    for seat in seats:
        if seat is None or seat.is_bot:
            continue
        if seat.conn is not None:
            return None
        if seat.away_since is not None:
            since = max(since, seat.away_since)
    return since


def sweep(*, status: str, finished_at: float | None, connected: bool, idle: float | None,
          now: float, keep_finished: float, table_idle: float) -> Sweep | None:
    """What becomes of a table at ``now`` (``connected``: someone — a player or a
    watcher — is connected to it; ``idle``: :func:`idle_since`); ``None``: nothing."""
    if finished_at is not None and now - finished_at > keep_finished and not connected:
        return Sweep.FORGET
    if status in ("open", "playing") and idle is not None and now - idle > table_idle:
        return Sweep.DISSOLVE
    return None
