"""Real HAProxy (the configuration ``baohuang cluster`` and docs/cluster.md use) in
front of two real nodes: HTTP and WebSocket pass through it — five clients play a
whole game through the proxy — and when a node is killed, its health check takes it
out and requests go to the other node."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any

import httpx
import pytest
from server_support import AtVersion, cluster_nodes, guests, play_together

import baohuang as bh
from baohuang.client import PlayResult
from baohuang.server.cluster.services import HAProxy, RedisServer
from baohuang.server.harness import ServerProcess


def _nodes(tmp_path: Path, redis: RedisServer) -> AbstractContextManager[list[ServerProcess]]:
    """Two nodes on one SQLite file, started (and stopped after)."""
    return cluster_nodes(f"sqlite+aiosqlite:///{tmp_path / 'cluster.db'}", redis.url, tmp_path)


def test_a_game_through_haproxy_and_a_dead_node_taken_out(
        tmp_path: Path, redis_server: RedisServer,
        haproxy: Callable[[list[tuple[str, int]]], HAProxy]) -> None:
    with _nodes(tmp_path, redis_server) as nodes:
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


@pytest.mark.parametrize("how", ["kill", "drain"])
def test_players_through_haproxy_finish_a_game_whose_node_went(
        how: str, tmp_path: Path, redis_server: RedisServer,
        haproxy: Callable[[list[tuple[str, int]]], HAProxy]) -> None:
    """Five clients play through HAProxy; the node that runs their table is killed
    (SIGKILL) or drained (SIGTERM: it gives its leases up) mid-game. They reconnect
    through HAProxy to the other node, which takes the table over from the stored
    actions (after the lease lapses, or at once); they rejoin by version and finish
    the game, and the record holds every action sent, once."""
    url = f"sqlite+aiosqlite:///{tmp_path / 'cluster.db'}"
    with cluster_nodes(url, redis_server.url, tmp_path, "--lease-ttl", "1",
                       "--log-level", "info") as nodes:
        proxy = haproxy([("127.0.0.1", node.port) for node in nodes])

        async def game() -> tuple[list[PlayResult], dict[str, Any], int]:
            clients = await guests(proxy.url, 5, "k")
            created = await clients[0].create_table(timeout=60)
            table_id = created["table"]["id"] if "table" in created else created["id"]
            running = [httpx.get(node.url + "/healthz", timeout=10).json()["tables"]
                       for node in nodes].index(1)
            node = nodes[running]
            gone = AtVersion(60, node.kill if how == "kill" else node.stop)
            results = await play_together(
                clients, table_id, on_message=gone, max_backoff=0.5)
            assert gone.done
            history = await clients[0].history()
            return results, await clients[0].replay(history[0]["game_id"]), running

        results, replay, killed = asyncio.run(game())

    outcome = results[0].games[0]["result"]
    assert all(r.games[0]["result"] == outcome for r in results)
    assert sum(r.reconnects for r in results) >= 5
    survivor = ("one", "two")[1 - killed]
    assert "took table" in (tmp_path / f"{survivor}.log").read_text()
    record = replay["record"]
    replayed = bh.Game.from_record(dict(record, actions=[]))
    applied = []
    for raw in record["actions"]:
        applied.append((replayed.version, json.dumps(raw, sort_keys=True)))
        replayed.apply(bh.Action.from_dict(raw))
    assert replayed.result is not None and replayed.result.to_dict() == outcome
    sent = {(version, json.dumps(action.to_dict(), sort_keys=True))
            for r in results for version, action in r.sent}
    assert sorted(sent) == applied           # every action sent is stored, once
