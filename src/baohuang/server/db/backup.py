"""``baohuang backup`` and ``baohuang restore``: a copy of the whole database in one
file, taken while the server runs, and put back into an empty database.

* **SQLite**: the online backup API (Python's :meth:`sqlite3.Connection.backup`):
  one read transaction copies every page, so the copy is the database as it was at
  one moment, whatever the server writes meanwhile (its file is in WAL mode: readers
  and the writer do not wait for each other).  The copy is an SQLite file of its own
  (journal mode ``DELETE``, checked with ``PRAGMA quick_check``), written beside
  ``FILE`` and renamed onto it when whole.
* **PostgreSQL**: ``pg_dump --format=custom`` (one consistent snapshot, taken while
  the server runs) and ``pg_restore`` (PostgreSQL's client programs, on ``PATH``;
  Debian's ``postgresql-client``).  The password is handed to them in ``PGPASSWORD``,
  never on a command line other users can read.

A restore goes only into an empty database (a new SQLite file, or a PostgreSQL
database just made with ``createdb``): it never overwrites a server's data.  Start
the server on it afterwards; it migrates the restored data to its own schema if the
backup came from an older version.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import sqlite3
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from sqlalchemy.engine import URL, make_url

__all__ = ["BackupError", "Summary", "backup", "restore"]

SQLITE_MAGIC = b"SQLite format 3\x00"
PG_MAGIC = b"PGDMP"


class BackupError(RuntimeError):
    """A backup or restore that cannot be done, and why (shown to the operator)."""


@dataclass(frozen=True, slots=True)
class Summary:
    """What a backup holds: its size and how many users, tables and games."""

    path: Path
    size: int
    users: int
    tables: int
    games: int

    def text(self) -> str:
        return (f"{self.path}: {self.size:,} bytes; {self.users} users, {self.tables} "
                f"tables, {self.games} games")


def _sqlite_path(url: URL) -> Path:
    database = url.database
    if not database or database == ":memory:":
        raise BackupError("an in-memory SQLite database has nothing to back up or restore")
    return Path(database)


@contextlib.contextmanager
def _sqlite(path: Path) -> Iterator[sqlite3.Connection]:
    """A connection to an existing file (or one about to be made); it only reads, unless
    it is the copy (a read-only open of a WAL file fails where its ``-shm`` is missing)."""
    conn = sqlite3.connect(path, timeout=30)
    try:
        conn.execute("PRAGMA busy_timeout=30000")
        yield conn
    finally:
        conn.close()


def _counts(conn: sqlite3.Connection) -> tuple[int, int, int]:
    names = {row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    if "alembic_version" not in names:
        raise BackupError("not a baohuang database (it has no alembic_version table)")
    users, tables, games = (conn.execute(f"SELECT count(*) FROM {name}").fetchone()[0]
                            for name in ("users", "tables", "games"))
    return users, tables, games


def _backup_sqlite(url: URL, target: Path) -> Summary:
    source = _sqlite_path(url)
    if not source.is_file():
        raise BackupError(f"no SQLite database at {source}")
    if target.resolve() == source.resolve():
        raise BackupError(f"{target} is the database itself: back it up to another file")
    partial = target.with_name(target.name + ".partial")
    partial.unlink(missing_ok=True)
    try:
        with _sqlite(source) as src, _sqlite(partial) as dst:
            src.backup(dst)                    # (every page in one step: one snapshot)
            dst.execute("PRAGMA journal_mode=DELETE")
            check = dst.execute("PRAGMA quick_check").fetchone()[0]
            if check != "ok":
                raise BackupError(f"the copy does not check out: {check}")
            users, tables, games = _counts(dst)
        partial.replace(target)
    finally:
        partial.unlink(missing_ok=True)
    return Summary(target, target.stat().st_size, users, tables, games)


def _restore_sqlite(source: Path, url: URL) -> Summary:
    target = _sqlite_path(url)
    if _magic(source, len(SQLITE_MAGIC)) != SQLITE_MAGIC:
        raise BackupError(f"{source} is not an SQLite backup (restore a PostgreSQL dump "
                          "into PostgreSQL)")
    if target.exists() and target.stat().st_size > 0:
        with _sqlite(target) as conn:
            if conn.execute("SELECT count(*) FROM sqlite_master").fetchone()[0]:
                raise BackupError(f"the database {target} is not empty: restore into a "
                                  "new file (or move this one aside)")
    target.parent.mkdir(parents=True, exist_ok=True)
    with _sqlite(source) as src:
        users, tables, games = _counts(src)
        with _sqlite(target) as dst:
            src.backup(dst)
            dst.execute("PRAGMA journal_mode=WAL")
    return Summary(target, target.stat().st_size, users, tables, games)


def _magic(path: Path, size: int) -> bytes:
    with path.open("rb") as file:
        return file.read(size)


def _pg_tool(name: str) -> str:
    found = shutil.which(name)
    if found is None:
        raise BackupError(f"{name} is not on PATH: install PostgreSQL's client programs "
                          "(Debian: apt install postgresql-client), of the server's "
                          "major version or newer")
    return found


def _pg_args(url: URL) -> tuple[list[str], dict[str, str]]:
    """libpq's connection flags for ``url``, and its password in the environment."""
    args = ["--dbname", url.database or "postgres"]
    if url.host:
        args += ["--host", url.host]
    if url.port:
        args += ["--port", str(url.port)]
    if url.username:
        args += ["--username", url.username]
    env = dict(os.environ)
    if url.password is not None:
        env["PGPASSWORD"] = str(url.password)
    return args, env


def _run(command: list[str], env: dict[str, str]) -> None:
    done = subprocess.run(command, env=env, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise BackupError(f"{Path(command[0]).name} failed: "
                          f"{(done.stderr or done.stdout).strip()[:2000]}")


async def _pg_counts(url: URL) -> tuple[int, int, int, int]:
    """How many relations the database has, and its users, tables and games."""
    import asyncpg

    conn = await asyncpg.connect(url.set(drivername="postgresql")
                                 .render_as_string(hide_password=False))
    try:
        relations = await conn.fetchval(
            "SELECT count(*) FROM pg_tables WHERE schemaname = 'public'")
        if not await conn.fetchval("SELECT to_regclass('public.alembic_version') IS NOT NULL"):
            return relations, 0, 0, 0
        counts = [await conn.fetchval(f"SELECT count(*) FROM {name}")
                  for name in ("users", "tables", "games")]
        return relations, counts[0], counts[1], counts[2]
    finally:
        await conn.close()


def _backup_pg(url: URL, target: Path) -> Summary:
    import asyncio

    tool = _pg_tool("pg_dump")
    args, env = _pg_args(url)
    partial = target.with_name(target.name + ".partial")
    try:
        _run([tool, "--format=custom", "--no-owner", "--file", str(partial), *args], env)
        partial.replace(target)
    finally:
        partial.unlink(missing_ok=True)
    _, users, tables, games = asyncio.run(_pg_counts(url))
    return Summary(target, target.stat().st_size, users, tables, games)


def _restore_pg(source: Path, url: URL) -> Summary:
    import asyncio

    if _magic(source, len(PG_MAGIC)) != PG_MAGIC:
        raise BackupError(f"{source} is not a PostgreSQL dump (pg_dump --format=custom)")
    tool = _pg_tool("pg_restore")
    relations, *_ = asyncio.run(_pg_counts(url))
    if relations:
        raise BackupError(f"the database {url.database} is not empty: restore into a new "
                          "one (createdb)")
    args, env = _pg_args(url)
    _run([tool, "--no-owner", "--exit-on-error", "--single-transaction", *args,
          str(source)], env)
    _, users, tables, games = asyncio.run(_pg_counts(url))
    return Summary(Path(url.database or ""), source.stat().st_size, users, tables, games)


def backup(db_url: str, target: Path) -> Summary:
    """Copy the database at ``db_url`` (an SQLAlchemy URL, as ``baohuang serve --db``
    takes) into the file ``target``, safely while a server uses it."""
    url = make_url(db_url)
    backend = url.get_backend_name()
    if backend == "sqlite":
        return _backup_sqlite(url, target)
    if backend == "postgresql":
        return _backup_pg(url, target)
    raise BackupError(f"cannot back up a {backend} database")


def restore(source: Path, db_url: str) -> Summary:
    """Put the backup ``source`` into the empty database at ``db_url``."""
    if not source.is_file():
        raise BackupError(f"no backup file {source}")
    url = make_url(db_url)
    backend = url.get_backend_name()
    if backend == "sqlite":
        return _restore_sqlite(source, url)
    if backend == "postgresql":
        return _restore_pg(source, url)
    raise BackupError(f"cannot restore into a {backend} database")
