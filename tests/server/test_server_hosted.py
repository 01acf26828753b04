"""Reconnecting, 托管 (timeouts, the toggle and its lock, all on 托管) and leaving
mid-game, against a real server (docs/rules.md §10)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from server_support import (
    LOOSE_CONFIG,
    Clocks,
    Raw,
    advance,
    guests,
    pumping,
    raw_play,
    shared_server,
)

import baohuang as bh
from baohuang.client import Client, PlayResult
from baohuang.server.config import ServerConfig
from baohuang.server.harness import ServerProcess, ServerThread
from baohuang.server.table.clock import ManualClock


@pytest.fixture(scope="module")
def server() -> ServerProcess:
    return shared_server("sqlite")


async def _seat_up(url: str, spec: dict[str, Any], humans: int = 4
                   ) -> tuple[list[Client], Client, dict[str, Any]]:
    """A table with ``humans`` library clients (not yet playing) and one more guest."""
    clients = await guests(url, humans + 1, "h")
    table = await clients[0].create_table(**spec)
    return clients[:humans], clients[humans], table


def test_disconnect_and_reconnect_resyncs(server: ServerProcess) -> None:
    async def main() -> tuple[list[PlayResult], dict[str, Any], dict[str, Any],
                              dict[str, Any], int]:
        others, me, table = await _seat_up(server.url, {"practice": True, "seed": 21,
                                                    "timeout": 60})
        plays = [asyncio.create_task(c.play(table["id"], "hosted", seed=i))
                 for i, c in enumerate(others)]
        raw = await Raw.connect(server.url, me.token)
        await raw.send({"type": "join", "table": table["id"]})
        left_at = await raw_play(raw, until=25)
        assert left_at is not None
        await raw.close()
        await asyncio.sleep(0.5)      # the others play on until it is our turn again
        back = await Raw.connect(server.url, me.token)
        await back.send({"type": "join", "table": table["id"], "version": left_at})
        first = await back.recv()
        assert first["type"] == "table" and first["you"]["seat"] is not None
        missed = await back.recv_type("update")
        assert back.view["to_act"] == first["you"]["seat"], "the table waits for us"
        assert "hand" in missed["view"], "after a reconnect the whole view comes again"
        await back.send({"type": "resync", "version": left_at})
        again = await back.recv_type("update")
        await raw_play(back, version=again["version"], start=again)
        results = await asyncio.wait_for(asyncio.gather(*plays), 60)
        game_over = next(m for m in back.seen if m["type"] == "game_over")
        return results, missed, again, game_over, left_at

    results, missed, again, game_over, left_at = asyncio.run(main())
    # the missed events came in one update (no snapshot), from right after our version
    assert missed["since"] == left_at
    assert missed["version"] == left_at + len(missed["events"])
    assert len(missed["events"]) > 1, "the others played while we were away"
    # (the deadline is the same decision's, computed again from the server's clock)
    assert dict(again, deadline=None) == dict(missed, deadline=None)
    assert abs(again["deadline"] - missed["deadline"]) < 0.01
    assert all(r.games[0]["result"] == game_over["result"] for r in results)


def test_timeout_puts_the_seat_on_hosted(server: ServerProcess) -> None:
    async def main() -> tuple[list[PlayResult], dict[str, Any], list[dict[str, Any]]]:
        others, me, table = await _seat_up(server.url, {"practice": True, "seed": 3,
                                                    "timeout": 0.2})
        idle = await Raw.connect(server.url, me.token)
        await idle.send({"type": "join", "table": table["id"]})
        plays = [c.play(table["id"], "hosted", seed=i) for i, c in enumerate(others)]
        results = await asyncio.wait_for(asyncio.gather(*plays), 90)
        await idle.recv_type("game_over", 30)
        history = await me.history()
        return results, await me.replay(history[0]["game_id"]), idle.seen

    results, replay, seen = asyncio.run(main())
    seat = next(m["you"]["seat"] for m in seen if m["type"] == "table")
    mine = [step for step in replay["steps"] if step["seat"] == seat]
    assert mine[0]["source"] == "timeout"
    assert {s["source"] for s in mine[1:]} <= {"hosted"} and len(mine) > 1
    tables = [m["table"]["seats"][seat] for m in seen if m["type"] == "table"]
    assert any(s["hosted"] and s["hosted_count"] == 1 for s in tables)
    assert results[0].games[0]["scored"] is True


def test_a_decision_times_out_after_its_own_timeout_not_an_earlier_ones(
        tmp_path: Path) -> None:
    """The table keeps one timer across quick moves: a seat's time still runs from
    the moment it is asked, however long the decisions before took (the table's clock
    moved by hand: four seats take 0.3 s each, the think time is 1 s)."""
    from baohuang.bots import hosted_action
    from baohuang.client import view_from_dict

    clocks = Clocks()
    config = ServerConfig(db_url=f"sqlite+aiosqlite:///{tmp_path / 'bh.db'}", bot_delay=0.0,
                          hosted_delay=0.0, guard_pause=0.0, next_game_delay=0.0,
                          away_grace=600.0, **LOOSE_CONFIG)

    async def slowly(raw: Raw, clock: ManualClock) -> None:
        """A seat that answers 0.3 s after it is asked, by the table's clock."""
        while True:
            msg = await raw.recv(60)
            view = raw.view
            if msg["type"] in ("update", "snapshot") and view["legal_actions"] \
                    and view["to_act"] == view["seat"]:
                await advance(clock, 0.3)
                parsed = view_from_dict(view)
                action = hosted_action(parsed, list(parsed.legal_actions))
                await raw.send({"type": "act", "action": action.to_dict(),
                                "version": msg["version"]})

    async def main(url: str) -> None:
        # (seed 3: four others decide before the last seat is asked)
        others, me, table = await _seat_up(url, {"practice": True, "seed": 3,
                                                 "timeout": 1.0})
        clock = clocks.tables[table["id"]]
        raws = []
        for client in [me, *others]:        # (our seat: the first free)
            raw = await Raw.connect(url, client.token)
            await raw.send({"type": "join", "table": table["id"]})
            await raw.recv_type("table")
            raws.append(raw)
        idle = raws[0]
        seat = next(m for m in idle.seen if m["type"] == "table")["you"]["seat"]
        tasks = [asyncio.create_task(slowly(raw, clock)) for raw in raws[1:]]
        try:
            async with pumping(clock):
                before = 0
                while True:
                    msg = await idle.recv(60)
                    if msg["type"] == "table":
                        hosted = [i for i, s in enumerate(msg["table"]["seats"])
                                  if s and s["hosted"]]
                        assert hosted == [], "nobody timed out"
                    if msg["type"] in ("update", "snapshot") \
                            and idle.view.get("to_act") == seat:
                        break
                    before += msg["type"] == "update"
                assert before >= 3, "others decided (slowly) before we were asked"
                asked_at = clock.now()
                await advance(clock, 0.99)
                watcher = await Raw.connect(url)
                await watcher.send({"type": "join", "table": table["id"], "as": "watcher"})
                still = await watcher.recv_type("snapshot")
                await watcher.close()
                assert still["view"]["to_act"] == seat, "our time had not run out"
                # (the others stop here: the seat after ours would otherwise move the
                # clock on by its 0.3 s as soon as our timed-out move reaches it, maybe
                # before this reads the clock)
                for task in tasks:
                    task.cancel()
                await asyncio.gather(*tasks, return_exceptions=True)
                await advance(clock, 0.01)
                while True:
                    msg = await idle.recv(60)
                    if msg["type"] == "update" and msg["events"][0].get("seat") == seat:
                        break           # our move, made by the timer
                assert clock.now() == pytest.approx(asked_at + 1.0)
        finally:
            for task in tasks:
                task.cancel()
            for raw in raws:
                await raw.close()

    with ServerThread(config, clocks=clocks) as server:
        asyncio.run(main(server.url))


async def _playing_against_bots(server: ServerProcess, name: str, seed: int) -> Raw:
    """A guest's bare connection, joined to a table of its own against four bots; the
    game's snapshot received."""
    client = Client(server.url)
    await client.guest(name)
    table = await client.quickplay(bots="hosted", practice=True, seed=seed, timeout=60)
    raw = await Raw.connect(server.url, client.token)
    await raw.send({"type": "join", "table": table["id"]})
    await raw.recv_type("snapshot")
    return raw


def test_hosted_toggle_locks_after_the_fourth_time(server: ServerProcess) -> None:
    async def main() -> list[dict[str, Any]]:
        raw = await _playing_against_bots(server, "toggler", seed=8)
        for on in (True, False, True, False, True, False, True, False):
            await raw.send({"type": "hosted", "on": on})
        error = await raw.recv_type("error")
        await raw.recv_type("game_over", 60)
        return [error, *raw.seen]

    seen = asyncio.run(main())
    error = seen[0]
    assert error["code"] == "locked" and error["ref"] == "hosted"
    seats = [m["table"]["seats"][0] for m in seen[1:] if m["type"] == "table"]
    assert max(s["hosted_count"] for s in seats) == 4
    assert seats[-1]["locked"] and seats[-1]["hosted"]


def test_two_hosted_toggles_in_one_packet_on_our_turn(server: ServerProcess) -> None:
    """托管 on and off in one packet while we are to act (托管 moves at once here): the
    table takes both, waits for us again, and the game plays to its end."""
    async def main() -> tuple[dict[str, Any], dict[str, Any]]:
        raw = await _playing_against_bots(server, "twice", seed=9)
        while not (raw.view["to_act"] == raw.view["seat"] and raw.view["legal_actions"]):
            await raw.recv()
        # both frames in one write, so that the table reads them one right after the other
        # (the first asks for 托管's move now, the second takes it back)
        for on in (True, False):
            raw.ws.protocol.send_text(json.dumps({"type": "hosted", "on": on}).encode())
        raw.ws.send_data()
        tables = [await raw.recv_type("table") for _ in range(2)]
        await raw.send({"type": "hosted", "on": True})
        return tables[-1], await raw.recv_type("game_over", 60)

    table, game_over = asyncio.run(main())
    assert not table["table"]["seats"][0]["hosted"], "the second toggle took 托管 back"
    assert game_over["result"]["scores"]
    log = Path(server.log or "").read_text() if server.log else ""
    assert "Traceback" not in log


def test_leaving_mid_game_costs_the_penalty(server: ServerProcess) -> None:
    async def main() -> tuple[list[PlayResult], dict[str, Any], dict[str, Any], int]:
        others, me, table = await _seat_up(server.url, {"timeout": 60})   # rated
        plays = [asyncio.create_task(c.play(table["id"], "hosted", seed=i))
                 for i, c in enumerate(others)]
        raw = await Raw.connect(server.url, me.token)
        await raw.send({"type": "join", "table": table["id"]})
        seat = (await raw.recv_type("table"))["you"]["seat"]
        await raw_play(raw, until=20)
        await raw.send({"type": "leave"})
        await raw.recv_type("left")
        results = await asyncio.wait_for(asyncio.gather(*plays), 60)
        history = await me.history()
        return results, await me.replay(history[0]["game_id"]), \
            await me.request("GET", "/api/me"), seat

    results, replay, user, seat = asyncio.run(main())
    record = replay["record"]
    assert {"kind": "leave", "seat": seat} in record["actions"]
    result = bh.Game.from_record(record).result
    assert result is not None and result.to_dict() == results[0].games[0]["result"]
    stayed = dict(record, actions=[a for a in record["actions"] if a["kind"] != "leave"])
    without = bh.Game.from_record(stayed).result
    assert without is not None
    assert result.scores[seat] == without.scores[seat] - 40
    assert [s for i, s in enumerate(result.scores) if i != seat] == \
        [s for i, s in enumerate(without.scores) if i != seat]
    assert user["leaves"] == 1
    sources = {s["source"] for s in replay["steps"] if s["seat"] == seat}
    assert "leave" in sources and "hosted" in sources


def test_all_five_on_hosted_is_not_scored_and_dissolves(server: ServerProcess) -> None:
    async def main() -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
        clients = await guests(server.url, 5, "afk")
        table = await clients[0].create_table(practice=True, seed=6, timeout=60, games=2)
        raws = [await Raw.connect(server.url, c.token) for c in clients]
        for raw in raws:
            await raw.send({"type": "join", "table": table["id"]})
        for raw in raws:
            await raw.recv_type("snapshot")
            await raw.send({"type": "hosted", "on": True})
        overs = [await raw.recv_type("game_over", 60) for raw in raws]
        return overs, [await c.request("GET", "/api/me") for c in clients]

    overs, users = asyncio.run(main())
    for over in overs:
        assert over["scored"] is False and over["totals"] == [0] * 5
        assert over["match"]["over"] and over["match"]["status"] == "dissolved"
        assert over["match"]["reason"] == "hosted" and over["match"]["hosted"] == [0, 1, 2, 3, 4]
    assert all(u["games"] == 0 and u["points"] == 0 for u in users)


def test_a_dissolved_match_says_why_and_the_same_players_start_a_new_one(
        server: ServerProcess) -> None:
    async def main() -> tuple[dict[str, Any], dict[str, Any], list[dict[str, Any]],
                              dict[str, Any], list[int]]:
        clients = await guests(server.url, 2, "again")
        table = await clients[0].create_table(practice=True, seed=8, timeout=60, games=3,
                                              bots={"2": "random", "3": "random",
                                                    "4": "random"})
        raws = [await Raw.connect(server.url, c.token) for c in clients]
        for raw in raws:           # seat 0, then seat 1
            await raw.send({"type": "join", "table": table["id"]})
            await raw.recv_type("table")
        await raws[1].recv_type("snapshot")
        await raws[1].send({"type": "hosted", "on": True})
        await raw_play(raws[0])
        over = next(m for m in raws[0].seen if m["type"] == "game_over")
        state = await raws[0].recv_type("table")
        firsts = [await c.request("POST", f"/api/tables/{table['id']}/rematch", {})
                  for c in clients]
        told = await raws[1].recv_type("table")
        while told["table"]["rematch"] is None:
            told = await raws[1].recv_type("table")
        ids = [c.user["id"] for c in clients if c.user is not None]
        return over, state["table"], firsts, told["table"], ids

    over, state, firsts, told, ids = asyncio.run(main())
    assert over["match"] == {"games": 3, "played": 1, "over": True, "status": "dissolved",
                             "reason": "hosted", "hosted": [1]}
    assert over["scored"] is True
    assert state["status"] == "dissolved" and state["games_played"] == 1
    assert state["dissolved"] == {"reason": "hosted", "seats": [1]}
    assert state["last_scored"] is True
    assert firsts[0]["id"] == firsts[1]["id"] != state["id"]
    assert [f["seat"] for f in firsts] == [0, 1]
    new = firsts[0]["table"]
    assert new["games"] == 3 and new["practice"] and new["totals"] == [0] * 5
    assert [s["user_id"] for s in new["seats"][:2]] == ids
    assert [s["bot"] for s in new["seats"][2:]] == ["random"] * 3
    assert told["rematch"] == {"id": new["id"], "code": new["code"]}
