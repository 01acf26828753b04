"""An async client for the 保皇 server: log in, make or find a table, and play
it with any registered bot or your own function — over the WebSocket protocol
of docs/protocol.md, reconnecting with backoff and resyncing when the
connection drops.

    import asyncio
    from baohuang.client import Client

    async def main() -> None:
        client = Client("http://127.0.0.1:8000")
        await client.guest("my-bot")
        table = await client.create_table(bots={"1": "hosted", "2": "hosted",
                                                "3": "hosted", "4": "hosted"})
        result = await client.play(table["id"], "heuristic")
        print(result.games[-1]["result"]["scores"])

    asyncio.run(main())

A program with a token (``Client(url, token=...)``) plays the same way; the
player may be a bot name, a :class:`~baohuang.bots.Bot`, or a function
``(view, legal) -> action`` (sync or async).
"""

from __future__ import annotations

import asyncio
import functools
import inspect
import random
import ssl
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import httpx
import msgspec
import websockets
from websockets.exceptions import ConnectionClosed, InvalidStatus

from .bots import Bot, make_bot
from .engine.actions import Action
from .engine.views import VIEW_CODEC, View

__all__ = ["Client", "ClientError", "PlayResult", "Player", "view_from_dict"]

Decision = Action | Awaitable[Action]
Player = Bot | str | Callable[[View, Sequence[Action]], Decision]


class ClientError(RuntimeError):
    """The server refused an HTTP request (``code`` from docs/protocol.md §2)."""

    def __init__(self, status: int, code: str, message: str) -> None:
        self.status, self.code, self.message = status, code, message
        super().__init__(f"{status} {code}: {message}")


class _TableMoving(Exception):
    """``table_moving``, or ``no_table`` for a table this session played: in a cluster
    it is being taken over by another node (docs/cluster.md); reconnect and join again."""


#: how long a session goes on asking for a table it played that the server does not know
#: (seconds): a cluster's takeover of a killed node's table takes a few
MOVING_WAIT = 30.0

#: what :func:`view_from_dict` made of a field's value, kept by a session: the field's
#: name -> (the value as received, what was made of it)
Kept = dict[str, tuple[Any, Any]]


def view_from_dict(data: dict[str, Any], kept: Kept | None = None) -> View:
    """A :class:`View` from its ``to_dict()`` form (as sent by the server), field by
    field by name (``VIEW_CODEC.decode``, baohuang/engine/wire.py).

    With ``kept`` (a dict, empty at first, passed again with the next form of the same
    game's view) a field is made again only when the value in ``data`` is not the very
    object it was the time before — a client that merges each message's changed
    fields into one dict keeps the others — and of the played cards, which only grow
    during a game, only those played since.

    >>> import baohuang as bh
    >>> game = bh.Game.new(seed=3)
    >>> view = game.view(game.to_act)
    >>> data, kept = view.to_dict(), {}
    >>> view_from_dict(data) == view_from_dict(data, kept) == view
    True
    >>> view_from_dict(data, kept).hand is view_from_dict(data, kept).hand
    True
    """
    return VIEW_CODEC.decode(data, kept)


@dataclass
class PlayResult:
    """What happened while playing a table."""

    table: dict[str, Any] = field(default_factory=dict)
    seat: int | None = None
    games: list[dict[str, Any]] = field(default_factory=list)
    errors: list[dict[str, Any]] = field(default_factory=list)
    messages: int = 0
    bytes: int = 0
    resyncs: int = 0
    reconnects: int = 0
    sent: list[tuple[int, Action]] = field(default_factory=list)  # (version, action)
    latencies: list[float] = field(default_factory=list)   # act sent → own event back (s)


MessageHook = Callable[[dict[str, Any]], None]
#: what an update asks of a session next
_ACT, _RESYNC = "act", "resync"
_decode = msgspec.json.Decoder(dict[str, Any]).decode
_encoder = msgspec.json.Encoder()


def _encode(message: dict[str, Any]) -> str:
    return _encoder.encode(message).decode()


@functools.cache
def _tls() -> ssl.SSLContext:
    """httpx's default TLS context (certifi's authorities, verified), made once: a client
    made without one builds it afresh, 25 ms of CPU, for every request of a ``Client``
    that was given no ``http``."""
    return httpx.create_ssl_context()


class Client:
    """One user's connection to a server (``http://host:port``)."""

    def __init__(self, server: str, token: str | None = None, *,
                 http: httpx.AsyncClient | None = None) -> None:
        self.server = server.rstrip("/")
        self.token = token
        self.user: dict[str, Any] | None = None
        self._http = http

    # -- HTTP ---------------------------------------------------------------------------
    async def request(self, method: str, path: str, body: Any = None) -> Any:
        headers = {"Authorization": f"Bearer {self.token}"} if self.token else {}
        if self._http is not None:
            response = await self._http.request(method, self.server + path, json=body,
                                                headers=headers)
        else:
            async with httpx.AsyncClient(timeout=30, verify=_tls()) as http:
                response = await http.request(method, self.server + path, json=body,
                                              headers=headers)
        data = response.json()
        if response.status_code >= 400:
            err = data.get("error", {}) if isinstance(data, dict) else {}
            raise ClientError(response.status_code, err.get("code", "error"),
                              err.get("message", response.text))
        return data

    async def _login(self, path: str, body: dict[str, Any]) -> dict[str, Any]:
        data = await self.request("POST", path, body)
        self.token, self.user = data["token"], data["user"]
        return dict(data["user"])

    async def guest(self, name: str) -> dict[str, Any]:
        """Play as a guest named ``name``; returns the user."""
        return await self._login("/api/guest", {"name": name})

    async def register(self, name: str, password: str) -> dict[str, Any]:
        return await self._login("/api/register", {"name": name, "password": password})

    async def login(self, name: str, password: str) -> dict[str, Any]:
        return await self._login("/api/login", {"name": name, "password": password})

    async def create_table(self, **spec: Any) -> dict[str, Any]:
        """Create a table (``preset``, ``options``, ``timeout``, ``games``, ``bots``…)."""
        return dict(await self.request("POST", "/api/tables", spec))

    async def quickplay(self, **spec: Any) -> dict[str, Any]:
        return dict(await self.request("POST", "/api/quickplay", spec))

    async def history(self) -> list[dict[str, Any]]:
        return list((await self.request("GET", "/api/history"))["games"])

    async def replay(self, game_id: int) -> dict[str, Any]:
        return dict(await self.request("GET", f"/api/games/{game_id}/replay"))

    # -- WebSocket ------------------------------------------------------------------------
    def ws_url(self) -> str:
        base = "ws" + self.server[4:] if self.server.startswith("http") else self.server
        return base + "/ws"

    async def play(self, table: str, player: Player | None = "hosted", *,
                   watch: bool = False, seed: int = 0, threaded: bool = False,
                   on_message: MessageHook | None = None, auto_unhost: bool = True,
                   max_backoff: float = 5.0, games: int | None = None) -> PlayResult:
        """Join ``table`` and play (or with ``watch=True`` only watch) until the match
        is over, or until ``games`` games are over.  A bot name makes that bot with
        ``seed``; ``threaded`` runs the player's thinking in a thread."""
        session = _Session(self, table, _decider(player, seed), watch=watch,
                           threaded=threaded, on_message=on_message, auto_unhost=auto_unhost,
                           games=games)
        delay = 0.05
        while True:
            try:
                headers = {"Authorization": f"Bearer {self.token}"} if self.token else {}
                async with websockets.connect(self.ws_url(), additional_headers=headers,
                                              max_size=None, open_timeout=10) as ws:
                    delay = 0.05
                    if await session.run(ws):
                        return session.result
            except (ConnectionClosed, OSError, InvalidStatus, TimeoutError, _TableMoving):
                pass
            session.result.reconnects += 1
            await asyncio.sleep(delay * (1 + random.random()))
            delay = min(max_backoff, delay * 2)


def _decider(player: Player | None, seed: int) -> Callable[[View, Sequence[Action]], Decision] \
        | None:
    if player is None:
        return None
    if isinstance(player, str):
        player = make_bot(player, seed)
    if isinstance(player, Bot):
        return player.choose
    return player


class _Session:
    """The state of one ``Client.play`` across reconnects."""

    def __init__(self, client: Client, table: str,
                 decide: Callable[[View, Sequence[Action]], Decision] | None, *, watch: bool,
                 threaded: bool, on_message: MessageHook | None, auto_unhost: bool,
                 games: int | None) -> None:
        self.client, self.table, self.decide = client, table, decide
        self.watch, self.threaded, self.on_message = watch, threaded, on_message
        self.auto_unhost, self.games = auto_unhost, games
        self.version: int | None = None
        #: our seat's view (docs/protocol.md: a snapshot's, changed by each update's)
        self.view: dict[str, Any] | None = None
        self.acted_at: int | None = None
        self.sent_at = 0.0
        self.result = PlayResult()
        self.done = False
        self.last: tuple[dict[str, Any], int] | None = None
        #: the table was joined once (a ``table`` message came), and since when the
        #: server has not known it (monotonic seconds; None: it knows it)
        self.joined = False
        self.missing_since: float | None = None
        #: what view_from_dict made of our view's unchanged fields
        self.kept: Kept = {}
        #: the game after which this seat said 准备 (ready) on this connection
        self.ready_sent: int | None = None

    async def run(self, ws: Any) -> bool:
        """Play on one connection; True when finished."""
        await ws.send(_encode({"type": "join", "table": self.table,
                                  "as": "watcher" if self.watch else "player",
                                  "version": self.version}))
        self.acted_at = None
        self.ready_sent = None     # (a new connection: the table says again who is ready)
        result = self.result
        on_message = self.on_message
        async for raw in ws:
            msg = _decode(raw)
            result.messages += 1
            result.bytes += len(raw)
            if on_message is not None:
                on_message(msg)
            if msg.get("type") == "update":      # (most messages: handled without a coroutine)
                step = self._update(msg)
                view = self.view
                if step is _ACT and view is not None:
                    self.last = (view, msg["version"])
                    if view["to_act"] == view["seat"]:   # (else no decision: no coroutine)
                        await self._maybe_act(ws, view, msg["version"])
                elif step is _RESYNC:
                    result.resyncs += 1
                    await ws.send(_encode({"type": "resync", "version": self.version}))
            else:
                await self._handle(ws, msg)
            if self.done:
                await ws.close()
                return True
        return False

    def _update(self, msg: dict[str, Any]) -> str | None:
        """Take an ``update`` into our view; what to do next (_ACT, _RESYNC or None)."""
        since, version = msg["since"], msg["version"]
        known = self.version
        if known is not None and version <= known:
            return None                           # seen already
        if self.view is None or since != known:
            return _RESYNC                        # (changes need the view they change)
        self.version = version
        events = msg["events"]
        view = self.view
        view.update(msg["view"])                  # what changed in our view
        view["events"].extend(events)
        if self.sent_at:
            seat = self.result.seat
            if any(ev.get("seat") == seat for ev in events):
                self.result.latencies.append(time.perf_counter() - self.sent_at)
                self.sent_at = 0.0
        return _ACT

    async def _handle(self, ws: Any, msg: dict[str, Any]) -> None:
        kind = msg.get("type")
        if kind == "table":
            self.joined, self.missing_since = True, None
            self._table(msg)
            await self._unhost(ws)
            await self._ready(ws)
        elif kind == "snapshot":
            self.version = msg["version"]
            view = self.view = dict(msg["view"])    # ours to change (not the message's)
            self.kept = {}                            # (a new game, or a view made anew)
            view["events"] = list(view.get("events", ()))
            await self._maybe_act(ws, self.view, msg["version"])
        elif kind == "game_over":
            if not any(g["game"] == msg["game"] for g in self.result.games):
                self.result.games.append(msg)
            if msg["match"]["over"] or (self.games is not None
                                        and len(self.result.games) >= self.games):
                self.done = True
            elif not self.watch and self.ready_sent != msg["game"]:
                self.ready_sent = msg["game"]
                await ws.send(_encode({"type": "ready"}))     # 准备: on to the next game
        elif kind == "error":
            self.result.errors.append(msg)
            code = msg.get("code")
            if code in ("no_table", "table_moving"):
                now = time.monotonic()
                if self.joined or code == "table_moving":   # (a cluster's takeover)
                    self.missing_since = self.missing_since or now
                    if now - self.missing_since < MOVING_WAIT:
                        raise _TableMoving
                raise ClientError(404, code, msg.get("message", ""))
            if code == "stale":
                self.acted_at = None          # a newer update is on its way: act on it
            elif code == "rate_limited" and msg.get("ref") == "ready":
                await asyncio.sleep(0.1)      # too fast: say 准备 again
                await ws.send(_encode({"type": "ready"}))
            elif code == "rate_limited" and msg.get("ref") == "act" and self.last is not None:
                await asyncio.sleep(0.1)      # too fast: send the same decision again
                self.acted_at = None
                await self._maybe_act(ws, *self.last)

    def _table(self, msg: dict[str, Any]) -> None:
        self.result.table = msg["table"]
        self.result.seat = msg["you"]["seat"]
        if msg["table"]["status"] in ("finished", "dissolved") and self.result.games and \
                self.result.games[-1]["match"]["over"]:
            self.done = True

    async def _ready(self, ws: Any) -> None:
        """准备 at a table that waits between games for this seat (after a reconnect: the
        game_over that asked for it went by)."""
        seat, table = self.result.seat, self.result.table
        ready = table.get("ready")
        if self.watch or self.done or seat is None or not ready or seat in ready["seats"] \
                or self.ready_sent == table.get("game"):
            return
        if self.games is not None and len(self.result.games) >= self.games:
            return
        self.ready_sent = table.get("game")
        await ws.send(_encode({"type": "ready"}))

    async def _unhost(self, ws: Any) -> None:
        seat = self.result.seat
        if not self.auto_unhost or seat is None or self.decide is None:
            return
        info = self.result.table["seats"][seat]
        if info and info["hosted"] and not info["locked"] and info["connected"]:
            await ws.send(_encode({"type": "hosted", "on": False}))

    async def _maybe_act(self, ws: Any, view_data: dict[str, Any], version: int) -> None:
        self.last = (view_data, version)
        if self.decide is None or not view_data["legal_actions"] or self.acted_at == version:
            return
        if view_data["to_act"] != view_data["seat"]:
            return
        view = view_from_dict(view_data, self.kept)
        legal = list(view.legal_actions)
        if self.threaded:
            decision = await asyncio.to_thread(self.decide, view, legal)
        else:
            decision = self.decide(view, legal)
        action = await decision if inspect.isawaitable(decision) else decision
        self.acted_at = version
        self.sent_at = time.perf_counter()
        self.result.sent.append((version, action))
        # (an action's text: the compact form, which the server reads from its kept texts)
        await ws.send(_encode({"type": "act", "action": str(action), "version": version}))
