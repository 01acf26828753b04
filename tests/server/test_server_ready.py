"""准备 (ready) between the games of a match, its countdown, 托管 shown for a seat that
is away, tables that mix invited friends and bots, and 逃跑即结束 (leave_ends_game),
against a real server on loopback whose table clocks the tests move by hand
(docs/protocol.md, docs/rules.md §10)."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from server_support import (
    LOOSE_CONFIG,
    Clocks,
    Raw,
    advance,
    play_on,
    pumping,
    raw_play,
    running_server,
    table_where,
)

from baohuang.client import Client
from baohuang.server.config import ServerConfig
from baohuang.server.harness import ServerProcess, ServerThread
from baohuang.server.table.clock import ManualClock

GRACE = 10.0
BOTS = {"2": "random", "3": "random", "4": "random"}


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[ServerThread, Clocks]]:
    clocks = Clocks()
    path = tmp_path_factory.mktemp("ready") / "bh.db"
    config = ServerConfig(db_url=f"sqlite+aiosqlite:///{path}", bot_delay=0.0,
                          hosted_delay=0.0, guard_pause=0.0, next_game_delay=0.0,
                          away_grace=GRACE, **LOOSE_CONFIG)
    with ServerThread(config, clocks=clocks) as server:
        yield server, clocks


async def friends(url: str, clocks: Clocks, **spec: Any
                  ) -> tuple[list[Client], dict[str, Any], list[Raw], ManualClock]:
    """Two friends at a new table with three bots (seats 0 and 1), joined."""
    people = [Client(url), Client(url)]
    for index, person in enumerate(people):
        await person.guest(f"friend {index}")
    table = await people[0].create_table(**{"timeout": 600, "bots": BOTS, **spec})
    raws = []
    for person in people:
        raw = await Raw.connect(url, person.token)
        await raw.send({"type": "join", "table": table["id"]})
        await raw.recv_type("table")
        raws.append(raw)
    return people, table, raws, clocks.tables[table["id"]]


async def dealt_game(url: str, table_id: str) -> int:
    """The game the table is at, once it has handled everything sent before (a
    watcher's snapshot: the table answers in order)."""
    probe = await Raw.connect(url)
    await probe.send({"type": "join", "table": table_id, "as": "watcher"})
    snapshot = await probe.recv_type("snapshot")
    await probe.close()
    return int(snapshot["game"])


def test_the_next_game_waits_until_every_person_is_ready(
        served: tuple[ServerThread, Clocks]) -> None:
    """After the first game of two, nothing is dealt — however long the score sheet is
    read — until both friends said 准备; everyone sees who is ready (the bots are)."""
    server, clocks = served

    async def main() -> None:
        _, table, (a, b), clock = await friends(server.url, clocks, games=2)
        async with pumping(clock):
            await asyncio.gather(raw_play(a), raw_play(b))
            waiting = await table_where(a, lambda t: t["ready"] is not None)
            assert waiting["ready"] == {"seats": [2, 3, 4], "deadline": None}
            assert waiting["ready_wait"] is None and waiting["status"] == "playing"
            await advance(clock, 3600.0)
            assert await dealt_game(server.url, table["id"]) == 0
            await a.send({"type": "ready"})
            state = await table_where(b, lambda t: 0 in (t["ready"] or {}).get("seats", []))
            assert state["ready"]["seats"] == [0, 2, 3, 4]
            assert await dealt_game(server.url, table["id"]) == 0
            await b.send({"type": "ready"})
            dealt = await b.recv_type("snapshot")
            assert dealt["game"] == 1
            state = await table_where(a, lambda t: t["ready"] is None)
            assert not any(seat["hosted"] for seat in state["seats"])
            for raw in (a, b):
                await raw.close()

    asyncio.run(main())


def test_the_countdown_deals_a_seat_not_ready_in_on_hosted_visibly(
        served: tuple[ServerThread, Clocks]) -> None:
    """With a 20 s countdown, one friend is ready and the other still reads the score
    sheet: the deal comes when the countdown runs out (its deadline shown), not before,
    and the friend who was not ready is dealt in on 托管 — shown as such to everyone —
    and may take it back."""
    server, clocks = served

    async def main() -> None:
        _, table, (a, b), clock = await friends(server.url, clocks, games=2, ready_wait=20)
        async with pumping(clock):
            await asyncio.gather(raw_play(a), raw_play(b))
            waiting = await table_where(a, lambda t: t["ready"] is not None)
            assert waiting["ready_wait"] == 20
            assert waiting["ready"]["deadline"] == pytest.approx(clock.wall() + 20, abs=1e-6)
            await a.send({"type": "ready"})
            await table_where(a, lambda t: 0 in (t["ready"] or {}).get("seats", []))
            await advance(clock, 19.5)
            assert await dealt_game(server.url, table["id"]) == 0
            await advance(clock, 0.5)
            dealt = await b.recv_type("snapshot")
            assert dealt["game"] == 1
            shown = await table_where(a, lambda t: t["ready"] is None)
            assert shown["seats"][1]["hosted"] is True and shown["seats"][1]["connected"]
            assert shown["seats"][0]["hosted"] is False
            await b.send({"type": "hosted", "on": False})
            back = await table_where(a, lambda t: not t["seats"][1]["hosted"])
            assert back["seats"][1]["hosted_count"] == 1
            for raw in (a, b):
                await raw.close()

    asyncio.run(main())


def test_a_seat_away_past_its_grace_is_shown_on_hosted_before_hosted_plays_it(
        served: tuple[ServerThread, Clocks]) -> None:
    """A friend's connection drops mid-game: once his grace time is over everyone is
    told his seat is on 托管 before 托管 makes any move for it — never moves made under
    an "offline" label alone."""
    server, clocks = served

    async def main() -> None:
        _, _, (a, b), clock = await friends(server.url, clocks, games=1)
        await b.recv_type("snapshot")
        await b.close()
        await table_where(a, lambda t: not t["seats"][1]["connected"])
        dropped_at = len(a.seen)
        async with pumping(clock):
            play = asyncio.get_running_loop().create_task(play_on(a))
            await advance(clock, GRACE)
            await play
        after = a.seen[dropped_at:]
        first_move = next(i for i, m in enumerate(after) if m["type"] == "update"
                          and any(ev.get("seat") == 1 for ev in m["events"]))
        told = [i for i, m in enumerate(after) if m["type"] == "table"
                and m["table"]["seats"][1]["hosted"]]
        assert told and told[0] < first_move, "托管 played the seat before it was shown"
        await a.close()

    asyncio.run(main())


def test_fill_with_bots_takes_only_the_seats_still_empty_when_the_host_starts(
        served: tuple[ServerThread, Clocks]) -> None:
    """空位由电脑补齐: the host invites a friend and lets bots take the rest. Nothing is
    filled at creation; a friend who is not the host cannot fill; when the host starts,
    the two friends keep their seats and bots take the three others. At their next
    match (rematch) the friend's seat is kept for him: the host's start fills nothing
    and waits for him."""
    server, clocks = served

    async def main() -> None:
        host, friend = Client(server.url), Client(server.url)
        await host.guest("host")
        await friend.guest("guest friend")
        table = await host.create_table(timeout=600, fill_bots="random")
        assert table["table"]["seats"] == [None] * 5
        assert table["table"]["fill_bots"] == "random"
        raws = []
        for person in (host, friend):
            raw = await Raw.connect(server.url, person.token)
            await raw.send({"type": "join", "table": table["id"]})
            await raw.recv_type("table")
            raws.append(raw)
        a, b = raws
        await b.send({"type": "start"})
        assert (await b.recv_type("error"))["code"] == "not_ready"
        await a.send({"type": "start"})
        state = await table_where(b, lambda t: t["status"] == "playing")
        names = [(s["user_id"] is not None, s["bot"]) for s in state["seats"]]
        assert names == [(True, None), (True, None)] + [(False, "random")] * 3
        assert [m["game"] for m in b.seen if m["type"] == "snapshot"] == [0]
        async with pumping(clocks.tables[table["id"]]):
            await asyncio.gather(play_on(a), play_on(b))
        new = await host.request("POST", f"/api/tables/{table['id']}/rematch", {})
        again = await Raw.connect(server.url, host.token)
        await again.send({"type": "join", "table": new["id"]})
        await again.recv_type("table")
        await again.send({"type": "start"})
        assert (await again.recv_type("error"))["code"] == "not_ready"
        kept = (await host.request("GET", f"/api/tables/{new['id']}"))["seats"]
        assert kept[1]["invited"] is True and kept[1]["user_id"] == state["seats"][1]["user_id"]
        assert [s["bot"] for s in kept[2:]] == ["random"] * 3
        for raw in (*raws, again):
            await raw.close()

    asyncio.run(main())


def test_leave_ends_game_ends_it_and_only_the_leaver_pays(
        served: tuple[ServerThread, Clocks]) -> None:
    """逃跑即结束 (leave_ends_game on): a friend who leaves mid-game ends it at once; he
    loses leave_penalty and is counted a leave, nobody else scores or is counted a
    game, and the match (of three) is over, dissolved by his leaving."""
    server, clocks = served

    async def main() -> tuple[dict[str, Any], list[dict[str, Any]]]:
        people, table, (a, b), clock = await friends(
            server.url, clocks, games=3, options={"leave_ends_game": True})
        assert table["table"]["rules"]["leave_ends_game"] is True
        async with pumping(clock):
            play = asyncio.get_running_loop().create_task(raw_play(a))
            await raw_play(b, until=6)
            await b.send({"type": "leave"})
            await b.recv_type("left")
            await play
        over = next(m for m in a.seen if m["type"] == "game_over")
        await a.close()
        return over, [await p.request("GET", "/api/me") for p in people]

    over, (stayed, left) = asyncio.run(main())
    assert over["result"]["left"] == 1
    assert over["result"]["scores"] == [0, -40, 0, 0, 0]
    assert over["match"]["over"] is True and over["match"]["status"] == "dissolved"
    assert (left["leaves"], left["points"], left["games"]) == (1, -40, 1)
    assert (stayed["leaves"], stayed["points"], stayed["games"]) == (0, 0, 0)


def test_a_friend_who_leaves_between_games_ends_the_match(
        served: tuple[ServerThread, Clocks]) -> None:
    """After the first game of two a friend leaves instead of 准备: no game is dealt in
    his name; the match is dissolved (reason ``left``) and the other sees why."""
    server, clocks = served

    async def main() -> None:
        _, table, (a, b), clock = await friends(server.url, clocks, games=2, ready_wait=5)
        async with pumping(clock):
            await asyncio.gather(raw_play(a), raw_play(b))
            await a.send({"type": "ready"})
            await b.send({"type": "leave"})
            await b.recv_type("left")
            state = await table_where(a, lambda t: t["status"] != "playing")
            assert state["status"] == "dissolved" and state["ready"] is None
            assert state["dissolved"] == {"reason": "left", "seats": [1]}
            await advance(clock, 60.0)
            assert await dealt_game(server.url, table["id"]) == 0
        await a.close()
        await b.close()

    asyncio.run(main())


def test_ready_is_refused_when_nothing_waits_for_it(
        served: tuple[ServerThread, Clocks]) -> None:
    """准备 during a game, or from a watcher, changes nothing and says why."""
    server, clocks = served

    async def main() -> None:
        _, table, (a, b), _ = await friends(server.url, clocks, games=2)
        await a.recv_type("snapshot")
        await a.send({"type": "ready"})
        assert (await a.recv_type("error"))["code"] == "not_allowed"
        watcher = await Raw.connect(server.url)
        await watcher.send({"type": "join", "table": table["id"], "as": "watcher"})
        await watcher.recv_type("table")
        await watcher.send({"type": "ready"})
        assert (await watcher.recv_type("error"))["code"] == "not_seated"
        for raw in (a, b, watcher):
            await raw.close()

    asyncio.run(main())


def test_after_a_restart_in_the_wait_everyone_is_asked_again(tmp_path: Path) -> None:
    """The server is killed (SIGKILL) while a match waits for 准备 between its games and
    started again: the table waits on — nothing is dealt in anyone's name — and asks
    everyone again (who was ready is not stored); both friends say 准备 and the next
    game is dealt."""
    async def main(server: ServerProcess) -> None:
        people = [Client(server.url), Client(server.url)]
        for index, person in enumerate(people):
            await person.guest(f"restarted {index}")
        table = await people[0].create_table(timeout=600, bots=BOTS, games=2)
        raws = []
        for person in people:
            raw = await Raw.connect(server.url, person.token)
            await raw.send({"type": "join", "table": table["id"]})
            raws.append(raw)
        await asyncio.gather(*(raw_play(raw) for raw in raws))
        await raws[0].send({"type": "ready"})
        await table_where(raws[1], lambda t: 0 in (t["ready"] or {}).get("seats", []))
        server.kill()
        await asyncio.to_thread(server.start)
        back = []
        for person in people:
            raw = await Raw.connect(server.url, person.token)
            await raw.send({"type": "join", "table": table["id"]})
            back.append(raw)
        state = await table_where(back[1], lambda t: True)
        assert state["status"] == "playing" and state["game"] == 0
        assert state["ready"] == {"seats": [2, 3, 4], "deadline": None}
        for raw in back:
            await raw.send({"type": "ready"})
        for raw in back:                # (the snapshot of the game over came first)
            while (await raw.recv_type("snapshot"))["game"] != 1:
                pass
        for raw in (*raws, *back):
            with contextlib.suppress(Exception):
                await raw.close()

    with running_server("sqlite", tmp_path) as server:
        asyncio.run(main(server))
