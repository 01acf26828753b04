"""uvicorn's WebSocket protocol (``websockets-sansio``) with one ASGI extension:
several text messages written to the socket at once, and text messages taken by
the application as they arrive.

A table's move often sends one connection two or three event messages in a row
(a ``play`` and the ``lead`` it brings, say).  Through plain ASGI each of them is
one ``transport.write`` — one system call on the server, one wake-up and one
read on the client.  With the extension the connection's writer hands over all
it has queued, and the frames (still one WebSocket message each, unchanged)
go out in one write.

The protocol advertises the extension in the connection scope as
``scope["extensions"]["baohuang.send_many"]``; an application that sees it may
send ``{"type": "baohuang.send_many", "texts": [str, ...]}``.  Every other
message is uvicorn's own, handled exactly as uvicorn handles it (both servers of
``bench/server.py`` run on this protocol).  Pings, closing and flow control are
uvicorn's: a batch waits for the transport to be writable like any message.

The extension's dict also holds ``"write"``: a plain (not async) function
``write(texts) -> bool`` that writes the texts at once when the socket takes them
now — the connection is open and the transport is not paused for flow control —
and returns True; otherwise it writes nothing and returns False, and the
application sends them through ``send`` (which waits).  A table that just made a
move hands each connection its messages this way without waking a writer task.

And ``"receive"``: ``receive(handler)`` sets a plain function ``handler(text)`` that
takes each text message from then on, called as the message arrives, instead of
an ASGI ``websocket.receive`` event.  Through ASGI every message is queued, the
socket's reading is paused until the application has taken it and resumed
after, and the application's task (nested in its middleware) is woken for it;
an application that handles a message at once, without waiting, saves all of
that.  Everything else (binary messages, the disconnect) still comes through
``receive`` as before.

The frames of a batch are made by websockets (``Frame.serialize``), once per text:
the seats of one move are often sent the very same message, and without a
compression extension a text's frame is the same bytes on every connection, so a
frame made for one connection is written to the next ones as it is (the few last
texts' frames are kept).  With compression every frame goes through the
connection's own protocol object, as uvicorn sends it.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable
from typing import Any

__all__ = ["SEND_MANY", "TextHandler", "ws_protocol"]

log = logging.getLogger("baohuang.server")
#: text -> its frame (unmasked, uncompressed), for the texts sent last
_frames_made: dict[str, bytes] = {}
_FRAMES_KEPT = 64
#: what takes each text message when the application set one (``receive``)
TextHandler = Callable[[str], None]

#: the extension's name in ``scope["extensions"]`` and its message type
SEND_MANY = "baohuang.send_many"
#: the attributes of uvicorn's protocol that the extension uses
_USED = ("writable", "disconnected", "handshake_complete", "close_sent", "initial_response",
         "conn", "transport", "scope", "frames", "curr_msg_data_type")


def ws_protocol() -> type[Any] | str:
    """The protocol class for ``uvicorn.Config(ws=...)``; uvicorn's default
    (``"auto"``) where its websockets-sansio protocol is not available."""
    try:
        from uvicorn.protocols.utils import ClientDisconnected
        from uvicorn.protocols.websockets.websockets_sansio_impl import (
            WebSocketsSansIOProtocol,
        )
        from websockets.exceptions import InvalidState
        from websockets.frames import Frame, Opcode
        from websockets.protocol import State
    except ImportError:                   # pragma: no cover - older uvicorn or websockets
        return "auto"

    def frame(text: str) -> bytes:
        """The server's frame of one text message, without extensions."""
        made = _frames_made.get(text)
        if made is None:
            if len(_frames_made) >= _FRAMES_KEPT:
                _frames_made.clear()
            made = _frames_made[text] = Frame(Opcode.TEXT, text.encode()).serialize(
                mask=False)
        return made

    class BatchingWebSocketsProtocol(WebSocketsSansIOProtocol):
        """uvicorn's websockets-sansio protocol plus ``baohuang.send_many`` (batched
        ``send``, ``write`` and ``receive``: see the module)."""

        text_handler: TextHandler | None = None

        def handle_connect(self, event: Any) -> None:
            super().handle_connect(event)
            # advertised only on an upgrade (then the scope exists) and only while
            # uvicorn's protocol still has what send() below uses
            if self.response.status_code == 101 and all(
                    hasattr(self, name) for name in _USED):
                self.scope["extensions"][SEND_MANY] = {"write": self.write_now,
                                                       "receive": self.set_text_handler}

        def set_text_handler(self, handler: TextHandler) -> None:
            """Hand each text message to ``handler`` as it arrives (see the module)."""
            self.text_handler = handler

        def send_receive_event_to_app(self) -> None:
            # (called with a whole message in self.frames, of one frame or several)
            handler = self.text_handler
            if handler is None or self.curr_msg_data_type != "text" or self.close_sent:
                super().send_receive_event_to_app()
                return
            frames = self.frames
            data = frames[0] if len(frames) == 1 else b"".join(frames)
            try:
                text = data.decode()
            except UnicodeDecodeError:
                super().send_receive_event_to_app()   # (uvicorn closes with 1007)
                return
            self.frames = []
            try:
                handler(text)
            except Exception:                     # (never into the protocol's callback)
                log.exception("the text handler of %s failed", self.scope.get("client"))

        def _open(self) -> bool:
            return self.handshake_complete and not self.close_sent \
                and self.initial_response is None

        def _frames(self, texts: Iterable[str]) -> bool:
            """One text frame each, in one write; False when the connection is no
            longer open (nothing written)."""
            conn = self.conn
            if not conn.extensions and not conn.expect_continuation_frame:
                # (what conn.send_text checks, and makes the same bytes, frame by frame)
                if conn.state is not State.OPEN:
                    return False
                self.transport.write(b"".join(map(frame, texts)))
                return True
            try:
                for text in texts:
                    conn.send_text(text.encode())
            except InvalidState:
                return False
            self.transport.write(b"".join(conn.data_to_send()))
            return True

        def write_now(self, texts: Iterable[str]) -> bool:
            """Write ``texts`` (one frame each) if the socket takes them now."""
            if self.disconnected or not self.writable.is_set() or not self._open():
                return False
            return self._frames(texts)

        async def send(self, message: Any) -> None:
            if message["type"] != SEND_MANY:
                await super().send(message)
                return
            await self.writable.wait()
            if self.disconnected:
                raise ClientDisconnected()
            if not self._open():
                raise RuntimeError(f"{SEND_MANY} needs an open WebSocket")
            if not self._frames(message["texts"]):
                raise ClientDisconnected()

    return BatchingWebSocketsProtocol
