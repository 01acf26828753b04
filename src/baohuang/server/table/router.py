"""Where a table runs, as the lobby, the HTTP API and the WebSocket ask it: the
:class:`TableRouter`.

A server alone runs every table itself (:class:`~.lobby.LocalRouter`); a node of a
cluster runs the tables whose leases it holds and reaches the others through Redis
(:class:`~baohuang.server.cluster.router.ClusterRouter`).  Which one a server has is
chosen once, where the app is built (``transport/app.py``, from
``ServerConfig.redis_url``); nothing that asks a router tests which one it is.

What is asked of it:

- by the transport: :meth:`~TableRouter.local` (a table run here, at once: the path of
  every ``join`` of a table in this process), :meth:`~TableRouter.locate` (wherever
  it runs) and :meth:`~TableRouter.attach` (a connection's route to it), the lobby
  list (:meth:`~TableRouter.listing`), a table's TableState
  (:meth:`~TableRouter.detail`) and a new match (:meth:`~TableRouter.rematch`);
- by the lobby: a new table's fencing token (:meth:`~TableRouter.hold_new`), that it
  is there (:meth:`~TableRouter.announce`, :meth:`~TableRouter.adopt`), the tables
  restored at the start (:meth:`~TableRouter.start`) and the shutdown
  (:meth:`~TableRouter.close`).

>>> Elsewhere("node2#0a1b2c3d", "5f3a9c0d1e")
Elsewhere(node='node2#0a1b2c3d', table_id='5f3a9c0d1e')
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Final, Literal, Protocol, TypeAlias

from ..db.storage import UserRecord
from .inputs import Route
from .subscriber import Subscriber
from .tables import Table

__all__ = ["MOVING", "Elsewhere", "Located", "TableRouter", "rematch_answer"]


@dataclass(frozen=True, slots=True)
class Elsewhere:
    """A table that another node of the cluster runs: its node (incarnation) and id."""

    node: str
    table_id: str


#: a table being taken over by another node (nobody holds it yet, or its node is gone),
#: or whose place cannot be read now (Redis out of reach): ask again in a moment
MOVING: Final = "moving"

#: where a table is: run here, run on another node, moving, or no such table
Located: TypeAlias = Table | Elsewhere | Literal["moving"] | None


def rematch_answer(new: Table, user_id: int) -> dict[str, Any]:
    """The answer to ``POST /api/tables/{key}/rematch``: the new table, and the seat
    kept there for ``user_id`` (docs/protocol.md §2), on whichever node made it."""
    return {"id": new.id, "code": new.settings.code, "seat": new.seat_of(user_id),
            "table": new.table_json(None)}


class TableRouter(Protocol):
    """Where the tables run, for this server: itself alone, or a cluster's nodes."""

    @property
    def node(self) -> str | None:
        """This node's name in a cluster (``None``: a server alone), for the figures."""

    @property
    def leases(self) -> int:
        """How many table leases this server holds (0 alone), for the figures."""

    # -- asked by the transport --------------------------------------------------------

    def local(self, key: str) -> Table | None:
        """The table ``key`` (id or invitation code) if this process runs it."""

    async def locate(self, key: str, *, wait: float) -> Located:
        """Where the table ``key`` runs; a table being taken over is waited for up to
        ``wait`` seconds before ``MOVING`` is answered."""

    def attach(self, conn: Subscriber, current: Route | None,
               where: Table | Elsewhere) -> Route:
        """The route of ``conn`` to the table ``where`` (as :meth:`locate` found it);
        ``current``, the route it had, is told the client left when it is another."""

    async def listing(self, offset: int, limit: int) -> tuple[list[dict[str, Any]], int]:
        """One page of the lobby list (TableStates, the newest first) and how many
        there are in all."""

    async def detail(self, key: str) -> dict[str, Any] | None:
        """The TableState of the table ``key``, wherever it runs (``None``: no such
        table); raises ``LobbyError("table_moving")`` while it is being taken over."""

    async def rematch(self, key: str, user: UserRecord) -> dict[str, Any]:
        """The new match of the table ``key`` for ``user`` (:func:`rematch_answer`),
        made by the node that runs it; raises ``LobbyError`` (``not_found``,
        ``table_moving``, or the lobby's own refusals)."""

    # -- asked by the lobby ------------------------------------------------------------

    async def hold_new(self, table_id: str) -> int:
        """The fencing token of a table about to be made here (0 alone: nobody else
        writes its rows)."""

    async def announce(self, table: Table) -> None:
        """A new table is made here: known to the other nodes at once."""

    def adopt(self, table: Table) -> None:
        """A table made or rebuilt here joins the lobby: its changes are followed."""

    async def start(self) -> int:
        """Restore this server's share of the unfinished tables and keep doing so;
        how many were restored now."""

    async def close(self, stop_tables: Callable[[], Awaitable[None]]) -> None:
        """Shut down: ``stop_tables`` stops this server's tables' actors, then what
        is held for them is given up."""
