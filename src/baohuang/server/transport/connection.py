"""One WebSocket connection, a table's :class:`~..table.subscriber.Subscriber`: a
user, a bounded send queue and a writer task.  A table never waits for a client:
:meth:`Connection.send` only queues, and a connection whose queue is full is closed
(1008) — it can reconnect and resync.  A table sends a connection one message a
move (an ``update``), so the writer wakes once a move and writes once."""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import time
from collections import deque
from collections.abc import Callable
from typing import TYPE_CHECKING

from starlette.types import Send
from starlette.websockets import WebSocket

from ..db.storage import UserRecord
from ..logs import CONNECTION_ID
from ..wire.protocol import ServerMessage, encode, error_message

if TYPE_CHECKING:
    from ..table.inputs import Route

__all__ = ["Connection"]

log = logging.getLogger("baohuang.server")
_ids = itertools.count(1)


class Connection:
    """A client connection.  ``table`` and ``seat`` are set by the table it joined.

    Starlette's ``websocket`` did the handshake and closes the socket; each queued
    text goes out as one ASGI ``websocket.send`` message through ``send`` (the
    connection's ASGI send; by default the ``websocket``'s own)."""

    def __init__(self, websocket: WebSocket, user: UserRecord | None, queue_size: int, *,
                 abuse_limit: int = 20, abuse_window: float = 10.0,
                 send: Send | None = None,
                 on_error: Callable[[str], None] | None = None) -> None:
        """``on_error``: told the code of each message refused (the figures count it)."""
        self.id = next(_ids)
        #: the connection's id in the log (``logs.RequestLog`` gave it)
        self.log_id = CONNECTION_ID.get() or str(self.id)
        self._on_error = on_error
        self.websocket = websocket
        self.user = user
        #: the table this connection's messages go to (set on ``join``, before the table
        #: has handled it; in a cluster, perhaps the node that runs it); ``table`` is set
        #: by the table itself (the connection is its
        #: :class:`~..table.subscriber.Subscriber`)
        self.route: Route | None = None
        self.table: object | None = None
        self.seat: int | None = None
        self.hints = False                 # the hint order asked for (join)
        self.closed = False
        self.close_code: int | None = None
        self._send: Send = send if send is not None else websocket.send
        #: texts waiting for the writer; a ``(code, reason)`` closes after them
        self._pending: deque[str | tuple[int, str]] = deque()
        self._queue_size = queue_size
        self._wake: asyncio.Future[None] | None = None    # the idle writer waits on it
        self._writer: asyncio.Task[None] | None = None
        self._flushing = False
        self._strikes: deque[float] = deque()
        self._abuse_limit = abuse_limit
        self._abuse_window = abuse_window

    def __repr__(self) -> str:
        who = self.user.name if self.user else "anonymous"
        return f"<Connection {self.log_id} {who} seat={self.seat}>"

    def start(self) -> None:
        self._writer = asyncio.get_running_loop().create_task(self._write())

    def send(self, text: str) -> None:
        """Queue one message for the writer; drop the connection if it cannot keep up."""
        if self.closed:
            return
        pending = self._pending
        if len(pending) >= self._queue_size:
            log.info("dropping %r: send queue full", self)
            self.close(1008, "send queue full: reading too slowly")
            return
        pending.append(text)
        self._wake_writer()

    def _wake_writer(self) -> None:
        """Wake the writer if it waits for something to send."""
        wake = self._wake
        if wake is not None:
            self._wake = None
            if not wake.done():
                wake.set_result(None)

    def send_message(self, message: ServerMessage) -> None:
        """Queue one message (docs/protocol.md §4.2), encoded."""
        self.send(encode(message))

    def error(self, code: str, message: str, ref: str | None = None) -> None:
        """Refuse a message; too many refusals in a short time close the socket (1008)."""
        self.send(encode(error_message(code, message, ref)))
        if self._on_error is not None:
            self._on_error(code)
        now = time.monotonic()
        self._strikes.append(now)
        while self._strikes and now - self._strikes[0] > self._abuse_window:
            self._strikes.popleft()
        if len(self._strikes) > self._abuse_limit:
            self.close(1008, "too many refused messages", flush=True)

    def close(self, code: int, reason: str, *, flush: bool = False) -> None:
        """Close from the server side (the reader then sees the disconnect).  With
        ``flush`` the messages already queued are sent first."""
        if self.closed:
            return
        self.closed = True
        self.close_code = code
        if flush and self._writer is not None and len(self._pending) < self._queue_size:
            self._pending.append((code, reason))
            self._flushing = True
            self._wake_writer()
            return
        if self._writer is not None:
            self._writer.cancel()
        asyncio.get_running_loop().create_task(self._close(code, reason))

    async def _close(self, code: int, reason: str) -> None:
        with contextlib.suppress(Exception):
            await self.websocket.close(code, reason)

    async def _write(self) -> None:
        pending = self._pending
        send = self._send
        loop = asyncio.get_running_loop()
        try:
            while True:
                if not pending:
                    wake = self._wake = loop.create_future()
                    await wake
                    continue
                item = pending.popleft()
                if isinstance(item, tuple):     # close after a flush
                    await self._close(*item)
                    return
                await send({"type": "websocket.send", "text": item})
        except asyncio.CancelledError:
            raise
        except Exception:
            self.closed = True

    async def stop(self) -> None:
        """Called when the reader is done: end the writer (after its flush, if any)."""
        self.closed = True
        if self._writer is not None and self._flushing:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(asyncio.shield(self._writer), 5)
        if self._writer is not None:
            self._writer.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._writer
