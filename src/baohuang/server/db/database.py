"""The connection to the database: the async engine (SQLite file or PostgreSQL), the
Alembic migrations, and the two ways every part of
:class:`~baohuang.server.db.storage.Storage` runs a statement (:class:`Database`) — on an
SQLite file straight from the event loop (:mod:`.storage_sqlite`), else through the
async engine."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from alembic import command
from alembic.config import Config
from sqlalchemy import Connection, Row, event
from sqlalchemy.engine import make_url
from sqlalchemy.ext.asyncio import AsyncEngine, create_async_engine
from sqlalchemy.sql import Executable

from .storage_sqlite import SqliteActions, SqliteOnLoop, sqlite_pragmas

__all__ = ["MIGRATIONS", "Database", "make_engine", "migrate"]

MIGRATIONS = Path(__file__).parent / "migrations"


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


class Database:
    """An engine and how one statement runs on it; the parts of
    :class:`~baohuang.server.db.storage.Storage` build on it."""

    def __init__(self, engine: AsyncEngine) -> None:
        self.engine = engine
        # an SQLite file: actions and small statements from the event loop, no hand-off
        # to aiosqlite's thread (see storage_sqlite)
        self._sqlite: SqliteActions | None = None
        self._on_loop: SqliteOnLoop | None = None
        if engine.dialect.name == "sqlite" and engine.url.database not in (None, "", ":memory:"):
            self._sqlite = SqliteActions(engine.url.database)
            self._on_loop = SqliteOnLoop(engine.url)

    @property
    def dialect(self) -> str:
        return self.engine.dialect.name

    async def close(self) -> None:
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
