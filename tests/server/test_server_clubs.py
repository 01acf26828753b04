"""亲友圈 (clubs) against a real server on loopback whose table clocks the tests move by
hand: a club's life (create, invite, approve, open tables where bots fill the empty
seats, play, the ledger, chat, leave), its ledger checked against the games' own scores
rebuilt here from their records, and the refusals — a non-member sitting, a member
removing others, forged club ids (docs/protocol.md §2 Clubs)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from server_support import (
    DATABASES,
    LOOSE_CONFIG,
    Clocks,
    Raw,
    database,
    play_on,
    pumping,
    running_server,
    table_where,
)

from baohuang.client import Client, ClientError
from baohuang.engine.game import Game
from baohuang.server.config import ServerConfig
from baohuang.server.harness import ServerThread


@pytest.fixture(params=DATABASES)
def served(request: pytest.FixtureRequest, tmp_path: Path
           ) -> Iterator[tuple[ServerThread, Clocks]]:
    clocks = Clocks()
    with database(request.param, tmp_path) as url:
        config = ServerConfig(db_url=url, bot_delay=0.0, hosted_delay=0.0, guard_pause=0.0,
                              next_game_delay=0.0, away_grace=30.0, **LOOSE_CONFIG)
        with ServerThread(config, clocks=clocks) as server:
            yield server, clocks


async def refused(client: Client, method: str, path: str, body: Any = None
                  ) -> tuple[int, str]:
    """The status and error code of a request the server must refuse."""
    with pytest.raises(ClientError) as caught:
        await client.request(method, path, body)
    return caught.value.status, caught.value.code


async def registered(url: str, name: str) -> Client:
    client = Client(url)
    await client.register(name, f"{name}-secret-words-9")
    return client


async def play_club_table(url: str, clocks: Clocks, opener: Client, other: Client,
                          club_id: int) -> str:
    """``opener`` opens a table of the club with bots to fill, ``other`` joins it by its
    id (a member needs no code), the opener starts (three bots take the empty seats),
    and both play the match (one game) on 托管's choices."""
    opened = await opener.request("POST", f"/api/clubs/{club_id}/tables",
                                  {"fill_bots": "random"})
    table_id = opened["id"]
    assert opened["table"]["club"] == club_id and opened["table"]["private"] is True
    raws = []
    for person in (opener, other):
        raw = await Raw.connect(url, person.token)
        await raw.send({"type": "join", "table": table_id})
        await raw.recv_type("table")
        raws.append(raw)
    await raws[0].send({"type": "start"})
    state = await table_where(raws[1], lambda t: t["status"] == "playing")
    assert [s["bot"] for s in state["seats"]].count("random") == 3
    async with pumping(clocks.tables[table_id]):
        await asyncio.gather(*(play_on(raw) for raw in raws))
    for raw in raws:
        await raw.close()
    return str(table_id)


def expected_ledger(replays: list[dict[str, Any]]) -> dict[int, dict[str, Any]]:
    """Each person's games, points, places, roles and wins, from the games' records
    replayed here by the engine (not from the server's figures)."""
    people: dict[int, dict[str, Any]] = {}
    for shown in replays:
        result = Game.from_record(shown["record"]).result
        assert result is not None
        for player in shown["players"]:
            user, seat = player["user_id"], player["seat"]
            if user is None:
                continue
            entry = people.setdefault(user, {"games": 0, "points": 0, "places": [0] * 5,
                                             "roles": {}, "won": {}})
            entry["games"] += 1
            entry["points"] += result.scores[seat]
            place = result.places[seat]
            if place is not None:            # (None: still in when the game ended)
                entry["places"][place - 1] += 1
            if seat == result.emperor:
                role = "solo" if result.solo else "emperor"
            elif seat == result.guard and not result.solo:
                role = "guard"
            else:
                role = "rebel"
            royal = role != "rebel"
            entry["roles"][role] = entry["roles"].get(role, 0) + 1
            entry["won"][role] = entry["won"].get(role, 0) + int(result.royal_won == royal)
    return people


def test_a_clubs_life_and_its_ledger(served: tuple[ServerThread, Clocks]) -> None:
    """An owner makes a club that approves who joins; a friend joins by the invitation
    code and is approved; each opens a table of the club where bots fill the empty
    seats and both play it; the ledger — all time, today, the friend's page and the
    evening's summary — adds up exactly the scores, places and roles of the two games
    as replayed from their records; the club chat takes a member's line as plain text
    and refuses the next one at once; the friend leaves and sits at its tables no more."""
    server, clocks = served

    async def main() -> None:
        url = server.url
        began = time.time()
        owner, friend = await registered(url, "clubowner"), await registered(url, "friend")
        club = await owner.request("POST", "/api/clubs", {
            "name": "  周五 牌友 ", "description": "every Friday", "preset": "shandong",
            "timeout": 600, "approval": True})
        club_id, code = club["id"], club["code"]
        assert club["name"] == "周五 牌友" and club["role"] == "owner" and len(code) == 8
        shown = await friend.request("GET", f"/api/clubs/invitation/{code.lower()}")
        assert shown["name"] == "周五 牌友" and shown["approval"] is True
        joined = await friend.request("POST", "/api/clubs/join", {"code": code})
        assert joined == {"id": club_id, "role": "pending"}
        # (waiting for approval: not a member yet)
        assert await refused(friend, "GET", f"/api/clubs/{club_id}") == (404, "not_found")
        seen = await owner.request("GET", f"/api/clubs/{club_id}")
        # (who reads the club's page is online; the friend has not read it)
        assert {m["name"]: m["online"] for m in seen["members"]} == \
            {"clubowner": True, "friend": False}
        pending = [m for m in seen["members"] if m["role"] == "pending"]
        assert [m["name"] for m in pending] == ["friend"]
        friend_id = pending[0]["user_id"]
        owner_id = (await owner.request("GET", "/api/me"))["id"]
        await owner.request("POST", f"/api/clubs/{club_id}/members/{friend_id}",
                            {"action": "approve"})
        mine = await friend.request("GET", "/api/clubs")
        assert [(c["id"], c["role"], c["members"]) for c in mine["clubs"]] == \
            [(club_id, "member", 2)]

        tables = [await play_club_table(url, clocks, owner, friend, club_id),
                  await play_club_table(url, clocks, friend, owner, club_id)]
        history = await owner.history()
        game_ids = sorted(g["game_id"] for g in history if g["table_id"] in tables)
        assert len(game_ids) == 2
        replays = [await owner.replay(game_id) for game_id in game_ids]
        expected = expected_ledger(replays)
        assert set(expected) == {owner_id, friend_id}

        board = await friend.request("GET", f"/api/clubs/{club_id}/ledger?period=all")
        assert board["games"] == 2
        assert [p["user_id"] for p in board["players"]] == sorted(
            expected, key=lambda u: (-expected[u]["points"], u != owner_id))
        for entry in board["players"]:
            want = expected[entry["user_id"]]
            assert entry["member"] is True
            assert (entry["games"], entry["points"], entry["places"]) == \
                (want["games"], want["points"], want["places"])
            assert {r: n for r, n in entry["roles"].items() if n} == want["roles"]
            for role, played in want["roles"].items():
                assert entry["win_rate"][role] == want["won"][role] / played
        today = await owner.request("GET", f"/api/clubs/{club_id}/ledger?period=day&tz=0")
        if time.gmtime(began).tm_yday == time.gmtime().tm_yday:
            assert today["players"] == board["players"]
        page = await owner.request("GET", f"/api/clubs/{club_id}/members/{friend_id}")
        assert page["name"] == "friend" and page["role"] == "member"
        assert page["periods"]["all"]["points"] == expected[friend_id]["points"]
        assert sorted(g["game_id"] for g in page["games"]) == game_ids
        evening = await friend.request("GET", f"/api/clubs/{club_id}/evening?tz=0")
        if evening["from"] <= began:
            assert {p["user_id"]: p["points"] for p in evening["players"]} == \
                {u: e["points"] for u, e in expected.items()}
            assert sorted(g["game_id"] for g in evening["games"]) == game_ids
            assert sum(p["score"] for g in evening["games"] for p in g["players"]) == 0 or \
                all(len(g["players"]) == 5 for g in evening["games"])

        said = await friend.request("POST", f"/api/clubs/{club_id}/chat",
                                    {"text": "<b>好</b>\n牌\u202e!"})
        assert said["text"] == "<b>好</b> 牌!"
        assert await refused(friend, "POST", f"/api/clubs/{club_id}/chat",
                             {"text": "again"}) == (429, "rate_limited")
        assert await refused(owner, "POST", f"/api/clubs/{club_id}/chat",
                             {"text": "x" * 121}) == (400, "bad_text")
        read = await owner.request("GET", f"/api/clubs/{club_id}/chat?after=0")
        assert [(m["name"], m["text"]) for m in read["messages"]] == \
            [("friend", "<b>好</b> 牌!")]

        assert await refused(owner, "POST", f"/api/clubs/{club_id}/leave") == \
            (409, "owner_leaves")
        await friend.request("POST", f"/api/clubs/{club_id}/leave")
        assert await refused(friend, "GET", f"/api/clubs/{club_id}/ledger") == \
            (404, "not_found")
        opened = await owner.request("POST", f"/api/clubs/{club_id}/tables", {})
        raw = await Raw.connect(url, friend.token)
        await raw.send({"type": "join", "table": opened["code"]})
        assert (await raw.recv_type("error"))["code"] == "not_member"
        await raw.close()
        # (the ledger still counts the games he played)
        board = await owner.request("GET", f"/api/clubs/{club_id}/ledger")
        assert {p["user_id"]: p["member"] for p in board["players"]} == \
            {owner_id: True, friend_id: False}

    asyncio.run(main())


def test_club_permissions_are_refused_with_clear_errors(
        served: tuple[ServerThread, Clocks]) -> None:
    """A guest makes no club; bad names and rules are refused and make nothing; an
    outsider sees no club by its id (nor by a forged one) and sits at none of its
    tables — he may only watch, with the table's code, while the club allows it; a member
    removes nobody and changes no role; an admin removes no admin; a club that keeps its
    rules refuses a table's changes to them."""
    server, _ = served

    async def main() -> None:
        url = server.url
        owner, member, outsider = (await registered(url, "owner2"),
                                   await registered(url, "member2"),
                                   await registered(url, "outsider2"))
        visitor = Client(url)
        await visitor.guest("visitor")
        assert await refused(visitor, "POST", "/api/clubs", {"name": "g"}) == \
            (403, "registered_only")
        assert await refused(owner, "POST", "/api/clubs", {"name": " \n "}) == \
            (400, "bad_name")
        assert await refused(owner, "POST", "/api/clubs", {"name": "x" * 25}) == \
            (400, "bad_name")
        assert await refused(owner, "POST", "/api/clubs",
                             {"name": "ok", "options": {"kaopia": True}}) == (400, "bad_rules")
        assert await refused(owner, "POST", "/api/clubs", {"name": "ok", "timeout": 1e9}) \
            == (400, "bad_request")
        assert (await owner.request("GET", "/api/clubs"))["clubs"] == []
        club = await owner.request("POST", "/api/clubs", {"name": "c", "timeout": 600})
        club_id = club["id"]
        await member.request("POST", "/api/clubs/join", {"code": club["code"]})
        third = await registered(url, "third2")
        await third.request("POST", "/api/clubs/join", {"code": club["code"]})
        ids = {m["name"]: m["user_id"]
               for m in (await owner.request("GET", f"/api/clubs/{club_id}"))["members"]}

        for path in (f"/api/clubs/{club_id}", f"/api/clubs/{club_id}/ledger",
                     f"/api/clubs/{club_id + 1000}", "/api/clubs/0", "/api/clubs/-1",
                     "/api/clubs/99999999999", f"/api/clubs/{club_id}/chat"):
            assert await refused(outsider, "GET", path) == (404, "not_found")
        assert await refused(outsider, "POST", f"/api/clubs/{club_id}/tables", {}) == \
            (404, "not_found")
        assert await refused(outsider, "POST", "/api/clubs/join", {"code": "ZZZZZZZZ"}) == \
            (404, "not_found")
        assert await refused(outsider, "POST", "/api/clubs/join", {"code": "short"}) == \
            (400, "bad_code")

        for action in ("remove", "admin"):
            assert await refused(member, "POST",
                                 f"/api/clubs/{club_id}/members/{ids['owner2']}",
                                 {"action": action}) == (403, "forbidden")
            assert await refused(member, "POST",
                                 f"/api/clubs/{club_id}/members/{ids['third2']}",
                                 {"action": action}) == (403, "forbidden")
        await owner.request("POST", f"/api/clubs/{club_id}/members/{ids['member2']}",
                            {"action": "admin"})
        await owner.request("POST", f"/api/clubs/{club_id}/members/{ids['third2']}",
                            {"action": "admin"})
        assert await refused(member, "POST", f"/api/clubs/{club_id}/members/{ids['third2']}",
                             {"action": "remove"}) == (403, "forbidden")
        assert await refused(member, "POST", f"/api/clubs/{club_id}/members/{ids['owner2']}",
                             {"action": "remove"}) == (403, "forbidden")
        assert await refused(member, "POST", f"/api/clubs/{club_id}/tables",
                             {"options": {"tribute": False}}) == (403, "fixed_rules")

        await owner.request("PATCH", f"/api/clubs/{club_id}", {"custom_rules": True})
        changed = await member.request("POST", f"/api/clubs/{club_id}/tables",
                                       {"timeout": 120, "options": {"tribute": False}})
        assert changed["table"]["timeout"] == 120
        assert changed["table"]["rules"]["tribute"] is False
        opened = await member.request("POST", f"/api/clubs/{club_id}/tables", {})
        assert opened["table"]["timeout"] == 600 and opened["table"]["club"] == club_id
        raw = await Raw.connect(url, outsider.token)
        await raw.send({"type": "join", "table": opened["id"]})     # (not by its id)
        assert (await raw.recv_type("error"))["code"] == "no_table"
        await raw.send({"type": "join", "table": opened["code"]})   # (as a player)
        error = await raw.recv_type("error")
        assert error["code"] == "not_member" and "member" in error["message"]
        await raw.send({"type": "join", "table": opened["code"], "as": "watcher"})
        state = await raw.recv_type("table")
        assert state["you"]["watcher"] is True
        await raw.send({"type": "sit", "seat": 3})
        assert (await raw.recv_type("error"))["code"] == "not_member"
        shown = await member.request("GET", f"/api/tables/{opened['id']}")
        assert [s is not None for s in shown["seats"]] == [True] + [False] * 4
        await raw.close()
        await owner.request("PATCH", f"/api/clubs/{club_id}", {"watchers": False})
        raw = await Raw.connect(url, outsider.token)
        await raw.send({"type": "join", "table": opened["code"], "as": "watcher"})
        assert (await raw.recv_type("error"))["code"] == "not_member"
        await raw.close()

    asyncio.run(main())


@pytest.mark.parametrize("kind", DATABASES)
def test_a_club_table_stays_the_clubs_after_a_restart(kind: str, tmp_path: Path) -> None:
    """A club's open table, rebuilt after the server was killed, still belongs to its
    club: a member finds it by its id and sits; someone else is refused a seat."""
    with running_server(kind, tmp_path) as server:
        async def before() -> tuple[Client, Client, dict[str, Any]]:
            owner = await registered(server.url, "rsowner")
            other = await registered(server.url, "rsother")
            club = await owner.request("POST", "/api/clubs", {"name": "restart"})
            return owner, other, await owner.request(
                "POST", f"/api/clubs/{club['id']}/tables", {})

        owner, other, opened = asyncio.run(before())
        server.kill()
        server.start()

        async def after() -> None:
            shown = await owner.request("GET", f"/api/tables/{opened['id']}")
            assert shown["club"] == opened["table"]["club"]
            raw = await Raw.connect(server.url, other.token)
            await raw.send({"type": "join", "table": opened["code"]})
            assert (await raw.recv_type("error"))["code"] == "not_member"
            await raw.close()
            raw = await Raw.connect(server.url, owner.token)
            await raw.send({"type": "join", "table": opened["id"]})
            assert (await raw.recv_type("table"))["you"]["seat"] == 0
            await raw.close()

        asyncio.run(after())
