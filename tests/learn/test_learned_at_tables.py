"""The `learned` bot at a real server's table: offered by /api/rules, accepted for a
seat, and playing a whole game there with a person (托管 for him)."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx
from server_support import shared_server

from baohuang.client import Client, PlayResult


def test_a_game_against_four_learned_bots_at_a_server_table() -> None:
    server = shared_server("sqlite")
    assert "learned" in httpx.get(server.url + "/api/rules").json()["bots"]

    async def main() -> tuple[PlayResult, list[dict[str, Any]]]:
        client = Client(server.url)
        await client.guest("learner")
        table = await client.quickplay(bots="learned", practice=True, seed=9)
        result = await asyncio.wait_for(client.play(table["id"], "hosted"), 120)
        return result, await client.history()

    result, history = asyncio.run(main())
    assert len(result.games) == 1 and result.errors == []
    players = history[0]["players"]
    assert [p["bot"] for p in players] == [None, "learned", "learned", "learned", "learned"]
