"""Fencing in storage: two writers of one table (two servers on one database, as two
cluster nodes are) never both store a version, a writer whose fencing token is older
than the table's can store nothing, and a refused write leaves nothing behind (a real
SQLite file, and PostgreSQL when set)."""

from __future__ import annotations

import asyncio
import sqlite3
import time
from pathlib import Path
from typing import Any

import pytest
from alembic import command
from alembic.config import Config
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from server_support import DATABASES, database
from sqlalchemy import Connection

from baohuang.server.config import ServerConfig
from baohuang.server.db.storage import MIGRATIONS, FencedWrite, Storage, make_engine, open_storage
from baohuang.server.table.lobby import Lobby, check_spec

TABLE = "table-fence1"


async def _table(storage: Storage, table_id: str = TABLE, games: int = 1) -> list[int]:
    """A playing table with ``games`` games; their ids."""
    await storage.insert_table({
        "id": table_id, "code": table_id[-6:], "owner": None, "preset": "shandong",
        "rules": {}, "timeout": 30.0, "games": games, "seed": 1, "autostart": True,
        "status": "playing", "seats": [], "totals": [0] * 5, "created": time.time(),
        "finished": None})
    return [await storage.insert_game({
        "table_id": table_id, "idx": idx, "seed": 1, "dealer": 0, "tribute": None,
        "rules": {}, "seats": [], "status": "playing", "result": None, "scored": None,
        "hosted": [], "started": time.time(), "finished": None}) for idx in range(games)]


async def _write(storage: Storage, game_id: int, version: int, who: str) -> None:
    await storage.append_action(game_id, version - 1, 0, {"kind": "pass", "by": who}, "human",
                                table_id=TABLE, version=version)


async def _log(storage: Storage) -> list[tuple[int, str]]:
    """The table's stored actions: (version, writer)."""
    [game] = await storage.table_games(TABLE)
    return [(row["version"], row["action"]["by"]) for row in game["actions"]]


@pytest.mark.parametrize("kind", DATABASES)
def test_the_stale_writer_is_refused_and_nothing_is_written_twice(kind: str,
                                                                  tmp_path: Path) -> None:
    async def main(url: str) -> None:
        first, second = await open_storage(url), await open_storage(url)
        try:
            [game] = await _table(first)
            # both nodes believe version 1 is next; the first stores it
            await _write(first, game, 1, "first")
            with pytest.raises(FencedWrite) as refused:
                await _write(second, game, 1, "second")
            assert (refused.value.table_id, refused.value.version) == (TABLE, 1)
            # a version that skips one is refused too
            with pytest.raises(FencedWrite):
                await _write(second, game, 3, "second")
            # the second reads the log and goes on from there
            assert await second.table_version(TABLE) == 1
            await _write(second, game, 2, "second")
            assert await _log(first) == [(1, "first"), (2, "second")]
        finally:
            await first.close()
            await second.close()

    with database(kind, tmp_path) as url:
        asyncio.run(main(url))


@pytest.mark.parametrize("kind", DATABASES)
def test_a_writer_with_an_older_fencing_token_can_never_write(kind: str,
                                                              tmp_path: Path) -> None:
    """The old holder of a table's lease knows the right next version, but the new
    holder claimed the table with a newer token: the old one's write is refused."""
    async def main(url: str) -> None:
        old, new = await open_storage(url), await open_storage(url)
        try:
            [game] = await _table(old)
            assert await old.claim_table(TABLE, 7)
            await _write(old, game, 1, "old")
            assert await new.claim_table(TABLE, 8)           # the lease passed on
            assert await new.table_version(TABLE) == 1
            with pytest.raises(FencedWrite) as refused:
                await _write(old, game, 2, "old")            # the right version, too late
            assert refused.value.fence == 7
            await _write(new, game, 2, "new")
            assert not await old.claim_table(TABLE, 7)        # no claiming it back
            with pytest.raises(FencedWrite):
                await _write(old, game, 3, "old")
            assert await _log(new) == [(1, "old"), (2, "new")]
        finally:
            await old.close()
            await new.close()

    with database(kind, tmp_path) as url:
        asyncio.run(main(url))


@pytest.mark.parametrize("kind", DATABASES)
def test_a_writer_with_an_older_fencing_token_cannot_change_seats_or_hosted(
        kind: str, tmp_path: Path) -> None:
    """Not only actions: the table's seats and status and its game's 托管, written by the
    old holder after the lease passed on, are refused and change nothing; written again
    by the holder, they are taken again (the same write twice changes nothing more)."""
    async def main(url: str) -> None:
        old, new = await open_storage(url), await open_storage(url)
        try:
            [game] = await _table(old)
            assert await old.claim_table(TABLE, 7)
            await old.save_table(TABLE, seats=[{"name": "old"}])
            await old.save_game(TABLE, game, hosted=[{"hosted": False}])
            assert await new.claim_table(TABLE, 8)           # the lease passed on
            await new.save_table(TABLE, seats=[{"name": "new"}])
            with pytest.raises(FencedWrite) as refused:
                await old.save_table(TABLE, seats=[{"name": "old again"}], status="open")
            assert refused.value.fence == 7
            with pytest.raises(FencedWrite):
                await old.save_game(TABLE, game, hosted=[{"hosted": True}])
            for _ in range(2):
                await new.save_game(TABLE, game, hosted=[{"hosted": False, "by": "new"}])
            [row] = [r for r in await new.unfinished_tables() if r["id"] == TABLE]
            assert (row["seats"], row["status"]) == ([{"name": "new"}], "playing")
            [stored] = await new.table_games(TABLE)
            assert stored["hosted"] == [{"hosted": False, "by": "new"}]
        finally:
            await old.close()
            await new.close()

    with database(kind, tmp_path) as url:
        asyncio.run(main(url))


def test_an_idle_table_another_node_holds_now_is_only_dropped(tmp_path: Path) -> None:
    """A lobby dissolving an idle table writes under the table's token: once another
    writer has claimed the table, the table leaves this lobby's memory and stays as
    the other stored it (not dissolved)."""
    url = f"sqlite+aiosqlite:///{tmp_path / 'bh.db'}"

    async def main() -> None:
        here, other = await open_storage(url), await open_storage(url)
        lobby = Lobby(here, ServerConfig(db_url=url))
        try:
            table = await lobby.create(None, check_spec({}))
            assert await other.claim_table(table.id, 5)      # the table passed on
            await lobby.expire(table)
            assert lobby.get(table.id) is None
            [row] = [r for r in await other.unfinished_tables() if r["id"] == table.id]
            assert (row["status"], row["finished"]) == ("open", None)
        finally:
            await lobby.close()
            await here.close()
            await other.close()

    asyncio.run(main())


@pytest.mark.parametrize("kind", DATABASES)
def test_two_writers_of_one_version_at_once_store_it_once(kind: str, tmp_path: Path) -> None:
    async def main(url: str) -> None:
        first, second = await open_storage(url), await open_storage(url)
        try:
            [game] = await _table(first)
            for version in range(1, 11):
                outcomes = await asyncio.gather(_write(first, game, version, "first"),
                                                _write(second, game, version, "second"),
                                                return_exceptions=True)
                refused = [o for o in outcomes if isinstance(o, FencedWrite)]
                assert len(refused) == 1 and outcomes.count(None) == 1, outcomes
            log = await _log(first)
            assert [version for version, _ in log] == list(range(1, 11))
        finally:
            await first.close()
            await second.close()

    with database(kind, tmp_path) as url:
        asyncio.run(main(url))


@settings(max_examples=15, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.tuples(st.sampled_from(["a", "b"]), st.integers(1, 8)), max_size=20))
def test_any_writes_leave_versions_one_after_the_other(tmp_path: Path,
                                                       writes: list[tuple[str, int]]) -> None:
    """Whatever two writers try, in whatever order: the stored versions are 1, 2, …, k
    with no gap and none twice, and a write was refused exactly when its version was
    not the next one."""
    path = tmp_path / f"any-{time.monotonic_ns()}.db"

    async def main() -> None:
        writers = {"a": await open_storage(f"sqlite+aiosqlite:///{path}"),
                   "b": await open_storage(f"sqlite+aiosqlite:///{path}")}
        try:
            [game] = await _table(writers["a"])
            stored = 0
            for who, version in writes:
                try:
                    await _write(writers[who], game, version, who)
                except FencedWrite:
                    assert version != stored + 1
                else:
                    assert version == stored + 1
                    stored = version
            assert [v for v, _ in await _log(writers["b"])] == list(range(1, stored + 1))
        finally:
            for storage in writers.values():
                await storage.close()

    asyncio.run(main())


def _upgrade_to(connection: Connection, revision: str) -> None:
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    config.attributes["connection"] = connection
    command.upgrade(config, revision)


def test_the_migration_numbers_the_actions_stored_before(tmp_path: Path) -> None:
    """A database of the version before fencing: its tables' actions get their
    versions in the order they were played (game by game), and play goes on after."""
    path = tmp_path / "old.db"

    async def at(revision: str) -> None:
        engine = make_engine(f"sqlite+aiosqlite:///{path}")
        async with engine.begin() as conn:
            await conn.run_sync(_upgrade_to, revision)
        await engine.dispose()

    asyncio.run(at("0005"))
    db = sqlite3.connect(path)
    rows: list[Any] = []
    for table_id in ("table-old001", "table-old002"):
        db.execute("INSERT INTO tables (id, code, rules, timeout, games, seed, autostart, "
                   "status, seats, totals, created) VALUES (?, ?, '{}', 30, 2, 1, 1, "
                   "'playing', '[]', '[]', 0)", (table_id, table_id[-6:]))
        for idx in (1, 0):                          # (games made out of order)
            game = db.execute("INSERT INTO games (table_id, idx, seed, dealer, rules, seats, "
                              "status, hosted, started) VALUES (?, ?, 1, 0, '{}', '[]', "
                              "'playing', '[]', 0)", (table_id, idx)).lastrowid
            rows += [(game, seq, f'"{table_id} {idx} {seq}"') for seq in (2, 0, 1)]
    db.executemany("INSERT INTO actions (game_id, seq, seat, action, source, at) "
                   "VALUES (?, ?, 0, ?, 'human', 0)", rows)
    db.commit()
    db.close()

    async def main() -> None:
        storage = await open_storage(f"sqlite+aiosqlite:///{path}")
        try:
            for table_id in ("table-old001", "table-old002"):
                numbered = [(a["version"], a["action"]) for g in
                            await storage.table_games(table_id) for a in g["actions"]]
                assert numbered == [(n + 1, f"{table_id} {n // 3} {n % 3}") for n in range(6)]
                assert await storage.table_version(table_id) == 6
            games = await storage.table_games("table-old001")
            await storage.append_action(games[1]["id"], 3, 0, {"kind": "pass"}, "human",
                                        table_id="table-old001", version=7)
            assert await storage.table_version("table-old001") == 7
        finally:
            await storage.close()

    asyncio.run(main())
