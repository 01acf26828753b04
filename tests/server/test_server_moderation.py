"""Moderation against a real server (SQLite; PostgreSQL too when BAOHUANG_TEST_PG_URL
is set): players report (举报) one another, moderators see the reports with the game's
replay, mute, suspend, ban, close a table and reset a password, each action in the
audit log; a player is refused (403) on every moderator route; ``baohuang admin``
works on the same database from the shell."""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from server_support import DATABASES, LOOSE_CONFIG, Raw, database, error_of
from typer.testing import CliRunner
from websockets.exceptions import ConnectionClosed

from baohuang.cli import app as cli_app
from baohuang.client import Client
from baohuang.server.config import ServerConfig
from baohuang.server.harness import ServerThread

PASSWORD = "correct horse 1"


@contextlib.contextmanager
def served(kind: str, tmp_path: Path, **extra: Any) -> Iterator[tuple[ServerThread, str]]:
    """A server on a fresh database of ``kind``, and the database's URL."""
    with database(kind, tmp_path) as url:
        config = ServerConfig(db_url=url, bot_delay=0.0, hosted_delay=0.0, guard_pause=0.0,
                              next_game_delay=0.0, **{**LOOSE_CONFIG, **extra})
        with ServerThread(config) as server:
            yield server, url


def admin(url: str, *args: str) -> str:
    """``baohuang admin ARGS --db URL``; its output (it must succeed)."""
    result = CliRunner().invoke(cli_app, ["admin", *args, "--db", url])
    assert result.exit_code == 0, result.output
    return result.output


def auth(token: str | None) -> dict[str, str]:
    assert token is not None
    return {"Authorization": f"Bearer {token}"}


async def registered(url: str, name: str) -> Client:
    client = Client(url)
    await client.register(name, PASSWORD)
    return client


async def moderator(url: str, db: str, name: str = "Moderator", role: str = "moderator"
                    ) -> Client:
    """A registered user given ``role`` from the shell."""
    client = await registered(url, name)
    await asyncio.to_thread(admin, db, "grant", name, role, "--reason", "trusted player")
    return client


async def closed_code(raw: Raw) -> int | None:
    with contextlib.suppress(ConnectionClosed, TimeoutError):
        while True:
            await raw.recv(30)
    code: int | None = raw.ws.close_code
    return code


#: every moderator route, with a body that would be accepted from a moderator
MOD_ROUTES = [("GET", "/api/mod/reports", None), ("GET", "/api/mod/audit", None),
              ("GET", "/api/mod/users/1", None),
              ("POST", "/api/mod/reports/1/close", {"reason": "handled"}),
              ("POST", "/api/mod/users/1/mute", {"minutes": 10, "reason": "spam"}),
              ("POST", "/api/mod/users/1/unmute", {"reason": "ok"}),
              ("POST", "/api/mod/users/1/suspend", {"minutes": 10, "reason": "abuse"}),
              ("POST", "/api/mod/users/1/ban", {"reason": "cheating"}),
              ("POST", "/api/mod/users/1/unban", {"reason": "appeal"}),
              ("POST", "/api/mod/users/1/password", {"reason": "asked"}),
              ("POST", "/api/mod/users/1/role", {"role": "admin", "reason": "x"}),
              ("POST", "/api/mod/tables/abc/close", {"reason": "abuse"})]


@pytest.mark.parametrize("kind", DATABASES)
def test_a_player_is_refused_every_moderator_route(tmp_path: Path, kind: str) -> None:
    """A player calling any moderator route gets 403 ``forbidden`` saying the route is
    for moderators; without a session, 401; and nothing changes (the user he tried to
    ban can still log in, the audit log stays empty)."""
    with served(kind, tmp_path) as (server, db):
        async def main() -> tuple[list[tuple[int, str, str]], list[int], int]:
            target = await registered(server.url, "Target")
            player = await registered(server.url, "Player")
            answers, anonymous = [], []
            for method, path, body in MOD_ROUTES:
                response = httpx.request(method, server.url + path, json=body,
                                         headers=auth(player.token))
                error = error_of(response)
                answers.append((response.status_code, error["code"], error["message"]))
                anonymous.append(httpx.request(method, server.url + path,
                                               json=body).status_code)
            login = httpx.post(server.url + "/api/login",
                               json={"name": "Target", "password": PASSWORD})
            assert target.token
            return answers, anonymous, login.status_code

        answers, anonymous, login = asyncio.run(main())
        log = admin(db, "audit")
    assert all(status == 403 and code == "forbidden" and "moderator" in message
               for status, code, message in answers), answers
    assert set(anonymous) == {401}
    assert login == 200
    assert "the audit log is empty" in log


@pytest.mark.parametrize("kind", DATABASES)
def test_a_report_reaches_the_moderators_with_its_replay(tmp_path: Path, kind: str) -> None:
    """A player reports another from his history (the game's id): the moderator's list
    shows both names, the reason and the replay of that game, which opens; a reason
    too long or empty is refused (nothing stored, not counted); a third report within the minute is
    refused (429); a moderator closes the report, and the audit log says who and why."""
    with served(kind, tmp_path, report_rate_account="2/minute") as (server, db):
        async def main() -> dict[str, Any]:
            url = server.url
            reporter, reported = Client(url), await registered(url, "Rude")
            await reporter.guest("Reporter")
            table = await reporter.quickplay(bots="heuristic", timeout=60)
            await reporter.play(table["id"], "hosted")
            game_id = (await reporter.history())[0]["game_id"]
            assert reported.user is not None
            body = {"user_id": reported.user["id"], "reason": "  insulted everyone  ",
                    "place": "history", "game_id": game_id}
            made = httpx.post(url + "/api/reports", json=body, headers=auth(reporter.token))
            too_long = httpx.post(url + "/api/reports", json={**body, "reason": "x" * 501},
                                  headers=auth(reporter.token))
            empty = httpx.post(url + "/api/reports", json={**body, "reason": " "},
                               headers=auth(reporter.token))
            from_table = httpx.post(url + "/api/reports", json={
                "user_id": reported.user["id"], "reason": "slow play", "place": "table",
                "table_id": table["id"]}, headers=auth(reporter.token))
            self_report = httpx.post(url + "/api/reports", json={
                **body, "user_id": reporter.user["id"] if reporter.user else 0},
                headers=auth(reporter.token))
            limited = httpx.post(url + "/api/reports", json=body, headers=auth(reporter.token))
            mod = await moderator(url, db)
            listed = httpx.get(url + "/api/mod/reports", headers=auth(mod.token)).json()
            report = next(r for r in listed["reports"] if r["place"] == "history")
            replay = httpx.get(url + report["replay_api"], headers=auth(mod.token))
            closed = httpx.post(url + f"/api/mod/reports/{report['id']}/close",
                                json={"reason": "warned him"}, headers=auth(mod.token))
            still_open = httpx.get(url + "/api/mod/reports", headers=auth(mod.token)).json()
            entries = httpx.get(url + "/api/mod/audit", headers=auth(mod.token)).json()
            return {"made": made, "too_long": too_long, "empty": empty,
                    "from_table": from_table, "self": self_report, "limited": limited,
                    "listed": listed, "report": report, "replay": replay,
                    "game_id": game_id, "closed": closed, "still_open": still_open,
                    "entries": entries["entries"], "table": table["id"]}

        got = asyncio.run(main())
    assert got["made"].status_code == 201
    assert (got["too_long"].status_code, error_of(got["too_long"])["code"]) == (400, "bad_reason")
    assert error_of(got["empty"])["code"] == "bad_reason"
    assert got["from_table"].status_code == 201
    assert got["self"].status_code == 400
    assert (got["limited"].status_code, error_of(got["limited"])["code"]) == (429, "rate_limited")
    assert len(got["listed"]["reports"]) == 2          # (the refused ones are not stored)
    report = got["report"]
    assert (report["reporter_name"], report["reported_name"]) == ("Reporter", "Rude")
    assert report["reason"] == "insulted everyone"
    assert report["replay"] == f"/#/replay/{got['game_id']}"
    assert got["replay"].status_code == 200 and got["replay"].json()["game_id"] == got["game_id"]
    by_table = next(r for r in got["listed"]["reports"] if r["place"] == "table")
    assert by_table["table_id"] == got["table"] and by_table["game_id"] == got["game_id"]
    assert got["closed"].status_code == 200
    assert [r["place"] for r in got["still_open"]["reports"]] == ["table"]
    entry = got["entries"][0]
    assert (entry["action"], entry["moderator_name"], entry["reason"], entry["via"]) == \
        ("close_report", "Moderator", "warned him", "web")
    assert entry["detail"] == {"report": report["id"]}


@pytest.mark.parametrize("kind", DATABASES)
def test_a_ban_ends_the_players_sessions_at_once(tmp_path: Path, kind: str) -> None:
    """A moderator bans a player who has two sessions and an open socket: the socket is
    closed (4003) there and then, both tokens are refused, a login with the right
    password is refused (403 ``banned``); an unban lets him log in again.  Both are in
    the audit log with who, when and why; a moderator cannot ban an admin."""
    with served(kind, tmp_path) as (server, db):
        async def main() -> dict[str, Any]:
            url = server.url
            cheat = await registered(url, "Cheat")
            second = Client(url)
            await second.login("Cheat", PASSWORD)
            sock = await Raw.connect(url, cheat.token)
            mod = await moderator(url, db)
            boss = await moderator(url, db, "Boss", "admin")
            assert cheat.user is not None and boss.user is not None
            target = cheat.user["id"]
            banned = httpx.post(url + f"/api/mod/users/{target}/ban",
                                json={"reason": "used a second account to see cards"},
                                headers=auth(mod.token))
            code = await closed_code(sock)
            me = [httpx.get(url + "/api/me", headers=auth(c.token)).status_code
                  for c in (cheat, second)]
            login = httpx.post(url + "/api/login", json={"name": "Cheat", "password": PASSWORD})
            state = httpx.get(url + f"/api/mod/users/{target}", headers=auth(mod.token)).json()
            on_admin = httpx.post(url + f"/api/mod/users/{boss.user['id']}/ban",
                                  json={"reason": "coup"}, headers=auth(mod.token))
            unbanned = httpx.post(url + f"/api/mod/users/{target}/unban",
                                  json={"reason": "appeal accepted"}, headers=auth(mod.token))
            again = httpx.post(url + "/api/login", json={"name": "Cheat", "password": PASSWORD})
            audit = httpx.get(url + "/api/mod/audit", headers=auth(mod.token)).json()
            return {"banned": banned.status_code, "code": code, "me": me, "login": login,
                    "state": state, "on_admin": on_admin, "unbanned": unbanned.status_code,
                    "again": again.status_code, "audit": audit["entries"], "target": target}

        got = asyncio.run(main())
    assert got["banned"] == 200
    assert got["code"] == 4003
    assert got["me"] == [401, 401]
    assert (got["login"].status_code, error_of(got["login"])["code"]) == (403, "banned")
    assert got["state"]["banned"] is True
    assert got["on_admin"].status_code == 403
    assert (got["unbanned"], got["again"]) == (200, 200)
    actions = [(e["action"], e["target_user"], e["moderator_name"], e["reason"])
               for e in got["audit"] if e["action"] in ("ban", "unban")]
    assert actions == [("unban", got["target"], "Moderator", "appeal accepted"),
                       ("ban", got["target"], "Moderator", "used a second account to see cards")]
    assert all(e["at"] > 0 for e in got["audit"])


@pytest.mark.parametrize("kind", DATABASES)
def test_mute_suspend_and_password_reset(tmp_path: Path, kind: str) -> None:
    """A muted player's quick phrases go nowhere (he is told ``muted``) while another's
    reach the table, until he is unmuted; a suspended player cannot log in (403
    ``suspended``, until when); a reset password ends the player's sessions and the new
    one, told once to the moderator, logs him in."""
    with served(kind, tmp_path) as (server, db):
        async def main() -> dict[str, Any]:
            url = server.url
            loud, quiet = await registered(url, "Loud"), await registered(url, "Quiet")
            mod = await moderator(url, db)
            assert loud.user is not None and quiet.user is not None
            table = await loud.create_table(timeout=600, autostart=False)
            socks = [await Raw.connect(url, c.token) for c in (loud, quiet)]
            for sock in socks:
                await sock.send({"type": "join", "table": table["id"]})
                await sock.recv_type("table")
            muted = httpx.post(url + f"/api/mod/users/{loud.user['id']}/mute",
                               json={"minutes": 30, "reason": "spamming phrases"},
                               headers=auth(mod.token))
            await socks[0].send({"type": "emote", "id": "hurry"})
            refused = await socks[0].recv_type("error")
            await socks[1].send({"type": "emote", "id": "hello"})
            heard = await socks[0].recv_type("emote")
            httpx.post(url + f"/api/mod/users/{loud.user['id']}/unmute",
                       json={"reason": "served"}, headers=auth(mod.token))
            await socks[0].send({"type": "emote", "id": "thanks"})
            heard_by_quiet = [(await socks[1].recv_type("emote"))["id"]]
            while heard_by_quiet[-1] != "thanks":
                heard_by_quiet.append((await socks[1].recv_type("emote"))["id"])
            suspended = httpx.post(url + f"/api/mod/users/{quiet.user['id']}/suspend",
                                   json={"minutes": 60, "reason": "abuse"},
                                   headers=auth(mod.token))
            quiet_code = await closed_code(socks[1])
            login = httpx.post(url + "/api/login", json={"name": "Quiet", "password": PASSWORD})
            reset = httpx.post(url + f"/api/mod/users/{loud.user['id']}/password",
                               json={"reason": "he lost it"}, headers=auth(mod.token))
            loud_code = await closed_code(socks[0])
            old_token = httpx.get(url + "/api/me", headers=auth(loud.token)).status_code
            new_login = httpx.post(url + "/api/login", json={
                "name": "Loud", "password": reset.json()["password"]}).status_code
            return {"muted": muted.json(), "refused": refused, "heard": heard,
                    "heard_by_quiet": heard_by_quiet,
                    "suspended": suspended.json(), "quiet_code": quiet_code, "login": login,
                    "loud_code": loud_code, "old_token": old_token, "new_login": new_login}

        got = asyncio.run(main())
    assert got["muted"]["until"] > 0
    assert got["refused"]["code"] == "muted" and got["refused"]["ref"] == "emote"
    assert got["heard"]["id"] == "hello"
    assert got["heard_by_quiet"] == ["hello", "thanks"]     # (never the muted "hurry")
    assert got["quiet_code"] == 4003
    assert (got["login"].status_code, error_of(got["login"])["code"]) == (403, "suspended")
    assert "until" in error_of(got["login"])["message"]
    assert got["loud_code"] == 4001
    assert (got["old_token"], got["new_login"]) == (401, 200)


@pytest.mark.parametrize("kind", DATABASES)
def test_closing_a_table_abandons_its_game_and_tells_every_seat(tmp_path: Path,
                                                                 kind: str) -> None:
    """A moderator closes a table in play: every seat is told the table is dissolved
    (``closed``) with the moderator's reason; its game is stored as abandoned and not
    scored (in nobody's history), a move after it is refused, and closing it again is
    409 — the table's own actor stores it before anyone is told."""
    with served(kind, tmp_path) as (server, db):
        async def main() -> dict[str, Any]:
            url = server.url
            players = [Client(url) for _ in range(5)]
            for i, player in enumerate(players):
                await player.guest(f"p{i}")
            table = await players[0].create_table(timeout=600)
            socks = [await Raw.connect(url, p.token) for p in players]
            for sock in socks:
                await sock.send({"type": "join", "table": table["id"]})
            for sock in socks:
                await sock.recv_type("snapshot")
            mod = await moderator(url, db)
            closed = httpx.post(url + f"/api/mod/tables/{table['code']}/close",
                                json={"reason": "collusion between seats 1 and 2"},
                                headers=auth(mod.token))
            told = []
            for sock in socks:
                message = await sock.recv_type("table")
                while message["table"]["status"] != "dissolved":
                    message = await sock.recv_type("table")
                told.append(message["table"]["dissolved"])
            view = socks[0].view
            await socks[0].send({"type": "act", "action": {"kind": "pass"},
                                 "version": view.get("version", 0)})
            late = await socks[0].recv_type("error")
            again = httpx.post(url + f"/api/mod/tables/{table['id']}/close",
                               json={"reason": "again"}, headers=auth(mod.token))
            history = [await p.history() for p in players]
            audit = httpx.get(url + "/api/mod/audit", headers=auth(mod.token)).json()
            return {"closed": closed.status_code, "told": told, "late": late,
                    "again": again.status_code, "history": history,
                    "audit": audit["entries"], "table": table["id"]}

        got = asyncio.run(main())
    assert got["closed"] == 200
    assert got["told"] == [{"reason": "closed", "seats": [],
                            "note": "collusion between seats 1 and 2"}] * 5
    assert got["late"]["ref"] == "act"
    assert got["again"] == 409
    assert got["history"] == [[]] * 5
    entry = got["audit"][0]
    assert (entry["action"], entry["target_table"]) == ("close_table", got["table"])


@pytest.mark.parametrize("kind", DATABASES)
def test_the_admin_commands_work_on_the_database(tmp_path: Path, kind: str) -> None:
    """``baohuang admin`` from the shell on the server's database: a role granted
    shows in /api/me, a ban made there refuses the player's token and login at once, a
    mute and a password reset work, the reports and the audit log are listed (the
    audit log saying the shell made them), and an unknown name is an error (exit 1)."""
    with served(kind, tmp_path) as (server, db):
        async def main() -> dict[str, Any]:
            url = server.url
            helper, cheat = await registered(url, "Helper"), await registered(url, "Cheat")
            assert cheat.user is not None
            httpx.post(url + "/api/reports", json={"user_id": cheat.user["id"], "place": "table",
                                                   "reason": "saw my cards"},
                       headers=auth(helper.token))
            out: dict[str, Any] = {}
            out["grant"] = await asyncio.to_thread(admin, db, "grant", "helper", "moderator",
                                                   "--reason", "club volunteer")
            out["role"] = httpx.get(url + "/api/me", headers=auth(helper.token)).json()["role"]
            out["reports"] = await asyncio.to_thread(admin, db, "reports")
            out["reports_json"] = json.loads(await asyncio.to_thread(admin, db, "reports",
                                                                     "--json"))
            out["mute"] = await asyncio.to_thread(admin, db, "mute", "Cheat", "--minutes", "5",
                                                  "--reason", "spam")
            out["ban"] = await asyncio.to_thread(admin, db, "ban", "cheat", "--reason",
                                                 "cheating")
            out["me"] = httpx.get(url + "/api/me", headers=auth(cheat.token)).status_code
            out["login"] = httpx.post(url + "/api/login",
                                      json={"name": "Cheat", "password": PASSWORD}).status_code
            await asyncio.to_thread(admin, db, "unban", f"#{cheat.user['id']}", "--reason",
                                    "appeal")
            reset = await asyncio.to_thread(admin, db, "reset-password", "Cheat", "--reason",
                                            "asked by mail")
            out["new_login"] = httpx.post(url + "/api/login", json={
                "name": "Cheat", "password": reset.rsplit(": ", 1)[1].strip()}).status_code
            out["audit"] = json.loads(await asyncio.to_thread(admin, db, "audit", "--json"))
            out["audit_text"] = await asyncio.to_thread(admin, db, "audit")
            unknown = await asyncio.to_thread(CliRunner().invoke, cli_app, [
                "admin", "ban", "nobody", "--reason", "x", "--db", db])
            out["unknown"] = (unknown.exit_code, unknown.output)
            return out

        got = asyncio.run(main())
    assert got["role"] == "moderator"
    assert "Helper" in got["reports"] and "saw my cards" in got["reports"]
    assert got["reports_json"][0]["reported_name"] == "Cheat"
    assert "muted until" in got["mute"]
    assert (got["me"], got["login"], got["new_login"]) == (401, 403, 200)
    assert [e["action"] for e in got["audit"]] == ["reset_password", "unban", "ban", "mute",
                                                   "grant"]
    assert {e["via"] for e in got["audit"]} == {"shell"}
    assert got["audit"][2]["reason"] == "cheating"
    assert "shell ban user Cheat" in got["audit_text"]
    assert got["unknown"][0] == 1 and "no registered user called 'nobody'" in got["unknown"][1]
