"""The figures of cluster nodes (docs/operating.md): each node tells the leases it
holds and the tables it took over, under its name; when a node is killed, the node
that takes its table over counts it."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import httpx
import pytest
from prometheus_client.parser import text_string_to_metric_families
from server_support import DATABASES, database

from baohuang.client import Client
from baohuang.server.cluster.services import RedisServer
from baohuang.server.harness import ServerProcess

TOKEN = "cluster-figures-0123456789"
#: five server bots, slow enough that the game is far from its end when its node dies
TABLE = {"practice": True, "seed": 20261207, "games": 1,
         "bots": {str(seat): "hosted" for seat in range(5)}}
FLAGS = ("--bot-delay", "0.05", "--hosted-delay", "0", "--next-game-delay", "0",
         "--lease-ttl", "1", "--metrics-token", TOKEN)


def figures(node: ServerProcess) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    text = httpx.get(node.url + "/metrics", headers={"Authorization": f"Bearer {TOKEN}"},
                     timeout=10).text
    return {(s.name, tuple(sorted(s.labels.items()))): s.value
            for family in text_string_to_metric_families(text) for s in family.samples}


def leases(node: ServerProcess, name: str) -> float:
    return figures(node).get(("baohuang_cluster_leases", (("node", name),)), -1.0)


def takeovers(node: ServerProcess, name: str) -> float:
    return figures(node).get(("baohuang_cluster_takeovers_total", (("node", name),)), -1.0)


def until(check: object, within: float = 60.0) -> None:
    """Wait for what the nodes do on their own (a lease lapses, a round takes it)."""
    assert callable(check)
    deadline = time.monotonic() + within
    while not check():
        assert time.monotonic() < deadline, "the nodes did not get there in time"
        time.sleep(0.1)


@pytest.mark.parametrize("kind", DATABASES)
def test_each_node_counts_its_leases_and_takeovers(kind: str, tmp_path: Path,
                                                    redis_server: RedisServer) -> None:
    with database(kind, tmp_path) as url:
        flags = (*FLAGS, "--redis", redis_server.url)
        one = ServerProcess(url, None, *flags, "--node", "one", log=tmp_path / "one.log")
        two = ServerProcess(url, None, *flags, "--node", "two", log=tmp_path / "two.log")
        one.start()
        two.start()
        try:
            assert leases(one, "one") == 0 and takeovers(one, "one") == 0
            assert leases(two, "two") == 0 and takeovers(two, "two") == 0

            async def create() -> None:
                client = Client(one.url)
                await client.guest("owner")
                await client.create_table(**TABLE)
            asyncio.run(create())
            assert leases(one, "one") == 1           # (taken before the table is stored)
            assert leases(two, "two") == 0
            # each node speaks for itself only
            assert not any(labels == (("node", "two"),) for _, labels in figures(one))
            one.kill()
            until(lambda: takeovers(two, "two") == 1)
            assert leases(two, "two") == 1
        finally:
            one.stop()
            two.stop()
