"""A server bot's answer time tells nothing of its role (SECURITY.md, docs/protocol.md).

The expert level searches only as a rebel: timed from outside, its answers used to
come in about 0.9 s as a rebel and 0.1 s as the hidden Guard or the Emperor.  A server
bot's answer now shows at a time drawn before it thinks, from its level and public
facts only, long enough to cover its thinking in any role.

Five server bots, one of every level, play whole games at a table whose clock the
test moves by hand (:class:`ManualClock`, on which thinking takes no time), watched
by a socket that stamps each message with the clock time it came at.  For every bot
move, the time from the message that made it the bot's turn to the one that shows
its move is its answer time: for each level it lies in the same range in every role
(rebel, Guard, Emperor, and the role phase's decisions before any role is known),
and that range starts above everything the level may think.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from helpers import quick_first
from server_support import LOOSE_CONFIG, RESYNCING, Clocks, Raw, guests

from baohuang.bots import LEVELS as OFFERED
from baohuang.server.config import ServerConfig
from baohuang.server.harness import ServerThread
from baohuang.server.table.clock import ManualClock

BOT_DELAY = 0.4
LEVELS = {"0": "easy", "1": "normal", "2": "hard", "3": "expert", "4": "normal"}
#: seeds whose games, together, give the expert level more than one role
SEEDS = [[3], [5, 8]]


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Clocks]]:
    clocks = Clocks()
    path: Path = tmp_path_factory.mktemp("bots") / "bh.db"
    config = ServerConfig(db_url=f"sqlite+aiosqlite:///{path}", bot_delay=BOT_DELAY,
                          hosted_delay=0.5, guard_pause=3.0, next_game_delay=600.0,
                          away_grace=600.0, **LOOSE_CONFIG, **RESYNCING)
    with ServerThread(config, clocks=clocks) as running:
        yield running.url, clocks


async def _watch(url: str, clocks: Clocks, seed: int) -> list[tuple[float, dict[str, Any]]]:
    """A game of five bots, watched: every message with the clock time it came at."""
    owner = (await guests(url, 1, f"bots{seed}-"))[0]
    spec = await owner.create_table(practice=True, seed=seed, timeout=20.0, bots=LEVELS)
    clock: ManualClock = clocks.tables[spec["id"]]
    watcher = await Raw.connect(url)
    await watcher.send({"type": "join", "table": spec["id"], "as": "watcher"})
    await watcher.recv_type("snapshot")
    log: list[tuple[float, dict[str, Any]]] = []

    async def quiet() -> None:          # (until the watcher has all the table sent)
        await watcher.send({"type": "resync", "version": None})
        while (message := await watcher.recv(60.0))["type"] != "snapshot":
            log.append((clock.now(), message))

    await quiet()
    while not any(m["type"] == "game_over" for _, m in log):
        due = clock.next_due()
        assert due is not None, "the table waits for nobody and nothing"
        await asyncio.to_thread(clock.advance_to, due)
        await quiet()
    await watcher.close()
    return log


def _answer_times(log: list[tuple[float, dict[str, Any]]]) -> dict[tuple[str, str], set[float]]:
    """Each bot's answer times, by (level, role): from the message that made it the
    bot's turn to the one showing its move (the Guard's 明保/暗保 left out: it shows
    when the Guard's pause ends, whoever answers)."""
    over = next(m for _, m in log if m["type"] == "game_over")["result"]
    roles = {over["emperor"]: "emperor", over["guard"]: "guard"}
    times: dict[tuple[str, str], set[float]] = {}
    began, to_act, stage = 0.0, None, None
    for at, message in log:
        if message["type"] != "update":
            continue
        events = message["events"]
        for event in events:
            seat = event.get("seat")
            if seat == to_act and stage != "guard" and event["type"] not in ("reveal",):
                role = "role phase" if stage != "play" else roles.get(seat, "rebel")
                times.setdefault((LEVELS[str(seat)], role), set()).add(round(at - began, 6))
                break
        view = message["view"]
        to_act, stage, began = view.get("to_act", to_act), view.get("stage", stage), at
    return times


@pytest.mark.parametrize("seeds", quick_first(SEEDS))
def test_a_bots_answer_time_is_the_same_in_every_role(
        server: tuple[str, Clocks], seeds: list[int]) -> None:
    url, clocks = server
    times: dict[tuple[str, str], set[float]] = {}
    for seed in seeds:
        for key, seen in _answer_times(asyncio.run(_watch(url, clocks, seed))).items():
            times.setdefault(key, set()).update(seen)
    assert {level for level, _ in times} == set(LEVELS.values()), times
    for level in set(LEVELS.values()):
        think = next(offered.think for offered in OFFERED if offered.name == level)
        # above all it may think (the expert's search: 0.8 s), so its thinking never
        # shows; the same range whatever the role
        low, high = BOT_DELAY + 1.25 * think, 2 * BOT_DELAY + 1.25 * think
        for (name, role), seen in times.items():
            if name == level:
                assert all(low - 1e-6 <= t <= high + 1e-6 for t in seen), (level, role, seen)
                assert len(seen) > 1 or role != "rebel", (level, role, seen)   # (drawn)
    assert len({role for level, role in times if level == "expert"}) >= 2, times
