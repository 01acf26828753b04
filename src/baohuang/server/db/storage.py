"""The database: SQLAlchemy 2 async on SQLite (WAL) or PostgreSQL (asyncpg).

:func:`open_storage` creates the SQLite file's directory, applies the Alembic
migrations and returns a :class:`Storage`.  Actions are written through one
writer task that groups the writes of all tables into one transaction
(group commit): a table awaits its write before it tells anybody.  Every action
carries its table's next version and is written only if the version before it is
the last one stored and the table's fencing token is the writer's; otherwise
:class:`FencedWrite` (a node that lost a table can never write to it).  On an SQLite
file, the actions and the small statements of tables and sessions are made from
the event loop itself (:mod:`.storage_sqlite`).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from alembic import command
from alembic.config import Config
from sqlalchemy import (
    JSON,
    BigInteger,
    Connection,
    Float,
    Integer,
    Row,
    String,
    bindparam,
    delete,
    event,
    func,
    insert,
    select,
    update,
)
from sqlalchemy.engine import make_url
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncEngine, create_async_engine
from sqlalchemy.sql import Executable

from .models import actions, game_players, games, sessions, tables, users
from .storage_sqlite import SqliteActions, SqliteOnLoop, sqlite_pragmas

__all__ = ["FencedWrite", "NameTaken", "Storage", "UserRecord", "migrate", "open_storage"]

log = logging.getLogger("baohuang.server")

MIGRATIONS = Path(__file__).parent / "migrations"


RateGame = Callable[[list[tuple[float, float] | None]], list[tuple[float, float] | None]]
"""New ``(mu, sigma)`` per seat from the current ones (``None``: no rated user)."""


class NameTaken(ValueError):
    """A registered name that is already in use."""


class FencedWrite(RuntimeError):
    """An action that was not written: its version does not follow the table's last
    stored one, or another node holds the table (a newer fencing token)."""

    def __init__(self, table_id: str, version: int, fence: int) -> None:
        super().__init__(f"table {table_id}: version {version} with fencing token {fence} "
                         "refused (another writer got there first, or holds the table now)")
        self.table_id = table_id
        self.version = version
        self.fence = fence


@dataclass(frozen=True, slots=True)
class UserRecord:
    """One account as stored."""

    id: int
    name: str
    guest: bool
    points: int
    games: int
    wins: int
    leaves: int
    mu: float
    sigma: float


def _settle(future: asyncio.Future[None], row: dict[str, Any], written: bool) -> None:
    if future.done():
        return
    if written:
        future.set_result(None)
    else:
        future.set_exception(FencedWrite(row["table_id"], row["version"], row["fence"]))


def _user(row: Any) -> UserRecord:
    return UserRecord(row["id"], row["name"], bool(row["guest"]), row["points"], row["games"],
                      row["wins"], row["leaves"], row["mu"], row["sigma"])


def make_engine(url: str) -> AsyncEngine:
    """An async engine; for an SQLite file its directory is created first."""
    parsed = make_url(url)
    if parsed.get_backend_name() == "sqlite":
        database = parsed.database
        if database and database != ":memory:":
            Path(database).parent.mkdir(parents=True, exist_ok=True)
        engine = create_async_engine(url, connect_args={"timeout": 30})
        event.listen(engine.sync_engine, "connect", sqlite_pragmas)
        return engine
    return create_async_engine(url, pool_size=10, max_overflow=10, pool_pre_ping=True)


def _upgrade(connection: Connection) -> None:
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    config.attributes["connection"] = connection
    command.upgrade(config, "head")


async def migrate(engine: AsyncEngine) -> None:
    """Apply every Alembic migration not yet applied."""
    async with engine.begin() as conn:
        await conn.run_sync(_upgrade)


async def open_storage(url: str) -> Storage:
    """Connect, migrate, and start the action writer."""
    engine = make_engine(url)
    await migrate(engine)
    storage = Storage(engine)
    storage.start()
    return storage


#: a user's totals that a finished game adds to, and the statements that add to them
#: (with ``user_id`` and ``add_<total>``; and the new rating, ``new_mu`` and ``new_sigma``)
_USER_TOTALS = ("points", "games", "wins", "leaves")
_ADD_TO_USER = update(users).where(users.c.id == bindparam("user_id")).values(
    {name: users.c[name] + bindparam(f"add_{name}") for name in _USER_TOTALS})
_ADD_TO_USER_RATED = _ADD_TO_USER.values(mu=bindparam("new_mu"), sigma=bindparam("new_sigma"))

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


class Storage:
    """Every read and write the server does."""

    def __init__(self, engine: AsyncEngine) -> None:
        self.engine = engine
        # an SQLite file: actions and small statements from the event loop, no hand-off
        # to aiosqlite's thread (see storage_sqlite)
        self._sqlite: SqliteActions | None = None
        self._on_loop: SqliteOnLoop | None = None
        if engine.dialect.name == "sqlite" and engine.url.database not in (None, "", ":memory:"):
            self._sqlite = SqliteActions(engine.url.database)
            self._on_loop = SqliteOnLoop(engine.url)
        self._pending: list[tuple[dict[str, Any], asyncio.Future[None]]] = []
        #: the fencing token this server writes each table's actions with (a table not
        #: here: 0, the token of a table no cluster node ever claimed)
        self.fences: dict[str, int] = {}
        self._wake = asyncio.Event()
        self._writer: asyncio.Task[None] | None = None
        #: the loop ``start`` ran on (asking asyncio for the running loop costs a
        #: system call on Python 3.11, once per action)
        self._event_loop: asyncio.AbstractEventLoop | None = None
        self._results_lock = asyncio.Lock()    # rating read → write, one game at a time

    @property
    def dialect(self) -> str:
        return self.engine.dialect.name

    def start(self) -> None:
        self._event_loop = asyncio.get_running_loop()
        self._writer = self._event_loop.create_task(self._write_actions())

    async def close(self) -> None:
        if self._writer is not None:
            while self._pending:
                await asyncio.sleep(0.01)
            self._writer.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._writer
        await self.engine.dispose()
        if self._sqlite is not None:
            self._sqlite.close()
        if self._on_loop is not None:
            self._on_loop.close()

    async def _write(self, statement: Executable, params: dict[str, Any] | None = None
                     ) -> Sequence[Row[Any]]:
        """One statement in a transaction of its own; the rows it returns."""
        if self._on_loop is not None and self._sqlite is not None:
            rows = self._on_loop.run(statement, params)
            if rows is not None:
                self._sqlite.committed()
                return rows
        async with self.engine.begin() as conn:
            result = await conn.execute(statement, params)
            return result.all() if result.returns_rows else []

    async def _read(self, statement: Executable) -> Sequence[Row[Any]]:
        """The rows of one query."""
        if self._on_loop is not None:
            rows = self._on_loop.run(statement)
            if rows is not None:
                return rows
        async with self.engine.connect() as conn:
            return (await conn.execute(statement)).all()

    # -- actions (group commit) -------------------------------------------------
    async def append_action(self, game_id: int, seq: int, seat: int | None,
                            action: dict[str, Any], source: str, *, table_id: str,
                            version: int) -> None:
        """Write one accepted action as version ``version`` of its table; returns once it
        is committed.  Raises :class:`FencedWrite`, nothing written, unless the table's
        last stored version is ``version - 1`` and its fencing token is this server's
        (:attr:`fences`)."""
        future: asyncio.Future[None] = (self._event_loop
                                        or asyncio.get_running_loop()).create_future()
        row = {"game_id": game_id, "seq": seq, "seat": seat, "action": action,
               "source": source, "at": time.time(), "table_id": table_id,
               "version": version, "fence": self.fences.get(table_id, 0)}
        self._pending.append((row, future))
        self._wake.set()
        await future

    async def _write_actions(self) -> None:
        while True:
            await self._wake.wait()
            # one more turn of the event loop: the tables that are ready now add their
            # actions to this batch too (half as many commits when busy; when idle this
            # costs a few microseconds)
            await asyncio.sleep(0)
            self._wake.clear()
            batch, self._pending = self._pending, []
            if not batch:
                continue
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

    async def table_fence(self, table_id: str) -> int:
        """The fencing token that may write ``table_id`` now (0: none claimed it)."""
        rows = await self._read(select(tables.c.fence).where(tables.c.id == table_id))
        return int(rows[0][0]) if rows else 0

    async def table_version(self, table_id: str) -> int:
        """The last version of ``table_id``'s stored actions (0: none)."""
        rows = await self._read(select(func.coalesce(func.max(actions.c.version), 0))
                                .where(actions.c.table_id == table_id))
        return int(rows[0][0])

    # -- users and sessions ---------------------------------------------------------
    async def create_user(self, name: str, *, name_key: str | None, password_hash: str | None,
                          guest: bool, mu: float, sigma: float) -> UserRecord:
        values = {"name": name, "name_key": name_key, "password_hash": password_hash,
                  "guest": guest, "created": time.time(), "points": 0, "games": 0, "wins": 0,
                  "leaves": 0, "mu": mu, "sigma": sigma}
        try:
            rows = await self._write(insert(users).returning(users.c.id), values)
        except IntegrityError:
            raise NameTaken(f"the name {name!r} is taken") from None
        return _user({**values, "id": int(rows[0][0])})

    async def user(self, user_id: int) -> UserRecord | None:
        rows = await self._read(select(users).where(users.c.id == user_id))
        return _user(rows[0]._mapping) if rows else None

    async def login_row(self, name_key: str) -> tuple[UserRecord, str | None] | None:
        rows = await self._read(select(users).where(users.c.name_key == name_key))
        return (_user(rows[0]._mapping), rows[0].password_hash) if rows else None

    async def password_hash(self, user_id: int) -> str | None:
        rows = await self._read(select(users.c.password_hash).where(users.c.id == user_id))
        return rows[0].password_hash if rows else None

    async def set_password_hash(self, user_id: int, password_hash: str) -> None:
        await self._write(update(users).where(users.c.id == user_id)
                          .values(password_hash=password_hash))

    async def add_session(self, token_hash: str, user_id: int) -> None:
        await self._write(insert(sessions), {"token_hash": token_hash, "user_id": user_id,
                                             "created": time.time()})

    async def session_user(self, token_hash: str, *, idle: float = float("inf"),
                           absolute: float = float("inf")) -> UserRecord | None:
        """The user of a session, unless it was not used for ``idle`` seconds or was made
        more than ``absolute`` seconds ago (then it is deleted).  Its use is recorded at
        most once a minute (or a tenth of ``idle``)."""
        query = select(users, sessions.c.created.label("session_created"),
                       sessions.c.last_used).join(
            sessions, sessions.c.user_id == users.c.id).where(
            sessions.c.token_hash == token_hash)
        rows = await self._read(query)
        if not rows:
            return None
        row = rows[0]._mapping
        now = time.time()
        used = row["last_used"] if row["last_used"] is not None else row["session_created"]
        if now - row["session_created"] > absolute or now - used > idle:
            await self.delete_session(token_hash)
            return None
        if now - used > min(60.0, idle / 10):
            await self._write(update(sessions).where(sessions.c.token_hash == token_hash)
                              .values(last_used=now))
        return _user(row)

    async def delete_session(self, token_hash: str) -> None:
        await self._write(delete(sessions).where(sessions.c.token_hash == token_hash))

    async def ended_sessions(self, token_hashes: Sequence[str], *, idle: float = float("inf"),
                             absolute: float = float("inf")) -> list[str]:
        """Which of ``token_hashes`` are no session now: deleted, or ended by age (those
        are deleted now).  Nothing is recorded as a use."""
        now = time.time()
        alive: set[str] = set()
        for start in range(0, len(token_hashes), 500):   # (bound parameters per statement)
            chunk = list(token_hashes[start:start + 500])
            query = select(sessions.c.token_hash, sessions.c.created, sessions.c.last_used
                           ).where(sessions.c.token_hash.in_(chunk))
            aged = []
            for row in await self._read(query):
                used = row.last_used if row.last_used is not None else row.created
                if now - row.created > absolute or now - used > idle:
                    aged.append(row.token_hash)
                else:
                    alive.add(row.token_hash)
            if aged:
                await self._write(delete(sessions).where(sessions.c.token_hash.in_(aged)))
        return [digest for digest in token_hashes if digest not in alive]

    async def delete_user_sessions(self, user_id: int, *, keep: str | None = None) -> None:
        """End every session of ``user_id`` but ``keep``."""
        statement = delete(sessions).where(sessions.c.user_id == user_id)
        if keep is not None:
            statement = statement.where(sessions.c.token_hash != keep)
        await self._write(statement)

    async def leaderboard(self, limit: int = 50) -> list[UserRecord]:
        query = (select(users).where(users.c.guest.is_(False), users.c.games > 0)
                 .order_by(users.c.points.desc(), users.c.id).limit(limit))
        return [_user(r._mapping) for r in await self._read(query)]

    # -- tables and games --------------------------------------------------------------
    async def insert_table(self, values: dict[str, Any]) -> None:
        await self._write(insert(tables), values)

    async def code_in_use(self, code: str) -> bool:
        return bool(await self._read(select(tables.c.id).where(tables.c.code == code)))

    async def update_table(self, table_id: str, **values: Any) -> None:
        await self._write(update(tables).where(tables.c.id == table_id).values(**values))

    async def unfinished_tables(self) -> list[dict[str, Any]]:
        query = select(tables).where(tables.c.status.in_(("open", "playing"))).order_by(
            tables.c.created)
        return [dict(r._mapping) for r in await self._read(query)]

    async def table_games(self, table_id: str) -> list[dict[str, Any]]:
        """The games of a table in order, each with its ``actions`` (dicts, in order)."""
        async with self.engine.connect() as conn:
            rows = [dict(r._mapping) for r in await conn.execute(
                select(games).where(games.c.table_id == table_id).order_by(games.c.idx))]
            for row in rows:
                row["actions"] = [dict(r._mapping) for r in await conn.execute(
                    select(actions).where(actions.c.game_id == row["id"])
                    .order_by(actions.c.seq))]
        return rows

    async def insert_game(self, values: dict[str, Any]) -> int:
        rows = await self._write(insert(games).returning(games.c.id), values)
        return int(rows[0][0])

    async def update_game(self, game_id: int, **values: Any) -> None:
        await self._write(update(games).where(games.c.id == game_id).values(**values))

    async def finish_game(self, game_id: int, *, result: dict[str, Any], scored: bool,
                          hosted: Any, players: Sequence[dict[str, Any]],
                          user_updates: Sequence[dict[str, Any]], table_id: str,
                          totals: list[int], status: str,
                          rate: RateGame | None = None) -> None:
        """Record a finished game, its players, the users' new totals and ratings, the
        table's match totals and its status — in one transaction, so that a crash leaves
        either all of it or none.

        ``rate`` gets the current ``(mu, sigma)`` of every seat's user (``None`` for a
        seat without one), read inside the transaction, and returns the new ratings: two
        tables finishing at once with the same player both count, one after the other.
        """
        now = time.time()
        table_values: dict[str, Any] = {"totals": totals, "status": status}
        if status != "playing":
            table_values["finished"] = now
        async with self._results_lock, self.engine.begin() as conn:
            new_ratings: dict[int, tuple[float, float]] = {}
            if rate is not None:
                seat_users = [p["user_id"] for p in players]
                ids = [u for u in seat_users if u is not None]
                query = select(users.c.id, users.c.mu, users.c.sigma).where(users.c.id.in_(ids))
                if self.dialect == "postgresql":
                    query = query.with_for_update()
                current = {r.id: (r.mu, r.sigma) for r in await conn.execute(query)}
                rated = rate([None if u is None else current.get(u) for u in seat_users])
                new_ratings = {u: r for u, r in zip(seat_users, rated, strict=True)
                               if u is not None and r is not None}
            await conn.execute(update(games).where(games.c.id == game_id).values(
                status="over", result=result, scored=scored, hosted=hosted, finished=now))
            await conn.execute(insert(game_players), [
                {**p, "game_id": game_id, "finished": now} for p in players])
            # (one statement for all the users, executed with each user's numbers: a
            # table writes this at the end of every game)
            rerated: list[dict[str, Any]] = []
            unrated: list[dict[str, Any]] = []
            for change in user_updates:
                rating = new_ratings.get(change["id"])
                numbers = {f"add_{key}": change[key] for key in _USER_TOTALS}
                numbers["user_id"] = change["id"]
                if rating is None:
                    unrated.append(numbers)
                else:
                    rerated.append({**numbers, "new_mu": rating[0], "new_sigma": rating[1]})
            if rerated:
                await conn.execute(_ADD_TO_USER_RATED, rerated)
            if unrated:
                await conn.execute(_ADD_TO_USER, unrated)
            await conn.execute(update(tables).where(tables.c.id == table_id)
                               .values(**table_values))

    # -- history and replay ------------------------------------------------------------------
    async def history(self, user_id: int, limit: int = 50) -> list[dict[str, Any]]:
        mine = (select(game_players.c.game_id, game_players.c.seat, game_players.c.score,
                       game_players.c.place, games.c.table_id, games.c.idx.label("index"),
                       games.c.result,
                       games.c.scored, games.c.finished)
                .join(games, games.c.id == game_players.c.game_id)
                .where(game_players.c.user_id == user_id)
                .order_by(game_players.c.finished.desc(), game_players.c.game_id.desc())
                .limit(limit))
        async with self.engine.connect() as conn:
            rows = [dict(r._mapping) for r in await conn.execute(mine)]
            ids = [r["game_id"] for r in rows]
            players: dict[int, list[dict[str, Any]]] = {i: [] for i in ids}
            if ids:
                query = (select(game_players).where(game_players.c.game_id.in_(ids))
                         .order_by(game_players.c.game_id, game_players.c.seat))
                for r in await conn.execute(query):
                    players[r.game_id].append({"seat": r.seat, "name": r.name,
                                               "user_id": r.user_id, "bot": r.bot})
        return [{**row, "players": players[row["game_id"]]} for row in rows]

    async def game(self, game_id: int) -> dict[str, Any] | None:
        """One game with its ``actions``, ``players`` (if finished) and whether its table
        is a ``practice`` table."""
        async with self.engine.connect() as conn:
            row = (await conn.execute(
                select(games, tables.c.practice).join(tables, tables.c.id == games.c.table_id)
                .where(games.c.id == game_id))).first()
            if row is None:
                return None
            out = dict(row._mapping)
            out["actions"] = [dict(r._mapping) for r in await conn.execute(
                select(actions).where(actions.c.game_id == game_id).order_by(actions.c.seq))]
            out["players"] = [dict(r._mapping) for r in await conn.execute(
                select(game_players).where(game_players.c.game_id == game_id)
                .order_by(game_players.c.seat))]
        return out
