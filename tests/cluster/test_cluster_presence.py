"""Who is at a table, seen from every node: two real nodes on one database and one
real redis-server.  The single server shows presence in a table's state — each
seat's ``connected``, the number of ``watchers`` — at the table (the ``table``
message), in ``GET /api/tables/{id}`` and in the lobby list; in a cluster each of
these must count the clients of every node and follow them as they come and go.

The nodes run with a long lease time (a round every 20 s): a node's copy of another
node's table must change with the table, not at the next round.  And a cluster whose
tables are quiet writes nothing of them to Redis: the directory is written on change
(docs/cluster.md), not every round.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import redis
from server_support import Raw, cluster_nodes, guests

from baohuang.server.cluster.services import RedisServer

#: a round every 20 s: what shows within a few seconds did not wait for one
SLOW_ROUNDS = ("--lease-ttl", "60")


async def _until_table(raw: Raw, check: Callable[[dict[str, Any]], bool]) -> dict[str, Any]:
    """The first ``table`` message at ``raw``'s socket whose table passes ``check``."""
    while True:
        message = await raw.recv_type("table")
        if check(message["table"]):
            return dict(message["table"])


async def _until_listed(url: str, table_id: str,
                        check: Callable[[dict[str, Any]], bool]) -> dict[str, Any]:
    """The table as the node at ``url`` shows it, both in its lobby list and by id,
    once both pass ``check`` (asked again until they do, for at most 10 s)."""
    end = time.monotonic() + 10
    async with httpx.AsyncClient(base_url=url, timeout=10) as http:
        while True:
            listed = [t for t in (await http.get("/api/tables")).json()["tables"]
                      if t["id"] == table_id]
            alone = (await http.get(f"/api/tables/{table_id}")).json()
            if listed and check(listed[0]) and check(alone):
                return dict(alone)
            assert time.monotonic() < end, (listed, alone)
            await asyncio.sleep(0.05)


def _connected(table: dict[str, Any]) -> list[bool]:
    return [bool(seat and seat["connected"]) for seat in table["seats"]]


async def _presence(one: str, two: str) -> None:
    owner, a = await guests(one, 2, "one")
    (b,) = await guests(two, 1, "two")
    table_id = (await owner.create_table(autostart=False, practice=True, seed=7,
                                         timeout=600))["id"]
    at_one = await Raw.connect(one, a.token)          # a player on the table's node
    at_two = await Raw.connect(two, b.token)          # and one on the other node
    watcher_one, watcher_two = await Raw.connect(one), await Raw.connect(two)
    for raw, role in ((at_one, "player"), (at_two, "player"), (watcher_one, "watcher"),
                      (watcher_two, "watcher")):
        await raw.send({"type": "join", "table": table_id, "as": role})
        await raw.recv_type("table")

    def everyone(table: dict[str, Any]) -> bool:
        return _connected(table)[:2] == [True, True] and table["watchers"] == 2

    # at the table, on the other node: both players connected, both watchers counted
    await _until_table(at_two, everyone)
    # and in both nodes' lobbies
    for url in (one, two):
        await _until_listed(url, table_id, everyone)

    # the player on the table's node goes: the other node sees his seat away at once
    await at_one.close()

    def first_away(table: dict[str, Any]) -> bool:
        return _connected(table)[:2] == [False, True]
    await _until_table(at_two, first_away)
    await _until_listed(two, table_id, first_away)

    # the watcher on the other node goes: the table's node counts one watcher left,
    # and so does the other node's lobby
    await watcher_two.close()

    def one_watcher(table: dict[str, Any]) -> bool:
        return first_away(table) and table["watchers"] == 1
    await _until_table(watcher_one, one_watcher)
    for url in (one, two):
        await _until_listed(url, table_id, one_watcher)

    # the player on the other node goes too; he comes back on the table's node
    await at_two.close()
    await _until_listed(one, table_id, lambda t: _connected(t)[:2] == [False, False])
    again = await Raw.connect(one, b.token)
    await again.send({"type": "join", "table": table_id})
    back = await again.recv_type("table")
    assert back["you"]["seat"] == 1
    await _until_listed(two, table_id, lambda t: _connected(t)[:2] == [False, True])
    for raw in (watcher_one, again):
        await raw.close()


def test_who_is_at_a_table_shows_on_every_node_as_it_changes(
        tmp_path: Path, redis_server: RedisServer) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path / 'cluster.db'}"
    with cluster_nodes(url, redis_server.url, tmp_path, *SLOW_ROUNDS) as nodes:
        asyncio.run(_presence(nodes[0].url, nodes[1].url))


def _calls(client: redis.Redis, command: str) -> int:
    stats: Any = client.info("commandstats")
    return int(stats.get(f"cmdstat_{command}", {}).get("calls", 0))


def test_a_quiet_cluster_writes_no_table_to_the_directory_again(
        tmp_path: Path, redis_server: RedisServer) -> None:
    """Eight open tables on two nodes (a round every 0.5 s): while nobody comes or goes,
    rounds pass (each node renews its alive key) and no table's entry is written; a
    watcher who comes to one table has that one entry written, and the other node's
    lobby shows him.  (The leases live 1.5 s: long enough that a busy machine's late
    round does not lose one, which would move its table and write its entry.)"""
    url = f"sqlite+aiosqlite:///{tmp_path / 'cluster.db'}"
    client = redis.Redis.from_url(redis_server.url)
    with cluster_nodes(url, redis_server.url, tmp_path, "--lease-ttl", "1.5") as nodes:
        async def make() -> list[str]:
            made = []
            for index, node in enumerate(nodes):
                (owner,) = await guests(node.url, 1, f"owner{index}-")
                for _ in range(4):
                    made.append((await owner.create_table(autostart=False))["id"])
            return made

        tables = asyncio.run(make())

        async def listed() -> None:          # every entry written, on both nodes' lobbies
            for node in nodes:
                for table_id in tables:
                    await _until_listed(node.url, table_id, lambda _: True)

        asyncio.run(listed())
        written, renewed = _calls(client, "hset"), _calls(client, "set")
        end = time.monotonic() + 60
        while _calls(client, "set") < renewed + 20:      # ten rounds of each node
            assert time.monotonic() < end, "the nodes stopped their rounds"
            time.sleep(0.1)
        assert _calls(client, "hset") == written

        async def watch() -> None:
            raw = await Raw.connect(nodes[0].url)
            await raw.send({"type": "join", "table": tables[0], "as": "watcher"})
            await raw.recv_type("table")
            await _until_listed(nodes[1].url, tables[0], lambda t: t["watchers"] == 1)
            await raw.close()

        asyncio.run(watch())
        assert _calls(client, "hset") > written
    client.close()
