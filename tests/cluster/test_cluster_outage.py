"""PostgreSQL briefly unreachable, for real: a cluster node (real redis-server) on a
PostgreSQL of the test's own runs a table of five connected players and a table of
five server bots; in the middle of their games the test stops PostgreSQL (``pg_ctl
stop -m fast``) and starts it again a few seconds later.  The tables pause — every
player is told (``pause``), then told they go on — and resume by themselves: the
bots' moves that could not be stored are stored once the database is back, both games
end with the very actions and results of the same deals played undisturbed, and every
version of each table's log is stored once."""

from __future__ import annotations

import asyncio
import contextlib
import shutil
import subprocess
import tempfile
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from server_support import AtVersion, Clocks, Raw, guests, play_together, raw_play

from baohuang.client import Client
from baohuang.server.cluster.services import Postgres, RedisServer
from baohuang.server.config import ServerConfig
from baohuang.server.db.storage import open_storage
from baohuang.server.harness import ServerProcess, ServerThread, free_port
from baohuang.server.table.clock import ManualClock
from baohuang.server.table.outage import RETRY_MAX

FLAGS = ("--bot-delay", "0.02", "--hosted-delay", "0", "--next-game-delay", "0",
         "--away-grace", "60", "--log-level", "info")
PLAYERS = {"practice": True, "seed": 20261206, "timeout": 600, "games": 1}
BOTS = {"practice": True, "seed": 20261207, "timeout": 600, "games": 1,
        "bots": {str(seat): "heuristic" for seat in range(5)}}


async def _games(db_url: str, ids: list[str], within: float = 180.0) -> list[dict[str, Any]]:
    """The one game of each table, once every one is over."""
    storage = await open_storage(db_url)
    try:
        loop = asyncio.get_running_loop()
        deadline = loop.time() + within
        while True:
            games = [await storage.table_games(table_id) for table_id in ids]
            if all(g and g[0]["status"] == "over" for g in games):
                return [g[0] for g in games]
            assert loop.time() < deadline, "the tables did not finish in time"
            await asyncio.sleep(0.1)
    finally:
        await storage.close()


async def _session(url: str, db_url: str, stop: Callable[[], None] | None = None,
                   resume: Callable[[], Awaitable[None]] | None = None
                   ) -> tuple[list[dict[str, Any]], list[dict[str, Any]], list[Any]]:
    """Both tables played at the node at ``url``; ``stop`` is done once the players'
    table reaches version 40, right in a player's message hook (the players' loop held,
    so their game cannot end before it), and ``resume`` is awaited after it.  The
    stored games, every ``pause`` message the players got, and the players' results."""
    clients = await guests(url, 5, "o")
    owner = Client(url, token=clients[0].token)
    players = (await owner.create_table(**PLAYERS))["id"]
    bots = (await owner.create_table(**BOTS))["id"]
    pauses: list[dict[str, Any]] = []
    at_version = AtVersion(40, stop) if stop is not None else None

    def watch(message: dict[str, Any]) -> None:
        if message.get("type") == "pause":
            pauses.append(message)
        if at_version is not None:
            at_version(message)

    async def resume_after_stop() -> None:
        assert at_version is not None and resume is not None
        await at_version.happened.wait()
        await resume()

    task = asyncio.create_task(resume_after_stop()) if stop is not None else None
    results = await play_together(clients, players, on_message=watch)
    if task is not None:
        assert at_version is not None and at_version.done
        await task
    return await _games(db_url, [players, bots]), pauses, results


@contextlib.contextmanager
def private_postgres() -> Iterator[Postgres]:
    """A PostgreSQL of the test's own, to stop and start (skipped where not installed)."""
    if Postgres.programs() is None:
        pytest.skip("PostgreSQL is not installed (Debian: apt-get install postgresql)")
    # (as root PostgreSQL runs as the user postgres, who cannot enter pytest's tmp_path)
    home = Path(tempfile.mkdtemp(prefix="bh-outage-"))
    home.chmod(0o755)
    pg = Postgres(free_port(), home / "pg")
    try:
        pg.start()
        yield pg
    finally:
        pg.stop()
        shutil.rmtree(home, ignore_errors=True)


def _pg_ctl(pg: Postgres, *args: str) -> None:
    programs = Postgres.programs()
    assert programs is not None
    subprocess.run(pg._as_owner([str(programs / "pg_ctl"), "-D", str(pg.data), *args]),
                   check=True, stdout=subprocess.DEVNULL)


def test_postgres_out_of_reach_pauses_the_tables_and_they_go_on_the_same(
        tmp_path: Path, redis_server: RedisServer) -> None:
    single = ServerProcess(f"sqlite+aiosqlite:///{tmp_path / 'single.db'}", None, *FLAGS,
                           log=tmp_path / "single.log")
    with single:
        undisturbed, none, _ = asyncio.run(
            _session(single.url, f"sqlite+aiosqlite:///{tmp_path / 'single.db'}"))
    assert none == []

    with private_postgres() as pg:
        node = ServerProcess(pg.url, None, *FLAGS, "--redis", redis_server.url, "--node",
                             "one", log=tmp_path / "one.log")
        with node:
            def stop() -> None:
                _pg_ctl(pg, "stop", "-m", "fast", "-w")

            async def resume() -> None:
                await asyncio.sleep(3)              # (the tables wait meanwhile)
                await asyncio.to_thread(pg.start)

            games, pauses, results = asyncio.run(_session(node.url, pg.url, stop, resume))

    log = (tmp_path / "one.log").read_text()
    assert "the database is out of reach; paused" in log
    assert "the database is back" in log
    # the players were told: paused, then going on (each of the five both)
    assert [p["paused"] for p in pauses].count(True) >= 5
    assert [p["paused"] for p in pauses].count(False) >= 5
    assert all(p.get("reason") == "database" for p in pauses if p["paused"])
    assert pauses[-1]["paused"] is False
    for game, alone in zip(games, undisturbed, strict=True):
        assert [a["action"] for a in game["actions"]] == \
            [a["action"] for a in alone["actions"]]
        assert game["result"] == alone["result"]
    outcome = results[0].games[0]["result"]
    assert all(r.games[0]["result"] == outcome for r in results)


def test_the_web_client_shows_the_pause_and_its_end(tmp_path: Path) -> None:
    """A page watching a table of five bots (one server on PostgreSQL) while the
    database is stopped: the page says the game is paused (in the page's language),
    then that banner goes and the game goes on."""
    sync_api = pytest.importorskip("playwright.sync_api")
    if not Path("/usr/bin/chromium").exists():
        pytest.skip("Chromium is not installed at /usr/bin/chromium")
    with private_postgres() as pg, \
            ServerProcess(pg.url, None, "--bot-delay", "0.2", "--log-level", "info",
                          log=tmp_path / "server.log") as server, \
            sync_api.sync_playwright() as p:
        token = httpx.post(server.url + "/api/guest", json={"name": "host"},
                           timeout=10).json()["token"]
        table = httpx.post(server.url + "/api/tables", timeout=10,
                           headers={"Authorization": f"Bearer {token}"},
                           json={"bots": {str(s): "heuristic" for s in range(5)}}).json()
        browser = p.chromium.launch(executable_path="/usr/bin/chromium",
                                    args=["--no-sandbox", "--disable-gpu"])
        try:
            for lang, text in (("en", "paused"), ("zh", "暂停")):
                page = browser.new_context(base_url=server.url).new_page()
                page.add_init_script(f"localStorage.setItem('bh_lang', '{lang}')")
                page.set_default_timeout(20000)
                page.goto(f"/#/w/{table['id']}")
                page.wait_for_function("() => window.baohuang?.screen?.view")
                _pg_ctl(pg, "stop", "-m", "fast", "-w")
                banner = page.get_by_test_id("paused-banner")
                banner.wait_for(state="visible")
                assert text in banner.inner_text()
                version = page.evaluate("() => window.baohuang.screen.version")
                pg.start()
                banner.wait_for(state="hidden")
                page.wait_for_function(f"() => window.baohuang.screen.version > {version}")
                page.context.close()
        finally:
            browser.close()


# -- every write of a table, not only its actions ------------------------------------------
async def _stored(db_url: str, table_id: str) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The table's stored row and its games."""
    storage = await open_storage(db_url)
    try:
        row = next(r for r in await storage.unfinished_tables() if r["id"] == table_id)
        return row, await storage.table_games(table_id)
    finally:
        await storage.close()


async def _away(pg: Postgres) -> None:
    await asyncio.to_thread(_pg_ctl, pg, "stop", "-m", "fast", "-w")


async def _resumed(pg: Postgres, clock: ManualClock, raws: list[Raw]) -> None:
    """PostgreSQL back: the table's clock moved on, a retry at a time, until each of
    ``raws`` is told the table goes on (each was told it paused first)."""
    await asyncio.to_thread(pg.start)
    loop = asyncio.get_running_loop()
    end = loop.time() + 60
    for raw in raws:
        while True:
            assert loop.time() < end, "the table did not go on"
            due = clock.next_due()
            if due is not None and due <= clock.now() + RETRY_MAX:     # (a retry)
                await asyncio.to_thread(clock.advance_to, due)
            try:
                message = await raw.recv_type("pause", timeout=1)
            except TimeoutError:
                continue
            if not message["paused"]:
                break
    for raw in raws:
        pauses = [m["paused"] for m in raw.seen if m["type"] == "pause"]
        assert pauses[-2:] == [True, False], pauses


def test_every_write_of_a_table_pauses_it_while_the_database_is_away(tmp_path: Path) -> None:
    """Not only actions and results: a seat taken, 托管 turned on and the start of the
    match's next game are each written while PostgreSQL is stopped.  Each time the table
    pauses, everyone at it is told (``pause``) and, PostgreSQL back, goes on with the
    write stored once: the fifth seat and the match's start, the seat's 托管, game 1 as
    one row after game 0.  The table runs on a clock the test moves, so its retries
    come when the test says."""
    clocks = Clocks()
    with private_postgres() as pg:
        config = ServerConfig(db_url=pg.url, bot_delay=0.0, hosted_delay=0.0,
                              guard_pause=0.0, next_game_delay=5.0, away_grace=600.0)
        with ServerThread(config, clocks=clocks) as server:
            asyncio.run(_every_write(server.url, pg, clocks))


async def _every_write(url: str, pg: Postgres, clocks: Clocks) -> None:
    clients = await guests(url, 5, "w")
    table_id = (await clients[0].create_table(practice=True, seed=20261208, timeout=600,
                                              games=2))["id"]
    clock = clocks.tables[table_id]
    watcher = await Raw.connect(url)
    await watcher.send({"type": "join", "table": table_id, "as": "watcher"})
    await watcher.recv_type("table")
    seats = [await Raw.connect(url, client.token) for client in clients]
    for raw in seats[:4]:
        await raw.send({"type": "join", "table": table_id})
        await raw.recv_type("table")
    everyone = [*seats, watcher]

    # the fifth seat taken (and so the match started) while the database is away
    await _away(pg)
    await seats[4].send({"type": "join", "table": table_id})
    paused = await watcher.recv_type("pause")
    assert paused == {"type": "pause", "paused": True, "reason": "database"}
    await _resumed(pg, clock, everyone)
    for raw in everyone:
        await raw.recv_type("snapshot")
    row, games = await _stored(pg.url, table_id)
    assert row["status"] == "playing"
    assert [seat["user_id"] for seat in row["seats"]] == [(c.user or {}).get("id")
                                                         for c in clients]
    assert [g["idx"] for g in games] == [0]

    # 托管 turned on while the database is away
    await _away(pg)
    await seats[2].send({"type": "hosted", "on": True})
    await _resumed(pg, clock, everyone)
    _, games = await _stored(pg.url, table_id)
    assert games[0]["hosted"][2]["hosted"] is True
    assert not games[0]["hosted"][1]["hosted"]
    await seats[2].send({"type": "hosted", "on": False})

    # game 0 played out; game 1 starts while the database is away
    starts = []
    for raw in seats:
        await raw.send({"type": "resync", "version": None})
        starts.append(await raw.recv_type("snapshot"))
    await asyncio.wait_for(asyncio.gather(*(raw_play(raw, start=start)
                                            for raw, start in zip(seats, starts,
                                                                  strict=True))), 120)
    await _away(pg)
    for raw in seats:                  # 准备: the last one ready deals the next game
        await raw.send({"type": "ready"})
    await _resumed(pg, clock, everyone)
    for raw in everyone:
        assert (await raw.recv_type("snapshot"))["game"] == 1
    _, games = await _stored(pg.url, table_id)
    assert [(g["idx"], g["status"]) for g in games] == [(0, "over"), (1, "playing")]
    for raw in everyone:
        await raw.close()


def test_the_api_answers_503_while_the_database_is_away_and_works_after(
        tmp_path: Path) -> None:
    """A request that needs PostgreSQL while it is stopped is told so (503
    ``database_unavailable``, with ``Retry-After``), not a server error; it works again
    once PostgreSQL is back."""
    with private_postgres() as pg:
        config = ServerConfig(db_url=pg.url, bot_delay=0.0, hosted_delay=0.0)
        with ServerThread(config) as server:
            token = httpx.post(server.url + "/api/guest", json={"name": "Lin"},
                               timeout=30).json()["token"]
            auth = {"Authorization": f"Bearer {token}"}
            asyncio.run(_away(pg))
            for path, body in (("/api/tables", {}), ("/api/guest", {"name": "Zhou"})):
                refused = httpx.post(server.url + path, json=body, headers=auth, timeout=60)
                assert refused.status_code == 503, (path, refused.text)
                assert refused.json()["error"]["code"] == "database_unavailable"
                assert refused.headers["Retry-After"] == "5"
            pg.start()
            for _ in range(20):         # (a pooled connection may be found dead first)
                made = httpx.post(server.url + "/api/tables", json={}, headers=auth,
                                  timeout=60)
                if made.status_code != 503:
                    break
            assert made.status_code == 201, made.text
