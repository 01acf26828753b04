"""Persistence first: the server process is killed with SIGKILL in the middle of
a game and started again on the same database; the clients reconnect, resync and
finish the game, and the stored record holds every action a client sent, once."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from server_support import DATABASES, FAST, AtVersion, database, guests

import baohuang as bh
from baohuang.client import PlayResult
from baohuang.server.harness import ServerProcess


@pytest.mark.parametrize("kind", DATABASES)
def test_sigkill_mid_game_then_restart_loses_and_repeats_nothing(kind: str,
                                                                 tmp_path: Path) -> None:
    with database(kind, tmp_path) as url:
        server = ServerProcess(url, None, *FAST, log=tmp_path / "server.log")
        server.start()
        try:
            results, replay = asyncio.run(_play_through_a_crash(server))
        finally:
            server.stop()

    outcome = results[0].games[0]["result"]
    assert all(r.games[0]["result"] == outcome for r in results)
    assert sum(r.reconnects for r in results) >= 5
    record = replay["record"]
    game = bh.Game.from_record(dict(record, actions=[]))
    applied = []
    for raw in record["actions"]:
        applied.append((game.version, json.dumps(raw, sort_keys=True)))
        game.apply(bh.Action.from_dict(raw))
    assert game.result is not None and game.result.to_dict() == outcome
    sent = {(version, json.dumps(action.to_dict(), sort_keys=True))
            for r in results for version, action in r.sent}
    # every recorded action was sent by a client at that point of the game, and every
    # distinct action a client sent is in the record exactly once
    assert sorted(sent) == applied
    assert {s["source"] for s in replay["steps"]} == {"player"}


async def _play_through_a_crash(server: ServerProcess) -> tuple[list[PlayResult],
                                                                 dict[str, Any]]:
    clients = await guests(server.url, 5, "k")
    table = await clients[0].create_table(practice=True, seed=17, timeout=60)
    # (killed right in a player's message hook, the players' loop held: their game
    # cannot end before the crash, however fast the rest of it goes)
    crash = AtVersion(120, server.kill)

    async def restart() -> None:
        await crash.happened.wait()
        await asyncio.sleep(0.3)
        await asyncio.to_thread(server.start)

    restarter = asyncio.create_task(restart())
    plays = [c.play(table["id"], "hosted", seed=i, on_message=crash if i == 0 else None,
                    max_backoff=0.5)
             for i, c in enumerate(clients)]
    results = await asyncio.wait_for(asyncio.gather(*plays), 120)
    assert crash.done
    await restarter
    history = await clients[0].history()
    return results, await clients[0].replay(history[0]["game_id"])
