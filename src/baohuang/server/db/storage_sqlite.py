"""The two ways :class:`~baohuang.server.db.storage.Storage` reaches an SQLite file
without the async engine's hand-off to a thread for every statement.

Both run on the event loop and never wait there for SQLite's write lock (its holder
may need the loop to finish): a statement that finds the file locked goes the slow
way instead — :class:`SqliteActions` to a thread of its own, which waits for the
lock, and :class:`SqliteOnLoop` back to the async engine.  Only one connection
writes at a time in SQLite; the async engine's connections, when several tables
write at once, wait in SQLite's busy handler, which sleeps for milliseconds
between its tries.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import logging
import sqlite3
from collections.abc import Callable, Sequence
from typing import Any, Final

import msgspec
from sqlalchemy import URL, Connection, Row, create_engine, event
from sqlalchemy.exc import OperationalError
from sqlalchemy.pool import StaticPool
from sqlalchemy.sql import Executable

__all__ = ["SqliteActions", "SqliteOnLoop", "sqlite_pragmas"]

log = logging.getLogger("baohuang.server")


def sqlite_pragmas(dbapi_connection: Any, _record: Any) -> None:
    """Every connection's settings: the write-ahead log, commits that do not wait for
    the disk, foreign keys, and up to 30 s of waiting for the write lock."""
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.execute("PRAGMA busy_timeout=30000")
    cursor.close()


def _on_loop_pragmas(dbapi_connection: Any, record: Any) -> None:
    """A connection of the event loop: as :func:`sqlite_pragmas`, but it never waits
    for the lock, and leaves checkpoints (which wait for the disk) to the others."""
    sqlite_pragmas(dbapi_connection, record)
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA busy_timeout=0")
    cursor.execute("PRAGMA wal_autocheckpoint=0")
    cursor.close()


def _locked(exc: BaseException) -> bool:
    text = str(exc)
    return "locked" in text or "busy" in text


def _json(value: Any) -> str:
    return _json_encoder.encode(value).decode()


_json_encoder = msgspec.json.Encoder()


def _params(rows: list[dict[str, Any]]) -> list[tuple[Any, ...]]:
    """For each action: the values of :attr:`SqliteActions.SQL`, then its fencing token."""
    return [(r["game_id"], r["seq"], r["seat"], _json(r["action"]), r["source"], r["at"],
             r["table_id"], r["version"], r["fence"]) for r in rows]


class SqliteOnLoop:
    """The small statements of a table's life and of a connection's handshake — a
    player takes a seat, a game gets its row, a session token is looked up — run on
    the event loop through a synchronous engine on the same file: a tenth of a
    millisecond each, where 50 tables seating their players at once through the
    async engine took a second.

    >>> import tempfile, pathlib
    >>> from sqlalchemy import text
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "t.db"
    >>> quick = SqliteOnLoop(URL.create("sqlite+aiosqlite", database=str(path)))
    >>> quick.run(text("CREATE TABLE t (x INTEGER)"))
    []
    >>> quick.run(text("PRAGMA busy_timeout"))              # it never waits for the lock
    [(0,)]
    >>> quick.run(text("INSERT INTO t VALUES (:x) RETURNING x"), {"x": 7})
    [(7,)]
    >>> holder = sqlite3.connect(path)
    >>> _ = holder.execute("BEGIN IMMEDIATE")               # another writer holds the lock
    >>> quick.run(text("INSERT INTO t VALUES (8)")) is None  # not waited for: None
    True
    >>> holder.rollback(); quick.run(text("SELECT count(*) FROM t"))
    [(1,)]
    >>> holder.close(); quick.close()
    """

    def __init__(self, url: URL) -> None:
        self.engine = create_engine(url.set(drivername="sqlite+pysqlite"), poolclass=StaticPool,
                                    connect_args={"timeout": 0, "check_same_thread": False})
        event.listen(self.engine, "connect", _on_loop_pragmas)

    def run(self, statement: Executable, params: dict[str, Any] | None = None
            ) -> Sequence[Row[Any]] | None:
        """``statement`` in a transaction of its own: the rows it returns (none for a
        write without ``RETURNING``), or None when another connection is writing."""
        try:
            with self.engine.begin() as conn:
                result = conn.execute(statement, params)
                return result.all() if result.returns_rows else []
        except OperationalError as exc:
            if _locked(exc):
                return None
            raise

    def transaction(self, work: Callable[[Connection], None]) -> bool:
        """``work`` on a connection in a transaction of its own: True once committed,
        False — nothing done — when another connection is writing."""
        try:
            with self.engine.begin() as conn:
                work(conn)
        except OperationalError as exc:
            if _locked(exc):
                return False
            raise
        return True

    def close(self) -> None:
        self.engine.dispose()


class SqliteActions:
    """Batches of actions into an SQLite file through :mod:`sqlite3`: a check and an
    ``INSERT`` per action (both prepared) and one commit per batch, no engine in between
    (the server's busiest write, made while tables wait to broadcast).  Each action
    is written or, fenced, not (:attr:`CHECK`): :meth:`insert` says which.

    A batch is written right on the event loop when the file is free — a commit to
    the WAL costs less than handing the batch to a thread — and by a thread of its
    own, which waits for the lock, when another connection is writing.  The loop's
    connection leaves checkpoints to that thread."""

    #: fencing: an action is written only while its table's fencing token is the
    #: writer's and the table's last stored version is the one before — both read by
    #: :attr:`CHECK` after the batch took the write lock, then :attr:`SQL` inserts it.
    #: (One conditional ``INSERT … SELECT`` that reads ``actions`` would make SQLite
    #: copy each row through a temporary table first: a third more for the write.)
    #: A connection keeps what it read and wrote of each table (its token and last
    #: version) for as long as SQLite's ``PRAGMA data_version``, read under the write
    #: lock, shows that no other connection has committed anything to the file since
    #: its own last commit: then the file holds exactly what it kept, and the batch
    #: needs no read.  Any other writer's commit — another node's action or claim of
    #: the table, this server's own seats and games through its other connections —
    #: changes that number, and the batch reads the file again.
    CHECK: Final = ("SELECT (SELECT fence FROM tables WHERE id = ?), "
                    "(SELECT max(version) FROM actions WHERE table_id = ?)")
    SQL: Final = ("INSERT INTO actions (game_id, seq, seat, action, source, at, table_id, "
                  "version) VALUES (?, ?, ?, ?, ?, ?, ?, ?)")
    #: commits between two checkpoints of the write-ahead log (by the thread).  The
    #: actions wait behind a checkpoint (:meth:`committed`), and the next one starts
    #: the log again from its beginning.  While tables play, some table is nearly
    #: always writing: a checkpoint beside those writes would never catch up with the
    #: log's end (or, waiting for a moment with no writer, never start), and the log
    #: would only grow — by the index pages of each table in each commit, kilobytes an
    #: action — every commit onto new blocks of the file.
    CHECKPOINT_EVERY: Final = 100

    def __init__(self, path: str) -> None:
        self.path = path
        # (the writing thread; not ``_thread``: compiled, that name is a C keyword)
        self._pool = concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="bh-actions")
        self._db: sqlite3.Connection | None = None       # the thread's
        self._now: sqlite3.Connection | None = None      # the loop's
        self._since_checkpoint = 0
        #: checkpoints asked of the thread and not yet done (the loop's actions go to
        #: the thread meanwhile, after them)
        self._checkpoints = 0
        #: for each connection: the file's ``data_version`` as of its last commit, and
        #: what it knows of each table since then: (fencing token, last version)
        self._known: dict[sqlite3.Connection, tuple[int, dict[str, tuple[Any, int]]]] = {}

    def _insert(self, db: sqlite3.Connection, params: list[tuple[Any, ...]]) -> list[bool]:
        written = []
        db.execute("BEGIN IMMEDIATE")    # the write lock first: no writer in between
        try:
            [data_version] = db.execute("PRAGMA data_version").fetchone()
            seen = self._known.pop(db, None)
            # (nobody else committed since our last commit: what we kept is the file's)
            known = seen[1] if seen is not None and seen[0] == data_version else {}
            check, insert = self.CHECK, self.SQL
            for row in params:
                table_id, version, fence = row[6], row[7], row[8]
                kept = known.get(table_id)
                if kept is None:
                    token, last = db.execute(check, (table_id, table_id)).fetchone()
                    last = last or 0
                else:
                    token, last = kept
                ok = token == fence and last == version - 1
                if ok:
                    db.execute(insert, row[:8])
                    last = version
                known[table_id] = (token, last)
                written.append(ok)
            db.commit()
        except BaseException:
            db.rollback()
            raise
        self._known[db] = (data_version, known)    # (our own commit leaves it as it was)
        return written

    def _write(self, params: list[tuple[Any, ...]] | None) -> list[bool]:
        db = self._db
        if db is None:
            db = self._db = sqlite3.connect(self.path, timeout=30, check_same_thread=False)
            sqlite_pragmas(db, None)
        if params is None:
            try:
                # (RESTART: the other connections' writers wait for it too)
                db.execute("PRAGMA wal_checkpoint(RESTART)")
            except sqlite3.Error:      # (the next one, or another connection's, will do)
                log.warning("checkpoint of %s failed", self.path, exc_info=True)
            return []
        return self._insert(db, params)

    def _write_now(self, params: list[tuple[Any, ...]]) -> list[bool] | None:
        """Write on the loop if nobody else holds the write lock (which actions were
        written); None if one does, or a checkpoint is due."""
        if self._checkpoints:
            return None
        db = self._now
        try:
            if db is None:
                db = sqlite3.connect(self.path, timeout=0, check_same_thread=False)
                _on_loop_pragmas(db, None)
                self._now = db
            return self._insert(db, params)
        except sqlite3.OperationalError as exc:
            if db is not None and db.in_transaction:
                db.rollback()
            if _locked(exc):
                return None
            raise

    async def insert(self, rows: list[dict[str, Any]]) -> list[bool]:
        """Write ``rows`` (with ``fence``, the writer's token) in one transaction; for
        each, whether it was written (False: fenced)."""
        params = _params(rows)
        written = self._write_now(params)
        if written is None:
            written = await asyncio.get_running_loop().run_in_executor(
                self._pool, self._write, params)
        self.committed()
        return written

    def insert_now(self, rows: list[dict[str, Any]]) -> list[bool] | None:
        """:meth:`insert` right here, on the event loop — or None, nothing written,
        when another connection holds the write lock or a checkpoint is due."""
        written = self._write_now(_params(rows))
        if written is not None:
            self.committed()
        return written

    def committed(self) -> None:
        """Count a commit to the file (of the loop's connections, which never
        checkpoint): every :attr:`CHECKPOINT_EVERY` th, a checkpoint by the thread."""
        self._since_checkpoint += 1
        if self._since_checkpoint >= self.CHECKPOINT_EVERY:
            self._since_checkpoint = 0
            done = asyncio.get_running_loop().run_in_executor(self._pool, self._write, None)
            self._checkpoints += 1
            done.add_done_callback(self._checkpointed)

    def _checkpointed(self, _done: asyncio.Future[list[bool]]) -> None:
        self._checkpoints -= 1

    def _close(self) -> None:
        if self._db is not None:
            self._db.close()
            self._db = None

    def close(self) -> None:
        if self._now is not None:
            self._now.close()
            self._now = None
        self._pool.submit(self._close).result()
        self._pool.shutdown()
        self._known.clear()
