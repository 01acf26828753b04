"""亲友圈 (clubs) in the browser against a real server: an owner (desktop, Chinese) makes a
club that approves who joins; a friend (a phone, English) opens the invitation link and
asks to join; the owner approves him; the owner opens a club table where bots fill the
empty seats, the friend is told of it in the app and sits down, both play the game on
托管; the ledger and the evening's summary (今晚战绩) on both pages show exactly the scores
of the game as stored, the summary becomes a picture; the chat shows a line as text;
the friend leaves. Each page is also drawn at 844×390 (a phone on its side)."""

from __future__ import annotations

import json
import time
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from playwright.sync_api import Page

from web.support import GAME_SECONDS, assert_chinese, assert_english, shot, sized, sync_api
from web.test_web_app import violations


def _api(page: Page, path: str) -> Any:
    return page.evaluate(f"""async () => (await import('/api.js')).get({json.dumps(path)})""")


def _register(page: Page, prefix: str) -> str:
    name = f"{prefix}{int(time.time() * 1000) % 10**7}"
    page.goto("/")
    page.get_by_test_id("acct-name").fill(name)
    page.get_by_test_id("acct-password").fill("long-enough-pass")
    page.get_by_test_id("register").click()
    page.get_by_test_id("logout").wait_for()
    return name


def test_a_club_in_two_browsers(browser: Any, server: str) -> None:
    owner, owner_errors = sized(browser, server, "desktop")
    friend, friend_errors = sized(browser, server, "phone", lang="en")
    try:
        owner_name = _register(owner, "own")
        friend_name = _register(friend, "fr")

        owner.goto("/#/clubs")
        owner.get_by_test_id("clubs-empty").wait_for()
        form = owner.get_by_test_id("club-create")
        form.get_by_test_id("club-name").fill("周五牌友")
        form.get_by_test_id("club-description").fill("<i>every</i> Friday")
        form.locator("[name=timeout]").fill("600")
        form.get_by_test_id("club-approval").check()
        form.get_by_test_id("club-create-go").click()
        owner.get_by_test_id("club-title").wait_for()
        assert owner.get_by_test_id("club-title").inner_text() == "周五牌友"
        assert owner.locator(".club-page i").count() == 0          # (text, not HTML)
        code = owner.get_by_test_id("club-code").inner_text()
        link = owner.get_by_test_id("club-link-text").input_value()
        assert link.endswith(f"#/club-join/{code}")
        club_id = int(owner.evaluate("() => window.baohuang.screen.clubId"))
        assert_chinese(owner, "the club's page")
        assert violations(owner, "the club's page") == []

        friend.clock.install()       # (the notices' poll is moved by hand below)
        friend.goto(link[link.index("#"):] if "#" in link else link)
        friend.get_by_test_id("club-join-go").click()
        friend.get_by_test_id("club-join-done").wait_for()
        assert_english(friend, "an invitation, asked")

        owner.reload()
        owner.get_by_test_id("club-approve").click()
        sync_api.expect(owner.get_by_test_id("club-approve")).to_have_count(0)

        friend.goto(f"/#/club/{club_id}")
        friend.get_by_test_id("club-title").wait_for()
        assert_english(friend, "the club's page")
        assert friend.evaluate("() => document.scrollingElement.scrollWidth") <= 390
        friend.goto("/")
        friend.get_by_test_id("clubs-link").click()     # (a phone: from the lobby)
        friend.reload()              # (the app again, on the clock installed above)
        friend.get_by_test_id("club-link").wait_for()
        friend.wait_for_function("() => window.baohuang.clubNotices.seen !== null")

        owner.get_by_test_id("club-fill").check()
        owner.get_by_test_id("club-open-table").click()
        owner.get_by_test_id("start").wait_for()
        table_id = owner.evaluate("() => window.baohuang.screen.table.id")

        # the friend is told in the app, and sits down from the notice
        friend.clock.run_for(25000)
        friend.get_by_test_id("club-notice-go").click()
        owner.wait_for_function("() => !!window.baohuang.screen.table.seats[1]")
        owner.get_by_test_id("start").click()
        for page in (owner, friend):
            page.get_by_test_id("hand").wait_for()
            page.get_by_test_id("hosted-toggle").click()
        friend.clock.resume()
        for page in (owner, friend):
            page.get_by_test_id("score-sheet").wait_for(timeout=GAME_SECONDS * 1000)

        game = next(g for g in _api(owner, "/api/history?limit=5")["games"]
                    if g["table_id"] == table_id)
        stored = _api(owner, f"/api/games/{game['game_id']}/replay")
        scores = {p["name"]: stored["result"]["scores"][p["seat"]]
                  for p in stored["players"] if p["user_id"] is not None}
        assert set(scores) == {owner_name, friend_name}

        for page in (owner, friend):
            page.goto(f"/#/club/{club_id}")
            page.get_by_test_id("club-period-all").click()
            sync_api.expect(page.get_by_test_id("ledger-row")).to_have_count(2)
            shown = {row.locator("td").nth(1).inner_text():
                     int(row.get_by_test_id("ledger-points").inner_text())
                     for row in page.get_by_test_id("ledger-row").all()}
            assert shown == scores
            page.get_by_test_id("club-evening-link").click()
            sync_api.expect(page.get_by_test_id("ledger-row")).to_have_count(2)
            evening = {row.locator("td").nth(1).inner_text():
                       int(row.get_by_test_id("ledger-points").inner_text())
                       for row in page.get_by_test_id("ledger-row").all()}
            assert evening == scores
        # the owner's page in the club, from the friend's ledger
        friend.goto(f"/#/club/{club_id}")
        friend.get_by_test_id("club-period-all").click()
        friend.get_by_test_id("ledger-row").filter(has_text=owner_name).get_by_role(
            "link").click()
        row = friend.get_by_test_id("club-member-all")
        sync_api.expect(row.locator("td").nth(1)).to_have_text(str(scores[owner_name]))
        assert row.locator("td").first.inner_text() == "1"
        friend.get_by_test_id("club-evening-link").wait_for(state="detached")
        friend.goto(f"/#/club/{club_id}/evening")
        friend.get_by_test_id("club-evening-image").click()
        friend.get_by_test_id("club-evening-download").wait_for()
        shot(friend, "club-evening-phone.png", full=True)
        assert violations(friend, "the evening's summary") == []
        assert friend.evaluate("() => document.scrollingElement.scrollWidth") <= 390
        share = friend.get_by_test_id("club-evening-share").input_value()
        assert f"#/club/{club_id}/evening/" in share
        owner.goto(share[share.index("#"):])
        sync_api.expect(owner.get_by_test_id("ledger-row")).to_have_count(2)

        friend.goto(f"/#/club/{club_id}")
        friend.get_by_test_id("club-chat-input").fill("<b>gg</b> 好牌")
        friend.get_by_test_id("club-chat-send").click()
        sync_api.expect(friend.get_by_test_id("club-chat-line")).to_have_count(1)
        owner.goto(f"/#/club/{club_id}")
        line = owner.get_by_test_id("club-chat-line")
        sync_api.expect(line).to_have_count(1)
        assert "<b>gg</b> 好牌" in line.inner_text() and owner.locator(".chat-lines b").count() == 0
        shot(owner, "club-desktop.png", full=True)
        assert violations(owner, "the club's page with its ledger and chat") == []
        friend.set_viewport_size({"width": 844, "height": 390})
        shot(friend, "club-phone-landscape.png", full=True)
        width = friend.evaluate("() => document.documentElement.scrollWidth")
        assert width <= 844

        friend.get_by_test_id("club-leave").click()
        friend.get_by_test_id("clubs-empty").wait_for()
        owner.reload()
        sync_api.expect(owner.get_by_test_id("club-member")).to_have_count(1)
    finally:
        owner.context.close()
        friend.context.close()
    assert owner_errors == [] and friend_errors == []
