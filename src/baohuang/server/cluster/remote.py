"""The two ends of a client whose table runs on another node of the cluster, and the
numbering of the messages between them (the relay, :mod:`.relay`, carries them).

On the client's node a :class:`RemoteRoute` stands for the table: every message of
the client goes, as it came, to the table's node.  There a :class:`RemoteClient`
stands for the client: it is the table's
:class:`~baohuang.server.table.subscriber.Subscriber`, and what the table sends it goes
back to the client's node and out of the client's socket.

Pub/sub delivers at most once, in order, so every message between a route and its
remote client is numbered, each way from 1 (the route's first message is the
``o`` open, which names the user).  A number that is not the next one (Redis cut a
subscription, a publish failed) closes the client's socket with 1012; the client
reconnects and resyncs by version, as after any reconnect.  A message numbered 0
(a ``b`` bye after a gap) is never counted.
"""

from __future__ import annotations

import dataclasses
import itertools
import json
import logging
from typing import Any, Protocol

import msgspec

from ..db.storage import Storage, UserRecord
from ..table.effects import ClientInput, Disconnect, Input
from ..table.inputs import Route
from ..table.subscriber import Subscriber
from ..wire.protocol import (
    Join,
    ProtocolError,
    ServerMessage,
    decode_client,
    encode,
    error_message,
)

__all__ = ["RelayHost", "RemoteClient", "RemoteRoute", "Switchboard", "next_id"]

log = logging.getLogger("baohuang.server")
_ids = itertools.count(1)
_encoder = msgspec.json.Encoder()


def next_id() -> int:
    """A number no other route or request of this process has (routes and requests
    to other nodes are told apart by it)."""
    return next(_ids)


class RelayHost(Protocol):
    """What the relay needs of the lobby: its tables in memory, and the database."""

    @property
    def live(self) -> dict[str, Any]: ...

    @property
    def storage(self) -> Storage: ...

    def get(self, key: str) -> Any: ...

    async def rematch(self, table: Any, user: UserRecord) -> Any: ...


class Switchboard(Protocol):
    """What the two ends need of the relay: this node's name, the queue to another
    node's channel, where the ends are kept, and the lobby."""

    @property
    def node(self) -> str: ...
    @property
    def host(self) -> RelayHost: ...
    @property
    def routes(self) -> dict[int, RemoteRoute]: ...
    @property
    def clients(self) -> dict[tuple[str, int], RemoteClient]: ...

    def publish(self, node: str, payload: str) -> None:
        """Queue one message for ``node``'s channel."""


class RemoteRoute:
    """On a client's node: where the messages of a client go whose table runs on
    another node (the connection's ``route``)."""

    def __init__(self, relay: Switchboard, conn: Subscriber, node: str, table_id: str) -> None:
        self.relay = relay
        self.conn = conn
        self.node = node
        self.table_id = table_id
        self.id = next_id()
        self.sent = 0                   # messages to the table's node
        self.received = 0               # messages from it
        self.open = True

    def post(self, item: Input) -> None:
        if not self.open:
            return
        if isinstance(item, ClientInput):
            if self.sent == 0:
                user = self.conn.user
                self._send("o", "null" if user is None else
                           json.dumps(dataclasses.asdict(user)))
            self._send("i", _encoder.encode(item.msg).decode())
        elif isinstance(item, Disconnect):
            if self.sent:
                self._send("b", "")
            self.end()

    def _send(self, kind: str, payload: str) -> None:
        self.sent += 1
        self.relay.publish(self.node, f"{kind}|{self.relay.node}|{self.id}|{self.sent}|{payload}")

    def end(self) -> None:
        self.open = False
        self.relay.routes.pop(self.id, None)

    def deliver(self, kind: str, seq: int, payload: str) -> None:
        """A message from the table's node for this client."""
        conn = self.conn
        if kind == "c":
            code, _, reason = payload.partition("|")
            self.end()
            conn.close(int(code), reason)
            return
        self.received += 1
        if seq != self.received:
            log.info("cluster: messages from node %s to %r lost; closing it", self.node, conn)
            self.relay.publish(self.node, f"b|{self.relay.node}|{self.id}|0|")
            self.end()
            conn.close(1012, "messages between servers were lost; reconnect")
            return
        conn.send(payload)


class RemoteClient:
    """On a table's node: a client connected to another node (a table's
    :class:`~baohuang.server.table.subscriber.Subscriber`)."""

    def __init__(self, relay: Switchboard, node: str, route: int, user: UserRecord | None) -> None:
        self.relay = relay
        self.node = node
        self.route_id = route
        self.user = user
        self.table: object | None = None
        self.seat: int | None = None
        self.hints = False
        self.route: Route | None = None        # the local table its messages go to
        self.sent = 0
        self.received = 1                      # (the open)
        self.closed = False

    def __repr__(self) -> str:
        who = self.user.name if self.user else "anonymous"
        return f"<RemoteClient {self.node}/{self.route_id} {who} seat={self.seat}>"

    def send(self, text: str) -> None:
        if self.closed:
            return
        self.sent += 1
        self.relay.publish(self.node, f"t|{self.route_id}|{self.sent}|{text}")

    def send_message(self, message: ServerMessage) -> None:
        self.send(encode(message))

    def error(self, code: str, message: str, ref: str | None = None) -> None:
        self.send(encode(error_message(code, message, ref)))

    def close(self, code: int, reason: str) -> None:
        if self.closed:
            return
        self.closed = True
        self.sent += 1
        self.relay.publish(self.node, f"c|{self.route_id}|{self.sent}|{code}|{reason}")
        self.leave()              # (its node sends no bye for a route it was told to end)

    def leave(self) -> None:
        """The client is gone (its socket closed, or its node): its table hears of it."""
        self.relay.clients.pop((self.node, self.route_id), None)
        if self.route is not None:
            self.route.post(Disconnect(self))
            self.route = None

    def take(self, text: str) -> None:
        """One message of the client, as its node got it (checked there)."""
        try:
            msg = decode_client(text)
        except ProtocolError as exc:
            self.error(exc.code, exc.message)
            return
        if isinstance(msg, Join):
            table = self.relay.host.get(msg.table)
            if table is None:
                # its node found it here: this node has just lost it, or holds its lease
                # and is still rebuilding it — the client joins again in a moment
                self.error("table_moving", "the table is moving to another server; join "
                           "again in a moment", "join")
                return
            if self.route is not None and self.route is not table:
                self.route.post(Disconnect(self))
            self.route = table
            table.post(ClientInput(self, msg))
        elif self.route is None:
            self.error("not_joined", "send join first")
        else:
            self.route.post(ClientInput(self, msg))
