"""A cluster node's :class:`~baohuang.server.table.router.TableRouter`: the tables
this node holds the leases of run in its lobby; every other is found through Redis
(the directory and the leases) and reached through the relay (docs/cluster.md).

It is made, with the node's leases, :class:`~.member.Member` and
:class:`~.relay.Relay`, by :meth:`ClusterRouter.join` when the server is given a
Redis (``baohuang serve --redis URL``), once, where the app is built.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from ..db.storage import UserRecord
from ..table.inputs import Route
from ..table.lobby import Lobby, LobbyError, attach_here
from ..table.router import MOVING, Elsewhere, Located, rematch_answer
from ..table.subscriber import Subscriber
from ..table.tables import Table
from .lease import Leases
from .member import Member, incarnation, node_name
from .relay import Relay

__all__ = ["ClusterRouter"]

#: what a request about a table being taken over is told (``table_moving``)
_MOVING_TEXT = "is moving to another node: try again in a moment"


class ClusterRouter:
    """A node of a cluster: its ``member`` keeps the leases of the tables it runs and
    takes over those nobody holds; its ``relay`` carries its clients to the other
    nodes' tables and theirs to its own, and keeps its part of the directory."""

    def __init__(self, lobby: Lobby, member: Member, relay: Relay) -> None:
        self.lobby = lobby
        self.member = member
        self.relay = relay
        member.after_round = relay.round
        member.roster = relay.directory

    @classmethod
    def join(cls, lobby: Lobby) -> ClusterRouter:
        """The router of ``lobby``'s node, in the cluster of ``lobby.config.redis_url``
        (a :class:`~baohuang.server.table.lobby.Lobby`'s ``router``)."""
        config = lobby.config
        if config.redis_url is None:
            raise ValueError("a cluster node needs a Redis URL (redis_url)")
        leases = Leases.from_url(config.redis_url)
        # (this process: a node restarted under its name is a new member)
        node = incarnation(config.node or node_name())
        member = Member(lobby, lobby.storage, leases, node, config.lease_ttl, lobby.metrics)
        return cls(lobby, member, Relay(leases.redis, leases, lobby, node, config.lease_ttl))

    @property
    def node(self) -> str:
        return self.member.name

    @property
    def leases(self) -> int:
        return len(self.member.held)

    # -- asked by the transport --------------------------------------------------------

    def local(self, key: str) -> Table | None:
        return self.lobby.get(key)

    async def locate(self, key: str, *, wait: float) -> Located:
        return await self.relay.locate(key, wait)

    def attach(self, conn: Subscriber, current: Route | None,
               where: Table | Elsewhere) -> Route:
        if isinstance(where, Elsewhere):
            return self.relay.attach(conn, current, where.node, where.table_id)
        return attach_here(conn, current, where)

    async def listing(self, offset: int, limit: int) -> tuple[list[dict[str, Any]], int]:
        listed = await self.relay.listing()         # (every node's tables)
        return listed[offset:offset + limit], len(listed)

    async def detail(self, key: str) -> dict[str, Any] | None:
        table = self.lobby.get(key)
        if table is not None:
            return table.table_json(None)
        # (a table another node runs: an invitation link reaches any node)
        shown = await self.relay.entry(key)
        if shown is None and await self.relay.locate(key, wait=0) == MOVING:
            # (Redis lost track of a table the database has open, or its node is gone:
            # it is being taken over — as a join through the WebSocket is told)
            raise LobbyError("table_moving", f"table {key[:40]!r} {_MOVING_TEXT}")
        return shown

    async def rematch(self, key: str, user: UserRecord) -> dict[str, Any]:
        found = await self.relay.locate(key, wait=0)
        if isinstance(found, Elsewhere):         # (the table's node makes it)
            answer = await self.relay.rematch(found.node, found.table_id, user)
            if "error" in answer:
                code, message = answer["error"]
                raise LobbyError(code, message)
            return answer
        if found == MOVING:
            raise LobbyError("table_moving", f"table {key[:40]!r} {_MOVING_TEXT}")
        if found is None:
            raise LobbyError("not_found", f"no table {key[:40]!r}")
        return rematch_answer(await self.lobby.rematch(found, user), user.id)

    # -- asked by the lobby ------------------------------------------------------------

    async def hold_new(self, table_id: str) -> int:
        return await self.member.hold_new(table_id)

    async def announce(self, table: Table) -> None:
        await self.relay.announce(table)

    def adopt(self, table: Table) -> None:
        table.on_change = self.relay.touch        # (its entry in the directory)

    async def start(self) -> int:
        taken = await self.member.start()
        await self.relay.start()
        return taken

    async def close(self, stop_tables: Callable[[], Awaitable[None]]) -> None:
        async def stop_then_leave() -> None:
            await stop_tables()
            await self.relay.close()
        # (the leases given up once the tables have stopped and the relay has closed)
        await self.member.close(stop_then_leave)
