"""Moderation and a player's data in Chromium, at a phone's size (390×844, Chinese) and a
desktop's (English): a player reports (举报) another from his history and from the
table; a moderator's page lists the report with its replay, mutes and bans the player
and shows the audit log; a player who opens that page is told it is for moderators;
a table a moderator closes tells the player why; a player downloads his data and
deletes his account from his page.  axe-core finds nothing on the report form, the
moderator's page and the player's data."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING, Any

import httpx
import pytest
from server_support import LOOSE_CONFIG, Raw
from typer.testing import CliRunner

from baohuang.cli import app as cli_app
from baohuang.client import Client
from baohuang.server.config import ServerConfig
from baohuang.server.harness import ServerThread
from baohuang.web import STATIC_DIR
from web.support import CJK, assert_chinese, assert_english, shot, sized_page
from web.test_web_app import violations

expect = pytest.importorskip("playwright.sync_api").expect

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page

PASSWORD = "correct horse 1"
#: (size, language) of each run
LOOKS = [pytest.param("phone", "zh", id="phone-zh"), pytest.param("desktop", "en", id="desktop-en")]


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, str]]:
    """A server in this process (its URL) and its database's URL, for the shell."""
    db = f"sqlite+aiosqlite:///{tmp_path_factory.mktemp('moderation') / 'web.db'}"
    config = ServerConfig(db_url=db, bot_delay=0.0, hosted_delay=0.0, guard_pause=0.0,
                          next_game_delay=0.0, **LOOSE_CONFIG)
    with ServerThread(config, STATIC_DIR) as server:
        yield server.url, db


def off_thread(work: Any) -> Any:
    """Run ``work()`` (which may start an event loop) away from Playwright's."""
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(work).result()


def grant(db: str, name: str, role: str) -> None:
    result = CliRunner().invoke(cli_app, ["admin", "grant", name, role, "--reason", "test",
                                          "--db", db])
    assert result.exit_code == 0, result.output


def two_players_game(url: str, tag: str) -> tuple[int, int]:
    """``Reporter<tag>`` and ``Offender<tag>`` (registered) finish a game with three bots;
    the offender's id and the game's."""
    async def main() -> tuple[int, int]:
        reporter, offender = Client(url), Client(url)
        await reporter.register(f"Reporter{tag}", PASSWORD)
        await offender.register(f"Offender{tag}", PASSWORD)
        table = await reporter.create_table(
            timeout=60, bots={"2": "heuristic", "3": "heuristic", "4": "heuristic"})
        await asyncio.wait_for(asyncio.gather(reporter.play(table["id"], "hosted"),
                                              offender.play(table["id"], "hosted", seed=1)),
                               120)
        assert offender.user is not None
        return offender.user["id"], (await reporter.history())[0]["game_id"]
    result: tuple[int, int] = asyncio.run(main())
    return result


def log_in(page: Page, name: str) -> None:
    page.goto("/")
    page.get_by_test_id("lang-toggle").wait_for()
    page.evaluate("""async ([name, password]) => {
      const api = await import('/api.js');
      await api.post('/api/login', { name, password });
    }""", [name, PASSWORD])
    page.reload()
    page.get_by_test_id("user").wait_for()


def check_language(page: Page, lang: str, where: str) -> None:
    (assert_chinese if lang == "zh" else assert_english)(page, where)


@pytest.mark.parametrize(("size", "lang"), LOOKS)
def test_a_report_from_the_history_reaches_the_moderators_page(
        browser: Browser, served: tuple[str, str], size: str, lang: str) -> None:
    url, db = served
    offender_id, game_id = off_thread(lambda: two_players_game(url, size))
    off_thread(lambda: asyncio.run(Client(url).register(f"Mod{size}", PASSWORD)))
    off_thread(lambda: grant(db, f"Mod{size}", "moderator"))
    reason = f"he said rude things {size}"
    with sized_page(browser, url, size, lang) as player, \
            sized_page(browser, url, size, lang) as mod:
        log_in(player, f"Reporter{size}")
        player.goto("/#/history")
        row = player.locator(f"[data-testid=history-row][data-game='{game_id}']")
        row.get_by_test_id("report-open").click()
        dialog = player.get_by_test_id("report-dialog")
        dialog.wait_for()
        # (the history's own list of players is joined with 、 in either language)
        text = dialog.inner_text()
        assert bool(CJK.search(text)) == (lang == "zh"), text
        assert ("举报" if lang == "zh" else "Report a player") in text
        shot(player, f"report-{size}.png")
        assert violations(player, "the report form") == []
        dialog.get_by_test_id("report-reason").fill(reason)
        dialog.get_by_test_id("report-send").click()
        player.get_by_test_id("report-done").wait_for()
        dialog.get_by_test_id("report-close").click()
        assert player.get_by_test_id("report-dialog").count() == 0
        # the player has no moderator link, and the page tells him it is not his
        assert player.get_by_test_id("mod-link").count() == 0
        player.goto("/#/mod")
        player.get_by_test_id("mod-error").wait_for()
        assert player.get_by_test_id("mod-error").inner_text() == \
            ("你的身份不能这样做。" if lang == "zh" else "Your role does not allow this.")

        log_in(mod, f"Mod{size}")
        mod.get_by_test_id("mod-link").click()
        report = mod.locator("[data-testid=mod-report]").filter(has_text=reason)
        report.wait_for()
        assert report.get_by_test_id("mod-replay").get_attribute("href") == \
            f"/#/replay/{game_id}"
        assert f"Offender{size}" in report.inner_text()
        check_language(mod, lang, "the moderator's page")
        report.get_by_test_id("mod-look").click()
        mod.get_by_test_id("mod-user-state").wait_for()
        assert mod.get_by_test_id("mod-user-id").input_value() == str(offender_id)
        mod.get_by_test_id("mod-reason").fill("insults at the table")
        mod.get_by_test_id("mod-minutes").fill("45")
        mod.get_by_test_id("mod-mute").click()
        mod.get_by_test_id("mod-notice").wait_for()
        assert mod.get_by_test_id("mod-user-muted").inner_text() != "–"
        mod.get_by_test_id("mod-reason").fill("insults again")
        mod.get_by_test_id("mod-ban").click()
        expect(mod.get_by_test_id("mod-user-banned")).to_have_text("是" if lang == "zh" else "yes")
        expect(mod.locator("[data-testid=mod-audit-action]").first).to_have_text(
            "永久封禁" if lang == "zh" else "ban")
        actions = mod.locator("[data-testid=mod-audit-action]").all_inner_texts()
        assert actions[:2] == (["永久封禁", "禁言"] if lang == "zh" else ["ban", "mute"])
        mod.get_by_test_id("mod-reason").fill("handled: banned")
        report.get_by_test_id("mod-close-report").click()
        mod.wait_for_function("""(reason) => ![...document.querySelectorAll(
          '[data-testid=mod-report]')].some((el) => el.textContent.includes(reason))""",
                              arg=reason)
        check_language(mod, lang, "the moderator's page after the actions")
        shot(mod, f"moderation-{size}.png", full=True)
        assert violations(mod, "the moderator's page") == []
    banned = httpx.post(url + "/api/login", json={"name": f"Offender{size}",
                                                  "password": PASSWORD})
    assert banned.status_code == 403


def seated_with_offender(url: str, tag: str) -> tuple[str, str]:
    """``Player<tag>``'s table (its id), three bots and ``Rude<tag>`` seated (who then
    goes); the moderator's token."""
    async def main() -> tuple[str, str]:
        player, rude, mod = Client(url), Client(url), Client(url)
        await player.register(f"Player{tag}", PASSWORD)
        await rude.register(f"Rude{tag}", PASSWORD)
        await mod.register(f"Closer{tag}", PASSWORD)
        table = await player.create_table(
            timeout=600, bots={"2": "heuristic", "3": "heuristic", "4": "heuristic"})
        raw = await Raw.connect(url, rude.token)
        await raw.send({"type": "join", "table": table["id"]})
        await raw.recv_type("table")
        await raw.close()
        assert mod.token is not None
        return table["id"], mod.token
    result: tuple[str, str] = asyncio.run(main())
    return result


@pytest.mark.parametrize(("size", "lang"), LOOKS)
def test_a_report_from_the_table_and_a_closed_table(
        browser: Browser, served: tuple[str, str], size: str, lang: str) -> None:
    url, db = served
    table_id, mod_token = off_thread(lambda: seated_with_offender(url, size))
    off_thread(lambda: grant(db, f"Closer{size}", "moderator"))
    with sized_page(browser, url, size, lang) as page:
        log_in(page, f"Player{size}")
        page.goto(f"/#/t/{table_id}")
        page.get_by_test_id("hand").wait_for()
        page.get_by_test_id("emote-open").click()
        page.get_by_test_id("report-open").click()
        dialog = page.get_by_test_id("report-dialog")
        dialog.wait_for()
        assert f"Rude{size}" in dialog.inner_text()
        dialog.get_by_test_id("report-reason").fill("plays to lose on purpose")
        dialog.get_by_test_id("report-send").click()
        page.get_by_test_id("report-done").wait_for()
        dialog.get_by_test_id("report-close").click()
        closed = httpx.post(url + f"/api/mod/tables/{table_id}/close",
                            json={"reason": "collusion"},
                            headers={"Authorization": f"Bearer {mod_token}"})
        assert closed.status_code == 200
        note = page.get_by_test_id("table-closed")
        note.wait_for()
        assert "collusion" in note.inner_text()
        assert ("管理员已关闭本桌" if lang == "zh" else "A moderator closed this table") \
            in note.inner_text()
        shot(page, f"table-closed-{size}.png")
    listed = httpx.get(url + "/api/mod/reports",
                       headers={"Authorization": f"Bearer {mod_token}"}).json()["reports"]
    mine = [r for r in listed if r["reporter_name"] == f"Player{size}"]
    assert [(r["place"], r["reported_name"], r["table_id"]) for r in mine] == \
        [("table", f"Rude{size}", table_id)]


@pytest.mark.parametrize(("size", "lang"), LOOKS)
def test_a_player_downloads_his_data_and_deletes_his_account(
        browser: Browser, served: tuple[str, str], size: str, lang: str,
        tmp_path: Path) -> None:
    url, _db = served
    off_thread(lambda: asyncio.run(Client(url).register(f"Privy{size}", PASSWORD)))
    with sized_page(browser, url, size, lang) as page:
        log_in(page, f"Privy{size}")
        user_id = page.evaluate("() => window.baohuang.user.id")
        page.goto(f"/#/u/{user_id}")
        page.get_by_test_id("your-data").wait_for()
        check_language(page, lang, "the player's data")
        assert violations(page, "the player's data") == []
        with page.expect_download() as download:
            page.get_by_test_id("data-export").click()
        saved = tmp_path / "export.json"
        download.value.save_as(saved)
        data = json.loads(saved.read_text())
        assert data["account"]["name"] == f"Privy{size}" and data["chat"]["stored"] is False
        page.get_by_test_id("delete-password").fill("wrong password here")
        page.once("dialog", lambda d: d.accept())
        page.get_by_test_id("delete-account").click()
        page.get_by_test_id("delete-error").wait_for()
        page.get_by_test_id("delete-password").fill(PASSWORD)
        page.once("dialog", lambda d: d.accept())
        page.get_by_test_id("delete-account").click()
        page.wait_for_function("() => location.hash === '#/' && !window.baohuang.user")
    shown = httpx.get(url + f"/api/users/{user_id}").json()
    assert shown["name"] == f"已注销/deleted #{user_id}"


def club_with_a_rude_line(url: str, tag: str) -> tuple[int, str]:
    """``Member<tag>`` makes a club that ``Rude<tag>`` joins and says a rude line in:
    the club's id and the line."""
    async def main() -> tuple[int, str]:
        member, rude = Client(url), Client(url)
        await member.register(f"Member{tag}", PASSWORD)
        await rude.register(f"Rude{tag}", PASSWORD)
        club = await member.request("POST", "/api/clubs", {"name": f"牌友{tag}",
                                                           "approval": False})
        await rude.request("POST", "/api/clubs/join", {"code": club["code"]})
        line = f"you all play like bots {tag}"
        await rude.request("POST", f"/api/clubs/{club['id']}/chat", {"text": line})
        return int(club["id"]), line
    result: tuple[int, str] = asyncio.run(main())
    return result


@pytest.mark.parametrize(("size", "lang"), LOOKS)
def test_a_line_of_club_chat_is_reported_and_removed(
        browser: Browser, served: tuple[str, str], size: str, lang: str) -> None:
    """A member reports (举报) another's line from the club's page (his own line has no
    such button); the moderator's page shows the report with the line, opens the
    club's chat from it and removes the line with a reason: the audit log says so and
    the club's page no longer shows it."""
    url, db = served
    tag = f"c{size}"
    club_id, line = off_thread(lambda: club_with_a_rude_line(url, tag))
    off_thread(lambda: asyncio.run(Client(url).register(f"Mod{tag}", PASSWORD)))
    off_thread(lambda: grant(db, f"Mod{tag}", "moderator"))
    reason = f"insults the club {tag}"
    with sized_page(browser, url, size, lang) as player, \
            sized_page(browser, url, size, lang) as mod:
        log_in(player, f"Member{tag}")
        player.goto(f"/#/club/{club_id}")
        rude = player.locator("[data-testid=club-chat-line]").filter(has_text=line)
        rude.wait_for()
        player.get_by_test_id("club-chat-input").fill("calm down")
        player.get_by_test_id("club-chat-send").click()
        mine = player.locator("[data-testid=club-chat-line]").filter(has_text="calm down")
        mine.wait_for()
        assert mine.get_by_test_id("report-open").count() == 0
        rude.get_by_test_id("report-open").click()
        dialog = player.get_by_test_id("report-dialog")
        assert f"Rude{tag}" in dialog.inner_text()
        dialog.get_by_test_id("report-reason").fill(reason)
        dialog.get_by_test_id("report-send").click()
        player.get_by_test_id("report-done").wait_for()
        dialog.get_by_test_id("report-close").click()

        log_in(mod, f"Mod{tag}")
        mod.goto("/#/mod")
        report = mod.locator("[data-testid=mod-report]").filter(has_text=reason)
        report.wait_for()
        assert line in report.get_by_test_id("mod-report-club-line").inner_text()
        assert ("亲友圈聊天" if lang == "zh" else "in a club's chat") in report.inner_text()
        report.get_by_test_id("mod-report-club").click()
        chat_line = mod.locator("[data-testid=mod-club-line]").filter(has_text=line)
        chat_line.wait_for()
        assert mod.locator("[data-testid=mod-club-line]").count() == 2
        check_language(mod, lang, "the moderator's page with a club's chat")
        assert violations(mod, "the moderator's page with a club's chat") == []
        mod.get_by_test_id("mod-reason").fill("insults in the club")
        chat_line.get_by_test_id("mod-club-line-remove").click()
        mod.get_by_test_id("mod-notice").wait_for()
        expect(mod.locator("[data-testid=mod-club-line]")).to_have_count(1)
        expect(mod.locator("[data-testid=mod-audit-action]").first).to_have_text(
            "删除亲友圈消息" if lang == "zh" else "remove club chat line")
        expect(report.get_by_test_id("mod-report-club-line")).to_contain_text(
            "这条消息已被删除。" if lang == "zh" else "The line has been removed.")
        shot(mod, f"moderation-club-{size}.png", full=True)
        player.reload()
        player.locator("[data-testid=club-chat-line]").first.wait_for()
        assert line not in player.get_by_test_id("club-chat").inner_text()
