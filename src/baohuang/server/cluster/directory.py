"""The cluster's directory of tables in Redis: which node has which table, and its
lobby entry, so that every node lists every table and finds any table by id or code.

A node writes a table's entry into the hash ``{prefix}tables`` (the table's lobby
entry as ``GET /api/tables`` shows it, its node, when) and its short code into
``{prefix}codes`` when the table is new to it (made there, or taken over) and then
whenever what the lobby shows of it changes — a seat taken or left, a player
connected or gone, a watcher, 托管, the status: every time the table sends its state
to everyone at it — not every round: 20,000 quiet tables are not written again.  (A
move's deadline alone is no change: another node's copy of a playing table shows the
deadline of its last change.)  A node removes the entry of a table that left its
memory, only if the entry still names it (another node may hold the table now).

Each node (each incarnation of one: :func:`~.member.incarnation`) also says it is
alive: ``{prefix}alive:{node}``, renewed every round, lapses as the node's leases do —
the lease's time to live (``--lease-ttl``, :attr:`Directory.alive_ttl`) after its last
round; the lobby lists the entries of the nodes alive.  A node that finds its own key
gone when it renews it (Redis restarted without its data, or the node stalled for
three rounds) writes all its entries again.  And each says how many tables it runs, in
the hash ``{prefix}load``, so that the tables of a node that died are spread over the
others, the least-loaded first (:func:`~.member.spread`).

>>> over({"table": {"status": "finished"}}), over({"table": {"status": "playing"}})
(True, False)
"""

from __future__ import annotations

import json
import time
from typing import Any

from redis.asyncio import Redis

__all__ = ["Directory", "over"]

#: delete a directory entry only if this node wrote it (another may hold the table now)
_FORGET = """
local v = redis.call('HGET', KEYS[1], ARGV[1])
if v and cjson.decode(v)['node'] == ARGV[2] then
  redis.call('HDEL', KEYS[1], ARGV[1])
  redis.call('HDEL', KEYS[2], ARGV[3])
  return 1
end
return 0
"""

RUNNING = ("open", "playing")


def over(entry: dict[str, Any]) -> bool:
    """Whether a directory entry is of a table whose match is over."""
    return entry["table"].get("status") not in RUNNING


class Directory:
    """This node's part of the directory, and every node's to read."""

    def __init__(self, redis: Redis, node: str, ttl: float, prefix: str = "bh:") -> None:
        self.redis = redis
        self.node = node
        self.ttl = ttl
        self.tables_key = f"{prefix}tables"
        self.codes_key = f"{prefix}codes"
        self.alive_prefix = f"{prefix}alive:"
        self.load_key = f"{prefix}load"
        self._load: int | None = None               # as this node last said it
        self._forget = redis.register_script(_FORGET)
        self._written: dict[str, str] = {}          # table id -> code, written by this node

    def _entry(self, pipe: Any, table: Any, now: float, *, code: bool) -> None:
        entry = {"node": self.node, "at": now, "created": table.settings.created,
                 "listed": not table.settings.private, "table": table.table_json(None)}
        pipe.hset(self.tables_key, table.id, json.dumps(entry))
        if code:
            pipe.hset(self.codes_key, table.settings.code, table.id)
        self._written[table.id] = table.settings.code

    async def announce(self, table: Any) -> None:
        """Put a new table in the directory now (not at the next round)."""
        await self.update([table])

    async def update(self, tables: list[Any]) -> None:
        """Write the entries of ``tables`` now: what the lobby shows of them changed."""
        now = time.time()
        pipe = self.redis.pipeline(transaction=False)
        for table in tables:
            self._entry(pipe, table, now, code=table.id not in self._written)
        await pipe.execute()

    async def write(self, tables: list[Any]) -> int:
        """The round: this node is alive; of ``tables`` (those in its memory, finished
        ones too) the entries of those new to it are written — of every one if this
        node's alive key had lapsed —; entries of tables that left it are removed.
        Returns how many entries it wrote."""
        now = time.time()
        was = await self.redis.set(self.alive_prefix + self.node, "1",
                                   px=max(1, round(self.alive_ttl * 1000)), get=True)
        every = was is None
        pipe = self.redis.pipeline(transaction=False)
        gone = dict(self._written)
        written = 0
        for table in tables:
            new = gone.pop(table.id, None) is None
            if new or every:
                self._entry(pipe, table, now, code=True)
                written += 1
        if every and self._load is not None:       # (its load, struck off meanwhile)
            pipe.hset(self.load_key, self.node, str(self._load))
        if written or (every and self._load is not None):
            await pipe.execute()
        for table_id, code in gone.items():
            await self._forget(keys=[self.tables_key, self.codes_key],
                               args=[table_id, self.node, code])
            self._written.pop(table_id, None)
        return written

    @property
    def alive_ttl(self) -> float:
        """How long this node's alive key lasts unrenewed (seconds): as long as its
        leases, the lease's time to live — three rounds, so that two slow ones do not
        make a node that runs its tables look gone (docs/cluster.md)."""
        return self.ttl

    async def leave(self) -> None:
        """This node stops: it is not alive any more."""
        pipe = self.redis.pipeline(transaction=False)
        pipe.delete(self.alive_prefix + self.node)
        pipe.hdel(self.load_key, self.node)
        await pipe.execute()

    async def report(self, load: int) -> None:
        """This node runs ``load`` tables now (written when it changed: a quiet node
        writes nothing; again by :meth:`write` if its alive key had lapsed)."""
        if load != self._load:
            await self.redis.hset(self.load_key, self.node, str(load))
            self._load = load

    async def loads(self) -> dict[str, int]:
        """The nodes alive and how many tables each said it runs (the nodes gone are
        struck off)."""
        raw: Any = await self.redis.hgetall(self.load_key)
        nodes = sorted(raw)
        if not nodes:
            return {}
        here = await self.alive(*nodes)
        gone = [node for node, alive in zip(nodes, here, strict=True) if not alive]
        if gone:
            await self.redis.hdel(self.load_key, *gone)
        return {node: int(raw[node]) for node, alive in zip(nodes, here, strict=True)
                if alive}

    async def alive(self, *nodes: str) -> list[bool]:
        """Whether each of ``nodes`` is alive."""
        pipe = self.redis.pipeline(transaction=False)
        for node in nodes:
            pipe.exists(self.alive_prefix + node)
        return [bool(here) for here in await pipe.execute()]

    async def find(self, key: str) -> tuple[str, dict[str, Any] | None]:
        """The table id of ``key`` (an id or a code) and its entry, if any."""
        text: Any = await self.redis.hget(self.tables_key, key)
        if text is None:
            code: Any = await self.redis.hget(self.codes_key, key.strip().upper())
            if code is not None:
                key = str(code)
                text = await self.redis.hget(self.tables_key, key)
        return key, None if text is None else json.loads(text)

    async def listing(self, local: list[Any]) -> list[dict[str, Any]]:
        """The lobby list of the whole cluster (newest first): this node's tables
        (``local``) as they are, the others' as their nodes last wrote them (at their
        last change), of the nodes alive."""
        entries: dict[str, tuple[float, dict[str, Any]]] = {}
        raw: Any = await self.redis.hgetall(self.tables_key)
        shown = {table_id: entry for table_id, entry in
                 ((table_id, json.loads(text)) for table_id, text in raw.items())
                 if entry["listed"] and not over(entry)}
        nodes = sorted({entry["node"] for entry in shown.values()})
        alive = dict(zip(nodes, await self.alive(*nodes), strict=True)) if nodes else {}
        for table_id, entry in shown.items():
            if alive.get(entry["node"]):
                entries[table_id] = (entry["created"], entry["table"])
        for table in local:
            entries.pop(table.id, None)
            if table.status in RUNNING and not table.settings.private:
                entries[table.id] = (table.settings.created, table.table_json(None))
        return [t for _, t in sorted(entries.values(), key=lambda e: -e[0])]
