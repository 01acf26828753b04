"""Where a client's messages go: a :class:`Route` — its table's actor, or in a cluster
the node that runs the table.  What a table's actor is told (its inputs: a client's
message, a disconnect, a timer, a bot's move, the stop) is in :mod:`.effects`."""

from __future__ import annotations

from typing import Protocol

from .effects import Input

__all__ = ["Route"]


class Route(Protocol):
    """Where a client's messages go: its table's actor (a
    :class:`~baohuang.server.table.tables.Table`), or, in a cluster, the node that runs
    the table (:class:`~baohuang.server.cluster.relay.RemoteRoute`)."""

    def post(self, item: Input) -> None: ...
