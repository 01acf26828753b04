"""A table whose database is out of reach pauses and goes on by itself.

An action is stored before anybody hears of it.  When the database cannot be reached
(PostgreSQL restarting, the network cut), :meth:`Store.action` keeps the action and
tries its write again, a little later each time (up to every 2 s of the table's
:class:`~.clock.Clock`, as all its time: a test that moves the clock by hand moves the
retries): the table's actor waits there — the table pauses — and every client at the table is told
(``{"type": "pause", "paused": true, "reason": "database"}``, then ``"paused": false``
when the write is taken; docs/protocol.md).  Messages that arrive meanwhile wait in
the table's inbox and are handled after it, as always, in order; so a bot's or 托管's
move, a timeout and a player's move are none of them lost.

Every other write a table makes goes through the same :meth:`Store.persist`: its seats,
a seat's 托管, the start of its match and of each game (:meth:`Store.insert_game`), a finished
game's result; and the lobby's writes when it dissolves an idle table.  Each is
idempotent: written again, it changes nothing more.

Nothing is written twice: an action's write carries the table's next version and is fenced
(:class:`~baohuang.server.db.storage.FencedWrite`).  A write whose answer was lost with
the connection may have been committed: when the retry is refused, the action counts
as stored if the table's stored version has reached it while its fencing token is
still this server's (no other node wrote it).

When to try again and when the clients are told is pure logic, :class:`Retries`, told
each failure and success at the table's time; :class:`Store` — the table's shell
around its :class:`~baohuang.server.db.storage.Storage` — waits on the table's clock
and tells the clients (the ``tell`` it is given).

>>> retries = Retries()
>>> retries.failed(now=10.0), retries.failed(now=10.25), retries.failed(now=10.75)
((True, 10.25), (False, 10.75), (False, 11.75))
>>> [retries.failed(now=t)[1] - t for t in (11.75, 13.75)], retries.written()
([2.0, 2.0], True)
>>> retries.written()          # (written at the first try: nobody was told of a pause)
False
"""

from __future__ import annotations

import logging
import time
from collections.abc import Awaitable, Callable
from typing import Any, Literal, assert_never

from sqlalchemy.exc import DataError, IntegrityError, ProgrammingError, SQLAlchemyError

from ..db.storage import FencedWrite, Storage
from ..metrics import ServerMetrics
from .clock import Clock, sleep
from .effects import AppendAction, FinishGame, SaveHosted, SaveSeats, StoreFailed, StoreOp
from .results import record_result

__all__ = ["REFUSED", "RETRY_FIRST", "RETRY_MAX", "UNREACHABLE", "Retries", "Store"]

log = logging.getLogger("baohuang.server")
RETRY_FIRST, RETRY_MAX = 0.25, 2.0

#: what a database out of reach raises (SQLAlchemy wraps the driver's errors; a refused
#: or reset connection can come through as the OS's) ...
UNREACHABLE = (SQLAlchemyError, OSError)
#: ... and what it does not: a write the database refuses is a fault, raised at once
REFUSED = (IntegrityError, DataError, ProgrammingError)


class Retries:
    """When a write out of reach is tried again — :data:`RETRY_FIRST` after its first
    failure, twice as long after each next, up to :data:`RETRY_MAX` — and whether the
    table's clients are told it pauses (at the first failure) or goes on (once written
    after one)."""

    __slots__ = ("_delay", "paused")

    def __init__(self) -> None:
        self._delay = RETRY_FIRST
        self.paused = False

    def failed(self, now: float) -> tuple[bool, float]:
        """A try failed at ``now``: (whether the table pauses now, when to try again)."""
        pause = not self.paused
        self.paused = True
        due = now + self._delay
        self._delay = min(RETRY_MAX, self._delay * 2)
        return pause, due

    def written(self) -> bool:
        """The write is taken: whether the table goes on from a pause (and so is reset)."""
        resumed, self.paused, self._delay = self.paused, False, RETRY_FIRST
        return resumed


class Store:
    """A table's writes: each tried again on the table's clock while the database is out
    of reach, the table paused meanwhile (``tell(True)``, then ``tell(False)``)."""

    def __init__(self, table_id: str, storage: Storage, clock: Clock,
                 metrics: ServerMetrics, tell: Callable[[bool], None]) -> None:
        self.table_id, self.storage, self.clock, self.metrics = table_id, storage, clock, metrics
        self.tell = tell
        #: the table is being stopped: a paused write gives up
        self.stopping = False
        #: how many writes were taken after the table paused for them (a caller that
        #: sees it grow knows its write waited for the database), and how long the last
        #: of them waited (the table's clock)
        self.resumed = 0
        self.waited = 0.0

    async def put(self, op: StoreOp) -> StoreFailed | None:
        """Store ``op`` (a table's :class:`~.effects.Persist`), paused for as long as the
        database is out of reach; ``None`` once written, else why it failed: fenced
        (another writer holds the table), refused, or stopped meanwhile."""
        try:
            match op:
                case AppendAction():
                    await self.action(op.game_id, op.seq, op.seat, op.action, op.source,
                                      version=op.version)
                case SaveSeats(seats):
                    await self.persist(
                        lambda: self.storage.save_table(self.table_id, seats=seats),
                        "its seats")
                case SaveHosted(game_id, hosted):
                    await self.persist(
                        lambda: self.storage.save_game(self.table_id, game_id, hosted=hosted),
                        f"托管 in game {game_id}")
                case FinishGame(settled, game_id, hosted):
                    await self.persist(
                        lambda: record_result(self.storage, settled, game_id=game_id,
                                              table_id=self.table_id, hosted=hosted),
                        f"the result of game {game_id}")
                case _:
                    assert_never(op)
        except FencedWrite:
            log.warning("table %s: another server holds it now; %s not stored",
                        self.table_id, type(op).__name__)
            return StoreFailed(op, "fenced")
        except Exception:
            why: Literal["stopped", "refused"] = "stopped" if self.stopping else "refused"
            log.exception("table %s: storing %s failed (%s)", self.table_id,
                          type(op).__name__, why)
            return StoreFailed(op, why)
        return None

    async def _written(self, version: int) -> bool:
        """Whether ``version`` of the table's log is stored, by this server."""
        storage = self.storage
        return (await storage.table_fence(self.table_id)
                == storage.fences.get(self.table_id, 0)
                and await storage.table_version(self.table_id) >= version)

    async def action(self, game_id: int, seq: int, seat: int, action: dict[str, Any],
                     source: str, *, version: int) -> None:
        """Store ``action`` as version ``version`` of the table's log, waiting for as
        long as the database is out of reach (the table paused).  Raises
        :class:`FencedWrite` when another writer holds the table, and the database's
        error if the table stops meanwhile."""
        tries = 0

        async def write() -> None:
            nonlocal tries
            tries += 1
            began = time.perf_counter()
            try:
                await self.storage.append_action(game_id, seq, seat, action, source,
                                                 table_id=self.table_id, version=version)
                self.metrics.store_seconds.observe(time.perf_counter() - began)
            except FencedWrite:
                # (after a try that lost its answer: stored if the log has the version)
                if not (tries > 1 and await self._written(version)):
                    raise

        await self.persist(write, f"version {version}")

    async def insert_game(self, values: dict[str, Any]) -> int:
        """Store a new game of the table (``values``: its row) and return its id, paused
        while the database is out of reach.  A try after one whose answer was lost finds
        the game that try stored (a table's games are numbered: one row a number)."""
        game_id: int | None = None
        tries = 0

        async def write() -> None:
            nonlocal game_id, tries
            tries += 1
            if tries > 1:
                game_id = await self.storage.game_of(self.table_id, values["idx"])
            if game_id is None:
                game_id = await self.storage.insert_game(values)

        await self.persist(write, f"the start of game {values['idx']}")
        assert game_id is not None
        return game_id

    async def persist(self, write: Callable[[], Awaitable[None]], what: str, *,
                      until_stopped: bool = True) -> None:
        """``write()`` again, on the table's clock, for as long as the database is out
        of reach (:class:`Retries`): the table pauses (its clients are told) and goes
        on once it is written.  ``write`` must be idempotent: a try whose answer was
        lost may have been committed.  Raises the database's error if the table stops
        meanwhile (``until_stopped``; a write made for a table after it stopped — the
        lobby dissolving it — waits on).  A write the database refuses (a broken
        constraint) is raised at once."""
        retries = Retries()
        paused_at = 0.0
        while True:
            try:
                await write()
                break
            except REFUSED:
                raise
            except UNREACHABLE:
                if until_stopped and self.stopping:
                    raise
                pause, due = retries.failed(self.clock.now())
                if pause:
                    paused_at = self.clock.now()
                    log.warning("table %s: the database is out of reach; paused at %s",
                                self.table_id, what)
                    self.tell(True)
            await sleep(self.clock, due - self.clock.now())   # (the table's time)
            if until_stopped and self.stopping:
                raise ConnectionError(f"table {self.table_id} stopped while its database "
                                      "was out of reach")
        if retries.written():
            log.info("table %s: the database is back; %s stored", self.table_id, what)
            self.resumed += 1
            self.waited = self.clock.now() - paused_at
            self.tell(False)
