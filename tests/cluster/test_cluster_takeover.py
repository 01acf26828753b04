"""Two real ``baohuang serve`` nodes on one database and one real redis-server: the
node that runs a table is killed (SIGKILL) in the middle of a game; its lease lapses,
the other node takes the table over from the stored actions and finishes the game —
with the same result as the same deal played on a single server undisturbed, and
every version of the table's log stored once."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
from server_support import DATABASES, database

from baohuang.client import Client
from baohuang.server.cluster.lease import Leases
from baohuang.server.cluster.member import name_of
from baohuang.server.cluster.services import RedisServer
from baohuang.server.db.storage import open_storage
from baohuang.server.harness import ServerProcess

SEED = 20261204
#: five server bots that play as 托管 does (no randomness: the same deal, the same game)
TABLE = {"practice": True, "seed": SEED, "bots": {str(seat): "hosted" for seat in range(5)},
         "games": 1}
NODE_FLAGS = ("--bot-delay", "0.02", "--hosted-delay", "0", "--next-game-delay", "0",
              "--log-level", "info")


async def _create(url: str) -> str:
    client = Client(url)
    await client.guest("owner")
    created = await client.create_table(**TABLE)
    return str(created["table"]["id"] if "table" in created else created["id"])


async def _game(db_url: str, table_id: str, until: Any, within: float = 120.0
                ) -> dict[str, Any]:
    """The table's one game as stored, once ``until(game)`` holds."""
    storage = await open_storage(db_url)
    try:
        deadline = time.monotonic() + within
        while True:
            games = await storage.table_games(table_id)
            if games and until(games[0]):
                return games[0]
            assert time.monotonic() < deadline, "the table did not get there in time"
            await asyncio.sleep(0.05)
    finally:
        await storage.close()


def _over(game: dict[str, Any]) -> bool:
    return bool(game["status"] == "over")


def _undisturbed(kind: str, directory: Path) -> dict[str, Any]:
    directory.mkdir()
    with database(kind, directory) as url:
        server = ServerProcess(url, None, *NODE_FLAGS, log=directory / "single.log")
        server.start()
        try:
            table_id = asyncio.run(_create(server.url))
            return asyncio.run(_game(url, table_id, _over))
        finally:
            server.stop()


@pytest.mark.parametrize("kind", DATABASES)
def test_a_killed_nodes_table_is_taken_over_and_finishes_the_same(
        kind: str, tmp_path: Path, redis_server: RedisServer) -> None:
    expected = _undisturbed(kind, tmp_path / "single")
    assert expected["result"] is not None and len(expected["actions"]) > 20

    (tmp_path / "cluster").mkdir()
    with database(kind, tmp_path / "cluster") as url:
        flags = (*NODE_FLAGS, "--redis", redis_server.url, "--lease-ttl", "1")
        one = ServerProcess(url, None, *flags, "--node", "one", log=tmp_path / "one.log")
        two = ServerProcess(url, None, *flags, "--node", "two", log=tmp_path / "two.log")
        one.start()
        two.start()
        try:
            table_id = asyncio.run(_create(one.url))

            async def holder() -> str | None:
                leases = Leases.from_url(redis_server.url)
                try:
                    lease = await leases.holder(table_id)
                    return None if lease is None else name_of(lease.node)
                finally:
                    await leases.close()

            assert asyncio.run(holder()) == "one"
            # mid-game: some actions stored, many to go
            asyncio.run(_game(url, table_id, lambda g: len(g["actions"]) >= 10))
            one.kill()
            finished = asyncio.run(_game(url, table_id, _over))
            assert asyncio.run(holder()) in ("two", None)     # (released once over)
            tables = httpx.get(two.url + "/healthz", timeout=10).json()["tables"]
            assert tables >= 1
        finally:
            one.stop()
            two.stop()

    assert "took table" in (tmp_path / "two.log").read_text()
    assert finished["result"] == expected["result"]
    assert [a["action"] for a in finished["actions"]] == [a["action"] for a in
                                                            expected["actions"]]
    assert [a["version"] for a in finished["actions"]] == list(
        range(1, len(finished["actions"]) + 1))


MANY = 6
#: slower bots: the kills come while the games are far from their ends (a deal here is
#: 170–310 actions)
MANY_FLAGS = ("--bot-delay", "0.05", *NODE_FLAGS[2:])


async def _create_many(urls: list[str]) -> list[str]:
    """Tables of five 托管-like bots with seeds SEED, SEED + 1, …, made in turn on
    each of ``urls``."""
    ids = []
    for index in range(MANY):
        client = Client(urls[index % len(urls)])
        await client.guest(f"owner{index}")
        created = await client.create_table(**{**TABLE, "seed": SEED + index})
        ids.append(str(created["table"]["id"]))
    return ids


async def _all(db_url: str, ids: list[str], until: Any, within: float = 180.0
               ) -> list[dict[str, Any]]:
    """The tables' games as stored, once ``until(game)`` holds for every one."""
    storage = await open_storage(db_url)
    try:
        deadline = time.monotonic() + within
        while True:
            games = [await storage.table_games(table_id) for table_id in ids]
            if all(g and until(g[0]) for g in games):
                return [g[0] for g in games]
            assert time.monotonic() < deadline, "the tables did not get there in time"
            await asyncio.sleep(0.1)
    finally:
        await storage.close()


@pytest.mark.parametrize("kind", DATABASES)
def test_three_nodes_killed_and_restarted_in_turn_finish_every_game_the_same(
        kind: str, tmp_path: Path, redis_server: RedisServer) -> None:
    """Six tables over three nodes; one node is killed, later started again, then
    another is killed, while the tables play: every game ends with the same actions
    and result as the same deals played on one server undisturbed."""
    (tmp_path / "single").mkdir()
    with database(kind, tmp_path / "single") as url, \
            ServerProcess(url, None, *MANY_FLAGS, log=tmp_path / "single.log") as single:
        ids = asyncio.run(_create_many([single.url]))
        expected = asyncio.run(_all(url, ids, _over))

    (tmp_path / "cluster").mkdir()
    with database(kind, tmp_path / "cluster") as url:
        flags = (*MANY_FLAGS, "--redis", redis_server.url, "--lease-ttl", "1")
        nodes = [ServerProcess(url, None, *flags, "--node", f"n{i}",
                               log=tmp_path / f"n{i}.log") for i in range(3)]
        for node in nodes:
            node.start()
        try:
            ids = asyncio.run(_create_many([node.url for node in nodes]))
            asyncio.run(_all(url, ids, lambda g: len(g["actions"]) >= 10 or _over(g)))
            nodes[0].kill()
            asyncio.run(_all(url, ids, lambda g: len(g["actions"]) >= 25 or _over(g)))
            nodes[0].start()                        # back, on the same port and name
            nodes[1].kill()
            finished = asyncio.run(_all(url, ids, _over))
        finally:
            for node in nodes:
                node.stop()

    taken = "".join((tmp_path / f"n{i}.log").read_text() for i in range(3)).count("took table")
    assert taken >= 2                               # (each kill left tables to take over)
    for done, same in zip(finished, expected, strict=True):
        assert [a["action"] for a in done["actions"]] == [a["action"] for a in same["actions"]]
        assert done["result"] == same["result"]
        assert [a["version"] for a in done["actions"]] == list(
            range(1, len(done["actions"]) + 1))
