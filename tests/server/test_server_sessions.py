"""Sessions against a real server (issue 16, SECURITY.md): a session that ends by age
closes its open sockets; a password change (the old password given) ends every other
session of the user and their sockets; common passwords are refused."""

from __future__ import annotations

import asyncio
import contextlib
import sqlite3
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
from server_support import Raw
from websockets.exceptions import ConnectionClosed

from baohuang.client import Client
from baohuang.server.accounts.accounts import common_passwords
from baohuang.server.config import ServerConfig
from baohuang.server.db.storage import open_storage
from baohuang.server.harness import ServerThread


def _config(tmp_path: Path, **extra: Any) -> ServerConfig:
    return ServerConfig(db_url=f"sqlite+aiosqlite:///{tmp_path / 'bh.db'}", bot_delay=0.0,
                        hosted_delay=0.0, guard_pause=0.0, next_game_delay=0.0, **extra)


def _auth(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


async def _closed(raw: Raw) -> int | None:
    """Read until the server closes the socket; its close code."""
    with contextlib.suppress(ConnectionClosed):
        while True:
            await raw.recv(30)
    code: int | None = raw.ws.close_code
    return code


async def _alive(raw: Raw) -> bool:
    await raw.send({"type": "ping"})
    answer = await raw.recv_type("pong")
    return bool(answer["type"] == "pong")


@pytest.mark.parametrize("age", ["idle", "absolute"])
def test_a_session_ending_by_age_closes_its_sockets(tmp_path: Path, age: str) -> None:
    """The session of a seated player ends by age while two of its sockets are open
    (the test ages it in the database instead of waiting a month): both close with
    4001, the other players see the seat disconnected, and the token is no session."""
    config = _config(tmp_path, session_check=0.05, session_idle=3600.0,
                     session_absolute=7200.0)

    async def main(server: ServerThread) -> tuple[list[int | None], dict[str, Any], int, bool]:
        url = server.url
        player, other = Client(url), Client(url)
        await player.guest("aging")
        await other.guest("staying")
        assert player.token is not None and other.token is not None
        table = await player.create_table(timeout=60)
        sockets = [await Raw.connect(url, player.token) for _ in range(2)]
        await sockets[0].send({"type": "join", "table": table["id"]})
        await sockets[0].recv_type("table")
        watcher = await Raw.connect(url, other.token)
        await watcher.send({"type": "join", "table": table["id"], "as": "watcher"})
        seats = (await watcher.recv_type("table"))["table"]["seats"]
        assert seats[0]["connected"] is True
        # (the join was a use of the session, recorded at the check after it: that check
        # is made now, before the month the database is aged by)
        assert server.app is not None
        await asyncio.to_thread(server.call, server.app.state.server.sessions.sweep)
        with sqlite3.connect(tmp_path / "bh.db") as db:
            # a month unused, or older than the absolute limit
            aged = "last_used = created - 8000" if age == "idle" else "created = created - 8000"
            db.execute(f"UPDATE sessions SET {aged} WHERE user_id = "
                       "(SELECT id FROM users WHERE name = 'aging')")
        codes = [await _closed(raw) for raw in sockets]
        while True:                       # the others hear that the seat is away
            message = await watcher.recv_type("table")
            if not message["table"]["seats"][0]["connected"]:
                break
        me = httpx.get(url + "/api/me", headers=_auth(player.token))
        alive = await _alive(watcher)     # the other user's session goes on
        await watcher.close()
        return codes, message["table"]["seats"][0], me.status_code, alive

    with ServerThread(config) as server:
        codes, seat, status, alive = asyncio.run(main(server))
    assert codes == [4001, 4001]
    assert seat["name"] == "aging" and seat["connected"] is False
    assert status == 401 and alive


def test_messages_on_an_open_socket_keep_its_session_in_use(tmp_path: Path) -> None:
    """A session used only through a socket that stays open is in use while the socket
    sends messages: the check of the sessions with open sockets records its use (as an
    HTTP call with the token would) and leaves it open, while a session whose socket is
    silent ends by age and its socket closes (4001). The test ages both sessions in the
    database instead of waiting a month, and asks the server for the check (it runs once
    a minute by itself) instead of waiting for it."""
    config = _config(tmp_path, session_check=3600.0, session_idle=3600.0,
                     session_absolute=7200.0)

    async def main(server: ServerThread) -> tuple[bool, int | None, int, int, float]:
        url = server.url
        busy, silent = Client(url), Client(url)
        await busy.guest("busy")
        await silent.guest("silent")
        assert busy.token is not None and silent.token is not None
        sockets = [await Raw.connect(url, client.token) for client in (busy, silent)]
        with sqlite3.connect(tmp_path / "bh.db") as db:      # a month unused, both
            db.execute("UPDATE sessions SET last_used = created - 8000")
        assert await _alive(sockets[0])   # (a message on the busy socket: a use)
        assert server.app is not None
        sessions = server.app.state.server.sessions
        await asyncio.to_thread(server.call, sessions.sweep)
        code = await _closed(sockets[1])
        alive = await _alive(sockets[0])
        with sqlite3.connect(tmp_path / "bh.db") as db:
            (used,), = db.execute("SELECT last_used - sessions.created FROM sessions JOIN users "
                                  "ON users.id = sessions.user_id WHERE name = 'busy'")
        statuses = [httpx.get(url + "/api/me", headers=_auth(token)).status_code
                    for token in (busy.token, silent.token)]
        await sockets[0].close()
        return alive, code, statuses[0], statuses[1], used

    with ServerThread(config) as server:
        alive, code, busy_status, silent_status, used = asyncio.run(main(server))
    assert alive and code == 4001
    assert used > -60, "the busy session's use was recorded when it was checked"
    assert (busy_status, silent_status) == (200, 401)


def test_a_password_change_ends_every_other_session(tmp_path: Path) -> None:
    """A user logged in twice changes the password from one session: the old password
    must be right and the new one not common; then the other session's token and its
    sockets are gone, this session and its socket go on, and only the new password
    logs in."""
    with ServerThread(_config(tmp_path)) as server:
        url = server.url
        made = httpx.post(url + "/api/register", json={"name": "Zhao Min",
                                                        "password": "zhao-min-1"})
        assert made.status_code == 201
        here = made.json()["token"]
        there = httpx.post(url + "/api/login", json={"name": "zhao min",
                                                     "password": "zhao-min-1"}).json()["token"]

        async def sockets() -> tuple[Raw, Raw]:
            return await Raw.connect(url, here), await Raw.connect(url, there)
        runner = asyncio.Runner()
        try:
            mine, theirs = runner.run(sockets())
            change = "/api/password"
            wrong = httpx.post(url + change, json={"password": "not-it-1",
                                                    "new_password": "pine cone 77"},
                               headers=_auth(here))
            assert (wrong.status_code, wrong.json()["error"]["code"]) == (401, "bad_credentials")
            common = httpx.post(url + change, json={"password": "zhao-min-1",
                                                     "new_password": "Password1"},
                                headers=_auth(here))
            assert (common.status_code, common.json()["error"]["code"]) == (400, "bad_password")
            assert "common" in common.json()["error"]["message"]
            nobody = httpx.post(url + change, json={"password": "zhao-min-1",
                                                     "new_password": "pine cone 77"})
            assert nobody.status_code == 401
            assert httpx.get(url + "/api/me", headers=_auth(there)).status_code == 200
            done = httpx.post(url + change, json={"password": "zhao-min-1",
                                                   "new_password": "pine cone 77"},
                              headers=_auth(here))
            assert done.status_code == 200 and done.json() == {"ok": True}
            assert runner.run(_closed(theirs)) == 4001
            assert runner.run(_alive(mine))
            runner.run(mine.close())
        finally:
            runner.close()
        assert httpx.get(url + "/api/me", headers=_auth(there)).status_code == 401
        assert httpx.get(url + "/api/me", headers=_auth(here)).json()["name"] == "Zhao Min"
        old = httpx.post(url + "/api/login", json={"name": "Zhao Min", "password": "zhao-min-1"})
        assert old.status_code == 401
        new = httpx.post(url + "/api/login", json={"name": "Zhao Min",
                                                   "password": "pine cone 77"})
        assert new.status_code == 200
        guest = httpx.post(url + "/api/guest", json={"name": "guesting"}).json()["token"]
        refused = httpx.post(url + change, json={"password": "anything-1",
                                                 "new_password": "pine cone 78"},
                             headers=_auth(guest))
        assert (refused.status_code, refused.json()["error"]["code"]) == (400, "no_password")


def test_common_passwords_and_the_name_are_refused(tmp_path: Path) -> None:
    with ServerThread(_config(tmp_path)) as server:
        for password in ("qwerty123", "PASSWORD1", "iloveyou", "sunshine"):
            refused = httpx.post(server.url + "/api/register",
                                 json={"name": "Sun Li", "password": password})
            assert refused.status_code == 400, password
            assert refused.json()["error"] == {
                "code": "bad_password",
                "message": "this password is one of the most common passwords: choose another"}
        same = httpx.post(server.url + "/api/register",
                          json={"name": "Sun Li Ming", "password": "sun li ming"})
        assert same.json()["error"]["code"] == "bad_password"
        assert httpx.post(server.url + "/api/register",
                          json={"name": "Sun Li", "password": "plum rain 9"}).status_code == 201
    # the shipped list holds thousands, all long enough to pass the length rule
    words = common_passwords()
    assert len(words) > 5000 and min(map(len, words)) >= 6 and "123456789" in words


def test_the_sessions_of_a_thousand_sockets_are_checked_at_once(tmp_path: Path) -> None:
    """The check of the sessions with open sockets (a real SQLite database) finds the
    deleted and unknown ones among 1,100 sessions (it asks about 500 at a time), and those
    ended by age, which it deletes."""
    async def main() -> tuple[list[str], list[str], list[str]]:
        storage = await open_storage(f"sqlite+aiosqlite:///{tmp_path / 'sessions.db'}")
        try:
            user = await storage.create_user("many", name_key=None, password_hash=None,
                                             guest=True, mu=25.0, sigma=8.3)
            digests = [f"{i:064x}" for i in range(1100)]
            for digest in digests:
                await storage.add_session(digest, user.id)
            await storage.delete_session(digests[700])
            unknown = "f" * 64
            ended = await storage.ended_sessions([*digests, unknown], idle=3600.0,
                                                 absolute=7200.0)
            aged = await storage.ended_sessions(digests, idle=3600.0, absolute=-1.0)
            again = await storage.ended_sessions(digests[:3], idle=3600.0, absolute=7200.0)
        finally:
            await storage.close()
        return ended, aged, again

    ended, aged, again = asyncio.run(main())
    assert ended == [f"{700:064x}", "f" * 64]
    assert len(aged) == 1100
    assert again == [f"{i:064x}" for i in range(3)]        # deleted when found aged


def test_the_use_of_a_thousand_busy_sessions_is_recorded_at_once(tmp_path: Path) -> None:
    """The check records the use of every session whose sockets sent messages (a real
    SQLite database, 1,100 sessions, 500 to a statement): written for those whose last
    recorded use is over a minute old, not again for one recorded half a minute ago,
    and not for one past its absolute age, which stays ended; a deleted one is not made
    again."""
    digests = [f"{i:064x}" for i in range(1100)]

    async def main() -> tuple[float, dict[str, float | None], list[str]]:
        storage = await open_storage(f"sqlite+aiosqlite:///{tmp_path / 'sessions.db'}")
        try:
            user = await storage.create_user("busy", name_key=None, password_hash=None,
                                             guest=True, mu=25.0, sigma=8.3)
            for digest in digests:
                await storage.add_session(digest, user.id)
            await storage.delete_session(digests[3])
            with sqlite3.connect(tmp_path / "sessions.db") as db:
                db.execute("UPDATE sessions SET created = created - 600, last_used = NULL")
                db.execute("UPDATE sessions SET last_used = created + 570 "
                           "WHERE token_hash = ?", (digests[1],))
                db.execute("UPDATE sessions SET created = created - 8000 "
                           "WHERE token_hash = ?", (digests[2],))
            checked = time.time()
            await storage.use_sessions(digests, absolute=7200.0)
            with sqlite3.connect(tmp_path / "sessions.db") as db:
                rows = db.execute("SELECT token_hash, last_used FROM sessions").fetchall()
            ended = await storage.ended_sessions(digests[:4], idle=3600.0, absolute=7200.0)
        finally:
            await storage.close()
        return checked, dict(rows), ended

    checked, last_used, ended = asyncio.run(main())
    assert len(last_used) == 1099 and digests[3] not in last_used
    recorded = sorted(d for d, at in last_used.items() if at is not None and at >= checked)
    assert recorded == sorted(d for d in digests if d not in digests[1:4])
    used = last_used[digests[1]]
    assert used is not None and used < checked          # recorded half a minute before
    assert last_used[digests[2]] is None                # past its absolute age
    assert ended == digests[2:4]
