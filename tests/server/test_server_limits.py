"""Limits a table and the storage keep against a real server (issue 16, SECURITY.md):
idle tables are dissolved and leave the lobby (their finished games stay), a table takes
a bounded number of watchers, and every number and name that is stored is checked when it
comes in, the refusal naming it."""

from __future__ import annotations

import asyncio
import contextlib
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from server_support import FAST, LOOSE_CONFIG, Clocks, Raw, deserted_table, raw_play, running_server

from baohuang.client import Client
from baohuang.server.config import ServerConfig
from baohuang.server.harness import ServerThread


def _config(tmp_path: Path, **extra: Any) -> ServerConfig:
    return ServerConfig(db_url=f"sqlite+aiosqlite:///{tmp_path / 'bh.db'}", bot_delay=0.0,
                        hosted_delay=0.0, guard_pause=0.0, next_game_delay=600.0,
                        **{**LOOSE_CONFIG, **extra})


async def _until(condition: Any, limit: float = 60.0) -> None:
    loop = asyncio.get_running_loop()
    end = loop.time() + limit
    while not await condition():
        assert loop.time() < end, "nothing happened"
        await asyncio.sleep(0.05)


def test_idle_tables_are_dissolved_and_their_games_kept(tmp_path: Path) -> None:
    """With nobody connected and no move for ``table_idle`` seconds a table is dissolved
    (reason ``idle``) and leaves the lobby: an empty open table, one that only a watcher
    looks at, and one whose player left after the first game of two (that game stays in
    his history and replays). A table with its player connected stays."""
    config = _config(tmp_path, table_idle=3.0)

    async def main(url: str) -> dict[str, Any]:
        owner, player, keeper = Client(url), Client(url), Client(url)
        await owner.guest("empty-tables")
        await player.guest("one-game")
        await keeper.guest("keeper")
        empty = await owner.create_table(timeout=60)
        watched = await owner.create_table(timeout=60)
        watcher = await Raw.connect(url)
        await watcher.send({"type": "join", "table": watched["id"], "as": "watcher"})
        await watcher.recv_type("table")
        played = await player.create_table(timeout=60, games=2, bots={
            str(s): "random" for s in range(1, 5)})
        raw = await Raw.connect(url, player.token)
        await raw.send({"type": "join", "table": played["id"]})
        await raw_play(raw)                        # the first game, to its game_over
        await raw.close()                          # (the second waits 600 s to start)
        kept = await keeper.create_table(timeout=60)
        sitting = await Raw.connect(url, keeper.token)
        await sitting.send({"type": "join", "table": kept["id"]})
        await sitting.recv_type("table")

        async def gone() -> bool:
            listed = {t["id"] for t in (await owner.request("GET", "/api/tables"))["tables"]}
            return not listed & {empty["id"], watched["id"], played["id"]}
        await _until(gone)
        seen = await watcher.recv_type("table")
        while seen["table"]["status"] != "dissolved":
            seen = await watcher.recv_type("table")
        listed = {t["id"] for t in (await owner.request("GET", "/api/tables"))["tables"]}
        history = await player.history()
        replay = await player.replay(history[0]["game_id"])
        for sock in (watcher, sitting):
            await sock.close()
        return {"ids": (empty["id"], watched["id"], played["id"], kept["id"]),
                "watcher": seen["table"], "listed": listed, "history": history,
                "replay": replay}

    with ServerThread(config) as server:
        out = asyncio.run(main(server.url))
        empty, watched, played, kept = out["ids"]
        for table in (empty, watched, played):
            assert httpx.get(f"{server.url}/api/tables/{table}").status_code == 404
        assert httpx.get(f"{server.url}/api/tables/{kept}").json()["status"] == "open"
    assert kept in out["listed"]
    assert out["watcher"]["dissolved"] == {"reason": "idle", "seats": []}
    assert len(out["history"]) == 1 and out["history"][0]["table_id"] == played
    assert out["replay"]["record"]["actions"]
    with sqlite3.connect(tmp_path / "bh.db") as db:
        rows = dict(db.execute("SELECT id, status FROM tables").fetchall())
        finished = db.execute("SELECT COUNT(*) FROM tables WHERE finished IS NOT NULL"
                              ).fetchone()[0]
    assert rows == {empty: "dissolved", watched: "dissolved", played: "dissolved",
                    kept: "open"}
    assert finished == 3


def test_a_game_in_progress_at_an_idle_table_is_abandoned_unscored(tmp_path: Path) -> None:
    """Everyone leaves a game in progress (their seats go on 托管, here waiting out each
    turn's time, longer than the idle limit, after its first decision): when the table
    is dissolved as idle the game
    is abandoned — stored as such, scored for nobody (no game, point or rating counted,
    in no history) and not replayed; its watcher is told the table was dissolved as idle.
    The table's clock is moved past the idle limit by hand."""
    clocks = Clocks()
    config = ServerConfig(db_url=f"sqlite+aiosqlite:///{tmp_path / 'bh.db'}", bot_delay=0.0,
                          hosted_delay=100000.0, away_grace=10.0, table_idle=300.0,
                          keep_finished=0.2)

    async def main(url: str) -> dict[str, Any]:
        clients, table, watcher, seen = await deserted_table(url, "gone")
        clock = clocks.tables[table["id"]]
        # the away grace: 托管 takes the decision awaited then, and the next waits long
        await asyncio.to_thread(clock.advance_to, 10.0)
        await watcher.recv_type("update")
        await asyncio.to_thread(clock.advance_to, 10.0 + 301.0)
        while seen["table"]["status"] != "dissolved":
            seen = await watcher.recv_type("table", 30)
        await watcher.close()
        with sqlite3.connect(tmp_path / "bh.db") as db:
            games = db.execute("SELECT id, status, scored, finished IS NOT NULL FROM games "
                               "WHERE table_id = ?", (table["id"],)).fetchall()
        replay = httpx.get(f"{url}/api/games/{games[0][0]}/replay")
        return {"seen": seen["table"], "games": games, "replay": replay.status_code,
                "me": [await c.request("GET", "/api/me") for c in clients],
                "history": [await c.history() for c in clients]}

    with ServerThread(config, clocks=clocks) as server:
        out = asyncio.run(main(server.url))
    assert out["seen"]["dissolved"] == {"reason": "idle", "seats": []}
    assert [g[1:] for g in out["games"]] == [("abandoned", 0, 1)]
    assert out["replay"] != 200
    assert all(me["games"] == 0 and me["points"] == 0 for me in out["me"]), out["me"]
    assert out["history"] == [[]] * 5


def test_a_table_takes_a_bounded_number_of_watchers(tmp_path: Path) -> None:
    """Two watchers at most (as configured): a third is refused (``too_many_watchers``)
    until one goes; players still sit down."""
    async def main(url: str) -> tuple[list[str], dict[str, Any], dict[str, Any]]:
        owner, sitter = Client(url), Client(url)
        await owner.guest("watched")
        await sitter.guest("sitter")
        table = await owner.create_table(timeout=60)
        join = {"type": "join", "table": table["id"], "as": "watcher"}
        watchers = [await Raw.connect(url) for _ in range(3)]
        kinds = []
        for raw in watchers:
            await raw.send(join)
            kinds.append((await raw.recv())["type"])
        refused = watchers[2].seen[-1]
        player = await Raw.connect(url, sitter.token)
        await player.send({"type": "join", "table": table["id"]})
        you = (await player.recv_type("table"))["you"]
        await watchers[0].close()
        table_state = await watchers[1].recv_type("table")      # (the player sat down)
        while table_state["table"]["watchers"] != 1:
            table_state = await watchers[1].recv_type("table")
        await watchers[2].send(join)
        again = await watchers[2].recv()
        for raw in (*watchers[1:], player):
            with contextlib.suppress(Exception):
                await raw.close()
        assert you == {"seat": 0, "watcher": False}
        return kinds, refused, again

    with ServerThread(_config(tmp_path, watchers_per_table=2)) as server:
        kinds, refused, again = asyncio.run(main(server.url))
    assert kinds == ["table", "table", "error"]
    assert refused["code"] == "too_many_watchers" and refused["ref"] == "join"
    assert again["type"] == "table" and again["you"] == {"seat": None, "watcher": True}


#: every number a table stores, out of its bounds, and the name the refusal must say
OUT_OF_BOUNDS = [
    ({"timeout": 0.05}, "'timeout'"), ({"timeout": 601}, "'timeout'"),
    ({"timeout": -1}, "'timeout'"), ({"timeout": 1e308}, "'timeout'"),
    ({"games": 0}, "'games'"), ({"games": 51}, "'games'"), ({"games": 2.5}, "'games'"),
    ({"games": 10**30}, "'games'"),
    ({"seed": -1, "practice": True}, "'seed'"), ({"seed": 2**31, "practice": True}, "'seed'"),
    ({"seed": 10**40, "practice": True}, "'seed'"),
    ({"options": {"leave_penalty": -1}}, "'leave_penalty'"),
    ({"options": {"leave_penalty": 1001}}, "'leave_penalty'"),
    ({"options": {"leave_penalty": 10**24}}, "'leave_penalty'"),
    ({"bots": {"5": "random"}}, "seat 5"), ({"bots": {"-1": "random"}}, "seat -1"),
    ({"bots": {"99999999999999999999": "random"}}, "seat 99999999999999999999"),
]


@pytest.fixture(scope="module")
def bounds_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerThread]:
    with ServerThread(_config(tmp_path_factory.mktemp("bounds"))) as server:
        yield server


@pytest.mark.parametrize(("body", "named"), OUT_OF_BOUNDS)
def test_every_stored_number_is_bounded_when_it_comes_in(
        body: dict[str, Any], named: str, bounds_server: ServerThread) -> None:
    """Each number a table stores, out of bounds, at table creation and at quickplay:
    400 naming it, and no table is made."""
    url = bounds_server.url
    token = httpx.post(url + "/api/guest", json={"name": "bounds"}).json()["token"]
    auth = {"Authorization": f"Bearer {token}"}
    for path in ("/api/tables", "/api/quickplay"):
        if path == "/api/quickplay" and "bots" in body:
            continue                   # (quickplay's bots are a name or a list of four)
        answer = httpx.post(url + path, json=body, headers=auth)
        assert answer.status_code == 400, (path, body, answer.text)
        assert named in answer.json()["error"]["message"], (path, body, answer.text)
    assert httpx.get(url + "/api/tables").json()["total"] == 0


def test_stored_names_and_passwords_are_bounded(tmp_path: Path) -> None:
    """A name is stored as it is shown and without case: both fit 24 characters ("ß"
    is "ss" without case); a password has at most 200 characters."""
    with ServerThread(_config(tmp_path)) as server:
        cases = [("/api/register", {"name": "ß" * 13, "password": "plum rain 9"}, "bad_name"),
                 ("/api/guest", {"name": "x" * 25}, "bad_name"),
                 ("/api/register", {"name": "Lu Xun", "password": "p" * 201}, "bad_password")]
        for path, body, code in cases:
            answer = httpx.post(server.url + path, json=body)
            assert (answer.status_code, answer.json()["error"]["code"]) == (400, code), body
        assert httpx.post(server.url + "/api/register",
                          json={"name": "ß" * 12, "password": "plum rain 9"}).status_code == 201


def test_the_limits_are_options_of_baohuang_serve(tmp_path: Path) -> None:
    """``baohuang serve --watchers-per-table 1 --table-idle 1``: a second watcher is
    refused, and a table nobody plays at soon leaves the lobby."""
    async def main(url: str) -> tuple[str, str]:
        owner = Client(url)
        await owner.guest("flags")
        table = await owner.create_table(timeout=60)
        first, second = await Raw.connect(url), await Raw.connect(url)
        for raw in (first, second):
            await raw.send({"type": "join", "table": table["id"], "as": "watcher"})
        kinds = [(await first.recv())["type"], (await second.recv()).get("code", "")]

        async def gone() -> bool:
            return bool((await owner.request("GET", "/api/tables"))["total"] == 0)
        await _until(gone)
        for raw in (first, second):
            await raw.close()
        return kinds[0], kinds[1]

    with running_server("sqlite", tmp_path, *FAST, "--watchers-per-table", "1",
                        "--table-idle", "1") as server:
        assert asyncio.run(main(server.url)) == ("table", "too_many_watchers")
