"""A client at a table, as the table actor sees it: something that takes messages
(one a move) and can be closed.  The WebSocket connection of the transport
is one; the table actor imports no transport.

>>> class Recorder:
...     def __init__(self) -> None:
...         self.user, self.table, self.seat, self.sent = None, None, None, []
...     def send(self, text: str) -> None: self.sent.append(text)
...     def send_message(self, message: ServerMessage) -> None: self.send(str(message))
...     def error(self, code: str, message: str, ref: str | None = None) -> None: ...
...     def close(self, code: int, reason: str) -> None: ...
>>> subscriber: Subscriber = Recorder()
>>> subscriber.send("one"); subscriber.send("two"); subscriber.sent
['one', 'two']
"""

from __future__ import annotations

from typing import Protocol

from ..db.storage import UserRecord
from ..wire.protocol import ServerMessage

__all__ = ["Subscriber"]


class Subscriber(Protocol):
    """A connection at (or joining) a table.  ``table`` and ``seat`` are set by the
    table that admitted it: the table (as an opaque handle) and the seat index, or
    ``None`` for a watcher."""

    user: UserRecord | None
    table: object | None
    seat: int | None
    hints: bool                 # it asked for the hint order (``join``'s ``hints``)

    def send(self, text: str) -> None:
        """Send one message (queued: a table never waits for a client)."""

    def send_message(self, message: ServerMessage) -> None:
        """Send one message (docs/protocol.md §4.2), encoded."""

    def error(self, code: str, message: str, ref: str | None = None) -> None:
        """Refuse a message of this client (docs/protocol.md ``error``)."""

    def close(self, code: int, reason: str) -> None:
        """Close the connection with a WebSocket close code and a reason."""
