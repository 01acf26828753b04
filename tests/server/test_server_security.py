"""Fair play and security against a real server (issue 16, SECURITY.md): deals that
cannot be computed, seats that cannot be taken over, turns that cannot be held,
errors that tell only what the seat sees, and the HTTP headers (bounded input:
test_server_input.py)."""

from __future__ import annotations

import asyncio
import contextlib
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
import time_machine
from server_support import Raw, error_of, guests, shared_server
from websockets.exceptions import ConnectionClosed, InvalidStatus

from baohuang.bots import hosted_action
from baohuang.client import Client, view_from_dict
from baohuang.server.config import ServerConfig
from baohuang.server.harness import ServerProcess, ServerThread


@pytest.fixture(scope="module")
def server() -> ServerProcess:
    return shared_server("sqlite")


# -- 1. deals ---------------------------------------------------------------------------------
def test_a_rated_table_refuses_a_chosen_seed(server: ServerProcess) -> None:
    token = httpx.post(server.url + "/api/guest", json={"name": "seeder"}).json()["token"]
    auth = {"Authorization": f"Bearer {token}"}
    for path in ("/api/tables", "/api/quickplay"):
        refused = httpx.post(server.url + path, json={"seed": 12}, headers=auth)
        assert refused.status_code == 400, refused.text
        assert error_of(refused)["code"] == "bad_request"
        assert "practice" in error_of(refused)["message"]
        wrong = httpx.post(server.url + path, json={"seed": 12, "practice": "yes"}, headers=auth)
        assert wrong.status_code == 400 and "'practice'" in error_of(wrong)["message"]
    made = httpx.post(server.url + "/api/tables", json={"seed": 12, "practice": True},
                      headers=auth)
    assert made.status_code == 201 and made.json()["table"]["practice"] is True
    listed = {t["id"]: t for t in httpx.get(server.url + "/api/tables").json()["tables"]}
    assert listed[made.json()["id"]]["practice"] is True
    assert "seed" not in listed[made.json()["id"]]


def test_the_next_deal_cannot_be_computed_from_a_replay(server: ServerProcess) -> None:
    """A rated match's games are dealt from seeds of their own: neither the first
    replay's seed nor anything else public gives the second deal; a practice table
    deals from its seed, is marked practice in its replays and changes no one's
    points."""
    async def main() -> tuple[list[dict[str, Any]], list[dict[str, Any]], dict[str, Any],
                              dict[str, Any]]:
        client = Client(server.url)
        await client.guest("dealt")
        table = await client.quickplay(bots="random", games=2, timeout=60)
        assert table["table"]["practice"] is False
        await asyncio.wait_for(client.play(table["id"], "hosted"), 120)
        rated = sorted(await client.history(), key=lambda h: h["index"])
        replays = [await client.replay(h["game_id"]) for h in rated]
        other = Client(server.url)
        await other.guest("practising")
        practice = await other.quickplay(bots="random", practice=True, seed=77, timeout=60)
        await asyncio.wait_for(other.play(practice["id"], "hosted"), 120)
        replay = await other.replay((await other.history())[0]["game_id"])
        return replays, rated, replay, await other.request("GET", "/api/me")

    replays, rated, practice_replay, practising = asyncio.run(main())
    first, second = (r["record"]["seed"] for r in replays)
    assert all(r["practice"] is False for r in replays)
    # the old sequence was S*1000+i from the table seed S: the games shared S
    assert first // 1000 != second // 1000 and second != first + 1
    assert max(first, second) >= 2**32        # 63 random bits, not a 31-bit number
    assert practice_replay["practice"] is True and practice_replay["record"]["seed"] == 77000
    assert practising["games"] == 0 and practising["points"] == 0     # unrated
    assert len(rated) == 2


# -- 2. seat ownership ------------------------------------------------------------------------
async def _table_you(raw: Raw, taken: int | None = None) -> dict[str, Any]:
    """``you`` of the next table message (that shows seat ``taken`` taken)."""
    while True:
        message = await raw.recv_type("table")
        if taken is None or message["table"]["seats"][taken] is not None:
            return dict(message["you"])


def test_a_seat_moved_or_given_up_on_another_socket_is_lost_at_once(
        server: ServerProcess) -> None:
    """Two sockets of one user: when one stands up or sits elsewhere, the other holds
    no seat at once — it cannot act, stand, or read any hand, even once a game runs
    and somebody else sits where it sat."""
    async def main() -> None:
        owner, other = await guests(server.url, 2, "two-sockets")
        table = await owner.create_table(timeout=60, bots={"2": "random", "3": "random",
                                                           "4": "random"})
        first = await Raw.connect(server.url, owner.token)
        await first.send({"type": "join", "table": table["id"]})
        assert (await _table_you(first))["seat"] == 0
        second = await Raw.connect(server.url, owner.token)
        await second.send({"type": "join", "table": table["id"], "as": "watcher"})
        assert (await _table_you(second))["seat"] is None
        # the second socket moves the user's seat: the first one watches now
        await second.send({"type": "sit", "seat": 1})
        assert (await _table_you(second))["seat"] == 1
        assert (await _table_you(first, taken=1)) == {"seat": None, "watcher": True}
        await first.send({"type": "act", "action": "pass"})
        assert (await first.recv_type("error"))["code"] == "not_seated"
        # the user stands up on the first socket: the second one holds nothing now
        await first.send({"type": "stand"})
        assert (await _table_you(second)) == {"seat": None, "watcher": True}
        # it sits again, then someone else fills seat 0 and the game starts
        await second.send({"type": "sit", "seat": 1})
        assert (await _table_you(second))["seat"] == 1
        stranger = await Raw.connect(server.url, other.token)
        await stranger.send({"type": "join", "table": table["id"]})
        snapshot = await first.recv_type("snapshot")          # the game started
        assert snapshot["view"]["seat"] is None and not snapshot["view"]["hand"]
        mine = await second.recv_type("snapshot")
        assert mine["view"]["seat"] == 1 and mine["view"]["hand"]
        for message in ({"type": "act", "action": "pass"}, {"type": "hosted", "on": True},
                        {"type": "resync", "version": None}):
            await first.send(message)
        codes = [(await first.recv_type("error"))["code"] for _ in range(2)]
        assert codes == ["not_seated", "not_allowed"]
        again = await first.recv_type("snapshot")
        assert again["view"]["seat"] is None and not again["view"]["hand"]
        for seen in first.seen:
            view = seen.get("view") or {}
            assert view.get("seat") is None and not view.get("hand"), seen
        for raw in (first, second, stranger):
            await raw.close()

    asyncio.run(main())


# -- 3. turn deadlines ------------------------------------------------------------------------
def _deadlines(message: dict[str, Any]) -> list[float]:
    if message["type"] == "update":
        found = [message["deadline"]]
    elif message["type"] == "table":
        found = [message["table"]["deadline"]]
    else:
        found = []
    return [d for d in found if d is not None]


def test_reconnects_and_hosted_toggles_never_extend_a_turn(tmp_path: Path) -> None:
    """A player whose turn it is reconnects again and again and turns 托管 on and off
    (before 托管 moves): every deadline the server announces is the one set when the
    turn began, and the server's own timeout ends the turn (the seat goes on 托管)."""
    config = ServerConfig(db_url=f"sqlite+aiosqlite:///{tmp_path / 'bh.db'}", bot_delay=0.0,
                          hosted_delay=600.0, away_grace=600.0, next_game_delay=0.0)

    async def main(url: str) -> tuple[float, list[float], int, dict[str, Any]]:
        client = Client(url)
        await client.guest("holder")
        table = await client.quickplay(bots="hosted", timeout=3.0)
        raw = await Raw.connect(url, client.token)
        await raw.send({"type": "join", "table": table["id"]})
        version, known = None, None
        while True:                      # until it is our turn, with its deadline known
            message = await raw.recv()
            found = _deadlines(message)
            known = found[0] if found else known
            if message["type"] not in ("update", "snapshot"):
                continue
            version = message["version"]
            view = raw.view
            if view["legal_actions"] and view["to_act"] == view["seat"] and known:
                deadline = known         # (a join's table comes right before its snapshot)
                break
        seen: list[float] = []
        rounds = 0
        while True:
            if rounds < 3:               # (a fourth time would lock 托管 on)
                await raw.send({"type": "hosted", "on": True})
                await raw.send({"type": "hosted", "on": False})
            await raw.close()
            raw = await Raw.connect(url, client.token)
            await raw.send({"type": "join", "table": table["id"], "version": version})
            rounds += 1
            shown: list[float] = []      # the deadlines this join shows
            while True:
                message = await raw.recv()
                if message["type"] == "table":
                    last_table = message["table"]
                if message["type"] == "snapshot":
                    break
                if message["type"] == "update":
                    break                # (events we missed: the turn is over)
                shown.extend(_deadlines(message))
            if message["type"] == "update" or message["version"] != version:
                # the turn is over (the join's table shows why); what it showed may
                # already be a later decision's deadline
                break
            seen.extend(shown)
            seen.extend(_deadlines({"type": "table", "table": last_table}))
            assert max(seen, default=deadline) <= deadline + 0.01, (deadline, seen[-1])
        await raw.close()
        return deadline, seen, rounds, last_table

    with ServerThread(config) as server:
        deadline, seen, rounds, last_table = asyncio.run(main(server.url))
    assert rounds > 1 and seen
    assert max(seen) <= deadline + 0.01, (deadline, max(seen))
    assert last_table["seats"][0]["hosted"]        # the server's timeout ended the turn


# -- 4. errors tell what the seat's view shows ---------------------------------------------
def test_not_your_turn_does_not_name_the_deciding_guard(server: ServerProcess) -> None:
    """Five players, nobody moving unless the test says so: while the Guard decides
    明保/暗保 (hidden from the others), the other four seats acting out of turn get
    the same error, which names no seat."""
    async def main() -> list[dict[str, Any]]:
        players = await guests(server.url, 5, "guard-hunt")
        table = await players[0].create_table(practice=True, seed=3, timeout=600)
        raws = []
        for client in players:
            raw = await Raw.connect(server.url, client.token)
            await raw.send({"type": "join", "table": table["id"]})
            raws.append(raw)
        for raw in raws:
            await raw.recv_type("snapshot")
        by_seat = {raw.view["seat"]: raw for raw in raws}
        while True:
            actor = next(s for s, raw in by_seat.items() if raw.view["legal_actions"])
            if by_seat[actor].view["stage"] == "guard":
                break
            view = view_from_dict(by_seat[actor].view)
            action = hosted_action(view, list(view.legal_actions))
            version = max(m["version"] for m in by_seat[actor].seen if "version" in m)
            await by_seat[actor].send({"type": "act", "action": action.to_dict(),
                                       "version": version})
            for raw in raws:
                await raw.recv_type("update")
        errors = []
        for seat, raw in by_seat.items():
            if seat != actor:
                assert raw.view["to_act"] is None       # hidden from the others
                await raw.send({"type": "act", "action": "pass"})
                errors.append(await raw.recv_type("error"))
        for raw in raws:
            await raw.close()
        return errors

    errors = asyncio.run(main())
    assert len(errors) == 4 and all(e == errors[0] for e in errors)
    assert errors[0]["code"] == "not_your_turn" and "seat" not in errors[0]["message"]
    assert not any(ch.isdigit() for ch in errors[0]["message"])


# -- 6. headers and origins -------------------------------------------------------------------
def test_every_answer_carries_the_security_headers(server: ServerProcess) -> None:
    token = httpx.post(server.url + "/api/guest", json={"name": "headers"}).json()["token"]
    answers = [httpx.get(server.url + "/"), httpx.get(server.url + "/app.js"),
               httpx.get(server.url + "/api/rules"), httpx.get(server.url + "/api/nothing"),
               httpx.get(server.url + "/api/me"),
               httpx.post(server.url + "/api/tables", json={"games": 0},
                          headers={"Authorization": f"Bearer {token}"})]
    for response in answers:
        csp = response.headers["content-security-policy"]
        directives = dict(d.strip().split(" ", 1) for d in csp.split(";") if " " in d.strip())
        assert directives["script-src"] == "'self'", csp     # no inline script
        assert directives["frame-ancestors"] == "'none'"
        assert response.headers["x-content-type-options"] == "nosniff"
        assert response.headers["referrer-policy"] == "same-origin"
        assert response.headers["x-frame-options"] == "DENY"
    # the web client has nothing inline a policy without 'unsafe-inline' would block
    page = answers[0].text
    assert "<script" in page and all("src=" in tag.split(">")[0]
                                     for tag in page.split("<script")[1:])
    assert "javascript:" not in page and " onclick=" not in page and " onload=" not in page


def test_requests_from_another_site_are_refused(server: ServerProcess) -> None:
    evil = {"Origin": "https://evil.example"}
    refused = httpx.post(server.url + "/api/guest", json={"name": "csrf"}, headers=evil)
    assert refused.status_code == 403 and error_of(refused)["code"] == "bad_origin"
    host = server.url.split("://", 1)[1]
    own = httpx.post(server.url + "/api/guest", json={"name": "same-site"},
                     headers={"Origin": f"http://{host}"})
    assert own.status_code == 200
    token = own.json()["token"]
    out = httpx.post(server.url + "/api/logout", headers={**evil, "Cookie": f"bh_session={token}"})
    assert out.status_code == 403                    # the session lives on
    assert httpx.get(server.url + "/api/me",
                     headers={"Authorization": f"Bearer {token}"}).status_code == 200
    assert httpx.get(server.url + "/api/rules", headers=evil).status_code == 200

    async def socket() -> int:
        with pytest.raises(InvalidStatus) as handshake:
            await Raw.connect(server.url, headers={"Origin": "https://evil.example"})
        return handshake.value.response.status_code
    assert asyncio.run(socket()) == 403


def test_the_session_cookie_is_httponly_samesite_and_secure_behind_https(
        server: ServerProcess) -> None:
    plain = httpx.post(server.url + "/api/guest", json={"name": "cookie"})
    cookie = plain.headers["set-cookie"].lower()
    assert "httponly" in cookie and "samesite=lax" in cookie and "secure" not in cookie
    # a proxy on a trusted address (loopback) says the client spoke HTTPS
    proxied = httpx.post(server.url + "/api/guest", json={"name": "cookie"},
                         headers={"X-Forwarded-Proto": "https"})
    cookie = proxied.headers["set-cookie"].lower()
    assert "httponly" in cookie and "samesite=lax" in cookie and "; secure" in cookie


# -- 7. accounts and the lobby ----------------------------------------------------------------
def test_logins_are_limited_tables_per_user_too_and_the_lobby_pages(tmp_path: Path) -> None:
    config = ServerConfig(db_url=f"sqlite+aiosqlite:///{tmp_path / 'bh.db'}",
                          login_rate_account="3/minute", login_rate_address="5/minute",
                          tables_per_user=2)
    with ServerThread(config) as server:
        url = server.url
        assert httpx.post(url + "/api/register", json={"name": "Qian", "password": "qian-pass"}
                          ).status_code == 201
        tries = [httpx.post(url + "/api/login", json={"name": "Qian", "password": "wrong!"})
                 for _ in range(4)]
        assert [r.status_code for r in tries] == [401, 401, 401, 429]
        assert error_of(tries[-1])["code"] == "rate_limited"
        # the right password does not help now; another name from the same address is
        # limited by the address's count
        assert httpx.post(url + "/api/login", json={"name": "Qian", "password": "qian-pass"}
                          ).status_code == 429
        assert httpx.post(url + "/api/login", json={"name": "nobody", "password": "x" * 8}
                          ).status_code == 429
        token = httpx.post(url + "/api/guest", json={"name": "owner"}).json()["token"]
        auth = {"Authorization": f"Bearer {token}"}
        made = [httpx.post(url + "/api/tables", json={}, headers=auth) for _ in range(3)]
        assert [r.status_code for r in made] == [201, 201, 429]
        assert error_of(made[-1])["code"] == "too_many_tables"
        page = httpx.get(url + "/api/tables?limit=1&offset=1").json()
        assert page["total"] == 2 and page["limit"] == 1 and page["offset"] == 1
        assert [t["id"] for t in page["tables"]] == [made[0].json()["id"]]   # newest first
        assert httpx.get(url + "/api/tables?limit=100000").status_code == 400


def test_a_caller_who_keeps_failing_to_log_in_waits_longer_each_tier(tmp_path: Path) -> None:
    """Login limits back off in tiers: past the short tier a caller waits its window
    (told how long, ``Retry-After``); back after it, he soon meets the long tier."""
    config = ServerConfig(db_url=f"sqlite+aiosqlite:///{tmp_path / 'bh.db'}",
                          login_rate_account="2/10 seconds;3/hour", login_rate_address="50/minute")
    with ServerThread(config) as server:
        def login() -> httpx.Response:
            return httpx.post(server.url + "/api/login",
                              json={"name": "Sun", "password": "wrong-pass"})
        tries = [login() for _ in range(3)]
        assert [r.status_code for r in tries] == [401, 401, 429]
        assert error_of(tries[-1])["code"] == "rate_limited"
        assert 1 <= int(tries[-1].headers["Retry-After"]) <= 10
        # the short window has passed (the wall clock the limits read, moved on): one
        # more try
        with time_machine.travel(time.time() + 10.5, tick=True):
            assert login().status_code == 401
            refused = login()            # and the hour's tier is full
        assert refused.status_code == 429
        assert 60 < int(refused.headers["Retry-After"]) <= 3600
        assert f"in {refused.headers['Retry-After']} s" in error_of(refused)["message"]


def test_logout_ends_every_socket_of_the_session(server: ServerProcess) -> None:
    async def main() -> tuple[int | None, int | None, dict[str, Any]]:
        client = Client(server.url)
        await client.guest("leaving")
        table = await client.quickplay(bots="hosted", timeout=60)
        sockets = [await Raw.connect(server.url, client.token) for _ in range(2)]
        await sockets[0].send({"type": "join", "table": table["id"]})
        await sockets[0].recv_type("table")
        await client.request("POST", "/api/logout")
        codes = []
        for raw in sockets:
            with contextlib.suppress(ConnectionClosed):
                while True:
                    await raw.recv()
            codes.append(raw.ws.close_code)
        again = await Raw.connect(server.url, client.token)
        hello = again.seen[0]
        await again.close()
        return codes[0], codes[1], hello

    first, second, hello = asyncio.run(main())
    assert first == second == 4001
    assert hello["user"] is None                 # the token is no session any more


@pytest.mark.parametrize("limit", ["session_idle", "session_absolute"])
def test_an_expired_session_is_no_session(tmp_path: Path, limit: str) -> None:
    """A session older (or longer unused) than the configured limit — here a negative
    one, so that no clock is waited for — is refused and deleted."""
    config = ServerConfig(db_url=f"sqlite+aiosqlite:///{tmp_path / 'bh.db'}",
                          **{limit: -1.0})  # type: ignore[arg-type]
    with ServerThread(config) as server:
        token = httpx.post(server.url + "/api/guest", json={"name": "expired"}).json()["token"]
        me = httpx.get(server.url + "/api/me", headers={"Authorization": f"Bearer {token}"})
        assert me.status_code == 401 and error_of(me)["code"] == "login_required"

        async def hello() -> dict[str, Any]:
            raw = await Raw.connect(server.url, token)
            await raw.close()
            return raw.seen[0]
        assert asyncio.run(hello())["user"] is None
