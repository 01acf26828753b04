"""Shared pieces of the server tests: a real ``baohuang serve`` on loopback
(SQLite file, or PostgreSQL when BAOHUANG_TEST_PG_URL is set), guest clients,
a bare WebSocket client for protocol-level checks, and hand-moved table clocks."""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import json
import os
import shutil
import tempfile
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import websockets

from baohuang.client import Client, PlayResult
from baohuang.server.harness import ADDRESS_LIMITS, ServerProcess, pg_database
from baohuang.server.table.clock import ManualClock
from baohuang.server.wire.protocol import decode_server, encode

PG_ENV = "BAOHUANG_TEST_PG_URL"
#: server flags that make games run as fast as clients answer
FAST = ("--bot-delay", "0", "--hosted-delay", "0", "--guard-pause", "0",
        "--next-game-delay", "0", "--away-grace", "30")

#: creation limits per client address and account loose enough for a test session's
#: many guests and tables, all made from loopback (flags given after these win)
LOOSE = ADDRESS_LIMITS
#: the same for a server in this process (``ServerConfig(..., **LOOSE_CONFIG)``)
LOOSE_CONFIG: dict[str, Any] = {"account_rate_address": "100000/minute",
                                "table_rate_address": "100000/minute",
                                "table_rate_account": "100000/minute",
                                "code_rate_address": "100000/minute",
                                "code_rate_account": "100000/minute"}

#: for tests whose sockets resync after every move of a hand-moved clock (to stamp what
#: each received with the clock's time): they send as fast as the server answers, far
#: above the 50 messages a second a player's connection is allowed
RESYNCING: dict[str, Any] = {"rate_per_second": 100_000.0, "burst": 100_000}

NO_PG = "PostgreSQL not configured: set BAOHUANG_TEST_PG_URL (.ci/run starts one)"
DATABASES = [pytest.param("sqlite", id="sqlite"),
             pytest.param("postgres", id="postgres",
                          marks=pytest.mark.skipif(not os.environ.get(PG_ENV), reason=NO_PG))]


@contextlib.contextmanager
def database(kind: str, directory: Path) -> Iterator[str]:
    """A fresh database URL of ``kind`` (``sqlite`` or ``postgres``)."""
    if kind == "sqlite":
        yield f"sqlite+aiosqlite:///{directory / 'baohuang.db'}"
    else:
        with pg_database(os.environ[PG_ENV]) as url:
            yield url


@contextlib.contextmanager
def running_server(kind: str, directory: Path, *flags: str) -> Iterator[ServerProcess]:
    with database(kind, directory) as url:
        server = ServerProcess(url, None, *LOOSE, *(flags or FAST),
                               log=directory / "server.log")
        server.start()
        try:
            yield server
        finally:
            server.stop()


@contextlib.contextmanager
def cluster_nodes(url: str, redis_url: str | tuple[str, ...], directory: Path, *flags: str,
                  names: tuple[str, ...] = ("one", "two")) -> Iterator[list[ServerProcess]]:
    """Cluster nodes called ``names`` on the database ``url`` and the Redis
    ``redis_url`` (one for each node, if a tuple: a Redis user of its own, say; fast
    bots, ``flags`` after), started, and stopped after; each logs to
    ``directory/<name>.log``."""
    urls = (redis_url,) * len(names) if isinstance(redis_url, str) else redis_url
    nodes = [ServerProcess(url, None, *LOOSE, *FAST, "--redis", node_url, "--node", name, *flags,
                           log=directory / f"{name}.log")
             for name, node_url in zip(names, urls, strict=True)]
    try:
        for node in nodes:
            node.start()
        yield nodes
    finally:
        for node in nodes:
            node.stop()


_SHARED: dict[str, ServerProcess] = {}


def shared_server(kind: str) -> ServerProcess:
    """One ``baohuang serve`` per database kind for the whole test session (started on
    first use, stopped when the session ends): tests that do not kill the server
    share it, as players share a real one."""
    if kind not in _SHARED:
        directory = Path(tempfile.mkdtemp(prefix=f"bh-server-{kind}-"))
        stack = contextlib.ExitStack()
        _SHARED[kind] = stack.enter_context(running_server(kind, directory))

        def stop() -> None:
            stack.close()
            shutil.rmtree(directory, ignore_errors=True)
        atexit.register(stop)
    return _SHARED[kind]


def error_of(response: httpx.Response) -> dict[str, Any]:
    """The ``error`` object of an API answer (its ``code`` and ``message``)."""
    body: dict[str, Any] = response.json()["error"]
    return body


async def guests(url: str, count: int, prefix: str = "p") -> list[Client]:
    clients = [Client(url) for _ in range(count)]
    for index, client in enumerate(clients):
        await client.guest(f"{prefix}{index}")
    return clients


async def deserted_table(url: str, prefix: str
                         ) -> tuple[list[Client], dict[str, Any], Raw, dict[str, Any]]:
    """A table of five guests (``clients``) whose game has begun and whose players have
    all gone (their sockets closed), a watcher at it, and the ``table`` message in which
    he has seen every seat disconnected."""
    clients = await guests(url, 5, prefix)
    table = await clients[0].create_table(timeout=600)
    watcher = await Raw.connect(url)
    await watcher.send({"type": "join", "table": table["id"], "as": "watcher"})
    raws = []
    for client in clients:
        raw = await Raw.connect(url, client.token)
        await raw.send({"type": "join", "table": table["id"]})
        raws.append(raw)
    for raw in raws:
        await raw.recv_type("snapshot")          # the game began
        await raw.close()
    seen = await watcher.recv_type("table")
    while any(seat is None or seat["connected"] for seat in seen["table"]["seats"]):
        seen = await watcher.recv_type("table")
    return clients, table, watcher, seen


async def play_together(clients: list[Client], table_id: str, player: str = "hosted",
                        **kwargs: Any) -> list[PlayResult]:
    """Every client plays ``table_id`` until the match is over."""
    return await asyncio.wait_for(asyncio.gather(*(
        c.play(table_id, player, seed=i, **kwargs) for i, c in enumerate(clients))), 120)


class AtVersion:
    """A player's message hook that does ``disrupt`` once, the first time a message
    reaches table version ``version``, right there: the players' loop is held while it
    runs, so the game cannot end before the disruption, however fast the rest goes."""

    def __init__(self, version: int, disrupt: Callable[[], None]) -> None:
        self.version = version
        self.disrupt = disrupt
        self.done = False
        #: set once ``disrupt`` has run (what follows it, a restart say, awaits it)
        self.happened = asyncio.Event()

    def __call__(self, message: dict[str, Any]) -> None:
        if not self.done and message.get("version", 0) >= self.version:
            self.done = True
            self.disrupt()
            self.happened.set()


class Raw:
    """A bare WebSocket client: sends what it is told, collects what comes back, and
    keeps its seat's ``view`` as docs/protocol.md says: a snapshot's view, changed by
    each update's."""

    def __init__(self, ws: Any) -> None:
        self.ws = ws
        self.seen: list[dict[str, Any]] = []
        self.view: dict[str, Any] = {}

    @classmethod
    async def connect(cls, url: str, token: str | None = None,
                      headers: dict[str, str] | None = None) -> Raw:
        extra = dict(headers or {})
        if token:
            extra["Authorization"] = f"Bearer {token}"
        ws = await websockets.connect(url.replace("http", "ws", 1) + "/ws",
                                      additional_headers=extra, max_size=None,
                                      ping_interval=None)  # (no keepalive of its own)
        raw = cls(ws)
        hello = await raw.recv()
        assert hello["type"] == "hello"
        return raw

    async def send(self, message: dict[str, Any] | str | bytes) -> None:
        await self.ws.send(message if isinstance(message, str | bytes) else json.dumps(message))

    async def recv(self, timeout: float = 10.0) -> dict[str, Any]:
        """The next message; each is one of wire/protocol.py's ``ServerMessage`` Structs,
        its text that Struct's encoding byte for byte."""
        text = await asyncio.wait_for(self.ws.recv(), timeout)
        assert encode(decode_server(text)) == text, text[:200]
        message: dict[str, Any] = json.loads(text)
        self.seen.append(message)
        if message["type"] == "snapshot":
            self.view = dict(message["view"])
        elif message["type"] == "update":
            self.view.update(message["view"])
        return message

    async def recv_type(self, kind: str, timeout: float = 10.0) -> dict[str, Any]:
        """The next message of type ``kind`` (skipping others)."""
        loop = asyncio.get_running_loop()
        end = loop.time() + timeout
        while True:
            message = await self.recv(max(0.01, end - loop.time()))
            if message["type"] == kind:
                return message

    async def close(self) -> None:
        await self.ws.close()


async def raw_play(raw: Raw, *, until: int | None = None, version: int | None = None,
                   start: dict[str, Any] | None = None) -> int | None:
    """Play (托管's choices) on a joined bare connection until the table version reaches
    ``until`` right after one of our own moves, or the game is over; returns the
    last version seen.  ``start``: a message already received to act upon first."""
    from baohuang.bots import hosted_action
    from baohuang.client import view_from_dict

    acted = False
    pending = start
    while True:
        msg, pending = (pending, None) if pending is not None else (await raw.recv(30), None)
        kind = msg["type"]
        if kind == "game_over":
            return version
        if kind not in ("update", "snapshot"):
            continue
        if kind == "update" and start is None:
            assert version is None or msg["since"] == version, (version, msg["since"])
        start = None
        version = msg["version"]
        if acted and until is not None and version >= until:
            return version
        acted = False
        view = raw.view
        if view["legal_actions"] and view["to_act"] == view["seat"]:
            parsed = view_from_dict(view)
            action = hosted_action(parsed, list(parsed.legal_actions))
            await raw.send({"type": "act", "action": action.to_dict(), "version": version})
            acted = True


class Clocks:
    """A server's table clocks (``ServerThread(config, clocks=Clocks())``): each new
    table gets a :class:`ManualClock` of its own, found here by the table's id."""

    def __init__(self) -> None:
        self.tables: dict[str, ManualClock] = {}

    def __call__(self, table_id: str) -> ManualClock:
        clock = self.tables[table_id] = ManualClock()
        return clock


@contextlib.asynccontextmanager
async def pumping(clock: ManualClock) -> AsyncIterator[None]:
    """Ring whatever the table set for *now* (a bot's think, 托管's answer, each after
    no delay), without moving the clock: only the test moves it."""
    stop = asyncio.Event()

    async def pump() -> None:
        while not stop.is_set():
            await asyncio.to_thread(clock.advance_to, clock.now())
            await asyncio.sleep(0.005)
    task = asyncio.get_running_loop().create_task(pump())
    try:
        yield
    finally:
        stop.set()
        await task


async def advance(clock: ManualClock, seconds: float) -> None:
    """Move a table's hand-moved clock on by ``seconds``, ringing what falls due."""
    await asyncio.to_thread(clock.advance_to, clock.now() + seconds)


async def table_where(raw: Raw, test: Any) -> dict[str, Any]:
    """The next TableState ``raw`` is sent that passes ``test``."""
    while True:
        state: dict[str, Any] = (await raw.recv_type("table", 30))["table"]
        if test(state):
            return state


async def play_on(raw: Raw) -> int | None:
    """Play ``raw``'s seat to the game's end from the table's state now (a waiting
    helper may have read past the snapshot it would have started from)."""
    await raw.send({"type": "resync", "version": None})
    return await raw_play(raw, start=await raw.recv_type("snapshot"))
