"""亲友圈 (clubs) on two cluster nodes: a club made on one node is joined through the
other; its table runs on node one while a member plays it from node two; someone not a
member is refused a seat through node two; and both nodes read the same ledger, which
adds up the games the players' own histories hold (docs/protocol.md §2 Clubs)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from server_support import LOOSE_CONFIG, Raw, raw_play

from baohuang.client import Client
from baohuang.server.cluster.services import RedisServer
from baohuang.server.config import ServerConfig
from baohuang.server.harness import ServerThread

pytestmark = pytest.mark.slow


async def _play_on(raw: Raw) -> None:
    """Play ``raw``'s seat on 托管's choices to the game's end from a fresh snapshot."""
    await raw.send({"type": "resync", "version": None})
    await raw_play(raw, start=await raw.recv_type("snapshot", 30))


def test_a_club_across_two_nodes(redis_server: RedisServer, tmp_path: Path) -> None:
    db_url = f"sqlite+aiosqlite:///{tmp_path / 'bh.db'}"

    def node(name: str) -> ServerThread:
        return ServerThread(ServerConfig(
            db_url=db_url, redis_url=redis_server.url, node=name, bot_delay=0.0,
            hosted_delay=0.0, guard_pause=0.0, next_game_delay=0.0, away_grace=30.0,
            **LOOSE_CONFIG))

    async def main(one: str, two: str) -> None:
        owner, friend, outsider = Client(one), Client(two), Client(two)
        for client, name in ((owner, "nodeowner"), (friend, "nodefriend"),
                             (outsider, "nodeoutsider")):
            await client.register(name, f"{name}-secret-words-9")
        club = await owner.request("POST", "/api/clubs", {"name": "two nodes",
                                                          "timeout": 600})
        club_id = club["id"]
        assert (await friend.request("POST", "/api/clubs/join",
                                     {"code": club["code"]}))["role"] == "member"
        opened = await owner.request("POST", f"/api/clubs/{club_id}/tables",
                                     {"fill_bots": "random"})
        intruder = await Raw.connect(two, outsider.token)
        await intruder.send({"type": "join", "table": opened["code"]})
        assert (await intruder.recv_type("error", 30))["code"] == "not_member"
        await intruder.close()
        host = await Raw.connect(one, owner.token)
        guest = await Raw.connect(two, friend.token)     # (the table runs on node one)
        for raw in (host, guest):
            await raw.send({"type": "join", "table": opened["id"]})
            await raw.recv_type("table", 30)
        await host.send({"type": "start"})
        while (await guest.recv_type("table", 30))["table"]["status"] != "playing":
            pass
        await asyncio.wait_for(asyncio.gather(_play_on(host), _play_on(guest)), 120)
        for raw in (host, guest):
            await raw.close()

        boards = [await c.request("GET", f"/api/clubs/{club_id}/ledger")
                  for c in (owner, friend)]          # (node one's, node two's)
        assert boards[0] == boards[1] and boards[0]["games"] == 1
        for client in (owner, friend):
            me = await client.request("GET", "/api/me")
            mine = [g for g in await client.history() if g["table_id"] == opened["id"]]
            entry = next(p for p in boards[1]["players"] if p["user_id"] == me["id"])
            assert (entry["games"], entry["points"]) == (1, mine[0]["score"])

    with node("one") as one, node("two") as two:
        asyncio.run(main(one.url, two.url))
