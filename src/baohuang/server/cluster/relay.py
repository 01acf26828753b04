"""Messages between the nodes of a cluster, over Redis pub/sub: a client connected to
any node reaches any table.

Each node subscribes to its own channel, ``{prefix}node:{node}``, named after its
incarnation (its name and a random part drawn at the process's start,
:func:`~.member.incarnation`): a node restarted under its own name hears nothing
meant for the process that died, and what is published to that one is heard by
nobody.  When a client of node A joins a table whose actor runs on node B (B holds
its lease), A gives the connection a :class:`RemoteRoute`: every message of the
client goes, as it came, to B's channel, and B hands it to the table through a
:class:`RemoteClient` — the table's
:class:`~baohuang.server.table.subscriber.Subscriber` for that client, whose messages
go back to A's channel and out of the client's socket.  Watchers are clients like
the players.

Pub/sub delivers at most once, in order.  Every message between a route and its
remote client is numbered (each way; the two ends and their numbering are
:mod:`.remote`): a gap closes the client's socket with 1012, and the client
reconnects and resyncs by version, as after any reconnect.  A publish that no node
heard (``PUBLISH`` answers how many subscribers got it: the other node is
subscribing again after Redis went away, or gone) does the same at once for every
client between the two nodes, and so does a node for all its cross-node clients
when it has subscribed again (what was published to it meanwhile is lost) — so a
first message (a ``join``, or the table's answer to it) is never lost without a
trace.  A node that dies stops renewing its ``{prefix}alive:{node}`` key:
the tables of the other nodes then let its clients go (as disconnects), and the
nodes of its tables' clients, seeing another holder or none, close those clients'
sockets (1012) so that they reconnect.

The relay also keeps this node's part of the cluster's directory of tables
(:mod:`.directory`), so that every node lists every table, resolves an invitation
code of any table, and finds a finished table on the node that keeps it.

A message is one string, ``kind|…|payload``: from a client's node ``o|node|route|1|user``
(open), ``i|node|route|n|message``, ``b|node|route|n|`` (bye); from a table's node
``t|route|n|text`` and ``c|route|n|code|reason`` (close); a request to a table's node
``q|node|id|0|json`` and its answer ``a|id|0|json`` (a new match asked for on another
node than the finished table's).  Node names hold no ``|``.
What a node queues for another while it is publishing goes out as one publish (the
messages joined by the control character RS, which JSON never holds unescaped): the
five updates of a move for five players on one node are one Redis message.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import json
import logging
import time
from collections import defaultdict
from typing import Any

from redis.asyncio import Redis
from redis.exceptions import RedisError
from sqlalchemy.exc import SQLAlchemyError

from ..db.storage import UserRecord
from ..table.effects import Disconnect
from ..table.inputs import Route
from ..table.router import MOVING, Elsewhere, Located, rematch_answer
from ..table.subscriber import Subscriber
from .directory import Directory, over
from .lease import Leases
from .remote import RelayHost, RemoteClient, RemoteRoute, next_id

__all__ = ["Relay", "RelayHost", "RemoteClient", "RemoteRoute"]

log = logging.getLogger("baohuang.server")
_RS = "\x1e"          # between the messages of one publish

class Relay:
    """This node's channel in Redis, its clients' routes to other nodes, the clients
    of other nodes at its tables, and its part of the directory of tables."""

    def __init__(self, redis: Redis, leases: Leases, host: RelayHost, node: str, ttl: float,
                 prefix: str = "bh:") -> None:
        if "|" in node:
            raise ValueError(f"a node's name may not hold '|': {node!r}")
        self.redis = redis
        self.leases = leases
        self.host = host
        self.node = node
        self.ttl = ttl
        self.prefix = prefix
        self.channel = self.channel_of(node)
        #: this node's clients whose tables run elsewhere, by route id
        self.routes: dict[int, RemoteRoute] = {}
        #: other nodes' clients at this node's tables, by (node, route id)
        self.clients: dict[tuple[str, int], RemoteClient] = {}
        self._outbox: list[tuple[str, str]] = []
        self._ready = asyncio.Event()
        self._tasks: list[asyncio.Task[None]] = []
        self._subscribed = asyncio.Event()
        self.directory = Directory(redis, node, ttl, prefix)
        #: requests to other nodes awaiting their answers, and this node's answering
        self._calls: dict[int, asyncio.Future[dict[str, Any]]] = {}
        self._answering: set[asyncio.Task[None]] = set()
        #: this node's tables whose lobby entries changed since they were last written
        self._changed: dict[str, Any] = {}
        self._change = asyncio.Event()

    def channel_of(self, node: str) -> str:
        return f"{self.prefix}node:{node}"

    # -- the channel -------------------------------------------------------------

    async def start(self) -> None:
        """Subscribe to this node's channel and start sending; the directory written."""
        loop = asyncio.get_running_loop()
        self._tasks = [loop.create_task(self._read(), name="relay-read"),
                       loop.create_task(self._write(), name="relay-write"),
                       loop.create_task(self._entries(), name="relay-entries")]
        await asyncio.wait_for(self._subscribed.wait(), 30)
        await self.round()

    async def close(self) -> None:
        """This node's tables have stopped: their other nodes' clients reconnect (to
        whichever node takes them), then the channel closes."""
        for client in list(self.clients.values()):
            client.close(1012, "the server is restarting; reconnect")
        self.clients.clear()
        for _ in range(50):                     # (what is queued goes out first)
            if not self._outbox or not self._tasks or self._tasks[1].done():
                break
            await asyncio.sleep(0.02)
        for task in self._tasks:
            task.cancel()
        for task in self._tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        with contextlib.suppress(Exception):
            await self.directory.leave()

    def publish(self, node: str, payload: str) -> None:
        """Queue one message for ``node`` (one task sends them in order)."""
        self._outbox.append((self.channel_of(node), payload))
        self._ready.set()

    async def _write(self) -> None:
        while True:
            await self._ready.wait()
            self._ready.clear()
            while self._outbox:
                batch, self._outbox = self._outbox, []
                # one publish a node: what queued for it meanwhile, in order, joined
                # by RS (JSON and our headers never hold a raw control character)
                by_channel: dict[str, list[str]] = {}
                for channel, payload in batch:
                    by_channel.setdefault(channel, []).append(payload)
                try:
                    if len(by_channel) == 1:
                        [(channel, payloads)] = by_channel.items()
                        heard = [await self.redis.publish(channel, _RS.join(payloads))]
                    else:
                        pipe = self.redis.pipeline(transaction=False)
                        for channel, payloads in by_channel.items():
                            pipe.publish(channel, _RS.join(payloads))
                        heard = await pipe.execute()
                    for channel, listeners in zip(by_channel, heard, strict=True):
                        if not listeners:
                            self._unheard(channel[len(self.channel_of("")):])
                except Exception:
                    log.exception("cluster: node %s could not publish; closing its "
                                  "cross-node clients", self.node)
                    self._break()

    async def _read(self) -> None:
        while True:
            pubsub = self.redis.pubsub()
            try:
                await pubsub.subscribe(self.channel)
                while True:
                    message = await pubsub.get_message(timeout=1.0)
                    if message is None:
                        continue
                    if message.get("type") == "subscribe":
                        self._on_subscribed()
                    elif message.get("type") == "message":
                        for text in str(message["data"]).split(_RS):
                            try:
                                self.dispatch(text)
                            except Exception:      # (one bad message is only that)
                                log.exception("cluster: node %s cannot handle %r",
                                              self.node, text[:80])
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("cluster: node %s lost its channel; closing its cross-node "
                              "clients", self.node)
                self._break()
                await asyncio.sleep(min(1.0, self.ttl / 3))
            finally:
                with contextlib.suppress(Exception):
                    await pubsub.aclose()

    def _on_subscribed(self) -> None:
        """Redis confirmed this node's subscription to its channel.  Any confirmation
        after the first is a subscription made again (Redis went away, or the
        connection did and was made again): what other nodes published here meanwhile
        is lost — the answer to a client that joined again through this node while it
        was away, say, which would leave that client waiting for ever — so every
        cross-node client reconnects once more."""
        if not self._subscribed.is_set():
            self._subscribed.set()
            return
        log.info("cluster: node %s has its channel again; its cross-node clients "
                 "reconnect", self.node)
        self._break()

    def _unheard(self, node: str) -> None:
        """Nobody listened on ``node``'s channel (it is resubscribing after Redis went
        away, or gone): what was published is lost, so the clients between this node
        and that one reconnect."""
        for route in list(self.routes.values()):
            if route.node == node:
                route.end()
                route.conn.close(1012, "messages between servers were lost; reconnect")
        for key, client in list(self.clients.items()):
            if key[0] == node:
                client.closed = True
                client.leave()

    def _break(self) -> None:
        """Messages may have been lost: every cross-node client reconnects (the other
        node told so, if Redis takes it: it may have missed nothing)."""
        for route in list(self.routes.values()):
            self.publish(route.node, f"b|{self.node}|{route.id}|0|")
            route.end()
            route.conn.close(1012, "messages between servers were lost; reconnect")
        for client in list(self.clients.values()):
            client.close(1012, "messages between servers were lost; reconnect")

    def dispatch(self, text: str) -> None:
        """One message from another node."""
        kind = text[:1]
        if kind == "a":
            _, call_id, _, payload = text.split("|", 3)
            future = self._calls.pop(int(call_id), None)
            if future is not None and not future.done():
                future.set_result(json.loads(payload))
            return
        if kind in "tc":
            _, route_id, number, payload = text.split("|", 3)
            route = self.routes.get(int(route_id))
            if route is not None:
                route.deliver(kind, int(number), payload)
            return
        _, node, route_text, seq_text, payload = text.split("|", 4)
        key, seq = (node, int(route_text)), int(seq_text)
        if kind == "q":
            task = asyncio.get_running_loop().create_task(
                self._answer(node, key[1], json.loads(payload)))
            self._answering.add(task)
            task.add_done_callback(self._answering.discard)
            return
        if kind == "o":
            data = json.loads(payload)
            earlier = self.clients.get(key)
            if earlier is not None:            # (never within one incarnation: gone)
                earlier.closed = True
                earlier.leave()
            self.clients[key] = RemoteClient(self, node, key[1],
                                             None if data is None else UserRecord(**data))
            return
        client = self.clients.get(key)
        if client is None:
            if kind == "i":             # (forgotten: its node's messages were lost)
                self.publish(node, f"c|{key[1]}|0|1012|reconnect")
            return
        if kind == "b":
            client.closed = True
            client.leave()
            return
        client.received += 1
        if seq != client.received:
            client.close(1012, "messages between servers were lost; reconnect")
            return
        client.take(payload)

    # -- requests to the node of a table -------------------------------------------------

    async def rematch(self, node: str, table_id: str, user: UserRecord) -> dict[str, Any]:
        """Ask ``node``, which runs ``table_id``, for the table's new match for ``user``
        (``POST /api/tables/{key}/rematch`` reached another node): the new table's
        answer, or ``{"error": [code, message]}``."""
        call_id = next_id()
        future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self._calls[call_id] = future
        request = {"op": "rematch", "table": table_id, "user": dataclasses.asdict(user)}
        self.publish(node, f"q|{self.node}|{call_id}|0|{json.dumps(request)}")
        try:
            return await asyncio.wait_for(future, 10)
        except TimeoutError:
            return {"error": ["table_moving", "the table's server did not answer; "
                              "try again in a moment"]}
        finally:
            self._calls.pop(call_id, None)

    async def _answer(self, node: str, call_id: int, request: dict[str, Any]) -> None:
        answer: dict[str, Any]
        table = self.host.get(str(request.get("table", "")))
        if request.get("op") != "rematch":
            answer = {"error": ["bad_request", "unknown request"]}
        elif table is None:
            answer = {"error": ["not_found", "the table is not on this server"]}
        else:
            user = UserRecord(**request["user"])
            try:
                new = await self.host.rematch(table, user)
            except ValueError as exc:              # (LobbyError: code and message)
                answer = {"error": [getattr(exc, "code", "bad_request"),
                                    getattr(exc, "message", str(exc))]}
            else:
                answer = rematch_answer(new, user.id)
        self.publish(node, f"a|{call_id}|0|{json.dumps(answer)}")

    # -- finding a table -----------------------------------------------------------

    async def locate(self, key: str, wait: float) -> Located:
        """Where the table ``key`` (id or code) runs: the local table, or another
        node's (:class:`Elsewhere`); ``MOVING`` while a table is being taken over —
        nobody holds it yet, or a node gone does, or Redis lost track of it but the
        database has it unfinished — (waited for up to ``wait`` seconds), or while
        Redis is out of reach; None for no such table."""
        try:
            return await self._locate(key, wait)
        except (RedisError, OSError) as exc:
            log.warning("cluster: node %s cannot find table %r: Redis out of reach (%s)",
                        self.node, key[:40], exc)
            table: Located = self.host.get(key)
            return table or MOVING

    async def _locate(self, key: str, wait: float) -> Located:
        deadline = time.monotonic() + wait
        stored: str | None = None           # (the database's id of an unknown key)
        while True:
            table: Located = self.host.get(key)
            if table is not None:
                return table
            table_id, entry = await self.directory.find(stored or key)
            holder = await self.leases.holder(table_id)
            if holder is not None and holder.node != self.node and \
                    (await self.directory.alive(holder.node))[0]:
                return Elsewhere(holder.node, table_id)
            if holder is None and entry is not None and over(entry):
                # a finished table is held by nobody: it stays on its node (while that
                # keeps it in memory) for its last messages and its new match
                alive = entry["node"] != self.node and (await self.directory.alive(
                    entry["node"]))[0]
                return Elsewhere(entry["node"], table_id) if alive else None
            if holder is None and entry is None and stored is None:
                # Redis knows nothing of it (restarted without its data, say): a table
                # the database has unfinished is taken over soon
                try:
                    stored = await self.host.storage.unfinished_table(key)
                except SQLAlchemyError:          # (the database out of reach: unknown)
                    log.warning("cluster: node %s cannot look table %r up: the database "
                                "is out of reach", self.node, key[:40])
                    return MOVING
                if stored is None:
                    return None
            if time.monotonic() >= deadline:
                return MOVING
            await asyncio.sleep(0.2)

    def attach(self, conn: Subscriber, current: Route | None, node: str,
               table_id: str) -> RemoteRoute:
        """The route of ``conn`` to a table on ``node`` (its route there, if it has
        one: the table's node moves it between its tables)."""
        if isinstance(current, RemoteRoute) and current.open and current.node == node:
            current.table_id = table_id
            return current
        if current is not None:
            current.post(Disconnect(conn))
        route = RemoteRoute(self, conn, node, table_id)
        self.routes[route.id] = route
        return route

    # -- every round ---------------------------------------------------------------

    async def round(self) -> None:
        """This node is alive; its new tables in the directory (the others' entries are
        written as they change, :meth:`touch`); clients whose node is gone let go;
        clients whose table moved sent to reconnect."""
        await self.directory.write(list(self.host.live.values()))
        nodes = sorted({node for node, _ in self.clients})
        for node, here in zip(nodes, await self.directory.alive(*nodes), strict=True):
            if not here:
                log.info("cluster: node %s is gone; its clients leave", node)
                for key, client in list(self.clients.items()):
                    if key[0] == node:
                        client.closed = True
                        client.leave()
        by_table: dict[str, list[RemoteRoute]] = defaultdict(list)
        for route in self.routes.values():
            by_table[route.table_id].append(route)
        for table_id, routes in by_table.items():
            holder = await self.leases.holder(table_id)
            where: str | None = None if holder is None else holder.node
            if holder is None:          # (a finished table stays where it is)
                _, entry = await self.directory.find(table_id)
                if entry is not None and over(entry) \
                        and (await self.directory.alive(entry["node"]))[0]:
                    where = entry["node"]
            for route in routes:
                if where != route.node:
                    route.end()
                    route.conn.close(1012, "the table moved to another server; reconnect")

    # -- the directory (docs/cluster.md) ----------------------------------------------

    def touch(self, table: Any) -> None:
        """What the lobby shows of ``table`` changed (its ``on_change``): its entry is
        written soon, with every other change meanwhile in one pipeline."""
        self._changed[table.id] = table
        self._change.set()

    async def _entries(self) -> None:
        while True:
            await self._change.wait()
            self._change.clear()
            changed, self._changed = self._changed, {}
            live = self.host.live
            # (a table that left this node meanwhile is the round's to forget)
            tables: list[Any] = [table for table_id, table in changed.items()
                                 if live.get(table_id) is table]
            if not tables:
                continue
            try:
                await self.directory.update(tables)
            except Exception:
                log.warning("cluster: node %s could not write %d directory entries; "
                            "trying again", self.node, len(tables), exc_info=True)
                for again in tables:
                    self._changed.setdefault(again.id, again)
                self._change.set()
                await asyncio.sleep(min(1.0, self.ttl / 3))

    async def announce(self, table: Any) -> None:
        """Put a new table in the directory now (not at the next round)."""
        await self.directory.announce(table)

    async def listing(self) -> list[dict[str, Any]]:
        """The lobby list of the whole cluster (:meth:`Directory.listing`)."""
        return await self.directory.listing(list(self.host.live.values()))

    async def entry(self, key: str) -> dict[str, Any] | None:
        """A table's lobby entry by id or code, whichever node runs it."""
        _, entry = await self.directory.find(key)
        return None if entry is None else dict(entry["table"])
