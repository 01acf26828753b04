"""Finished games in the database: a result, its players' totals and ratings, and
the table's status land together, and two tables finishing at the same moment
with the same player both count (a real SQLite file, and PostgreSQL when set)."""

from __future__ import annotations

import asyncio
import json
import sqlite3
import time
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any, TypeVar

import pytest
from server_support import DATABASES, database

from baohuang.server.accounts.rating import DEFAULT_MU, DEFAULT_SIGMA, rate_game
from baohuang.server.db.storage import Storage, open_storage
from baohuang.server.db.storage_sqlite import SqliteActions

ROYAL = (0, 1)
T = TypeVar("T")


class OnStorage:
    """Runs a test's coroutine with a :class:`Storage` opened on ``url`` in an event loop
    of its own, and closes the storage after."""

    def __init__(self, url: str) -> None:
        self.url = url

    def __call__(self, body: Callable[[Storage], Awaitable[T]]) -> T:
        async def main() -> T:
            storage = await open_storage(self.url)
            try:
                return await body(storage)
            finally:
                await storage.close()
        return asyncio.run(main())


@pytest.fixture(params=DATABASES)
def on_storage(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[OnStorage]:
    """A fresh database of each kind (made outside any event loop: PostgreSQL's is
    created with asyncio.run)."""
    with database(request.param, tmp_path) as url:
        yield OnStorage(url)


class OnSqlite(OnStorage):
    """The same on an SQLite database's file ``path``, which a test may also open."""

    def __init__(self, path: Path) -> None:
        super().__init__(f"sqlite+aiosqlite:///{path}")
        self.path = path


@pytest.fixture
def on_sqlite(tmp_path: Path) -> OnSqlite:
    """A fresh SQLite database file."""
    return OnSqlite(tmp_path / "baohuang.db")


def _rate(current: list[tuple[float, float] | None]) -> list[tuple[float, float] | None]:
    ratings = [r if r is not None else (DEFAULT_MU, DEFAULT_SIGMA) for r in current]
    return rate_game(ratings, royal=ROYAL, royal_won=True, rated=[r is not None for r in current])


async def _table_with_game(storage: Storage, table_id: str, games: int) -> int:
    await storage.insert_table({
        "id": table_id, "code": table_id[-6:], "owner": None, "preset": "shandong",
        "rules": {}, "timeout": 30.0, "games": games, "seed": 1, "autostart": True,
        "status": "playing", "seats": [], "totals": [0] * 5, "created": time.time(),
        "finished": None})
    return await storage.insert_game({
        "table_id": table_id, "idx": 0, "seed": 1, "dealer": 0, "tribute": None, "rules": {},
        "seats": [], "status": "playing", "result": None, "scored": None, "hosted": None,
        "started": time.time(), "finished": None})


def _finish(storage: Storage, game_id: int, table_id: str, user_id: int,
            status: str) -> Any:
    players = [{"seat": s, "user_id": user_id if s == 0 else None,
                "bot": None if s == 0 else "hosted", "name": f"p{s}", "score": 2 if s < 2 else -1,
                "place": s + 1} for s in range(5)]
    return storage.finish_game(
        game_id, result={"places": [1, 2, 3, 4, 5]}, scored=True, hosted=[False] * 5,
        players=players,
        user_updates=[{"id": user_id, "points": 2, "games": 1, "wins": 1, "leaves": 0}],
        table_id=table_id, totals=[4, 2, -2, -2, -2], status=status, rate=_rate)


def test_two_tables_finishing_at_once_both_rate_the_player(on_storage: OnStorage) -> None:
    async def main(storage: Storage) -> None:
        user = await storage.create_user("both", name_key="both", password_hash=None,
                                         guest=True, mu=DEFAULT_MU, sigma=DEFAULT_SIGMA)
        first = await _table_with_game(storage, "table-aaaaaa", 1)
        second = await _table_with_game(storage, "table-bbbbbb", 3)
        await asyncio.gather(_finish(storage, first, "table-aaaaaa", user.id, "finished"),
                             _finish(storage, second, "table-bbbbbb", user.id,
                                     "playing"))
        after = await storage.user(user.id)
        assert after is not None
        assert (after.games, after.wins, after.points) == (2, 2, 4)
        once = _rate([(DEFAULT_MU, DEFAULT_SIGMA)] + [None] * 4)[0]
        assert once is not None
        twice = _rate([once] + [None] * 4)[0]
        assert (after.mu, after.sigma) == pytest.approx(twice)     # not just `once`
        assert after.sigma < once[1]
        rows = {r["id"]: r for r in await storage.unfinished_tables()}
        assert "table-aaaaaa" not in rows            # status stored with the result
        assert rows["table-bbbbbb"]["status"] == "playing"
        assert rows["table-bbbbbb"]["totals"] == [4, 2, -2, -2, -2]

    on_storage(main)


def test_a_result_written_again_counts_once(on_storage: OnStorage) -> None:
    """A table writes a game's result again when the database's answer was lost (it was
    out of reach): a second write of a game recorded already changes nothing — the
    player's totals, rating and the game's players count it once."""
    async def main(storage: Storage) -> None:
        user = await storage.create_user("once", name_key="once", password_hash=None,
                                         guest=True, mu=DEFAULT_MU, sigma=DEFAULT_SIGMA)
        game = await _table_with_game(storage, "table-dddddd", 2)
        await _finish(storage, game, "table-dddddd", user.id, "playing")
        first = await storage.user(user.id)
        await _finish(storage, game, "table-dddddd", user.id, "playing")
        again = await storage.user(user.id)
        assert first is not None and again is not None
        assert (again.games, again.wins, again.points) == (1, 1, 2)
        assert (again.mu, again.sigma) == (first.mu, first.sigma)
        [stored] = await storage.table_games("table-dddddd")
        assert stored["status"] == "over"
        assert len(await storage.history(user.id)) == 1       # one game_players row

    on_storage(main)


def test_a_table_write_waits_for_another_writer_off_the_loop(on_sqlite: OnSqlite) -> None:
    """SQLite: a table's small writes are made on the event loop, but never wait there
    for another connection's write lock: the write waits elsewhere, the loop runs on,
    and the write lands once the lock is free."""
    path = on_sqlite.path

    async def main(storage: Storage) -> None:
        await _table_with_game(storage, "table-cccccc", 1)
        holder = sqlite3.connect(path)
        holder.execute("BEGIN IMMEDIATE")             # another writer holds the lock
        write = asyncio.create_task(storage.update_table("table-cccccc",
                                                         seats=[{"name": "later"}]))
        # the loop and the storage serve others meanwhile (a read sees the old seats)
        rows = {r["id"]: r for r in await asyncio.wait_for(storage.unfinished_tables(), 10)}
        assert rows["table-cccccc"]["seats"] == [] and not write.done()
        holder.rollback()
        holder.close()
        await asyncio.wait_for(write, 30)
        rows = {r["id"]: r for r in await storage.unfinished_tables()}
        assert rows["table-cccccc"]["seats"] == [{"name": "later"}]

    on_sqlite(main)


def test_a_result_and_an_action_wait_for_another_writer_off_the_loop(on_sqlite: OnSqlite
                                                                     ) -> None:
    """SQLite: a finished game's results and an action are written on the event loop
    when the file is free; while another connection holds the write lock they wait
    elsewhere — the loop runs on — and both land, whole, once it is free."""
    path = on_sqlite.path

    async def main(storage: Storage) -> None:
        user = await storage.create_user("late", name_key="late", password_hash=None,
                                         guest=True, mu=DEFAULT_MU, sigma=DEFAULT_SIGMA)
        game_id = await _table_with_game(storage, "table-dddddd", 1)
        holder = sqlite3.connect(path)
        holder.execute("BEGIN IMMEDIATE")             # another writer holds the lock
        action = asyncio.create_task(storage.append_action(
            game_id, 0, 0, {"kind": "pass"}, "player", table_id="table-dddddd",
            version=1))
        result = asyncio.create_task(_finish(storage, game_id, "table-dddddd", user.id,
                                             "finished"))
        rows = {r["id"]: r for r in await asyncio.wait_for(storage.unfinished_tables(), 10)}
        assert "table-dddddd" in rows and not action.done() and not result.done()
        holder.rollback()
        holder.close()
        await asyncio.wait_for(asyncio.gather(action, result), 30)
        assert "table-dddddd" not in {r["id"] for r in await storage.unfinished_tables()}
        after = await storage.user(user.id)
        assert after is not None and (after.games, after.points) == (1, 2)
        stored = await storage.game(game_id)
        assert stored is not None and [a["action"] for a in stored["actions"]] \
            == [{"kind": "pass"}] and len(stored["players"]) == 5

    on_sqlite(main)


def _seats_in_the_file(path: Path, table_id: str) -> Any:
    """A table's seats as the database file itself has them (the write-ahead log not
    read: only what a checkpoint has copied)."""
    db = sqlite3.connect(f"file:{path}?immutable=1", uri=True)
    try:
        row = db.execute("SELECT seats FROM tables WHERE id = ?", (table_id,)).fetchone()
    except sqlite3.DatabaseError:
        # (not even the tables are there yet, or the file was read while a checkpoint
        # was writing it — "malformed": the caller reads again)
        return None
    finally:
        db.close()
    return None if row is None else json.loads(row[0])


def test_the_loops_writes_are_checkpointed_into_the_file(on_sqlite: OnSqlite) -> None:
    """SQLite: the event loop's connections never checkpoint (a checkpoint waits for the
    disk); their commits are counted, and every so many a thread copies the
    write-ahead log into the database file — with no game played, seats taken and
    given up would otherwise grow the log for as long as the server runs."""
    path = on_sqlite.path

    async def main(storage: Storage) -> Any:
        await _table_with_game(storage, "table-dddddd", 1)
        for n in range(SqliteActions.CHECKPOINT_EVERY):
            await storage.update_table("table-dddddd", seats=[{"name": f"p{n}"}])
        for _ in range(1000):               # (the thread's checkpoint: wait for it)
            seats = _seats_in_the_file(path, "table-dddddd")
            if seats and seats[0]["name"] != "p0":
                return seats
            await asyncio.sleep(0.01)
        return _seats_in_the_file(path, "table-dddddd")

    seats = on_sqlite(main)
    assert seats and seats[0]["name"].startswith("p") and seats[0]["name"] != "p0"


def test_the_write_ahead_log_starts_again_after_each_checkpoint(on_sqlite: OnSqlite) -> None:
    """SQLite, tables playing without a pause: each checkpoint starts the write-ahead
    log again from its beginning, so the log stays the size of what is written between
    two checkpoints instead of growing for as long as the server runs (several
    kilobytes an action: every commit rewrites the index pages of each table in it)."""
    wal = Path(f"{on_sqlite.path}-wal")
    tables = ["table-eeeeee", "table-ffffff"]

    async def main(storage: Storage) -> list[int]:
        games = [await _table_with_game(storage, table_id, 1) for table_id in tables]
        sizes = []
        for version in range(1, 8 * SqliteActions.CHECKPOINT_EVERY + 1):
            # (one commit: the tables' actions of one turn of the event loop)
            await asyncio.gather(*(
                storage.append_action(game, version, 0, {"kind": "pass"}, "player",
                                      table_id=table_id, version=version)
                for table_id, game in zip(tables, games, strict=True)))
            if version % SqliteActions.CHECKPOINT_EVERY == 0:
                sizes.append(wal.stat().st_size)
        stored = await storage.game(games[-1])
        assert stored is not None and len(stored["actions"]) == version
        return sizes

    sizes = on_sqlite(main)
    # (the log's file keeps its size when the log starts again, the most it ever held:
    # about the first; growing, it would be eight times the first by the end)
    assert sizes[-1] < 3 * sizes[0], sizes
