"""A rolling restart (docs/deploy.md, "Rolling upgrades"): five players play through
HAProxy while each node in turn is stopped with SIGTERM — as ``systemctl restart``
does — and started again on its port; the game loses nothing: it ends with the result
of its stored actions, and every action a player sent is stored, once."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
from server_support import AtVersion, cluster_nodes, guests, play_together

import baohuang as bh
from baohuang.client import PlayResult
from baohuang.server.cluster.services import HAProxy, RedisServer
from baohuang.server.harness import ServerProcess


def _restart(node: ServerProcess) -> Callable[[], None]:
    def restart() -> None:
        node.stop()                    # SIGTERM: its tables stop, their leases given up
        node.start()                   # the same port: HAProxy's checks bring it back
    return restart


def test_a_rolling_restart_of_every_node_loses_no_game(
        tmp_path: Path, redis_server: RedisServer,
        haproxy: Callable[[list[tuple[str, int]]], HAProxy]) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path / 'cluster.db'}"
    with cluster_nodes(url, redis_server.url, tmp_path, "--lease-ttl", "1") as nodes:
        proxy = haproxy([("127.0.0.1", node.port) for node in nodes])

        async def game() -> tuple[list[PlayResult], dict[str, Any]]:
            clients = await guests(proxy.url, 5, "r")
            created = await clients[0].create_table(timeout=60)
            table_id = created["table"]["id"] if "table" in created else created["id"]
            steps = [AtVersion(30, _restart(nodes[0])), AtVersion(70, _restart(nodes[1]))]

            def rolling(message: dict[str, Any]) -> None:
                for step in steps:
                    step(message)
            results = await play_together(clients, table_id, on_message=rolling,
                                          max_backoff=0.5)
            assert all(step.done for step in steps)
            history = await clients[0].history()
            return results, await clients[0].replay(history[0]["game_id"])

        results, replay = asyncio.run(game())
        for node in nodes:                       # both back, serving
            assert httpx.get(node.url + "/healthz", timeout=10).status_code == 200

    outcome = results[0].games[0]["result"]
    assert all(r.games[0]["result"] == outcome for r in results)
    assert sum(r.reconnects for r in results) >= 5
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
