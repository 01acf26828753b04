"""Real ``baohuang serve`` nodes on one database and one real redis-server, tried as an
operator and an attacker would: a node killed and started again under its own name
while players are at a table, a Redis restarted without its data, a table whose new
holder is still rebuilding it, a dead node's tables taken over by three nodes, and the
time a node's alive key lives against what docs/cluster.md says."""

from __future__ import annotations

import asyncio
import collections
import contextlib
import re
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, TypeVar

import httpx
import redis
import websockets
from server_support import Raw, cluster_nodes, guests

from baohuang.client import Client
from baohuang.server.cluster.services import RedisServer
from baohuang.server.config import ServerConfig

T = TypeVar("T")
ROOT = Path(__file__).resolve().parents[2]
#: a table of five server bots that waits to be started: nothing moves while it waits
QUIET = {"bots": {str(seat): "hosted" for seat in range(5)}, "autostart": False}


async def _until(check: Callable[[], Awaitable[T | None]], within: float, what: str) -> T:
    """``check()``'s first answer that is not None, asked again until ``within``
    seconds have passed (then the test fails, saying ``what`` did not happen)."""
    deadline = time.monotonic() + within
    while True:
        found = await check()
        if found is not None:
            return found
        assert time.monotonic() < deadline, f"{what} did not happen within {within:g} s"
        await asyncio.sleep(0.1)


def _admin(server: RedisServer) -> redis.Redis:
    return redis.Redis.from_url(server.url, decode_responses=True)


def _name(node: str) -> str:
    """A node's name, as the operator gave it, from what Redis shows of it (its
    incarnation: the name, ``#`` and the random part of the process)."""
    return node.partition("#")[0]


def _incarnations(admin: redis.Redis, name: str) -> list[str]:
    """The incarnations of node ``name`` alive now (their alive keys in Redis)."""
    prefix = "bh:alive:"
    return [key[len(prefix):] for key in admin.scan_iter(f"{prefix}{name}*")
            if _name(key[len(prefix):]) == name]


def _holders(admin: redis.Redis, tables: list[str]) -> list[str | None]:
    """The name of the node that holds each table's lease (None: nobody)."""
    values = admin.mget([f"bh:lease:{table}" for table in tables])
    return [None if value is None else _name(str(value).rsplit(" ", 1)[0])
            for value in values]


async def _table(url: str, table_id: str) -> dict[str, Any]:
    async with httpx.AsyncClient() as http:
        answer = await http.get(f"{url}/api/tables/{table_id}", timeout=10)
    assert answer.status_code == 200, answer.text
    shown: dict[str, Any] = answer.json()
    return shown


async def _listen(raw: Raw, closed: list[tuple[int, str]]) -> None:
    """Read everything the server sends ``raw`` (kept in ``raw.seen``) until its socket
    closes; how it closed goes to ``closed``."""
    try:
        while True:
            await raw.recv(3600)
    except websockets.ConnectionClosed as exc:
        closed.append((exc.rcvd.code, exc.rcvd.reason) if exc.rcvd else (0, "no close frame"))


# -- a node restarted under its own name (incarnations) -------------------------------

#: (leases long enough that the dead process's alive key outlives the restart of its
#: node however slowly a busy machine starts it: the new process must not get, nor
#: be sent away by, what was meant for the old one)
RESTART_TTL, AWAY_GRACE = 30.0, 1.0


def _documented_letting_go() -> tuple[float, float]:
    """What docs/cluster.md says: the seats of a dead process's clients are let go
    within the lease's time to live and a third of it, and 托管 plays them the away
    grace after that; both as multiples of ``--lease-ttl`` and ``--away-grace``."""
    text = " ".join((ROOT / "docs" / "cluster.md").read_text().split())
    found = re.search(r"let go within `--lease-ttl` and a third of it", text)
    assert found, "docs/cluster.md no longer says when a dead node's seats are let go"
    assert "托管 plays them `--away-grace` after that" in text
    return 1 + 1 / 3, 1.0


def test_a_node_restarted_under_its_name_hosts_or_gives_back_every_seat(
        tmp_path: Path, redis_server: RedisServer) -> None:
    """Five players sit at a table of node two, all connected through node one. Node
    one is killed (SIGKILL) and started again at once under its own name. Three players
    reconnect through it and rejoin; two never come back. The three keep their seats
    and their sockets (nobody is kicked as "taken over" by a message meant for the dead
    process's connections), and the two seats are shown gone and on 托管 within the
    time docs/cluster.md gives."""
    ttl_factor, grace_factor = _documented_letting_go()
    documented = ttl_factor * RESTART_TTL + grace_factor * AWAY_GRACE
    url = f"sqlite+aiosqlite:///{tmp_path / 'cluster.db'}"
    with cluster_nodes(url, redis_server.url, tmp_path, "--lease-ttl", str(RESTART_TTL),
                       "--away-grace", str(AWAY_GRACE), "--log-level", "info") as nodes:
        one, two = nodes

        async def scenario() -> tuple[float, float]:
            players = await guests(one.url, 5, "r")
            created = await Client(two.url, token=players[0].token).create_table(
                timeout=600, games=1)
            table_id = str(created["id"])
            first = []
            for seat, player in enumerate(players):
                raw = await Raw.connect(one.url, player.token)
                await raw.send({"type": "join", "table": table_id})
                joined = await raw.recv_type("table", 30)
                assert joined["you"]["seat"] == seat
                first.append(raw)

            async def playing() -> bool | None:
                shown = await _table(two.url, table_id)
                return True if shown["status"] == "playing" and all(
                    s["connected"] for s in shown["seats"]) else None
            await _until(playing, 60, "the match's start with five players connected")

            one.kill()
            killed = time.monotonic()
            one.start()                                 # the same port, the same name
            started = time.monotonic() - killed
            for raw in first:
                with contextlib.suppress(Exception):
                    await raw.close()
            back: list[Raw] = []
            closed: list[list[tuple[int, str]]] = []
            readers = []
            for seat in range(3):
                raw = await Raw.connect(one.url, players[seat].token)
                await raw.send({"type": "join", "table": table_id})
                joined = await raw.recv_type("table", 60)
                assert joined["you"]["seat"] == seat
                back.append(raw)
                closed.append([])
                readers.append(asyncio.create_task(_listen(raw, closed[-1])))

            async def settled() -> float | None:
                seats = (await _table(two.url, table_id))["seats"]
                if all(s["connected"] for s in seats[:3]) and all(
                        not s["connected"] and s["hosted"] for s in seats[3:]):
                    return time.monotonic() - killed
                return None
            # (the documented time, and room for a busy machine to start a process)
            took = await _until(settled, documented + 30, "every seat back or on 托管")
            for raw, gone in zip(back, closed, strict=True):
                assert not gone, f"a player who came back was sent away: {gone}"
                await raw.send({"type": "ping"})

            async def answered() -> bool | None:
                return True if all(any(m["type"] == "pong" for m in raw.seen)
                                   for raw in back) else None
            await _until(answered, 30, "an answer to every player who came back")
            assert not any(closed)
            for task in readers:
                task.cancel()
            for raw in back:
                await raw.close()
            return started, took

        started, took = asyncio.run(scenario())
    print(f"node one answering again {started:.1f} s after the kill; every seat back or "
          f"on 托管 {took - started:.1f} s after that (documented: {documented:.1f} s from "
          "the kill, and a process's start)")


# -- a table on the move is `table_moving`, never `no_table` --------------------------

def test_a_join_after_redis_lost_its_data_is_told_table_moving_until_the_table_is_back(
        tmp_path: Path, redis_server: RedisServer) -> None:
    """redis-server is restarted without its data (leases, directory and codes gone)
    while node two runs a table; a watcher joins it through node one: he is told
    `table_moving` (and joins again) until a node has taken the table again, never
    `no_table`."""
    url = f"sqlite+aiosqlite:///{tmp_path / 'cluster.db'}"
    with cluster_nodes(url, redis_server.url, tmp_path, "--lease-ttl", "15",
                       "--log-level", "info") as nodes:
        one, two = nodes

        async def scenario() -> list[str]:
            [owner] = await guests(two.url, 1, "o")
            table_id = str((await owner.create_table(**QUIET))["id"])
            redis_server.stop()
            redis_server.start()                        # empty: it kept nothing
            raw = await Raw.connect(one.url)
            answers: list[str] = []
            deadline = time.monotonic() + 120
            while time.monotonic() < deadline:
                await raw.send({"type": "join", "table": table_id, "as": "watcher"})
                while True:
                    message = await raw.recv(120)
                    if message["type"] in ("table", "error"):
                        break
                answers.append(message.get("code", message["type"]))
                if message["type"] == "table" or message["code"] != "table_moving":
                    break
            await raw.close()
            return answers

        answers = asyncio.run(scenario())
    assert answers[-1] == "table", answers
    assert set(answers[:-1]) <= {"table_moving"}, answers


def test_the_api_answers_table_moving_for_a_table_redis_lost_track_of(
        tmp_path: Path, redis_server: RedisServer) -> None:
    """redis-server is restarted without its data while node two runs a table, and the
    table's lease is put in the hands of a node that is not alive, held still: node two
    stops the table and nobody runs it, while the database has it open. Asked for it
    by id or code, both nodes' ``GET /api/tables/{key}`` answer 503 `table_moving` (as
    a join through the WebSocket is told), never 404; a key that is no table's is still
    404. Once the lease is let go a node takes the table over, and it is shown again."""
    url = f"sqlite+aiosqlite:///{tmp_path / 'cluster.db'}"
    admin = _admin(redis_server)
    with cluster_nodes(url, redis_server.url, tmp_path, "--lease-ttl", "3",
                       "--log-level", "info") as nodes:
        one, two = nodes

        async def get(node_url: str, key: str) -> tuple[int, str]:
            async with httpx.AsyncClient() as http:
                answer = await http.get(f"{node_url}/api/tables/{key}", timeout=10)
            body = answer.json()
            return answer.status_code, body["id"] if answer.status_code == 200 else \
                body["error"]["code"]

        async def scenario() -> dict[str, Any]:
            [owner] = await guests(two.url, 1, "o")
            table = await owner.create_table(**QUIET)
            table_id, code = str(table["id"]), str(table["code"])
            redis_server.stop()
            redis_server.start()                        # empty: it kept nothing
            admin.set(f"bh:lease:{table_id}", "ghost#0000 1000000", px=600_000)

            async def dropped() -> bool | None:
                async with httpx.AsyncClient() as http:
                    health = (await http.get(two.url + "/healthz", timeout=10)).json()
                return True if health["tables"] == 0 else None
            await _until(dropped, 60, "node two stopping the table it lost")
            out: dict[str, Any] = {"moving": [await get(node.url, key) for node in nodes
                                              for key in (table_id, code)],
                                   "unknown": await get(one.url, "nosuchtable1")}
            admin.delete(f"bh:lease:{table_id}")        # let go: a node takes it over
            seen: list[tuple[int, str]] = []

            async def shown() -> bool | None:
                seen.append(await get(one.url, table_id))
                return True if seen[-1][0] == 200 else None
            await _until(shown, 60, "the table shown again")
            out["after"], out["id"] = seen, table_id
            return out

        got = asyncio.run(scenario())
    admin.close()
    assert got["moving"] == [(503, "table_moving")] * 4, got
    assert got["unknown"] == (404, "not_found")
    assert got["after"][-1] == (200, got["id"])
    assert set(got["after"][:-1]) <= {(503, "table_moving")}, got["after"]


def test_a_join_sent_to_a_node_still_rebuilding_the_table_is_told_table_moving(
        tmp_path: Path, redis_server: RedisServer) -> None:
    """The moment of a takeover when a node holds a table's lease but has not rebuilt
    the table yet, held still: the lease of node two's table is made node one's (as
    one's takeover writes it) so that two stops the table and one does not run it. A
    new watcher (the Python client) joining through node two is sent to node one and
    told `table_moving`, not `no_table`; it joins again, and once node one really takes
    the table (the lease let go) the watcher is at it."""
    url = f"sqlite+aiosqlite:///{tmp_path / 'cluster.db'}"
    admin = _admin(redis_server)
    with cluster_nodes(url, redis_server.url, tmp_path, "--lease-ttl", "2",
                       "--log-level", "info") as nodes:
        two = nodes[1]

        async def scenario() -> collections.Counter[str]:
            [owner] = await guests(two.url, 1, "o")
            table_id = str((await owner.create_table(**QUIET))["id"])
            [one_id] = await _until(
                lambda: asyncio.sleep(0, _incarnations(admin, "one") or None), 30,
                "node one's alive key")
            admin.set(f"bh:lease:{table_id}", f"{one_id} 1000000", px=600_000)

            async def dropped() -> bool | None:
                async with httpx.AsyncClient() as http:
                    health = (await http.get(two.url + "/healthz", timeout=10)).json()
                return True if health["tables"] == 0 else None
            await _until(dropped, 30, "node two stopping the table it lost")

            seen: collections.Counter[str] = collections.Counter()
            at_table = asyncio.Event()

            def hook(message: dict[str, Any]) -> None:
                seen[message.get("code", message["type"])] += 1
                if message["type"] == "table" and message["table"]["id"] == table_id:
                    at_table.set()
            watcher = asyncio.create_task(
                Client(two.url).play(table_id, None, watch=True, on_message=hook))
            await _until(lambda: asyncio.sleep(0, True if seen["table_moving"] or
                                                 watcher.done() else None),
                         60, "an answer to the watcher's join")
            assert not watcher.done(), watcher.exception()
            admin.delete(f"bh:lease:{table_id}")        # the takeover done, for real
            await _until(lambda: asyncio.sleep(0, True if at_table.is_set() or
                                                 watcher.done() else None),
                         60, "the watcher at the table")
            assert not watcher.done(), watcher.exception()
            watcher.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await watcher
            return seen

        seen = asyncio.run(scenario())
    admin.close()
    assert seen["table_moving"] >= 1 and seen["no_table"] == 0, seen


# -- a dead node's tables spread over the others ---------------------------------------

def test_a_dead_nodes_tables_go_to_the_least_loaded_nodes(
        tmp_path: Path, redis_server: RedisServer) -> None:
    """Three nodes: n1 runs four tables, n2 two, n3 none. n1 is killed (SIGKILL): its
    four tables are taken by the least-loaded first — three to n3, one to n2 — so each
    node left runs three, instead of one node taking all four."""
    url = f"sqlite+aiosqlite:///{tmp_path / 'cluster.db'}"
    admin = _admin(redis_server)
    with cluster_nodes(url, redis_server.url, tmp_path, "--lease-ttl", "3",
                       "--log-level", "info", names=("n1", "n2", "n3")) as nodes:
        n1, n2, _ = nodes

        async def make() -> list[str]:
            ids = []
            for index, node in enumerate([n1] * 4 + [n2] * 2):
                [owner] = await guests(node.url, 1, f"o{index}")
                ids.append(str((await owner.create_table(**QUIET))["id"]))
            return ids

        tables = asyncio.run(make())
        assert _holders(admin, tables) == ["n1"] * 4 + ["n2"] * 2
        n1.kill()

        async def taken() -> list[str] | None:
            holders = _holders(admin, tables)
            return [h for h in holders if h is not None] \
                if all(h in ("n2", "n3") for h in holders) else None
        holders = asyncio.run(_until(taken, 60, "the takeover of n1's tables"))
    admin.close()
    assert collections.Counter(holders) == {"n2": 3, "n3": 3}, holders
    assert "took table" in (tmp_path / "n3.log").read_text()


# -- the alive key lives as the documents say --------------------------------------------

def test_a_nodes_alive_key_lives_as_long_as_docs_cluster_md_says(
        tmp_path: Path, redis_server: RedisServer) -> None:
    """docs/cluster.md gives how long a node's alive key lasts unrenewed, for the
    default ``--lease-ttl`` (ServerConfig): a node started with the defaults has a
    key in Redis that lives that long after each round, never longer."""
    text = " ".join((ROOT / "docs" / "cluster.md").read_text().split())
    found = re.search(r"`bh:alive:NODE`[^.]*?lapses `--lease-ttl` after the node's last "
                      r"round \((\d+(?:\.\d+)?) s by default\)", text)
    assert found, "docs/cluster.md no longer says how long the alive key lives"
    documented = float(found.group(1))
    assert documented == ServerConfig(db_url="sqlite://").lease_ttl

    url = f"sqlite+aiosqlite:///{tmp_path / 'cluster.db'}"
    admin = _admin(redis_server)
    with cluster_nodes(url, redis_server.url, tmp_path, names=("one",)):
        [node] = asyncio.run(_until(
            lambda: asyncio.sleep(0, _incarnations(admin, "one") or None), 30,
            "the node's alive key"))
        lives: list[int] = []

        async def fresh() -> int | None:
            left = int(admin.pttl(f"bh:alive:{node}"))
            lives.append(left)
            assert 0 < left <= documented * 1000, lives
            return left if left > documented * 1000 - 500 else None
        # (a round renews it every third of the lease's time: one is seen just after)
        asyncio.run(_until(fresh, 30, "a round just seen"))
    admin.close()
