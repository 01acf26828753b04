"""The load test's lean player: 托管's answers read from the legal-action texts.

A load generator shares the machine with the server it measures, so each of its
clients should cost about what a bare broadcast's client costs.  This one speaks
docs/protocol.md §4 as any client does — `join`, each `update` applied at its
version, `resync` after a gap, reconnects with backoff, its `act` with the version it
acted on — but of each message it decodes only what it needs (the type, the
versions, its seat's `to_act` and `legal_actions`, the events' seats) and builds no
view: it answers with one of the legal-action texts the server sent, which the
server validates as any `act`.  The answer is 托管's default (docs/rules.md §10)
when one is legal — accept, 暗保, 暗独保, decline, pass, abdicate, in that order —
else the first text listed (a lead's lowest single, for one).  That is the
:func:`baohuang.bots.hosted_action` answer in 99.5% of decisions (56,066 of 56,345
over 200 seeded games); it differs where a seat holds only jokers (the server lists
the big joker first) and at some calls (托管 names a card it holds three of).

A program that wants a :class:`baohuang.View` and a bot uses
:class:`baohuang.client.Client` (``baohuang loadtest --bot NAME``).
"""

from __future__ import annotations

import asyncio
import random
import time
from dataclasses import dataclass, field
from typing import Any

import msgspec
import websockets
from websockets.exceptions import ConnectionClosed, InvalidStatus

from ..client import ClientError

__all__ = ["LeanResult", "lean_answer", "play_lean"]

#: 托管's default answers, the first legal one taken (texts of kinds without cards)
DEFAULTS = ("accept", "guard_hidden", "solo_hidden", "decline", "pass", "abdicate")


def lean_answer(legal: list[str]) -> str:
    """托管's answer among the legal-action texts ``legal``, read from the texts alone.

    >>> lean_answer(["play 9h", "play 9h 9s", "pass"])
    'pass'
    >>> lean_answer(["play 7d", "play 7d 7s", "play 10"])
    'play 7d'
    """
    for text in DEFAULTS:
        if text in legal:
            return text
    return legal[0]


class _ViewPart(msgspec.Struct):
    """The fields of a view this player reads (the others are skipped unread)."""

    seat: int | msgspec.UnsetType | None = msgspec.UNSET
    to_act: int | msgspec.UnsetType | None = msgspec.UNSET
    legal_actions: list[str] | msgspec.UnsetType = msgspec.UNSET


class _Event(msgspec.Struct):
    seat: int | None = None


class _Message(msgspec.Struct):
    type: str = ""
    version: int = 0
    since: int = 0
    view: _ViewPart | None = None
    events: list[_Event] = []


#: what an update asks of a session next
_ACT, _RESYNC = "act", "resync"
_decode_lean = msgspec.json.Decoder(_Message).decode
_decode_any = msgspec.json.Decoder(dict[str, Any]).decode
_encode = msgspec.json.Encoder().encode


@dataclass
class LeanResult:
    """What one lean player saw and did (the load report's numbers)."""

    seat: int | None = None
    games: list[dict[str, Any]] = field(default_factory=list)   # game_over messages
    errors: list[dict[str, Any]] = field(default_factory=list)
    messages: int = 0
    bytes: int = 0
    resyncs: int = 0
    reconnects: int = 0
    moves: int = 0
    latencies: list[float] = field(default_factory=list)   # act sent → own event back (s)


class _LeanSession:
    """One lean player's state across reconnects."""

    def __init__(self, table: str, think: float, seed: int) -> None:
        self.table, self.think = table, think
        self.rng = random.Random(seed)
        self.version: int | None = None
        self.seat: int | None = None
        self.to_act: int | None = None
        self.legal: list[str] = []
        self.have_view = False
        self.acted_at: int | None = None
        self.ready_after: int | None = None   # games over when this connection said 准备
        self.sent_at = 0.0
        self.done = False
        self.result = LeanResult()

    async def run(self, ws: Any) -> bool:
        """Play on one connection; True when the match (for this player) is over."""
        await ws.send(_encode({"type": "join", "table": self.table, "as": "player",
                               "version": self.version}).decode())
        self.acted_at = self.ready_after = None
        result = self.result
        async for raw in ws:
            result.messages += 1
            result.bytes += len(raw)
            msg = _decode_lean(raw)
            kind = msg.type
            if kind == "update":
                step = self._update(msg)
                if step is _ACT:
                    await self._maybe_act(ws)
                elif step is _RESYNC:
                    result.resyncs += 1
                    await ws.send(_encode({"type": "resync", "version": self.version}).decode())
            elif kind == "snapshot":
                self.version, self.have_view = msg.version, True
                self.seat = self.to_act = None
                self.legal = []
                self._take(msg.view)
                await self._maybe_act(ws)
            else:
                await self._other(ws, _decode_any(raw))
            if self.done:
                await ws.close()
                return True
        return False

    def _take(self, view: _ViewPart | None) -> None:
        if view is None:
            return
        if view.seat is not msgspec.UNSET:
            self.seat = view.seat
        if view.to_act is not msgspec.UNSET:
            self.to_act = view.to_act
        if view.legal_actions is not msgspec.UNSET:
            self.legal = view.legal_actions

    def _update(self, msg: _Message) -> str | None:
        """Apply an update; what to do next (_ACT, _RESYNC, or None: seen already)."""
        known = self.version
        if known is not None and msg.version <= known:
            return None
        if not self.have_view or msg.since != known:
            return _RESYNC                    # (changes need the view they change)
        self.version = msg.version
        self._take(msg.view)
        if self.sent_at:
            seat = self.seat
            if any(event.seat == seat for event in msg.events):
                self.result.latencies.append(time.perf_counter() - self.sent_at)
                self.sent_at = 0.0
        return _ACT

    async def _maybe_act(self, ws: Any) -> None:
        version = self.version
        if not self.legal or self.to_act != self.seat or self.seat is None \
                or self.acted_at == version:
            return
        if self.think > 0:
            await asyncio.sleep(self.think * self.rng.uniform(0.5, 1.5))
        self.acted_at = version
        self.sent_at = time.perf_counter()
        self.result.moves += 1
        await ws.send(_encode({"type": "act", "action": lean_answer(self.legal),
                               "version": version}).decode())

    async def _other(self, ws: Any, msg: dict[str, Any]) -> None:
        kind = msg.get("type")
        result = self.result
        if kind == "table":
            seat = result.seat = msg["you"]["seat"]
            table = msg["table"]
            if seat is not None:
                info = table["seats"][seat]
                if info and info["hosted"] and not info["locked"] and info["connected"]:
                    await ws.send(_encode({"type": "hosted", "on": False}).decode())
                waiting = table.get("ready")
                if waiting and seat not in waiting["seats"]:     # (back after a drop)
                    await self._say_ready(ws)
            if table["status"] in ("finished", "dissolved") and result.games and \
                    result.games[-1]["match"]["over"]:
                self.done = True
        elif kind == "game_over":
            if not any(g["game"] == msg["game"] for g in result.games):
                result.games.append(msg)
            if msg["match"]["over"]:
                self.done = True
            else:
                await self._say_ready(ws)
        elif kind == "error":
            result.errors.append(msg)
            code = msg.get("code")
            if code == "no_table":
                raise ClientError(404, code, msg.get("message", ""))
            if code == "table_moving":        # (a cluster's takeover: join again soon)
                await ws.close()
            elif code == "stale":
                self.acted_at = None          # a newer update is on its way: act on it
            elif code == "rate_limited" and msg.get("ref") == "ready":
                await asyncio.sleep(0.1)      # too fast: say 准备 again
                await ws.send(_encode({"type": "ready"}).decode())
            elif code == "rate_limited" and msg.get("ref") == "act":
                await asyncio.sleep(0.1)      # too fast: send the answer again
                self.acted_at = None
                result.moves -= 1
                await self._maybe_act(ws)


    async def _say_ready(self, ws: Any) -> None:
        """准备 for the next game, once between two games on this connection (every
        seat's 准备 sends a ``table`` that still lists this seat as not ready until
        this one arrives)."""
        games = len(self.result.games)
        if self.ready_after != games:
            self.ready_after = games
            await ws.send(_encode({"type": "ready"}).decode())


async def play_lean(ws_url: str, token: str, table: str, *, think: float = 0.0,
                    seed: int = 0, max_backoff: float = 5.0) -> LeanResult:
    """Join ``table`` at ``ws_url`` with ``token`` and play until the match is over,
    answering as 托管 from the legal-action texts (waiting ``think`` seconds on
    average, 0.5–1.5×, before each answer)."""
    session = _LeanSession(table, think, seed)
    headers = {"Authorization": f"Bearer {token}"}
    delay = 0.05
    while True:
        try:
            async with websockets.connect(ws_url, additional_headers=headers, max_size=None,
                                          open_timeout=10) as ws:
                delay = 0.05
                if await session.run(ws):
                    return session.result
        except (ConnectionClosed, OSError, InvalidStatus, TimeoutError):
            pass
        session.result.reconnects += 1
        await asyncio.sleep(delay * (1 + random.random()))
        delay = min(max_backoff, delay * 2)
