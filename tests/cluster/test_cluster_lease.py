"""Leases on tables in a real redis-server: one holder at a time, a fencing token that
grows with each holder, expiry when the holder stops renewing, takeover by another
node — and then the old holder can neither renew nor write (fencing in storage)."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import pytest

from baohuang.server.cluster.lease import Lease, Leases
from baohuang.server.cluster.services import RedisServer
from baohuang.server.db.storage import FencedWrite, open_storage

LONG = 60.0      # a lease that cannot lapse during a test


async def _lapsed(leases: Leases, table: str, within: float = 30.0) -> None:
    """Wait until nobody holds ``table`` (Redis expired the lease)."""
    deadline = time.monotonic() + within
    while await leases.holder(table) is not None:
        assert time.monotonic() < deadline, "the lease did not expire"
        await asyncio.sleep(0.02)


def test_one_holder_at_a_time_and_each_new_holder_a_larger_token(
        redis_server: RedisServer) -> None:
    async def main() -> None:
        leases = Leases.from_url(redis_server.url)
        try:
            first = await leases.acquire("table-a", "node-1", LONG)
            assert first is not None and first.node == "node-1"
            assert await leases.acquire("table-a", "node-2", LONG) is None
            assert await leases.acquire("table-a", "node-1", LONG) is None   # not twice
            assert await leases.holder("table-a") == first
            other = await leases.acquire("table-b", "node-2", LONG)     # another table: free
            assert other is not None and other.node == "node-2"
            assert await leases.release(first)
            assert not await leases.release(first)                        # once
            second = await leases.acquire("table-a", "node-2", LONG)
            assert second is not None and second.token > first.token
            assert not await leases.renew(first, LONG)       # the old lease's token is stale
            assert not await leases.release(first)
            assert await leases.holder("table-a") == second
        finally:
            await leases.close()

    asyncio.run(main())


def test_renewing_extends_the_lease(redis_server: RedisServer) -> None:
    async def main() -> None:
        leases = Leases.from_url(redis_server.url)
        try:
            lease = await leases.acquire("table-r", "node-1", 5.0)
            assert lease is not None
            assert await leases.renew(lease, 600.0)
            left = await leases.redis.pttl("bh:lease:table-r")
            assert 5_000 < left <= 600_000
        finally:
            await leases.close()

    asyncio.run(main())


def test_an_unrenewed_lease_lapses_and_another_node_takes_the_table_over(
        redis_server: RedisServer, tmp_path: Path) -> None:
    """node-1 holds the table and stores a move, then stops renewing (as a killed or
    frozen node does); its lease lapses, node-2 takes the table with a larger token,
    reads the log and plays on.  node-1, back, can renew nothing and write nothing."""
    url = f"sqlite+aiosqlite:///{tmp_path / 'cluster.db'}"

    async def main() -> None:
        leases = Leases.from_url(redis_server.url)
        one, two = await open_storage(url), await open_storage(url)
        try:
            await one.insert_table({
                "id": "table-t", "code": "t00001", "owner": None, "preset": "shandong",
                "rules": {}, "timeout": 30.0, "games": 1, "seed": 1, "autostart": True,
                "status": "playing", "seats": [], "totals": [0] * 5, "created": time.time(),
                "finished": None})
            game = await one.insert_game({
                "table_id": "table-t", "idx": 0, "seed": 1, "dealer": 0, "tribute": None,
                "rules": {}, "seats": [], "status": "playing", "result": None,
                "scored": None, "hosted": [], "started": time.time(), "finished": None})
            held = await leases.acquire("table-t", "node-1", 0.3)
            assert held is not None and await one.claim_table("table-t", held.token)
            await one.append_action(game, 0, 0, {"by": "node-1"}, "human",
                                    table_id="table-t", version=1)
            assert await leases.acquire("table-t", "node-2", LONG) is None   # still held

            await _lapsed(leases, "table-t")                 # node-1 renewed nothing
            taken = await leases.acquire("table-t", "node-2", LONG)
            assert isinstance(taken, Lease) and taken.token > held.token
            assert await two.claim_table("table-t", taken.token)
            assert await two.table_version("table-t") == 1
            await two.append_action(game, 1, 1, {"by": "node-2"}, "human",
                                    table_id="table-t", version=2)

            assert not await leases.renew(held, LONG)        # node-1 is back: too late
            with pytest.raises(FencedWrite):
                await one.append_action(game, 2, 2, {"by": "node-1"}, "human",
                                        table_id="table-t", version=3)
            assert not await one.claim_table("table-t", held.token)
            [stored] = await two.table_games("table-t")
            assert [(a["version"], a["action"]["by"]) for a in stored["actions"]] == [
                (1, "node-1"), (2, "node-2")]
        finally:
            await one.close()
            await two.close()
            await leases.close()

    asyncio.run(main())


def test_a_lease_needs_a_positive_time_to_live(redis_server: RedisServer) -> None:
    async def main() -> None:
        leases = Leases.from_url(redis_server.url)
        try:
            with pytest.raises(ValueError, match="positive"):
                await leases.acquire("table-z", "node-1", 0)
            assert await leases.holder("table-z") is None
        finally:
            await leases.close()

    asyncio.run(main())
