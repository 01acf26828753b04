"""A client connected to any node reaches any table: two real nodes on one database
(SQLite file or PostgreSQL) and one real redis-server.  The table is made on node two
and its actor runs there; five players and a watcher are connected to node one, whose
messages go to node two and back over Redis.  The game ends as the same deal played
on one server, every action stored once; node one lists the table and resolves its
invitation code."""

from __future__ import annotations

import asyncio
import json
import re
import threading
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
import redis
import websockets
from server_support import (
    DATABASES,
    FAST,
    AtVersion,
    Raw,
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


async def _disrupted(nodes: list[ServerProcess], disruption: AtVersion
                     ) -> tuple[list[PlayResult], dict[str, Any]]:
    """Five players on node one at a table made on node two, with ``disruption`` as
    their message hook (reconnecting after at most half a second); their results, and
    the stored record of the game."""
    clients = await guests(nodes[0].url, 5, "x")
    owner = Client(nodes[1].url, token=clients[0].token)
    table_id = (await owner.create_table(**TABLE))["id"]
    results = await play_together(clients, table_id, on_message=disruption, max_backoff=0.5)
    assert disruption.done
    history = await clients[0].history()
    return results, (await clients[0].replay(history[0]["game_id"]))["record"]


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
        def restart() -> None:
            redis_server.stop()
            time.sleep(1)
            redis_server.start()

        results, record = asyncio.run(_disrupted(nodes, AtVersion(60, restart)))

    assert sum(r.reconnects for r in results) >= 5, [r.reconnects for r in results]
    diverged = next((i for i, (a, b) in enumerate(zip(record["actions"],
                                                      alone_record["actions"], strict=False))
                     if a != b), None)
    assert record["actions"] == alone_record["actions"], (
        diverged, len(record["actions"]), len(alone_record["actions"]))
    assert results[0].games[0]["result"] == alone[0].games[0]["result"]
    _stored_once(results, record)


#: a table's first message to a route (the answer to its join), as published to node one
_FIRST = re.compile(r"t\|\d+\|1\|")


def test_a_node_cut_from_its_channel_sends_its_players_back_once_it_has_it_again(
        tmp_path: Path, redis_server: RedisServer) -> None:
    """Mid-game, Redis refuses node one its channel (its Redis user loses the right to
    it: its subscription is cut, as when only that connection drops) while node one
    still reaches the rest of Redis.  Its players reconnect to it and join again;
    node two answers them into node one's channel, which node one does not read — a
    witness of the test's own does, so those answers are known to be lost to node
    one.  When node one has its channel again it sends its players to reconnect once
    more: the game ends as the same deal on one server, every action stored once."""
    with ServerProcess(f"sqlite+aiosqlite:///{tmp_path / 'single.db'}", None, *FAST,
                       log=tmp_path / "single.log") as single:
        alone, _, _, alone_record = asyncio.run(_play(single.url, single.url))

    admin = redis.Redis.from_url(redis_server.url, decode_responses=True)
    admin.acl_setuser("one", enabled=True, passwords=["+one-secret"], keys=["*"],
                      channels=["*"], categories=["+@all"])
    one_url = redis_server.url.replace("redis://", "redis://one:one-secret@", 1)
    witness = admin.pubsub()
    lost = threading.Event()                 # an answer to a join went to the witness only

    def give_back() -> None:
        """Node one gets its channel again once an answer to a join through it has
        been published there (or, if none ever is, when the test has waited enough)."""
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and not lost.is_set():
            message = witness.get_message(timeout=1.0)
            texts = message["data"].split("\x1e") if message and message["type"] == "pmessage" \
                else []
            if any(_FIRST.match(text) for text in texts):
                lost.set()
        witness.close()
        admin.acl_setuser("one", enabled=True, channels=["*"])

    def cut() -> None:
        # (a node's channel is named after its incarnation: "one#" and a random part)
        witness.psubscribe("bh:node:one#*")
        confirmed = witness.get_message(timeout=10)
        assert confirmed is not None and confirmed["type"] == "psubscribe"
        admin.acl_setuser("one", enabled=True, reset_channels=True,
                          channels=["bh:node:two#*"])
        threading.Thread(target=give_back, daemon=True).start()

    url = f"sqlite+aiosqlite:///{tmp_path / 'cluster.db'}"
    with cluster_nodes(url, (one_url, redis_server.url), tmp_path, "--lease-ttl", "1",
                       "--log-level", "info") as nodes:
        results, record = asyncio.run(_disrupted(nodes, AtVersion(40, cut)))

    assert lost.is_set()
    assert sum(r.reconnects for r in results) >= 6, [r.reconnects for r in results]
    assert record["actions"] == alone_record["actions"]
    assert results[0].games[0]["result"] == alone[0].games[0]["result"]
    _stored_once(results, record)


def test_a_table_node_cut_from_its_channel_sends_the_other_nodes_watchers_back(
        tmp_path: Path, redis_server: RedisServer) -> None:
    """The other way round: Redis refuses node two — the table's node — its channel
    while a watcher is at the table through node one.  Node two lets its cross-node
    clients go and tells their node so (it may still publish): the watcher's socket is
    closed with 1012, to reconnect, not left open for updates that would never come."""
    admin = redis.Redis.from_url(redis_server.url, decode_responses=True)
    admin.acl_setuser("two", enabled=True, passwords=["+two-secret"], keys=["*"],
                      channels=["*"], categories=["+@all"])
    two_url = redis_server.url.replace("redis://", "redis://two:two-secret@", 1)
    url = f"sqlite+aiosqlite:///{tmp_path / 'cluster.db'}"
    with cluster_nodes(url, (redis_server.url, two_url), tmp_path, "--log-level",
                       "info") as nodes:
        async def watch() -> websockets.ConnectionClosed:
            [user] = await guests(nodes[0].url, 1, "w")
            table_id = (await Client(nodes[1].url, token=user.token)
                        .create_table(**TABLE))["id"]
            raw = await Raw.connect(nodes[0].url, user.token)
            await raw.send({"type": "join", "table": table_id, "as": "watcher"})
            assert (await raw.recv_type("table"))["table"]["id"] == table_id
            admin.acl_setuser("two", enabled=True, reset_channels=True,
                              channels=["bh:node:one#*"])
            try:
                while True:
                    await raw.recv(60)
            except websockets.ConnectionClosed as closed:
                return closed
            finally:
                admin.acl_setuser("two", enabled=True, channels=["*"])

        closed = asyncio.run(watch())
    assert closed.rcvd is not None
    assert closed.rcvd.code == 1012
    assert "reconnect" in closed.rcvd.reason
