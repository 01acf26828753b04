"""A player's data against a real server (SQLite; PostgreSQL too when
BAOHUANG_TEST_PG_URL is set): he downloads it as JSON (his games, his rating, his
connection log; chat is not stored, and the export says so) and deletes his account
(his games stay, under a placeholder name; his sessions end); the connection log is
purged after its retention, on a clock the test moves."""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from server_support import DATABASES, LOOSE_CONFIG, Raw, database, error_of
from websockets.exceptions import ConnectionClosed

from baohuang.client import Client
from baohuang.server.config import ServerConfig
from baohuang.server.db.storage import open_storage
from baohuang.server.harness import ServerThread
from baohuang.server.retention import Retention

PASSWORD = "correct horse 1"


@contextlib.contextmanager
def served(kind: str, tmp_path: Path) -> Iterator[tuple[ServerThread, str]]:
    with database(kind, tmp_path) as url:
        config = ServerConfig(db_url=url, bot_delay=0.0, hosted_delay=0.0, guard_pause=0.0,
                              next_game_delay=0.0, **LOOSE_CONFIG)
        with ServerThread(config) as server:
            yield server, url


def auth(token: str | None) -> dict[str, str]:
    assert token is not None
    return {"Authorization": f"Bearer {token}"}


@pytest.mark.parametrize("kind", DATABASES)
def test_a_player_downloads_his_data(tmp_path: Path, kind: str) -> None:
    """After a game and a report, the export holds his account (no password hash),
    rating, the game with its replay, the report he made, his logins with their
    address, and says chat is not stored; it is a download, and needs a session."""
    with served(kind, tmp_path) as (server, _db):
        async def main() -> tuple[httpx.Response, int, dict[str, Any]]:
            url = server.url
            player = Client(url)
            await player.register("Exporter", PASSWORD)
            await player.login("Exporter", PASSWORD)
            other = Client(url)
            await other.guest("Other")
            assert other.user is not None
            table = await player.quickplay(bots="heuristic", timeout=60)
            await player.play(table["id"], "hosted")
            httpx.post(url + "/api/reports", json={"user_id": other.user["id"],
                                                   "reason": "rude", "place": "history"},
                       headers=auth(player.token))
            answer = httpx.get(url + "/api/me/export", headers=auth(player.token))
            anonymous = httpx.get(url + "/api/me/export").status_code
            return answer, anonymous, (await player.history())[0]

        answer, anonymous, game = asyncio.run(main())
    assert answer.status_code == 200 and anonymous == 401
    assert answer.headers["content-disposition"].startswith("attachment;")
    data = answer.json()
    assert data["format"] == "baohuang-export"
    assert data["account"]["name"] == "Exporter"
    assert "password_hash" not in data["account"] and "password_hash" not in answer.text
    assert data["rating"]["points"] == data["user"]["points"]
    assert [(g["game_id"], g["score"]) for g in data["games"]] == [(game["game_id"],
                                                                   game["score"])]
    assert data["games"][0]["replay"] == f"/api/games/{game['game_id']}/replay"
    assert [r["reason"] for r in data["reports"]] == ["rude"]
    assert [c["kind"] for c in data["connections"]] == ["register", "login"]
    assert data["connections"][0]["address"] == "127.0.0.1"
    assert data["chat"]["stored"] is False and "not stored" in data["chat"]["en"]


@pytest.mark.parametrize("kind", DATABASES)
def test_a_deleted_account_leaves_its_games_under_a_placeholder(tmp_path: Path,
                                                                kind: str) -> None:
    """A registered player deletes his account: the wrong password changes nothing;
    with the right one his open socket closes, his token and login are refused, his
    finished game's replay and his user page show 已注销/deleted #id instead of his
    name, and the name is free to register again."""
    with served(kind, tmp_path) as (server, _db):
        async def main() -> dict[str, Any]:
            url = server.url
            player = Client(url)
            await player.register("Leaving", PASSWORD)
            assert player.user is not None
            user_id = player.user["id"]
            table = await player.quickplay(bots="heuristic", timeout=60)
            await player.play(table["id"], "hosted")
            game_id = (await player.history())[0]["game_id"]
            sock = await Raw.connect(url, player.token)
            wrong = httpx.post(url + "/api/me/delete", json={"password": "not it at all"},
                               headers=auth(player.token))
            still = httpx.get(url + "/api/me", headers=auth(player.token)).status_code
            deleted = httpx.post(url + "/api/me/delete", json={"password": PASSWORD},
                                 headers=auth(player.token))
            with contextlib.suppress(ConnectionClosed, TimeoutError):
                while True:
                    await sock.recv(30)
            return {"wrong": wrong, "still": still, "deleted": deleted,
                    "code": sock.ws.close_code, "user_id": user_id,
                    "me": httpx.get(url + "/api/me", headers=auth(player.token)).status_code,
                    "login": httpx.post(url + "/api/login", json={
                        "name": "Leaving", "password": PASSWORD}).status_code,
                    "replay": httpx.get(url + f"/api/games/{game_id}/replay").json(),
                    "page": httpx.get(url + f"/api/users/{user_id}").json(),
                    "again": httpx.post(url + "/api/register", json={
                        "name": "Leaving", "password": PASSWORD}).status_code}

        got = asyncio.run(main())
    assert (got["wrong"].status_code, error_of(got["wrong"])["code"]) == (401, "bad_credentials")
    assert got["still"] == 200
    placeholder = f"已注销/deleted #{got['user_id']}"
    assert got["deleted"].json() == {"ok": True, "name": placeholder}
    assert got["code"] == 4001
    assert (got["me"], got["login"]) == (401, 401)
    mine = [p for p in got["replay"]["players"] if p["user_id"] == got["user_id"]]
    assert [p["name"] for p in mine] == [placeholder]
    assert "Leaving" not in str(got["replay"])
    assert got["page"]["name"] == placeholder
    assert got["again"] == 201


def test_a_guest_confirms_the_deletion(tmp_path: Path) -> None:
    """A guest has no password: he confirms with ``confirm: true``; without it nothing
    happens."""
    with served("sqlite", tmp_path) as (server, _db):
        async def main() -> tuple[int, int, int]:
            guest = Client(server.url)
            await guest.guest("Passing")
            refused = httpx.post(server.url + "/api/me/delete", json={},
                                 headers=auth(guest.token)).status_code
            done = httpx.post(server.url + "/api/me/delete", json={"confirm": True},
                              headers=auth(guest.token)).status_code
            return refused, done, httpx.get(server.url + "/api/me",
                                            headers=auth(guest.token)).status_code

        assert asyncio.run(main()) == (400, 200, 401)


@pytest.mark.parametrize("kind", DATABASES)
def test_the_connection_log_is_purged_after_its_retention(tmp_path: Path, kind: str) -> None:
    """The purge runs at start and then every ``every`` seconds of its clock (the test
    moves both the clock and the sleeps by hand): rows older than the retention go,
    newer ones stay, and each later round purges what has aged since."""
    with database(kind, tmp_path) as url:
        async def main() -> list[list[str]]:
            storage = await open_storage(url)
            user = await storage.create_user("Logged", name_key=None, password_hash=None,
                                             guest=True, mu=25.0, sigma=8.3)
            now = [time.time()]
            for kind_, age in (("old", 10 * 86400), ("week", 5 * 86400), ("new", 60)):
                await storage.log_connection(user.id, kind_, "10.0.0.1", at=now[0] - age)
            woken: asyncio.Queue[float] = asyncio.Queue()
            wake = asyncio.Event()

            async def sleep(seconds: float) -> None:      # the purge waits for the test
                woken.put_nowait(seconds)
                await wake.wait()
                wake.clear()

            retention = Retention(storage, keep=7 * 86400, every=3600, clock=lambda: now[0],
                                  sleep=sleep)

            async def kinds() -> list[str]:
                rows = await storage.export_rows(user.id)
                return [c["kind"] for c in rows["connections"]]

            seen = [await kinds()]
            retention.start()
            assert await woken.get() == 3600               # the first round is done
            seen.append(await kinds())
            now[0] += 3 * 86400                            # three days on: "week" is old
            wake.set()
            await woken.get()
            seen.append(await kinds())
            await retention.stop()
            await storage.close()
            return seen

        assert asyncio.run(main()) == [["old", "week", "new"], ["week", "new"], ["new"]]
