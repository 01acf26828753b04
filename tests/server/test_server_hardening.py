"""Hardening, second round (issue 37), tried as an attacker would against a real
server: bounded request heads, creation limits per address, weak passwords, and
private tables that stay private (SECURITY.md)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import socket
import threading
from pathlib import Path
from typing import Any

import httpx
import pytest
import websockets.sync.client
from server_support import (
    DATABASES,
    FAST,
    LOOSE_CONFIG,
    Raw,
    database,
    error_of,
    running_server,
    shared_server,
)
from websockets.exceptions import InvalidStatus

from baohuang.client import Client
from baohuang.server.config import ServerConfig
from baohuang.server.harness import ServerProcess, ServerThread


@pytest.fixture(scope="module")
def server() -> ServerProcess:
    return shared_server("sqlite")


# -- request heads ----------------------------------------------------------------------------
def _rss(pid: int) -> int:
    """The resident memory of process ``pid`` in bytes."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    raise AssertionError("no VmRSS")


def _huge_head(port: int, size: int) -> bytes:
    """Send a request whose headers run to ``size`` bytes (as fast as the server takes
    them, until it answers or closes) and return everything it answered."""
    sock = socket.create_connection(("127.0.0.1", port), timeout=30)
    answer = bytearray()

    def read() -> None:
        try:
            while chunk := sock.recv(65536):
                answer.extend(chunk)
        except OSError:
            pass
    reader = threading.Thread(target=read)
    reader.start()
    line = b"X-Pad: " + b"a" * 1000 + b"\r\n"
    chunk = b"GET /api/rules HTTP/1.1\r\nHost: 127.0.0.1\r\n" + line * 60
    try:
        sent = 0
        while sent < size and not answer:
            sock.sendall(chunk)
            sent += len(chunk)
            chunk = line * 60
    except OSError:
        pass                            # (the server closed: it read what it needed)
    with contextlib.suppress(OSError):          # (the server may have closed already)
        sock.shutdown(socket.SHUT_WR)
    reader.join(30)
    sock.close()
    return bytes(answer)


def test_oversized_request_heads_are_refused_without_growing_memory(
        server: ServerProcess) -> None:
    """Megabytes of headers get a 400 once the head passes ``max_header_bytes`` (16 KiB)
    and the process does not grow; one header line or request line over
    ``max_header_line`` (8 KiB) gets 431 ``header_too_large``, on a WebSocket handshake
    too; an ordinary request still works."""
    assert server.process is not None
    before = _rss(server.process.pid)
    for _ in range(3):
        answer = _huge_head(server.port, 16 * 1024 * 1024)
        status = answer.split(b"\r\n", 1)[0]
        assert status.startswith((b"HTTP/1.1 400", b"HTTP/1.1 431")), answer[:200]
    grown = _rss(server.process.pid) - before
    assert grown < 8 * 1024 * 1024, f"the server grew by {grown} bytes"

    long_line = httpx.get(server.url + "/api/rules", headers={"X-Pad": "a" * 9000})
    assert long_line.status_code == 431, long_line.text
    assert error_of(long_line)["code"] == "header_too_large"
    assert "'x-pad'" in error_of(long_line)["message"]
    long_target = httpx.get(server.url + "/api/rules?" + "a" * 9000)
    assert long_target.status_code == 431
    assert "request line" in error_of(long_target)["message"]
    with pytest.raises(InvalidStatus) as refused:
        websockets.sync.client.connect(server.url.replace("http", "ws", 1) + "/ws",
                                       additional_headers={"X-Pad": "a" * 7000 + "b" * 2000})
    assert refused.value.response.status_code in (400, 431)
    fine = httpx.get(server.url + "/api/rules", headers={"X-Pad": "a" * 4000})
    assert fine.status_code == 200


# -- passwords --------------------------------------------------------------------------------
def test_whitespace_and_trivially_weak_passwords_are_refused(server: ServerProcess) -> None:
    """Registration and a password change refuse a password of spaces, one short once
    its end spaces are taken off, one of few different characters and a common one
    with spaces around it, each with ``bad_password`` and a message naming the rule;
    nothing is made or changed."""
    weak = {"      ": "at least 8", " " * 12: "at least 8", "  ab12cd  ": "at least 8",
            "\t\n abc\u3000": "at least 8", "aaaaaaaaaa": "different",
            "abababab": "different", "  password1  ": "common"}
    for number, (password, rule) in enumerate(weak.items()):
        refused = httpx.post(server.url + "/api/register",
                             json={"name": f"weakling {number}", "password": password})
        assert refused.status_code == 400, (password, refused.text)
        assert error_of(refused)["code"] == "bad_password"
        assert rule in error_of(refused)["message"], (password, error_of(refused))
        login = httpx.post(server.url + "/api/login",
                           json={"name": f"weakling {number}", "password": password})
        assert login.status_code == 401                  # no account was made
    made = httpx.post(server.url + "/api/register",
                      json={"name": "strong one", "password": "plum rain 9"})
    assert made.status_code == 201
    auth = {"Authorization": f"Bearer {made.json()['token']}"}
    for password, rule in weak.items():
        refused = httpx.post(server.url + "/api/password", headers=auth,
                             json={"password": "plum rain 9", "new_password": password})
        assert (refused.status_code, error_of(refused)["code"]) == (400, "bad_password")
        assert rule in error_of(refused)["message"]
    again = httpx.post(server.url + "/api/login",
                       json={"name": "strong one", "password": "plum rain 9"})
    assert again.status_code == 200                      # the password is unchanged


# -- creation limits --------------------------------------------------------------------------
def _guest(url: str, name: str, address: str | None) -> httpx.Response:
    headers = {} if address is None else {"X-Forwarded-For": address}
    return httpx.post(url + "/api/guest", json={"name": name}, headers=headers)


def _table(url: str, token: str, address: str | None, path: str = "/api/tables"
           ) -> httpx.Response:
    headers = {"Authorization": f"Bearer {token}"}
    if address is not None:
        headers["X-Forwarded-For"] = address
    return httpx.post(url + path, json={"bots": "random"} if "quick" in path else {},
                      headers=headers)


def _refused(response: httpx.Response) -> bool:
    if response.status_code != 429:
        return False
    assert error_of(response)["code"] == "rate_limited"
    assert int(response.headers["Retry-After"]) >= 1
    return True


def test_accounts_and_tables_are_limited_per_address_as_well_as_per_account(
        tmp_path: Path) -> None:
    """One client behind the trusted proxy (loopback, which names it in
    ``X-Forwarded-For``) making guest after guest is refused at the address's limit,
    registrations counted with guests; the tables its many accounts make count
    together per address, and each account's per account; another address is not
    held back by the first one's count."""
    flags = (*FAST, "--account-rate-address", "3/minute", "--table-rate-address", "5/minute",
             "--table-rate-account", "2/minute")
    with running_server("sqlite", tmp_path, *flags) as server:
        attacker = "203.0.113.7"
        made = [_guest(server.url, f"sock {i}", attacker) for i in range(3)]
        assert [r.status_code for r in made] == [200] * 3
        assert _refused(_guest(server.url, "sock 3", attacker))
        assert _refused(httpx.post(server.url + "/api/register", headers={
            "X-Forwarded-For": attacker}, json={"name": "sock reg", "password": "plum rain 9"}))
        assert _guest(server.url, "neighbour", "198.51.100.9").status_code == 200
        tokens = [r.json()["token"] for r in made]
        # per account: two tables each, the third refused though the address has room
        first = [_table(server.url, tokens[0], attacker).status_code for _ in range(2)]
        assert first == [201, 201]
        assert _refused(_table(server.url, tokens[0], attacker))
        # per address: the other accounts of the same client share its five tries (the
        # refused one counted)
        assert _table(server.url, tokens[1], attacker, "/api/quickplay").status_code == 201
        assert _table(server.url, tokens[2], attacker).status_code == 201
        assert _refused(_table(server.url, tokens[2], attacker))
        assert _refused(_table(server.url, tokens[1], attacker, "/api/quickplay"))
        # another client's address is not held back by the attacker's count
        other = _guest(server.url, "other", "198.51.100.10").json()["token"]
        assert _table(server.url, other, "198.51.100.10").status_code == 201


def test_a_forged_forwarded_for_does_not_escape_the_address_limit(tmp_path: Path) -> None:
    """When loopback is not a trusted proxy (``--forwarded-allow-ips`` names another
    address), a client that sends a new ``X-Forwarded-For`` each time is still one
    address."""
    flags = (*FAST, "--account-rate-address", "2/minute", "--forwarded-allow-ips",
             "10.255.255.1")
    with running_server("sqlite", tmp_path, *flags) as server:
        answers = [_guest(server.url, f"forger {i}", f"192.0.2.{i}").status_code
                   for i in range(3)]
        assert answers == [200, 200, 429]

# -- private tables ---------------------------------------------------------------------------
def _get(url: str, path: str, token: str | None = None) -> httpx.Response:
    headers = {} if token is None else {"Authorization": f"Bearer {token}"}
    return httpx.get(url + path, headers=headers)


async def _join_answer(url: str, token: str | None, key: str, as_: str,
                       headers: dict[str, str] | None = None) -> dict[str, Any]:
    """What a fresh socket is answered first when it joins ``key``: an ``error`` or a
    ``table``."""
    raw = await Raw.connect(url, token, headers)
    try:
        await raw.send({"type": "join", "table": key, "as": as_})
        while True:
            message = await raw.recv()
            if message["type"] in ("error", "table"):
                return message
    finally:
        await raw.close()


def test_a_private_table_is_not_found_through_its_public_replays(server: ServerProcess) -> None:
    """An attacker reads the replays of finished games by their sequential ids: a
    private table's game names no table. Given a private table's id all the same (as
    if it had leaked), he gets no table, no code and no seat — over HTTP and over the
    socket, as a watcher and as a player, with a session or without — as for a table
    that does not exist. Its members (its owner, its seated players) still find it by
    id, and whoever holds its code by the code."""
    async def main() -> tuple[str, str, int, str, str]:
        owner = Client(server.url)
        await owner.guest("private host")
        made = await owner.quickplay(bots="random", private=True, timeout=60)
        await asyncio.wait_for(owner.play(made["id"], "hosted"), 120)
        game_id = (await owner.history())[0]["game_id"]
        attacker = Client(server.url)
        await attacker.guest("snoop")
        assert owner.token is not None and attacker.token is not None
        return made["id"], made["code"], game_id, owner.token, attacker.token

    table_id, code, game_id, owner, attacker = asyncio.run(main())
    for token in (None, attacker):
        replay = _get(server.url, f"/api/games/{game_id}/replay", token).json()
        assert replay["table_id"] is None and replay["private"] is True
        assert table_id not in json.dumps(replay) and code not in json.dumps(replay)
        refused = _get(server.url, f"/api/tables/{table_id}", token)
        assert (refused.status_code, error_of(refused)["code"]) == (404, "not_found")
        nothing = _get(server.url, "/api/tables/0123456789", token)
        assert error_of(refused)["message"].replace(table_id, "0123456789") == \
            error_of(nothing)["message"]
        for as_ in ("watcher", "player"):
            if token is None and as_ == "player":
                continue
            answer = asyncio.run(_join_answer(server.url, token, table_id, as_))
            assert answer["type"] == "error" and answer["code"] == "no_table", answer
            assert code not in json.dumps(answer)
    mine = _get(server.url, f"/api/tables/{table_id}", owner)
    assert mine.status_code == 200 and mine.json()["code"] == code
    assert asyncio.run(_join_answer(server.url, owner, table_id, "watcher"))["type"] == "table"
    for key in (code, code.lower()):
        given = _get(server.url, f"/api/tables/{key}", attacker)
        assert given.status_code == 200 and given.json()["id"] == table_id
        joined = asyncio.run(_join_answer(server.url, attacker, key, "watcher"))
        assert joined["type"] == "table" and joined["table"]["code"] == code
    # a public table's replay still names its table
    public = asyncio.run(_public_game(server.url))
    assert _get(server.url, f"/api/games/{public[1]}/replay").json()["table_id"] == public[0]


async def _public_game(url: str) -> tuple[str, int]:
    client = Client(url)
    await client.guest("public host")
    made = await client.quickplay(bots="random", timeout=60)
    await asyncio.wait_for(client.play(made["id"], "hosted"), 120)
    return made["id"], (await client.history())[0]["game_id"]


def test_invitation_code_lookups_are_throttled_per_account_and_per_address(
        tmp_path: Path) -> None:
    """Trying codes is refused (429 ``rate_limited`` over HTTP, ``rate_limited`` on the
    socket) past the account's lookups and then past the address's, whichever account
    asks — even for the right code, so a refusal tells nothing; lookups by id are not
    counted, and another address is not held back."""
    flags = (*FAST, "--code-rate-account", "3/minute", "--code-rate-address", "5/minute")
    with running_server("sqlite", tmp_path, *flags) as server:
        owner = _guest(server.url, "inviter", "198.51.100.1").json()["token"]
        made = httpx.post(server.url + "/api/tables", json={"private": True},
                          headers={"Authorization": f"Bearer {owner}",
                                   "X-Forwarded-For": "198.51.100.1"}).json()
        code = made["code"]
        here = {"X-Forwarded-For": "203.0.113.9"}
        first = _guest(server.url, "guesser 1", "203.0.113.9").json()["token"]
        second = _guest(server.url, "guesser 2", "203.0.113.9").json()["token"]

        def look(token: str | None, key: str, address: dict[str, str]) -> int:
            headers = dict(address)
            if token is not None:
                headers["Authorization"] = f"Bearer {token}"
            return httpx.get(server.url + f"/api/tables/{key}", headers=headers).status_code

        guesses = [look(first, key, here) for key in ("AAAAAA", "BBBBBB", "CCCCCC")]
        assert guesses == [404, 404, 404]
        assert look(first, code, here) == 429        # the account's three are used
        assert look(first, made["id"], here) == 404  # (by id: not counted)
        # (the refused try counted for the address: another account there has one left)
        assert look(second, "DDDDDD", here) == 404
        assert look(second, code, here) == 429       # the address's five are used
        assert look(None, code, here) == 429
        assert look(owner, code, {"X-Forwarded-For": "198.51.100.1"}) == 200
        refused = asyncio.run(_join_answer(server.url, second, code, "watcher", here))
        assert (refused["type"], refused["code"]) == ("error", "rate_limited")



# -- a new match --------------------------------------------------------------------------------
async def _table_message(raw: Raw, test: Any) -> dict[str, Any]:
    """The next ``table`` message whose TableState passes ``test``."""
    while True:
        message = await raw.recv_type("table")
        if test(message["table"]):
            return dict(message["table"])


def test_another_players_rematch_seats_nobody_who_did_not_say_yes(
        server: ServerProcess) -> None:
    """After a rated match, one player asks for a new one and sits down at once; the
    other player has gone. The new table keeps his seat for him (``invited``) and does
    not start: nobody plays it in his name, no stranger takes it. When he comes back
    and joins, he has said yes, and the match starts."""
    async def main() -> None:
        absent, eager = Client(server.url), Client(server.url)
        await absent.guest("gone home")
        await eager.guest("eager")
        table = await eager.create_table(bots={"2": "random", "3": "random", "4": "random"},
                                         games=1, timeout=60)
        await asyncio.wait_for(asyncio.gather(absent.play(table["id"], "hosted"),
                                              eager.play(table["id"], "hosted")), 120)
        assert absent.user is not None and eager.user is not None
        new = await eager.request("POST", f"/api/tables/{table['id']}/rematch", {})
        seats = new["table"]["seats"]
        mine, his = new["seat"], next(s["seat"] for s in seats
                                      if s and s["user_id"] == absent.user["id"])
        raw = await Raw.connect(server.url, eager.token)
        await raw.send({"type": "join", "table": new["id"]})
        state = await _table_message(raw, lambda t: True)
        assert state["status"] == "open" and state["game"] is None
        assert state["seats"][his]["user_id"] == absent.user["id"]
        assert seats[his]["invited"] is True and seats[mine]["invited"] is False
        stranger = Client(server.url)
        await stranger.guest("stranger")
        other = await Raw.connect(server.url, stranger.token)
        await other.send({"type": "join", "table": new["id"]})
        assert (await other.recv_type("table"))["you"]["seat"] is None     # no free seat
        await other.send({"type": "sit", "seat": his})
        assert (await other.recv_type("error"))["code"] == "seat_taken"
        await raw.send({"type": "start"})
        assert (await raw.recv_type("error"))["code"] == "not_ready"
        assert not [m for m in raw.seen if m["type"] == "snapshot"]
        # he comes back and says yes: now the match starts
        back = await Raw.connect(server.url, absent.token)
        await back.send({"type": "join", "table": new["id"]})
        started = await _table_message(raw, lambda t: t["status"] == "playing")
        assert started["seats"][his]["invited"] is False
        for socket_ in (raw, other, back):
            await socket_.close()

    asyncio.run(main())


@pytest.mark.parametrize("kind", DATABASES)
def test_two_players_asking_for_a_new_match_at_once_get_the_same_table(
        tmp_path: Path, kind: str) -> None:
    """Both players of a finished match tap 再来一场 at the same moment: the second
    request, made while the first is still writing the new table, gets that table, not
    a second one (which would split the friends over two tables). (SQLite's writes do
    not leave the event loop, PostgreSQL's do: there the two requests interleave.)"""
    with database(kind, tmp_path) as url, ServerThread(ServerConfig(
            db_url=url, bot_delay=0.0, hosted_delay=0.0, guard_pause=0.0,
            next_game_delay=0.0, **LOOSE_CONFIG)) as server:
        async def finished() -> tuple[str, list[str]]:
            one, two = Client(server.url), Client(server.url)
            await one.guest("一号")
            await two.guest("二号")
            table = await one.create_table(bots={"2": "random", "3": "random", "4": "random"},
                                           games=1, timeout=60)
            await asyncio.wait_for(asyncio.gather(one.play(table["id"], "hosted"),
                                                  two.play(table["id"], "hosted")), 120)
            assert one.token is not None and two.token is not None
            return table["id"], [one.token, two.token]
        table_id, tokens = asyncio.run(finished())
        assert server.app is not None
        state = server.app.state.server

        async def both_ask() -> list[str]:
            table = state.lobby.tables[table_id]
            users = [await state.accounts.user_for_token(token) for token in tokens]
            made = await asyncio.gather(*(state.lobby.rematch(table, user)
                                          for user in users))
            return [new.id for new in made]
        first, second = server.call(both_ask)
        assert first == second
        assert server.call(lambda: asyncio.sleep(0, [t for t in state.lobby.tables
                                                     if t not in (table_id, first)])) == []


def test_a_watcher_after_the_game_is_told_it_was_scored_as_it_was_stored(
        tmp_path: Path) -> None:
    """Five friends finish a scored game and close the app. Someone who opens the table
    afterwards is told the game was scored, as the stored result says — not a figure
    worked out again from who is connected now (all five gone: "not scored")."""
    flags = ("--bot-delay", "0", "--hosted-delay", "0", "--guard-pause", "0",
             "--next-game-delay", "0", "--away-grace", "0")

    async def main(url: str) -> None:
        friends = [Client(url) for _ in range(5)]
        for n, friend in enumerate(friends):
            await friend.guest(f"朋友{n}")
        table = await friends[0].create_table(games=1, timeout=60)
        await asyncio.wait_for(asyncio.gather(*(f.play(table["id"], "hosted", seed=n)
                                                for n, f in enumerate(friends))), 120)
        history = await friends[0].request("GET", "/api/history")
        stored = next(g for g in history["games"] if g["table_id"] == table["id"])
        assert stored["scored"] is True
        late = Client(url)
        await late.guest("后来的")
        raw = await Raw.connect(url, late.token)
        await raw.send({"type": "join", "table": table["id"]})
        over = await raw.recv_type("game_over")
        assert over["scored"] is True
        await raw.close()

    with running_server("sqlite", tmp_path, *flags) as server:
        asyncio.run(main(server.url))
