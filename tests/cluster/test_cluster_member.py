"""Cluster nodes as lobbies in one process, each with its own storage and Redis client
on one database and one real redis-server: a node that drains gives its tables up and
the other takes them at once; a Redis that lost its data (FLUSHALL, as a restart
without persistence) costs the tables two rounds, not their lives."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import Any

import pytest
from redis.exceptions import RedisError

from baohuang.server.cluster.member import Member, name_of
from baohuang.server.cluster.router import ClusterRouter
from baohuang.server.cluster.services import RedisServer
from baohuang.server.config import ServerConfig
from baohuang.server.db.storage import open_storage
from baohuang.server.table.lobby import Lobby, check_spec

#: a table of five bots that waits to be started (nothing moves during the test)
SPEC = check_spec({"bots": {str(seat): "hosted" for seat in range(5)}, "autostart": False})


async def _node(db_url: str, redis_url: str, name: str) -> tuple[Lobby, Member]:
    config = ServerConfig(db_url=db_url, redis_url=redis_url, node=name, lease_ttl=600.0)
    lobby = Lobby(await open_storage(db_url), config, router=ClusterRouter.join)
    assert isinstance(lobby.router, ClusterRouter)
    return lobby, lobby.router.member


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
            assert {name_of(lease.node) for lease in two_member.held.values()} == {"two"}
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
            assert held is not None and (held.node, held.token) == (member.node, token)
            assert name_of(held.node) == "one"
        finally:
            await _close(one)

    asyncio.run(main())


PLAYING = check_spec({"bots": {str(seat): "hosted" for seat in range(5)}, "practice": True,
                      "seed": 4242, "games": 1})


async def _finished(lobby: Lobby, table_id: str) -> list[dict[str, Any]]:
    """The table's stored games once its match is over."""
    deadline = time.monotonic() + 120
    while True:
        games = await lobby.storage.table_games(table_id)
        if games and games[-1]["status"] == "over":
            return games
        assert time.monotonic() < deadline, "the match did not end"
        await asyncio.sleep(0.05)


def test_redis_unreachable_for_a_while_loses_nothing(redis_server: RedisServer,
                                                    tmp_path: Path) -> None:
    """Redis stops in the middle of a game: the table plays on (its writes are fenced
    in the database, not in Redis), the node's rounds fail and are tried again; Redis
    comes back empty, the node takes its table again and the game ends as the same
    deal ends undisturbed, each version stored once."""
    async def play(url: str, outage: bool) -> list[dict[str, Any]]:
        config = ServerConfig(db_url=url, redis_url=redis_server.url, node="one",
                              lease_ttl=600.0, bot_delay=0.05, hosted_delay=0.0,
                              next_game_delay=0.0)
        lobby = Lobby(await open_storage(url), config, router=ClusterRouter.join)
        assert isinstance(lobby.router, ClusterRouter)
        member = lobby.router.member
        try:
            table = await lobby.create(None, PLAYING)
            if outage:
                redis_server.stop()
                with pytest.raises(RedisError):
                    await member.tick()
                moved = table.logged
                deadline = time.monotonic() + 60
                while table.logged < moved + 10:          # it plays on meanwhile
                    assert time.monotonic() < deadline, "the table stopped"
                    await asyncio.sleep(0.05)
                redis_server.start()                       # back, with nothing in it
                await member.tick()                        # lease gone: stopped; retried
                assert await member.tick() == 1            # taken again
            return await _finished(lobby, table.id)
        finally:
            await _close(lobby)

    undisturbed = asyncio.run(play(f"sqlite+aiosqlite:///{tmp_path / 'calm.db'}", False))
    disturbed = asyncio.run(play(f"sqlite+aiosqlite:///{tmp_path / 'outage.db'}", True))
    assert [a["action"] for a in disturbed[0]["actions"]] == [
        a["action"] for a in undisturbed[0]["actions"]]
    assert disturbed[0]["result"] == undisturbed[0]["result"]
    assert [a["version"] for a in disturbed[0]["actions"]] == list(
        range(1, len(disturbed[0]["actions"]) + 1))
