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
                    return None if lease is None else lease.node
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
