"""The two table routers, each as the app chooses it (``transport/app.py``
``table_router``): a server alone and a cluster node answer alike for a table of their
own process, and a node finds another node's table through Redis.  Real lobbies on
SQLite and a real redis-server."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from baohuang.server.cluster.router import ClusterRouter
from baohuang.server.cluster.services import RedisServer
from baohuang.server.config import ServerConfig
from baohuang.server.db.storage import UserRecord, open_storage
from baohuang.server.table.lobby import Lobby, LobbyError, LocalRouter, check_spec
from baohuang.server.table.router import Elsewhere, TableRouter
from baohuang.server.table.tables import Table
from baohuang.server.transport.app import table_router

#: a table of five bots that waits to be started (nothing moves during the test)
SPEC = check_spec({"bots": {str(seat): "hosted" for seat in range(5)}, "autostart": False})
NOBODY = "0123456789"         # (shaped as a table's id; no table has it)
USER = UserRecord(id=7, name="宋江", guest=False, points=0, games=0, wins=0, leaves=0,
                  mu=25.0, sigma=25 / 3)


async def _lobby(tmp_path: Path, name: str, redis_url: str | None) -> Lobby:
    url = f"sqlite+aiosqlite:///{tmp_path / f'{name}.db'}"
    config = ServerConfig(db_url=url, redis_url=redis_url, node=name, lease_ttl=600.0)
    lobby = Lobby(await open_storage(url), config, router=table_router(config))
    await lobby.restore()
    return lobby


async def _close(lobby: Lobby) -> None:
    await lobby.close()
    await lobby.storage.close()


async def _answers(router: TableRouter, table: Table, user: UserRecord) -> dict[str, Any]:
    """What a router answers about ``table``, one of its own process's, and about a key
    no table has."""
    refusals = []
    for key in (table.id, NOBODY):
        with pytest.raises(LobbyError) as refused:
            await router.rematch(key, user)
        refusals.append(refused.value.code)
    return {
        "local": [router.local(table.id) is table, router.local(table.settings.code) is table,
                  router.local(NOBODY)],
        "located": [await router.locate(table.id, wait=0) is table,
                    await router.locate(table.settings.code.lower(), wait=0) is table,
                    await router.locate(NOBODY, wait=0)],
        "attached": router.attach(_Watcher(), None, table) is table,
        "listing": await router.listing(0, 10),
        "detail": [await router.detail(table.id), await router.detail(NOBODY)],
        "rematch": refusals,
    }


class _Watcher:
    """A connection that was never anywhere (nothing is sent to it here)."""

    user: UserRecord | None = None
    table: object | None = None
    seat: int | None = None
    hints = False

    def send(self, text: str) -> None: ...
    def send_message(self, message: object) -> None: ...
    def error(self, code: str, message: str, ref: str | None = None) -> None: ...
    def close(self, code: int, reason: str) -> None: ...


def _expected(table: Table) -> dict[str, Any]:
    """What either router answers about its own ``table`` (:func:`_answers`)."""
    return {"local": [True, True, None], "located": [True, True, None], "attached": True,
            "listing": ([table.table_json(None)], 1),
            "detail": [table.table_json(None), None],
            "rematch": ["not_over", "not_found"]}


def test_a_server_alone_and_a_cluster_node_answer_alike_for_their_own_table(
        redis_server: RedisServer, tmp_path: Path) -> None:
    async def main() -> None:
        alone = await _lobby(tmp_path, "alone", None)
        node = await _lobby(tmp_path, "one", redis_server.url)
        try:
            assert isinstance(alone.router, LocalRouter)
            assert isinstance(node.router, ClusterRouter)
            here, there = await alone.create(None, SPEC), await node.create(None, SPEC)
            assert await _answers(alone.router, here, USER) == _expected(here)
            assert await _answers(node.router, there, USER) == _expected(there)
            # what differs: the node holds the table's lease, and stored it with its token
            census = alone.census(), node.census()
            assert [(c.node, c.leases) for c in census] == [(None, 0), ("one", 1)]
            assert await alone.storage.table_fence(here.id) == 0
            assert await node.storage.table_fence(there.id) == \
                node.router.member.held[there.id].token > 0
        finally:
            await _close(alone)
            await _close(node)

    asyncio.run(main())


def test_a_node_finds_another_nodes_table_through_the_cluster(redis_server: RedisServer,
                                                              tmp_path: Path) -> None:
    async def main() -> None:
        url = f"sqlite+aiosqlite:///{tmp_path / 'shared.db'}"
        nodes = []
        for name in ("one", "two"):
            config = ServerConfig(db_url=url, redis_url=redis_server.url, node=name,
                                  lease_ttl=600.0)
            nodes.append(Lobby(await open_storage(url), config, router=table_router(config)))
            await nodes[-1].restore()
        one, two = nodes
        try:
            table = await one.create(None, SPEC)
            assert isinstance(one.router, ClusterRouter)
            found = await two.router.locate(table.settings.code, wait=0)
            assert found == Elsewhere(one.router.member.node, table.id)
            assert two.router.local(table.id) is None
            assert await two.router.detail(table.id) == table.table_json(None)
            assert await two.router.listing(0, 10) == ([table.table_json(None)], 1)
            with pytest.raises(LobbyError) as refused:         # (asked of node one)
                await two.router.rematch(table.id, USER)
            assert refused.value.code == "not_over"
        finally:
            await _close(one)
            await _close(two)

    asyncio.run(main())
