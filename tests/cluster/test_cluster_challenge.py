"""每日挑战 on two cluster nodes sharing one database: both deal the same day; the same
player asking both nodes at once to begin the same deal gets one attempt and one table
(the database's unique constraint, not a node's memory); he plays it through the other
node, and then neither node lets him play it again."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import httpx
import pytest
from server_support import DATABASES, cluster_nodes, database

from baohuang.client import Client, ClientError
from baohuang.server.cluster.services import RedisServer


async def _start(client: Client, day: str, number: int) -> dict[str, Any]:
    """Begin (or come back to) a deal, asking again while it is being set up."""
    while True:
        try:
            answer: dict[str, Any] = await client.request(
                "POST", f"/api/challenge/{day}/deals/{number}")
            return answer
        except ClientError as exc:
            if exc.code != "starting":
                raise
            await asyncio.sleep(0.05)


@pytest.mark.parametrize("kind", DATABASES)
def test_one_attempt_per_deal_across_nodes(kind: str, tmp_path: Path,
                                           redis_server: RedisServer) -> None:
    with database(kind, tmp_path) as url, \
            cluster_nodes(url, redis_server.url, tmp_path) as (one, two):
        async def main() -> None:
            on_one = Client(one.url)
            await on_one.guest("both")
            on_two = Client(two.url, on_one.token)
            day_one = await on_one.request("GET", "/api/challenge")
            day_two = await on_two.request("GET", "/api/challenge")
            day = day_one["day"]
            assert day_two["day"] == day
            assert [d["seat"] for d in day_one["deals"]] == [d["seat"] for d in day_two["deals"]]
            answers = await asyncio.gather(*(_start(c, day, 1) for c in
                                             (on_one, on_two, on_one, on_two)))
            assert len({a["table_id"] for a in answers}) == 1
            assert sorted(a["resumed"] for a in answers) == [False, True, True, True]
            table_id = answers[0]["table_id"]
            # played through the node that does not run the table (it relays)
            async with httpx.AsyncClient() as http:
                running = [(await http.get(f"{node.url}/healthz")).json()["tables"]
                           for node in (one, two)]
            assert sorted(running) == [0, 1]
            other = on_two if running[0] == 1 else on_one
            # nobody else finds the table, by id or by code, on either node
            code = (await on_one.request("GET", f"/api/tables/{table_id}"))["code"]
            for node in (one, two):
                stranger = Client(node.url)
                await stranger.guest("stranger")
                for key in (table_id, code):
                    with pytest.raises(ClientError) as hidden:
                        await stranger.request("GET", f"/api/tables/{key}")
                    assert hidden.value.status == 404
            await asyncio.wait_for(other.play(table_id, "random", seed=3), 120)
            for client in (on_one, on_two):
                with pytest.raises(ClientError) as refused:
                    await client.request("POST", f"/api/challenge/{day}/deals/1")
                assert refused.value.code == "already_played"
            results = await on_two.request("GET", f"/api/challenge/{day}")
            (mine,) = results["deals"][0]["results"]
            history = await on_one.history()
            assert [h["score"] for h in history] == [mine["score"]]
        asyncio.run(main())
