"""A client connected to any node reaches any table: two real nodes on one database
(SQLite file or PostgreSQL) and one real redis-server.  The table is made on node two
and its actor runs there; five players and a watcher are connected to node one, whose
messages go to node two and back over Redis.  The game ends as the same deal played
on one server, every action stored once; node one lists the table and resolves its
invitation code."""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
from server_support import (
    DATABASES,
    FAST,
    AtVersion,
    cluster_nodes,
    database,
    guests,
    play_together,
)

import baohuang as bh
from baohuang.client import Client, PlayResult
from baohuang.server.cluster.services import RedisServer
from baohuang.server.harness import ServerProcess

SEED = 20261205
TABLE = {"practice": True, "seed": SEED, "timeout": 60, "games": 1}


async def _play(table_url: str, players_url: str) -> tuple[list[PlayResult], PlayResult,
                                                            dict[str, Any], dict[str, Any]]:
    """Five players and a watcher on ``players_url`` at a table made at ``table_url``;
    the players' results, the watcher's, the lobby as ``players_url`` lists it while
    the table is open, and the stored record of the game."""
    clients = await guests(players_url, 6, "r")
    owner = Client(table_url, token=clients[0].token)
    created = await owner.create_table(**TABLE)
    table_id = created["id"]
    async with httpx.AsyncClient(base_url=players_url, timeout=10) as http:
        listed = (await http.get("/api/tables")).json()
        detail = (await http.get(f"/api/tables/{created['code'].lower()}")).json()
    assert detail["id"] == table_id
    assert table_id in [t["id"] for t in listed["tables"]]
    watcher = asyncio.create_task(clients[5].play(table_id, watch=True))
    results = await play_together(clients[:5], table_id)
    watched = await asyncio.wait_for(watcher, 60)
    history = await clients[0].history()
    record = (await clients[0].replay(history[0]["game_id"]))["record"]
    # the match is over; a player asks node one (where he is) for a new one: the
    # table's node makes it, each player in his seat, and a second ask gets the same
    again = [await clients[i].request("POST", f"/api/tables/{table_id}/rematch")
             for i in (0, 3)]
    assert again[0]["id"] == again[1]["id"] != table_id
    assert again[0]["seat"] in range(5) and again[1]["seat"] in range(5)
    assert again[0]["seat"] != again[1]["seat"]
    return results, watched, listed, record


def _stored_once(results: list[PlayResult], record: dict[str, Any]) -> None:
    replayed = bh.Game.from_record(dict(record, actions=[]))
    applied = []
    for raw in record["actions"]:
        applied.append((replayed.version, json.dumps(raw, sort_keys=True)))
        replayed.apply(bh.Action.from_dict(raw))
    assert replayed.result is not None
    assert replayed.result.to_dict() == results[0].games[0]["result"]
    sent = {(version, json.dumps(action.to_dict(), sort_keys=True))
            for r in results for version, action in r.sent}
    assert sorted(sent) == applied           # every action sent is stored, once


@pytest.mark.parametrize("kind", DATABASES)
def test_players_and_a_watcher_on_one_node_play_a_table_on_another(
        kind: str, tmp_path: Path, redis_server: RedisServer) -> None:
    (tmp_path / "single").mkdir()
    with database(kind, tmp_path / "single") as url:
        single = ServerProcess(url, None, *FAST, log=tmp_path / "single.log")
        single.start()
        try:
            alone, _, _, alone_record = asyncio.run(_play(single.url, single.url))
        finally:
            single.stop()

    with database(kind, tmp_path) as url, \
            cluster_nodes(url, redis_server.url, tmp_path) as nodes:
        results, watched, _, record = asyncio.run(_play(nodes[1].url, nodes[0].url))
        tables = [httpx.get(node.url + "/healthz", timeout=10).json()["tables"]
                  for node in nodes]

    assert tables == [0, 2]         # the actors (the match, its rematch) ran on node two
    outcome = results[0].games[0]["result"]
    assert all(r.games[0]["result"] == outcome for r in results)
    assert watched.games and watched.games[0]["result"] == outcome
    assert outcome == alone[0].games[0]["result"]
    assert record["actions"] == alone_record["actions"]
    assert sum(r.reconnects for r in results) == 0
    _stored_once(results, record)


def test_a_redis_restart_under_cross_node_players_loses_nothing(
        tmp_path: Path, redis_server: RedisServer) -> None:
    """Players on node one at a table of node two; redis-server is restarted (without
    its data) mid-game: the messages between the nodes are cut, the leases forgotten.
    The players' sockets are closed, they reconnect and resync by version, whichever
    node runs the table then; the game ends as the same deal on one server, every
    action stored once."""
    with ServerProcess(f"sqlite+aiosqlite:///{tmp_path / 'single.db'}", None, *FAST,
                       log=tmp_path / "single.log") as single:
        alone, _, _, alone_record = asyncio.run(_play(single.url, single.url))

    url = f"sqlite+aiosqlite:///{tmp_path / 'cluster.db'}"
    with cluster_nodes(url, redis_server.url, tmp_path, "--lease-ttl", "1",
                       "--log-level", "info") as nodes:
        async def game() -> tuple[list[PlayResult], dict[str, Any]]:
            clients = await guests(nodes[0].url, 5, "x")
            owner = Client(nodes[1].url, token=clients[0].token)
            table_id = (await owner.create_table(**TABLE))["id"]
            def restart() -> None:
                redis_server.stop()
                time.sleep(1)
                redis_server.start()

            restarted = AtVersion(60, restart)
            results = await play_together(clients, table_id, on_message=restarted,
                                          max_backoff=0.5)
            assert restarted.done
            history = await clients[0].history()
            return results, (await clients[0].replay(history[0]["game_id"]))["record"]

        results, record = asyncio.run(game())

    assert sum(r.reconnects for r in results) >= 5, [r.reconnects for r in results]
    diverged = next((i for i, (a, b) in enumerate(zip(record["actions"],
                                                      alone_record["actions"], strict=False))
                     if a != b), None)
    assert record["actions"] == alone_record["actions"], (
        diverged, len(record["actions"]), len(alone_record["actions"]))
    assert results[0].games[0]["result"] == alone[0].games[0]["result"]
    _stored_once(results, record)
