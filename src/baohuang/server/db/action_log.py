"""The action log: every accepted action of every table.  The writes of all tables
that are ready in one turn of the event loop go in one transaction (group commit),
on an SQLite file right from the event loop while nobody else holds its write lock,
else by one task that writes such batches one after the other; a table awaits its
write before it tells anybody.  Every action carries its table's
next version and is written only if the version before it is the last one stored and
the table's fencing token is the writer's; otherwise :class:`FencedWrite` (a node that
lost a table can never write to it).  A table's other writes as its writer — its seats
and status, its game's 托管 — are fenced by the token alike (:meth:`ActionLog.save_table`,
:meth:`ActionLog.save_game`)."""

from __future__ import annotations

import asyncio
import time
from typing import Any

from sqlalchemy import (
    JSON,
    BigInteger,
    Float,
    Integer,
    String,
    bindparam,
    func,
    insert,
    select,
    update,
)
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncEngine

from .database import Database
from .models import actions, games, tables

__all__ = ["ActionLog", "FencedWrite"]


class FencedWrite(RuntimeError):
    """An action that was not written: its version does not follow the table's last
    stored one, or another node holds the table (a newer fencing token)."""

    def __init__(self, table_id: str, version: int, fence: int, what: str = "") -> None:
        """``what``: a write other than an action's (``version`` 0): what it changed."""
        super().__init__(f"table {table_id}: {what or f'version {version}'} with fencing "
                         f"token {fence} refused (another writer got there first, or "
                         "holds the table now)")
        self.table_id = table_id
        self.version = version
        self.fence = fence


def _settle(future: asyncio.Future[None], row: dict[str, Any], written: bool) -> None:
    if future.done():
        return
    if written:
        future.set_result(None)
    else:
        future.set_exception(FencedWrite(row["table_id"], row["version"], row["fence"]))


_ACTION_COLUMNS = {"game_id": Integer, "seq": Integer, "seat": Integer, "action": JSON,
                   "source": String, "at": Float, "table_id": String, "version": Integer}
#: one action, written only while the table's fencing token is the writer's (``fence``)
#: and its last stored version is the one before (the table's row is locked for share
#: meanwhile on PostgreSQL: a claim by a newer token waits for it, or it sees the claim)
_INSERT_FENCED = insert(actions).from_select(
    list(_ACTION_COLUMNS),
    select(*(bindparam(name, type_=kind) for name, kind in _ACTION_COLUMNS.items()))
    .select_from(tables)
    .where(tables.c.id == bindparam("table_id", type_=String),
           tables.c.fence == bindparam("fence", type_=BigInteger),
           func.coalesce(select(func.max(actions.c.version))
                         .where(actions.c.table_id == bindparam("table_id", type_=String))
                         .scalar_subquery(), 0)
           == bindparam("version", type_=Integer) - 1)
    .with_for_update(read=True))


class ActionLog(Database):
    """The actions of every table, written by version and fencing token."""

    def __init__(self, engine: AsyncEngine) -> None:
        super().__init__(engine)
        self._pending: list[tuple[dict[str, Any], asyncio.Future[None]]] = []
        #: the fencing token this server writes each table's actions with (a table not
        #: here: 0, the token of a table no cluster node ever claimed)
        self.fences: dict[str, int] = {}
        self._flush_due = False
        #: batches for the slow way (a thread that waits for SQLite's lock, or the async
        #: engine), written one after the other by one task
        self._slow: list[tuple[dict[str, Any], asyncio.Future[None]]] = []
        self._slow_writer: asyncio.Task[None] | None = None
        #: the loop ``start`` ran on (asking asyncio for the running loop costs a
        #: system call on Python 3.11, once per action)
        self._event_loop: asyncio.AbstractEventLoop | None = None

    def start(self) -> None:
        self._event_loop = asyncio.get_running_loop()

    async def close(self) -> None:
        while self._pending or self._flush_due or self._slow \
                or (self._slow_writer is not None and not self._slow_writer.done()):
            await asyncio.sleep(0.01)
        await super().close()

    # -- actions (group commit) -------------------------------------------------
    async def append_action(self, game_id: int, seq: int, seat: int | None,
                            action: dict[str, Any], source: str, *, table_id: str,
                            version: int) -> None:
        """Write one accepted action as version ``version`` of its table; returns once it
        is committed.  Raises :class:`FencedWrite`, nothing written, unless the table's
        last stored version is ``version - 1`` and its fencing token is this server's
        (:attr:`fences`)."""
        loop = self._event_loop or asyncio.get_running_loop()
        future: asyncio.Future[None] = loop.create_future()
        row = {"game_id": game_id, "seq": seq, "seat": seat, "action": action,
               "source": source, "at": time.time(), "table_id": table_id,
               "version": version, "fence": self.fences.get(table_id, 0)}
        self._pending.append((row, future))
        if not self._flush_due:
            self._flush_due = True
            # two turns of the event loop: the tables that are ready now add their
            # actions to this batch too (half as many commits when busy)
            loop.call_soon(loop.call_soon, self._flush)
        await future

    def _flush(self) -> None:
        """Write the pending actions as one batch: on an SQLite file right here, on the
        event loop, when nobody else holds the write lock (no task and no thread to
        wake); else the slow way."""
        self._flush_due = False
        batch, self._pending = self._pending, []
        if not batch:
            return
        if self._sqlite is not None and not self._slow:
            try:
                written = self._sqlite.insert_now([row for row, _ in batch])
            except Exception:
                written = None          # (tried again the slow way, then one by one)
            if written is not None:
                for (row, future), ok in zip(batch, written, strict=True):
                    _settle(future, row, ok)
                return
        self._slow += batch
        if self._slow_writer is None or self._slow_writer.done():
            loop = self._event_loop or asyncio.get_running_loop()
            self._slow_writer = loop.create_task(self._write_slowly())

    async def _write_slowly(self) -> None:
        while self._slow:
            batch, self._slow = self._slow, []
            try:
                written = await self._insert_actions([row for row, _ in batch])
            except Exception:
                await self._write_one_by_one(batch)
            else:
                for (row, future), ok in zip(batch, written, strict=True):
                    _settle(future, row, ok)

    async def _insert_actions(self, rows: list[dict[str, Any]]) -> list[bool]:
        """Write ``rows`` in one transaction: for each, whether it was (not: fenced)."""
        if self._sqlite is not None:
            return await self._sqlite.insert(rows)
        async with self.engine.begin() as conn:
            return [(await conn.execute(_INSERT_FENCED, row)).rowcount == 1 for row in rows]

    async def _write_one_by_one(self, batch: list[tuple[dict[str, Any],
                                                       asyncio.Future[None]]]) -> None:
        for row, future in batch:
            try:
                [ok] = await self._insert_actions([row])
            except IntegrityError:       # another writer stored this version meanwhile
                _settle(future, row, False)
            except Exception as exc:
                if not future.done():
                    future.set_exception(exc)
            else:
                _settle(future, row, ok)

    async def claim_table(self, table_id: str, fence: int) -> bool:
        """Make ``fence`` the token that may write ``table_id``'s actions (and this
        server's token for it), unless this one or a newer one has been claimed: then
        False, and nothing changes.  A node calls it once it holds the table's lease, before it
        reads the table's log (:meth:`table_version`)."""
        rows = await self._write(update(tables)
                                 .where(tables.c.id == table_id, tables.c.fence < fence)
                                 .values(fence=fence).returning(tables.c.id))
        if rows:
            self.fences[table_id] = fence
        return bool(rows)

    async def save_table(self, table_id: str, **values: Any) -> None:
        """Change ``table_id``'s row (its seats, its status) as its writer: refused
        (:class:`FencedWrite`, nothing changed) unless the table's fencing token is
        this server's, as an action is.  Written again, it changes nothing more."""
        fence = self.fences.get(table_id, 0)
        rows = await self._write(update(tables)
                                 .where(tables.c.id == table_id, tables.c.fence == fence)
                                 .values(**values).returning(tables.c.id))
        if not rows:
            raise FencedWrite(table_id, 0, fence, "its row")

    async def save_game(self, table_id: str, game_id: int, **values: Any) -> None:
        """Change game ``game_id`` of ``table_id`` (its seats' 托管) as the table's
        writer, fenced as :meth:`save_table`."""
        fence = self.fences.get(table_id, 0)
        held = select(tables.c.id).where(tables.c.id == table_id,
                                         tables.c.fence == fence).exists()
        rows = await self._write(update(games)
                                 .where(games.c.id == game_id, games.c.table_id == table_id,
                                        held)
                                 .values(**values).returning(games.c.id))
        if not rows:
            raise FencedWrite(table_id, 0, fence, f"game {game_id}")

    async def table_fence(self, table_id: str) -> int:
        """The fencing token that may write ``table_id`` now (0: none claimed it)."""
        rows = await self._read(select(tables.c.fence).where(tables.c.id == table_id))
        return int(rows[0][0]) if rows else 0

    async def table_version(self, table_id: str) -> int:
        """The last version of ``table_id``'s stored actions (0: none)."""
        rows = await self._read(select(func.coalesce(func.max(actions.c.version), 0))
                                .where(actions.c.table_id == table_id))
        return int(rows[0][0])
