"""亲友圈 (clubs) and moderation together, on a real server whose table clocks the tests
move by hand: a muted player is refused in his club's chat as at a table; a player
reports a line of club chat (举报) and a moderator reads the club's chat, sees the line
in the report and removes it (in the audit log); a deleted account's name is gone from
its club's members, ledger and chat (已注销/deleted #id)."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import pytest
from server_support import LOOSE_CONFIG, Clocks, Raw, database
from test_server_clubs import play_club_table, refused, registered
from test_server_moderation import admin

from baohuang.client import Client, ClientError
from baohuang.server.config import ServerConfig
from baohuang.server.harness import ServerThread


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[ServerThread, Clocks, str]]:
    """A server on SQLite with hand-moved table clocks, and its database's URL."""
    clocks = Clocks()
    with database("sqlite", tmp_path) as url:
        config = ServerConfig(db_url=url, bot_delay=0.0, hosted_delay=0.0, guard_pause=0.0,
                              next_game_delay=0.0, away_grace=30.0, **LOOSE_CONFIG)
        with ServerThread(config, clocks=clocks) as server:
            yield server, clocks, url


async def club_of(owner: Client, *members: Client) -> int:
    """A club of ``owner`` (no approval) that ``members`` join by its code: its id."""
    club = await owner.request("POST", "/api/clubs", {"name": "牌友", "preset": "shandong",
                                                      "timeout": 600, "approval": False})
    for member in members:
        await member.request("POST", "/api/clubs/join", {"code": club["code"]})
    return int(club["id"])


def uid(client: Client) -> int:
    assert client.user is not None
    return int(client.user["id"])


def test_moderation_reaches_club_chat(served: tuple[ServerThread, Clocks, str]) -> None:
    """A member's line is reported by another member (place ``club``, the line given);
    an outsider cannot report it, nor report a line as someone else's. The moderator
    sees the report with the line, reads the club's chat (a player may not: 403) and
    removes the line: it is gone from the chat and the audit log keeps who, why and its
    text. The moderator mutes the member: his next line in the club's chat is refused
    with the same ``muted`` error, in the same words, as his chat at a table."""
    server, _, db = served

    async def main() -> None:
        url = server.url
        owner, rude = await registered(url, "owner40"), await registered(url, "rude40")
        outsider = await registered(url, "outsider40")
        mod = await registered(url, "mod40")
        await asyncio.to_thread(admin, db, "grant", "mod40", "moderator", "--reason", "ok")
        club_id = await club_of(owner, rude)
        chat = f"/api/clubs/{club_id}/chat"
        line = await rude.request("POST", chat, {"text": "you all play like bots"})
        report = {"user_id": uid(rude), "place": "club", "club_id": club_id,
                  "message_id": line["id"], "reason": "insults the club"}
        assert await refused(outsider, "POST", "/api/reports", report) == (404, "not_found")
        assert await refused(owner, "POST", "/api/reports",
                             {**report, "user_id": uid(outsider)}) == (400, "bad_request")
        assert await refused(owner, "POST", "/api/reports",
                             {**report, "place": "table"}) == (400, "bad_request")
        made = await owner.request("POST", "/api/reports", report)

        [shown] = (await mod.request("GET", "/api/mod/reports"))["reports"]
        assert shown["id"] == made["id"] and shown["place"] == "club"
        assert (shown["club_id"], shown["message_id"]) == (club_id, line["id"])
        assert shown["line"]["text"] == "you all play like bots"
        assert shown["reported_name"] == "rude40"
        mod_chat = shown["club_chat_api"]
        assert mod_chat == f"/api/mod/clubs/{club_id}/chat"
        assert await refused(owner, "GET", mod_chat) == (403, "forbidden")
        read = await mod.request("GET", mod_chat)
        assert read["club"]["name"] == "牌友"
        assert [(m["id"], m["user_id"], m["text"]) for m in read["messages"]] == \
            [(line["id"], uid(rude), "you all play like bots")]
        assert await refused(mod, "POST", f"{mod_chat}/{line['id']}/remove",
                             {"reason": ""}) == (400, "bad_reason")
        assert await refused(mod, "POST", f"/api/mod/clubs/{club_id + 1}/chat/{line['id']}"
                             "/remove", {"reason": "x"}) == (404, "not_found")
        await mod.request("POST", f"{mod_chat}/{line['id']}/remove",
                          {"reason": "insults"})
        assert (await owner.request("GET", f"{chat}?after=0"))["messages"] == []
        [entry] = [e for e in (await mod.request("GET", "/api/mod/audit"))["entries"]
                   if e["action"] == "remove_club_line"]
        assert entry["target_user"] == uid(rude) and entry["reason"] == "insults"
        assert entry["detail"]["text"] == "you all play like bots"
        assert entry["detail"]["club"] == club_id

        await mod.request("POST", f"/api/mod/users/{uid(rude)}/mute",
                          {"minutes": 30, "reason": "insults"})
        table = await rude.create_table(timeout=600)
        raw = await Raw.connect(url, rude.token)
        await raw.send({"type": "join", "table": table["id"]})
        await raw.recv_type("table")
        await raw.send({"type": "chat", "text": "still here"})
        at_table = await raw.recv_type("error")
        await raw.close()
        with pytest.raises(ClientError) as caught:
            await rude.request("POST", chat, {"text": "still here"})
        error = caught.value
        assert (error.status, error.code) == (403, "muted")
        assert at_table["code"] == "muted" and error.message == at_table["message"]
        assert (await owner.request("GET", f"{chat}?after=0"))["messages"] == []
        await mod.request("POST", f"/api/mod/users/{uid(rude)}/unmute", {"reason": "ok"})
        again = await rude.request("POST", chat, {"text": "sorry"})
        assert again["text"] == "sorry"

    asyncio.run(main())


def test_a_deleted_member_leaves_his_name_nowhere_in_the_club(
        served: tuple[ServerThread, Clocks, str]) -> None:
    """A member who played a club table and chatted in the club finds his line in his
    data's export, then deletes his account: the club's members, ledger, his member
    page, the evening's games and the chat show 已注销/deleted #id where his name was,
    and his name appears in none of them."""
    server, clocks, _ = served

    async def main() -> None:
        url = server.url
        owner, leaving = await registered(url, "stays40"), await registered(url, "goes40")
        club_id = await club_of(owner, leaving)
        await play_club_table(url, clocks, owner, leaving, club_id)
        await leaving.request("POST", f"/api/clubs/{club_id}/chat", {"text": "gg all"})
        exported = await leaving.request("GET", "/api/me/export")
        assert [(m["club_id"], m["text"]) for m in exported["club_chat"]] == \
            [(club_id, "gg all")]
        gone = uid(leaving)
        deleted = await leaving.request("POST", "/api/me/delete",
                                        {"password": "goes40-secret-words-9"})
        placeholder = f"已注销/deleted #{gone}"
        assert deleted["name"] == placeholder
        base = f"/api/clubs/{club_id}"
        answers = {path: await owner.request("GET", base + path) for path in (
            "", "/ledger?period=all", f"/members/{gone}", "/evening?tz=0", "/chat?after=0")}
        assert "goes40" not in str(answers)
        members = {m["user_id"]: m["name"] for m in answers[""]["members"]}
        assert members[gone] == placeholder
        board = {p["user_id"]: p["name"] for p in answers["/ledger?period=all"]["players"]}
        assert board[gone] == placeholder
        assert answers[f"/members/{gone}"]["name"] == placeholder
        assert [(m["user_id"], m["name"]) for m in answers["/chat?after=0"]["messages"]] == \
            [(gone, placeholder)]

    asyncio.run(main())
