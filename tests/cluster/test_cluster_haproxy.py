"""Real HAProxy (the configuration ``baohuang cluster`` and docs/cluster.md use) in
front of two real nodes: HTTP and WebSocket pass through it — five clients play a
whole game through the proxy — and when a node is killed, its health check takes it
out and requests go to the other node."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from pathlib import Path

import httpx
from server_support import FAST, guests, play_together

from baohuang.server.cluster.services import HAProxy, RedisServer
from baohuang.server.harness import ServerProcess


def _nodes(tmp_path: Path, redis: RedisServer) -> list[ServerProcess]:
    url = f"sqlite+aiosqlite:///{tmp_path / 'cluster.db'}"
    return [ServerProcess(url, None, *FAST, "--redis", redis.url, "--node", name,
                          log=tmp_path / f"{name}.log") for name in ("one", "two")]


def test_a_game_through_haproxy_and_a_dead_node_taken_out(
        tmp_path: Path, redis_server: RedisServer,
        haproxy: Callable[[list[tuple[str, int]]], HAProxy]) -> None:
    nodes = _nodes(tmp_path, redis_server)
    for node in nodes:
        node.start()
    try:
        proxy = haproxy([("127.0.0.1", node.port) for node in nodes])

        async def game() -> list[dict[str, object]]:
            clients = await guests(proxy.url, 5, "h")
            table = await clients[0].create_table(timeout=60)
            results = await play_together(clients, table["table"]["id"]
                                          if "table" in table else table["id"])
            return [r.games[0]["result"] for r in results]

        outcomes = asyncio.run(game())
        assert len(outcomes) == 5 and all(o == outcomes[0] for o in outcomes)

        # the node that ran the game (its table is still in memory) dies: once its health
        # check fails, every request reaches the other
        tables = [httpx.get(node.url + "/healthz", timeout=10).json()["tables"]
                  for node in nodes]
        assert sorted(tables) == [0, 1]
        nodes[tables.index(1)].kill()
        deadline = time.monotonic() + 60
        answers: list[int] = []
        while len(answers) < 20:
            assert time.monotonic() < deadline, f"still failing: {answers}"
            try:
                answers.append(httpx.get(proxy.url + "/healthz", timeout=10).status_code)
            except httpx.HTTPError:
                answers.clear()
            if answers and answers[-1] != 200:
                answers.clear()
            time.sleep(0.05)
        assert answers == [200] * 20
        assert httpx.get(proxy.url + "/healthz", timeout=10).json()["tables"] == 0
        assert httpx.post(proxy.url + "/api/guest", json={"name": "after"},
                          timeout=10).status_code == 200
    finally:
        for node in nodes:
            node.stop()
