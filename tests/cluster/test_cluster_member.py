"""Cluster nodes as lobbies in one process, each with its own storage and Redis client
on one database and one real redis-server: a node that drains gives its tables up and
the other takes them at once; a Redis that lost its data (FLUSHALL, as a restart
without persistence) costs the tables two rounds, not their lives."""

from __future__ import annotations

import asyncio
from pathlib import Path

from baohuang.server.cluster.member import Member
from baohuang.server.cluster.services import RedisServer
from baohuang.server.config import ServerConfig
from baohuang.server.db.storage import open_storage
from baohuang.server.table.lobby import Lobby, check_spec

#: a table of five bots that waits to be started (nothing moves during the test)
SPEC = check_spec({"bots": {str(seat): "hosted" for seat in range(5)}, "autostart": False})


async def _node(db_url: str, redis_url: str, name: str) -> tuple[Lobby, Member]:
    config = ServerConfig(db_url=db_url, redis_url=redis_url, node=name, lease_ttl=600.0)
    lobby = Lobby(await open_storage(db_url), config)
    assert lobby.cluster is not None
    return lobby, lobby.cluster


async def _close(lobby: Lobby) -> None:
    await lobby.close()
    await lobby.storage.close()


def test_a_draining_node_hands_its_tables_over_at_once(redis_server: RedisServer,
                                                       tmp_path: Path) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path / 'nodes.db'}"

    async def main() -> None:
        one, one_member = await _node(url, redis_server.url, "one")
        two, two_member = await _node(url, redis_server.url, "two")
        try:
            tables = [await one.create(None, SPEC) for _ in range(3)]
            assert await two_member.tick() == 0            # held: nothing to take
            assert set(one_member.held) == {t.id for t in tables}
            await one.close()                              # SIGTERM: tables stop, leases go
            assert await two_member.tick() == 3            # no lease had to lapse
            assert set(two.tables) == {t.id for t in tables}
            assert {lease.node for lease in two_member.held.values()} == {"two"}
        finally:
            await one.storage.close()
            await _close(two)

    asyncio.run(main())


def test_a_redis_that_lost_its_data_costs_two_rounds(redis_server: RedisServer,
                                                    tmp_path: Path) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path / 'flushed.db'}"

    async def main() -> None:
        one, one_member = await _node(url, redis_server.url, "one")
        two, two_member = await _node(url, redis_server.url, "two")
        try:
            table = await one.create(None, SPEC)
            before = one_member.held[table.id].token
            await one_member.leases.redis.flushall()       # leases and counters gone
            # its renewal fails, so it stops the table; it tries to take it again, but
            # the counter began again: the database refuses the token, the counter moves on
            assert await one_member.tick() == 0
            assert table.id not in one.tables and not one_member.held
            assert await two_member.tick() == 1            # the next round takes it
            assert table.id in two.tables
            assert two_member.held[table.id].token > before
            assert await two.storage.table_fence(table.id) == two_member.held[table.id].token
        finally:
            await _close(one)
            await _close(two)

    asyncio.run(main())


def test_a_round_while_a_table_is_being_made_keeps_its_lease(redis_server: RedisServer,
                                                             tmp_path: Path) -> None:
    """The lease of a new table is taken before the table is stored; a round of the
    node in between (the lobby awaits the database) must not give it up."""
    url = f"sqlite+aiosqlite:///{tmp_path / 'new.db'}"

    async def main() -> None:
        one, member = await _node(url, redis_server.url, "one")
        try:
            token = await member.hold_new("table-new001")
            await member.tick()
            held = await member.leases.holder("table-new001")
            assert held is not None and (held.node, held.token) == ("one", token)
        finally:
            await _close(one)

    asyncio.run(main())
