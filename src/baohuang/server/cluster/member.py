"""A node of a cluster: it runs the actors of the tables whose leases it holds, and
takes over the tables of a node that is gone.

The node's router (:class:`~.router.ClusterRouter`) makes one, for its lobby
(:class:`~baohuang.server.table.lobby.Lobby`), when the server is given a Redis
(``baohuang serve --redis URL``).  Then:

- the node is known in the cluster by its **incarnation** (:func:`incarnation`): its
  name and a random part drawn when the process starts, so that a node restarted
  under its own name is a new member — the leases, routes and messages of the process
  that died are never taken for its own;
- a new table's lease is taken before its actor starts (:meth:`Member.hold_new`);
- at start, and every third of the lease's time to live after, the node renews its
  leases, lets go of the tables that are over, stops the actor of a table whose lease
  it lost (another node runs it now), and takes its share of the unfinished tables
  that nobody holds (:func:`spread`: each goes to the least-loaded node alive, so a
  dead node's tables are spread over the others; one left by its node for two rounds
  is anybody's): with the lease it claims the table in storage with the lease's
  fencing token, then rebuilds it from the stored actions, as after a restart;
- when the node shuts down (SIGTERM) its actors stop and it gives their leases up, so
  other nodes take them at once instead of after the time to live.

A node that stops without a word (kill -9) loses its leases when they lapse; a node
that only seems gone — paused, cut off — and comes back finds its leases taken and
its writes refused (:class:`~baohuang.server.db.storage.FencedWrite`).
"""

from __future__ import annotations

import asyncio
import contextlib
import heapq
import logging
import secrets
import socket
import time
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, Protocol

from ..db.storage import Storage
from ..metrics import ServerMetrics
from .lease import Lease, Leases

__all__ = ["Member", "Roster", "TableHost", "incarnation", "name_of", "node_name", "spread"]

log = logging.getLogger("baohuang.server")


def node_name() -> str:
    """A name for a node nobody named: the host and a random part."""
    return f"{socket.gethostname()}-{secrets.token_hex(3)}"


def incarnation(name: str) -> str:
    """This process's identity in the cluster: the node's ``name`` and a random part
    (from :mod:`secrets`) drawn at every start.  Its leases, its Redis channel, its
    alive key and the routes of its clients carry it, so what was meant for a process
    that died never reaches the one started after it under the same name.

    >>> one, again = incarnation("node1"), incarnation("node1")
    >>> name_of(one), one != again
    ('node1', True)
    """
    if "#" in name or "|" in name:
        raise ValueError(f"a node's name may not hold '#' or '|': {name!r}")
    return f"{name}#{secrets.token_hex(4)}"


def name_of(identity: str) -> str:
    """The node's name in an incarnation (:func:`incarnation`).

    >>> name_of("node1#0a1b2c3d"), name_of("node1")
    ('node1', 'node1')
    """
    return identity.partition("#")[0]


def spread(tables: Sequence[str], loads: dict[str, int]) -> dict[str, str]:
    """Which node takes each of ``tables`` (nobody holds them): one by one, in order,
    each to the node with the fewest tables then (``loads``: the nodes alive and how
    many tables each runs; a tie goes to the first name).  Every node works it out
    from what it reads in Redis and takes its own share.

    >>> spread(["a", "b", "c", "d"], {"n2#1": 2, "n3#1": 0})
    {'a': 'n3#1', 'b': 'n3#1', 'c': 'n2#1', 'd': 'n3#1'}
    """
    heap = [(load, node) for node, load in loads.items()]
    heapq.heapify(heap)
    taken: dict[str, str] = {}
    for table in tables:
        load, node = heapq.heappop(heap)
        taken[table] = node
        heapq.heappush(heap, (load + 1, node))
    return taken


class Roster(Protocol):
    """Where the nodes alive say how many tables they run (the directory)."""

    async def loads(self) -> dict[str, int]:
        """The nodes alive and how many tables each runs."""

    async def report(self, load: int) -> None:
        """This node runs ``load`` tables now."""


class TableHost(Protocol):
    """What a member needs of the lobby (the tables in memory)."""

    @property
    def live(self) -> dict[str, Any]: ...

    async def restore_row(self, row: dict[str, Any]) -> bool: ...

    async def drop(self, table_id: str) -> None: ...


class Member:
    """This node's leases, kept alive, and the tables it takes over."""

    def __init__(self, host: TableHost, storage: Storage, leases: Leases, node: str,
                 ttl: float, metrics: ServerMetrics | None = None) -> None:
        self.host = host
        self.storage = storage
        self.leases = leases
        self.node = node
        #: the name the node was given (its incarnation without the random part)
        self.name = name_of(node)
        #: counts the tables this node takes over (by its name: the same series after a
        #: restart)
        self.takeovers = (metrics or ServerMetrics()).takeovers.labels(self.name)
        self.ttl = ttl
        self.held: dict[str, Lease] = {}
        #: tables whose lease :meth:`hold_new` took and which the lobby has not added yet
        #: (a round meanwhile must not give their leases up)
        self._creating: set[str] = set()
        self._loop: asyncio.Task[None] | None = None
        #: called after each round (the relay's round: the directory, gone nodes)
        self.after_round: Callable[[], Awaitable[None]] | None = None
        #: the loads of the nodes alive (None: this node takes every table nobody holds)
        self.roster: Roster | None = None
        #: tables nobody holds and since when this node has seen them so (monotonic)
        self._orphans: dict[str, float] = {}

    async def hold_new(self, table_id: str) -> int:
        """Take the lease of a table about to be made here, before it is stored (so no
        other node takes it for one nobody holds); the fencing token to store it with."""
        lease = await self.leases.acquire(table_id, self.node, self.ttl)
        if lease is None:
            raise RuntimeError(f"table {table_id}: its lease is held elsewhere")
        self.held[table_id] = lease
        self.storage.fences[table_id] = lease.token
        self._creating.add(table_id)
        return lease.token

    async def _take(self, table_id: str) -> bool:
        lease = await self.leases.acquire(table_id, self.node, self.ttl)
        if lease is None:
            return False
        if not await self.storage.claim_table(table_id, lease.token):
            # the database holds a newer token: Redis lost its counters (a restart
            # without its data); count on from the database's, and try again next round
            await self.leases.release(lease)
            await self.leases.advance(table_id, await self.storage.table_fence(table_id))
            return False
        self.held[table_id] = lease
        return True

    async def start(self) -> int:
        """Take what nobody holds, then keep at it; how many tables were taken."""
        taken = await self.tick()
        self._loop = asyncio.get_running_loop().create_task(self._run(), name="cluster")
        return taken

    async def _run(self) -> None:
        while True:
            await asyncio.sleep(self.ttl / 3)
            try:
                await self.tick()
            except Exception:       # Redis or the database out of reach: try again
                log.exception("cluster: node %s could not renew or take tables", self.node)
            if self.after_round is not None:
                try:
                    await self.after_round()
                except Exception:
                    log.exception("cluster: node %s could not update the directory",
                                  self.node)

    async def tick(self) -> int:
        """Renew, let go, and take over once; how many tables were taken."""
        live = self.host.live
        for table_id, lease in list(self.held.items()):
            table = live.get(table_id)
            if table is None and table_id in self._creating:
                continue                          # (being stored; its lease is fresh)
            self._creating.discard(table_id)
            if table is None or table.status not in ("open", "playing"):
                await self._let_go(table_id, lease)
            elif not await self.leases.renew(lease, self.ttl):
                log.warning("cluster: node %s lost table %s; stopping it", self.node, table_id)
                self._forget(table_id)
                await self.host.drop(table_id)
        orphans = []
        for row in await self.storage.unfinished_tables():
            table_id = row["id"]
            if table_id in self.held or table_id in self.host.live:
                continue
            if await self.leases.holder(table_id) is None:
                orphans.append(row)
        # the leases of this node's share first, and its load told, so that the nodes
        # that look next count them; then the tables are rebuilt
        for row in await self._share(orphans):
            await self._take(row["id"])
        if self.roster is not None:
            await self.roster.report(len(self.held))
        restored = 0
        for row in orphans:
            table_id = row["id"]
            taken = self.held.get(table_id)
            if taken is None or table_id in self.host.live:
                continue
            try:
                ok = await self.host.restore_row(row)
            except Exception:
                log.exception("cluster: table %s could not be taken over", table_id)
                ok = False
            if ok:
                log.info("cluster: node %s took table %s over", self.node, table_id)
                self.takeovers.inc()
                restored += 1
            else:
                await self._let_go(table_id, taken)
        return restored

    async def _share(self, orphans: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """Which of the tables nobody holds this node takes now: those :func:`spread`
        gives it, given the loads of the nodes alive, and every one that has been
        nobody's for two rounds (its node did not take it: stalled, or gone)."""
        now = time.monotonic()
        self._orphans = {row["id"]: self._orphans.get(row["id"], now) for row in orphans}
        if self.roster is None or not orphans:
            return orphans
        left = [row for row in orphans if now - self._orphans[row["id"]] >= 2 * self.ttl / 3]
        fresh = [row for row in orphans if now - self._orphans[row["id"]] < 2 * self.ttl / 3]
        loads = await self.roster.loads()
        loads[self.node] = len(self.held)
        given = spread([row["id"] for row in fresh], loads)
        return left + [row for row in fresh if given[row["id"]] == self.node]

    def _forget(self, table_id: str) -> None:
        self.held.pop(table_id, None)
        self.storage.fences.pop(table_id, None)

    async def _let_go(self, table_id: str, lease: Lease) -> None:
        self._forget(table_id)
        await self.leases.release(lease)

    async def close(self, stop_tables: Callable[[], Awaitable[None]] | None = None) -> None:
        """Stop keeping leases; the tables' actors stopped (``stop_tables``), give the
        leases up for other nodes to take at once."""
        if self._loop is not None:
            self._loop.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._loop
        if stop_tables is not None:
            await stop_tables()
        for table_id, lease in list(self.held.items()):
            with contextlib.suppress(Exception):
                await self._let_go(table_id, lease)
        await self.leases.close()
