"""The WebSocket endpoint ``/ws``: checks where the handshake comes from, finds the session,
reads messages (size limit, rate limit, decoding) and hands each to its
table's queue.  Nothing here touches a game."""

from __future__ import annotations

import logging
import time

from starlette.types import Receive, Scope, Send
from starlette.websockets import WebSocket

from ..accounts.accounts import AccountError, token_digest, user_json
from ..logs import fields
from ..table.effects import ClientInput, Disconnect
from ..table.privacy import is_table_id
from ..table.router import MOVING
from ..wire.protocol import (
    Hello,
    Join,
    Limits,
    Ping,
    Pong,
    ProtocolError,
    decode_client,
    message_type,
)
from .connection import Connection
from .security import cross_site_refusal, origin_allowed, refuse_handshake
from .state import server_state, session_token, session_user

__all__ = ["TokenBucket", "WebSocketEndpoint", "origin_allowed", "websocket_endpoint"]

log = logging.getLogger("baohuang.server")


class TokenBucket:
    """``rate`` messages per second on average, ``burst`` at once.

    >>> bucket = TokenBucket(rate=1.0, burst=2, now=0.0)
    >>> [bucket.take(0.0), bucket.take(0.0), bucket.take(0.0), bucket.take(1.0)]
    [True, True, False, True]
    """

    def __init__(self, rate: float, burst: int, now: float | None = None) -> None:
        self.rate = rate
        self.burst = float(burst)
        self.tokens = float(burst)
        self.stamp = time.monotonic() if now is None else now

    def take(self, now: float | None = None) -> bool:
        now = time.monotonic() if now is None else now
        self.tokens = min(self.burst, self.tokens + (now - self.stamp) * self.rate)
        self.stamp = now
        if self.tokens >= 1.0:
            self.tokens -= 1.0
            return True
        return False


class WebSocketEndpoint:
    """The ``/ws`` ASGI app.  Starlette's :class:`WebSocket` does the handshake, the
    session lookup and closing; messages are read from and written to the ASGI
    ``receive`` and ``send`` themselves (one call each per message, without the
    ``WebSocket`` state checks on top)."""

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        await websocket_endpoint(WebSocket(scope, receive, send), receive, send)


async def websocket_endpoint(websocket: WebSocket, receive: Receive | None = None,
                             send: Send | None = None) -> None:
    state = server_state(websocket)
    config = state.config
    refused = cross_site_refusal(websocket, config)
    if refused is not None:
        await refuse_handshake(websocket, *refused)
        return
    user = await session_user(websocket)
    await websocket.accept()
    metrics = state.metrics
    errors = metrics.errors
    rate_limited = metrics.rate_limited.labels("messages")

    def count_refusal(code: str) -> None:
        errors.labels("socket", code).inc()

    conn = Connection(websocket, user, config.send_queue, abuse_limit=config.abuse_limit,
                      abuse_window=config.abuse_window, send=send, on_error=count_refusal)
    token = session_token(websocket)
    session = token_digest(token) if user is not None and token else None
    if session is not None and user is not None:
        state.sessions.add(session, user.id, conn)
    conn.start()
    opened = time.monotonic()
    address = websocket.client.host if websocket.client else None
    log.info("socket open", extra=fields(user=None if user is None else user.id,
                                         client=address))
    debug = log.isEnabledFor(logging.DEBUG)
    conn.send_message(Hello(user=None if user is None else user_json(user),
                            limits=Limits(max_message_bytes=config.max_message_bytes,
                                          rate_per_second=config.rate_per_second,
                                          burst=config.burst),
                            now=time.time()))
    bucket = TokenBucket(config.rate_per_second, config.burst)
    used = state.sessions.used
    router = state.router

    def take(data: str | bytes) -> Join | None:
        """One message from the client: checked, decoded and handed on; a ``join`` of a
        table this process does not run (to be located: another node of a cluster may),
        or by a key that is not a table's id (a code: to be counted first), is
        returned."""
        if conn.closed:
            return None
        if session is not None:
            used(session)                 # (a use of the session: recorded at the next sweep)
        elsewhere = handle(data)
        if conn.closed and conn.route is not None:
            # (closed for abuse: the table hears of it now, not when the socket is gone)
            conn.route.post(Disconnect(conn))
            conn.route = None
        return elsewhere

    async def join_by_key(msg: Join) -> None:
        """A ``join`` by a key that is not shaped as a table's id (an invitation code, or
        anything else): counted against the client's code lookups first (refused,
        ``rate_limited``, past them), then joined as any other."""
        try:
            await state.accounts.looking_up(None if user is None else user.id, address)
        except AccountError as exc:
            conn.error("rate_limited", exc.message, "join")
            return
        if conn.closed:
            return
        await join_located(msg)

    async def join_located(msg: Join) -> None:
        """A table this process does not run, or named by its code: the router finds
        it — another node's (its messages go there over Redis), one being taken over
        (waited for), or none."""
        found = await router.locate(msg.table, wait=2 * config.lease_ttl + 1)
        if conn.closed:
            return
        if found is None or found == MOVING:
            code = "no_table" if found is None else "table_moving"
            conn.error(code, f"no table {msg.table[:40]!r}" if found is None else
                       "the table is moving to another server; join again in a moment",
                       "join")
            return
        route = conn.route = router.attach(conn, conn.route, found)
        route.post(ClientInput(conn, msg))

    def handle(data: str | bytes) -> Join | None:
        if debug:                         # (its type only: never what it says)
            log.debug("message", extra=fields(type=message_type(data)))
        size = len(data)
        if isinstance(data, str) and size * 4 > config.max_message_bytes:
            size = len(data.encode())                 # (UTF-8: at most 4 bytes a character)
        if size > config.max_message_bytes:
            conn.error("too_large", f"a message has at most {config.max_message_bytes} "
                       f"bytes, this one has {size}")
            return None
        if not bucket.take():
            rate_limited.inc()
            conn.error("rate_limited", f"more than {config.rate_per_second:g} messages "
                       "per second", message_type(data))
            return None
        try:
            msg = decode_client(data)
        except ProtocolError as exc:
            conn.error(exc.code, exc.message, message_type(data))
            return None
        if isinstance(msg, Ping):
            conn.send_message(Pong())
        elif isinstance(msg, Join):
            if not is_table_id(msg.table):
                return msg                            # (a code: counted, then joined)
            table = router.local(msg.table)
            if table is None:
                return msg                            # (located, then joined)
            route = conn.route = router.attach(conn, conn.route, table)
            route.post(ClientInput(conn, msg))
        elif conn.route is None:
            conn.error("not_joined", "send join first", message_type(data))
        else:
            conn.route.post(ClientInput(conn, msg))
        return None

    read = receive if receive is not None else websocket.receive
    metrics.sockets.inc()
    code: int | None = None
    try:
        while not conn.closed:
            message = await read()
            if message["type"] != "websocket.receive":
                code = message.get("code")            # websocket.disconnect
                break
            data: str | bytes | None = message.get("text")
            elsewhere = take(data if data is not None else message.get("bytes") or b"")
            if elsewhere is not None:
                if not is_table_id(elsewhere.table):
                    await join_by_key(elsewhere)
                else:
                    await join_located(elsewhere)
    except Exception:
        log.debug("connection %r ended with an error", conn, exc_info=True)
    finally:
        metrics.sockets.dec()
        if session is not None:
            state.sessions.discard(session, conn)
        if conn.route is not None:
            conn.route.post(Disconnect(conn))
        await conn.stop()
        log.info("socket closed", extra=fields(
            code=conn.close_code if conn.close_code is not None else code,
            by="server" if conn.close_code is not None else "client",
            seconds=round(time.monotonic() - opened, 1)))
