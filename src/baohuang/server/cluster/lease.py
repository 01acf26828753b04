"""Leases on tables in Redis: a table's actor runs on the one node that holds its
lease.

A lease is the key ``{prefix}lease:{table}``, whose value names the node and the
lease's fencing token and which Redis deletes when its time to live runs out.  The
token comes from ``{prefix}fence:{table}``, a counter that only grows (``INCR``):
each new holder of a table gets a larger one than every holder before.  The node
hands it to :meth:`~baohuang.server.db.storage.Storage.claim_table`, and every action
it stores carries it, so a node whose lease lapsed — stopped, cut off, paused longer
than the time to live — can never write the table again, whatever it believes.

Taking, renewing and giving up a lease are each one Lua script, so Redis does each
at once: a lease is renewed or released only by its holder, with its token.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from redis.asyncio import BlockingConnectionPool, Redis

__all__ = ["Lease", "Leases"]

_ACQUIRE = """
if redis.call('EXISTS', KEYS[1]) == 1 then
  return false
end
local token = redis.call('INCR', KEYS[2])
redis.call('SET', KEYS[1], ARGV[1] .. ' ' .. token, 'PX', ARGV[2])
return token
"""

_RENEW = """
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('PEXPIRE', KEYS[1], ARGV[2])
end
return 0
"""

_ADVANCE = """
local now = tonumber(redis.call('GET', KEYS[1]) or '0')
if now < tonumber(ARGV[1]) then
  redis.call('SET', KEYS[1], ARGV[1])
  return tonumber(ARGV[1])
end
return now
"""

_RELEASE = """
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0
"""


@dataclass(frozen=True, slots=True)
class Lease:
    """A node's lease on a table, and its fencing token."""

    table: str
    node: str
    token: int

    @property
    def value(self) -> str:
        """What the lease's key holds while it is this one."""
        return f"{self.node} {self.token}"


def _milliseconds(ttl: float) -> int:
    if ttl <= 0:
        raise ValueError(f"a lease's time to live must be positive, not {ttl}")
    return max(1, round(ttl * 1000))


class Leases:
    """The table leases in one Redis (redis-py's asyncio client)."""

    def __init__(self, redis: Redis, prefix: str = "bh:") -> None:
        self.redis = redis
        self.prefix = prefix
        self._acquire = redis.register_script(_ACQUIRE)
        self._renew = redis.register_script(_RENEW)
        self._release = redis.register_script(_RELEASE)
        self._advance = redis.register_script(_ADVANCE)

    @classmethod
    def from_url(cls, url: str, prefix: str = "bh:") -> Leases:
        """``redis://host:port/db``.  At most 100 connections, and a caller waits (up
        to 20 s) for a free one rather than failing: a node's many clients joining at
        once look their tables up together."""
        pool = BlockingConnectionPool.from_url(url, decode_responses=True,
                                               max_connections=100, timeout=20)
        return cls(Redis.from_pool(pool), prefix)     # (closed with the client)

    async def close(self) -> None:
        await self.redis.aclose()

    def _keys(self, table: str) -> list[str]:
        return [f"{self.prefix}lease:{table}", f"{self.prefix}fence:{table}"]

    async def acquire(self, table: str, node: str, ttl: float) -> Lease | None:
        """Take ``table``'s lease for ``node`` for ``ttl`` seconds, with a fencing token
        larger than any before; None while another lease on it (the node's own too)
        has not ended."""
        token: Any = await self._acquire(keys=self._keys(table),
                                         args=[node, _milliseconds(ttl)])
        return None if token is None else Lease(table, node, int(token))

    async def renew(self, lease: Lease, ttl: float) -> bool:
        """Make ``lease`` last ``ttl`` seconds from now; False if it has ended (lapsed
        or released: then another node may hold the table, and this one must stop)."""
        renewed: Any = await self._renew(keys=self._keys(lease.table)[:1],
                                         args=[lease.value, _milliseconds(ttl)])
        return bool(renewed)

    async def release(self, lease: Lease) -> bool:
        """Give ``lease`` up at once (another node may take the table); False if it
        had already ended."""
        released: Any = await self._release(keys=self._keys(lease.table)[:1],
                                             args=[lease.value])
        return bool(released)

    async def advance(self, table: str, token: int) -> int:
        """Make the next lease of ``table`` get a token larger than ``token`` (a Redis
        that restarted without its data counts from 0 again, below the token the
        database holds); the counter now."""
        now: Any = await self._advance(keys=self._keys(table)[1:], args=[token])
        return int(now)

    async def holder(self, table: str) -> Lease | None:
        """The lease on ``table`` now, if any."""
        value: Any = await self.redis.get(self._keys(table)[0])
        if value is None:
            return None
        node, token = str(value).rsplit(" ", 1)
        return Lease(table, node, int(token))
