"""A table whose database is out of reach pauses and goes on by itself.

An action is stored before anybody hears of it.  When the database cannot be reached
(PostgreSQL restarting, the network cut), :func:`store_action` keeps the action and
tries its write again, a little later each time (up to every 2 s of the table's
:class:`~.clock.Clock`, as all its time: a test that moves the clock by hand moves the
retries): the table's actor waits there — the table pauses — and every client at the table is told
(``{"type": "pause", "paused": true, "reason": "database"}``, then ``"paused": false``
when the write is taken; docs/protocol.md).  Messages that arrive meanwhile wait in
the table's inbox and are handled after it, as always, in order; so a bot's or 托管's
move, a timeout and a player's move are none of them lost.

Every other write a table makes goes through the same :func:`persist`: its seats, a
seat's 托管, the start of its match and of each game (:func:`insert_game`), a finished
game's result; and the lobby's writes when it dissolves an idle table.  Each is
idempotent: written again, it changes nothing more.

Nothing is written twice: an action's write carries the table's next version and is fenced
(:class:`~baohuang.server.db.storage.FencedWrite`).  A write whose answer was lost with
the connection may have been committed: when the retry is refused, the action counts
as stored if the table's stored version has reached it while its fencing token is
still this server's (no other node wrote it).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Awaitable, Callable
from typing import Any, Protocol

from sqlalchemy.exc import DataError, IntegrityError, ProgrammingError, SQLAlchemyError

from ..db.storage import FencedWrite, Storage
from ..metrics import ServerMetrics
from ..wire.protocol import Pause, encode
from .clock import Clock, sleep
from .subscriber import Subscriber

__all__ = ["RETRY_FIRST", "RETRY_MAX", "StoringTable", "insert_game", "persist", "store_action"]

log = logging.getLogger("baohuang.server")
RETRY_FIRST, RETRY_MAX = 0.25, 2.0

#: what a database out of reach raises (SQLAlchemy wraps the driver's errors; a refused
#: or reset connection can come through as the OS's) ...
UNREACHABLE = (SQLAlchemyError, OSError)
#: ... and what it does not: a write the database refuses is a fault, raised at once
REFUSED = (IntegrityError, DataError, ProgrammingError)


class StoringTable(Protocol):
    """What storing an action reads at a table (the table actor is one)."""

    @property
    def id(self) -> str: ...
    @property
    def storage(self) -> Storage: ...
    @property
    def game_ids(self) -> list[int]: ...
    @property
    def moves(self) -> int: ...
    #: actions stored so far: the next one is stored as version ``logged + 1``
    @property
    def logged(self) -> int: ...
    #: the table is being stopped: a paused write gives up
    @property
    def stopping(self) -> bool: ...
    #: where the time of each write of a move is recorded
    @property
    def metrics(self) -> ServerMetrics: ...
    #: the table's time: a paused write is tried again on it
    @property
    def clock(self) -> Clock: ...

    def conns(self) -> list[Subscriber]: ...


def tell(table: StoringTable, paused: bool) -> None:
    """Every client at ``table``: the table pauses (or goes on)."""
    text = encode(Pause(paused=paused, reason="database" if paused else None))
    for conn in table.conns():
        conn.send(text)


async def _written(table: StoringTable, version: int) -> bool:
    """Whether ``version`` of ``table``'s log is stored, by this server."""
    storage = table.storage
    return (await storage.table_fence(table.id) == storage.fences.get(table.id, 0)
            and await storage.table_version(table.id) >= version)


async def store_action(table: StoringTable, seat: int, action: dict[str, Any], source: str) -> None:
    """Store ``action`` as ``table``'s next version, waiting for as long as the database
    is out of reach (the table paused).  Raises :class:`FencedWrite` when another
    writer holds the table, and the database's error if the table stops meanwhile."""
    version = table.logged + 1
    tries = 0

    async def write() -> None:
        nonlocal tries
        tries += 1
        began = time.perf_counter()
        try:
            await table.storage.append_action(
                table.game_ids[-1], table.moves, seat, action, source,
                table_id=table.id, version=version)
            table.metrics.store_seconds.observe(time.perf_counter() - began)
        except FencedWrite:
            # (after a try that lost its answer: stored if the log has the version)
            if not (tries > 1 and await _written(table, version)):
                raise

    await persist(table, write, f"version {version}")


async def insert_game(table: StoringTable, values: dict[str, Any]) -> int:
    """Store a new game of ``table`` (``values``: its row) and return its id, paused
    while the database is out of reach.  A try after one whose answer was lost finds
    the game that try stored (a table's games are numbered: one row a number)."""
    game_id: int | None = None
    tries = 0

    async def write() -> None:
        nonlocal game_id, tries
        tries += 1
        if tries > 1:
            game_id = await table.storage.game_of(table.id, values["idx"])
        if game_id is None:
            game_id = await table.storage.insert_game(values)

    await persist(table, write, f"the start of game {values['idx']}")
    assert game_id is not None
    return game_id


async def persist(table: StoringTable, write: Callable[[], Awaitable[None]], what: str,
                  *, until_stopped: bool = True) -> None:
    """``write()`` again, a little later each time, for as long as the database is out
    of reach: the table pauses (its clients are told) and goes on once it is written.
    ``write`` must be idempotent: a try whose answer was lost may have been committed.
    Raises the database's error if the table stops meanwhile (``until_stopped``; a
    write made for a table after it stopped — the lobby dissolving it — waits on).  A
    write the database refuses (a broken constraint) is raised at once."""
    delay, paused = RETRY_FIRST, False
    while True:
        try:
            await write()
            break
        except REFUSED:
            raise
        except UNREACHABLE:
            if until_stopped and table.stopping:
                raise
            if not paused:
                paused = True
                log.warning("table %s: the database is out of reach; paused at %s",
                            table.id, what)
                tell(table, True)
        await sleep(table.clock, delay)     # (the table's time, as all its waits)
        delay = min(RETRY_MAX, delay * 2)
        if until_stopped and table.stopping:
            raise ConnectionError(f"table {table.id} stopped while its database was out "
                                  "of reach")
    if paused:
        log.info("table %s: the database is back; %s stored", table.id, what)
        tell(table, False)
