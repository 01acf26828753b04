"""Sockets driven in step against a table whose clock the test moves by hand.

Used by the indistinguishability test (``server/test_server_fairness.py``): every text a
socket receives is kept with the table's clock time at which it came, and a :class:`Side`
knows when its table has handled everything it was sent, so no step waits on a real
clock.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import weakref
from dataclasses import dataclass, field
from typing import Any

import websockets

from baohuang.server.table.clock import ManualClock


@dataclass
class Sock:
    """One socket: every text it received, in order, with the table's clock time when it
    came, and what its view says now."""

    ws: Any
    clock: ManualClock
    texts: list[tuple[float, str]] = field(default_factory=list)
    view: dict[str, Any] = field(default_factory=dict)
    at: int = -1                       # the version its view is at
    my_turn: bool = False              # at ``at``, this seat is to decide
    over: bool = False
    seats_shown: list[Any] = field(default_factory=list)     # as the last table message
    counts: dict[str, int] = field(default_factory=dict)
    reader: asyncio.Task[None] | None = None

    @classmethod
    async def open(cls, url: str, token: str | None, clock: ManualClock) -> Sock:
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        ws = await websockets.connect(url.replace("http", "ws", 1) + "/ws",
                                      additional_headers=headers, max_size=None,
                                      ping_interval=None)  # (no keepalive of its own)
        sock = cls(ws, clock)
        sock.reader = asyncio.get_running_loop().create_task(sock._read())
        return sock

    async def _read(self) -> None:
        with contextlib.suppress(websockets.ConnectionClosed):
            async for text in self.ws:
                assert isinstance(text, str)
                message = json.loads(text)
                kind = message["type"]
                self.counts[kind] = self.counts.get(kind, 0) + 1
                if kind not in ("hello", "pong"):
                    self.texts.append((self.clock.now(), text))
                if kind == "snapshot":
                    self.view = dict(message["view"])
                elif kind == "update":
                    self.view.update(message["view"])
                elif kind == "game_over":
                    self.over = True
                elif kind == "table":
                    self.seats_shown = message["table"]["seats"]
                if kind in ("snapshot", "update"):
                    self.at = message["version"]
                    self.my_turn = bool(self.view.get("legal_actions")) and \
                        self.view.get("to_act") == self.view.get("seat")
                news().set()

    async def send(self, message: dict[str, Any]) -> None:
        await self.ws.send(json.dumps(message))

    async def wait(self, kind: str, count: int) -> None:
        """Until ``count`` messages of ``kind`` have come in all."""
        await until(lambda: self.counts.get(kind, 0) >= count)

    async def resync(self) -> None:
        """Until the table has handled everything this socket sent (it answers a resync
        in order, with a snapshot)."""
        count = self.counts.get("snapshot", 0)
        await self.send({"type": "resync", "version": None})
        await self.wait("snapshot", count + 1)

    async def ping(self) -> None:
        """Until everything queued for this socket so far has come in (the pong follows
        it)."""
        count = self.counts.get("pong", 0)
        await self.send({"type": "ping"})
        await self.wait("pong", count + 1)

    async def close(self) -> None:
        await self.ws.close()
        if self.reader is not None:
            await self.reader


_NEWS: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, asyncio.Event] = \
    weakref.WeakKeyDictionary()


def news() -> asyncio.Event:
    """Set whenever a socket has taken in a message (one event per loop)."""
    loop = asyncio.get_running_loop()
    if loop not in _NEWS:
        _NEWS[loop] = asyncio.Event()
    return _NEWS[loop]


async def until(condition: Any, limit: float = 60.0) -> None:
    """Wait for ``condition()`` (looked at after every message; ``limit`` only ends a
    test that hangs)."""
    loop = asyncio.get_running_loop()
    end = loop.time() + limit
    event = news()
    while not condition():
        event.clear()
        try:
            await asyncio.wait_for(event.wait(), max(0.0, end - loop.time()))
        except TimeoutError:
            raise AssertionError("the server did not answer") from None


@dataclass
class Side:
    """One of the two tables: its clock, its five seats' sockets (all kept, old ones
    too), the watcher's, a probe (a second watcher, not compared, whose resync shows the
    table has handled all before it), and the seats on 托管."""

    url: str
    table: dict[str, Any]
    tokens: list[str]
    clock: ManualClock
    seats: dict[int, Sock] = field(default_factory=dict)
    history: dict[int, list[Sock]] = field(default_factory=dict)
    watcher: Sock | None = None
    probe: Sock | None = None
    hosted: set[int] = field(default_factory=set)
    hosted_on: dict[int, int] = field(default_factory=dict)
    #: seats whose player dropped (for now) or left (for good): no socket is read
    away: set[int] = field(default_factory=set)
    left: set[int] = field(default_factory=set)

    def socks(self) -> list[Sock]:
        return [*(sock for seat, sock in self.seats.items() if seat not in self.away),
                *([self.watcher] if self.watcher else [])]

    def version(self) -> int:
        return max(s.at for s in self.socks())

    def over(self) -> bool:
        return any(s.over for s in self.socks())

    def actor(self) -> int | None:
        """The seat whose person the table waits for now (None: not waiting for one)."""
        top = self.version()
        for seat, sock in self.seats.items():
            if seat not in self.hosted and seat not in self.away and sock.my_turn \
                    and sock.at == top:
                return seat
        return None

    async def quiet(self) -> None:
        """Until the table has handled every input it was sent (inputs of other sockets
        the caller saw answered) and every socket has all it was sent."""
        assert self.probe is not None
        await self.probe.resync()
        await asyncio.gather(*(sock.ping() for sock in self.socks()))

    async def settle(self, after: int) -> None:
        """Until the game is over, or waits for a person at a version ≥ ``after``: while
        it waits for none, the clock moves on to the next thing timed (托管, the end of
        the Guard's pause), once all is quiet."""
        while True:
            await self.quiet()
            if self.over() or (self.version() >= after and self.actor() is not None):
                return
            due = self.clock.next_due()
            assert due is not None, "the table waits for nobody and nothing"
            await asyncio.to_thread(self.clock.advance_to, due)

    def stream(self, seat: int | None) -> list[tuple[float, str]]:
        socks = [self.watcher] if seat is None and self.watcher else \
            self.history[seat if seat is not None else 0]
        return [item for sock in socks for item in sock.texts]
