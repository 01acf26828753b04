"""每日挑战 in the browser against a real server: from the lobby's entry a player
begins a deal (the table says which deal of how many), 托管 plays it out, and the day's
page then shows his score (the server's own record), the distribution, the ranking;
a second player's game of the same deal opens beside his, from the deal's seat. In
Chinese and English, at phone (390×844, 844×390) and desktop sizes, with no overflow
and no axe-core finding."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page

from web.support import GAME_SECONDS, assert_chinese, assert_english, open_page, shot
from web.test_web_app import violations


def _api(page: Page, path: str) -> Any:
    return page.evaluate(f"""async () => (await import('/api.js')).get({json.dumps(path)})""")


def _fits(page: Page, where: str) -> None:
    """Nothing wider than the window (no sideways scrolling)."""
    wide = page.evaluate("() => document.documentElement.scrollWidth - window.innerWidth")
    assert wide <= 0, f"{where}: {wide} px wider than the window"


def _play_deal(page: Page, number: int) -> None:
    """From the lobby: the challenge's page, deal ``number`` begun, 托管 plays it out,
    and back to the day's page from the score sheet."""
    page.goto("/")
    page.get_by_test_id("challenge-link").click()
    deal = page.locator(f"[data-testid=challenge-deal][data-deal='{number}']")
    deal.get_by_test_id("challenge-start").click()
    page.get_by_test_id("hand").wait_for()
    page.get_by_test_id("hosted-toggle").click()
    page.get_by_test_id("score-sheet").wait_for(timeout=GAME_SECONDS * 1000)
    page.get_by_test_id("again").click()
    page.locator(f"[data-testid=challenge-deal][data-deal='{number}'][data-status=over]"
                 ).wait_for()


def test_a_day_is_played_and_its_results_shown(browser: Browser, server: str) -> None:
    phone, phone_errors = open_page(browser, server, 390, 844, touch=True)
    desk, desk_errors = open_page(browser, server, 1280, 800, lang="en")
    try:
        # the lobby's entry: today's progress, before anything is played
        phone.goto("/")
        phone.get_by_test_id("challenge-link").click()
        phone.get_by_test_id("challenge-deal").first.wait_for()
        today = _api(phone, "/api/challenge")
        assert phone.get_by_test_id("challenge-deal").count() == today["count"]
        phone.goto("/")
        progress = phone.get_by_test_id("challenge-progress")
        # (the lobby draws the panel once its request answers: until then there is none)
        phone.wait_for_function("() => document.querySelector("
                                "'[data-testid=challenge-progress]')?.innerText.includes('0/')")
        assert progress.inner_text().startswith(f"今日已打 0/{today['count']} 局")
        # the deal screen says which deal of how many
        phone.get_by_test_id("challenge-link").click()
        phone.locator("[data-testid=challenge-deal][data-deal='2']").get_by_test_id(
            "challenge-start").click()
        badge = phone.get_by_test_id("challenge-badge")
        badge.wait_for()
        assert badge.inner_text() == f"每日挑战 第 2/{today['count']} 局"
        _fits(phone, "table 390x844")
        phone.get_by_test_id("hosted-toggle").click()
        phone.get_by_test_id("score-sheet").wait_for(timeout=GAME_SECONDS * 1000)
        assert phone.get_by_test_id("again").inner_text() == "回到每日挑战"
        phone.get_by_test_id("again").click()
        played = phone.locator("[data-testid=challenge-deal][data-deal='2'][data-status=over]")
        played.wait_for()
        day = _api(phone, "/api/challenge")
        mine = day["deals"][1]
        score = mine["score"]
        assert played.get_by_test_id("challenge-score").inner_text().startswith(
            f"你的得分 {'+' if score > 0 else ''}{score}")
        assert played.get_by_test_id("challenge-distribution").is_visible()
        # a deal not played shows nobody's results
        assert phone.locator("[data-testid=challenge-deal][data-deal='1']").get_by_test_id(
            "challenge-results").count() == 0
        assert phone.get_by_test_id("challenge-rank-row").count() == len(day["ranking"]) >= 1
        assert phone.get_by_test_id("challenge-seed").count() == 0
        _fits(phone, "day 390x844")
        assert_chinese(phone, "day page")
        shot(phone, "challenge-day-390x844-zh.png", full=True)
        assert violations(phone, "day 390x844") == []
        # one attempt per deal: the page offers no start, and the server refuses one
        assert played.get_by_test_id("challenge-start").count() == 0
        refused = phone.evaluate(f"""async () => {{
          try {{ await (await import('/api.js')).post('/api/challenge/{day["day"]}/deals/2');
                 return null; }} catch (e) {{ return e.code; }} }}""")
        assert refused == "already_played"

        # a second player, in English on a desktop, plays the same deal
        _play_deal(desk, 2)
        desk_day = _api(desk, "/api/challenge")
        other = desk_day["deals"][1]
        assert {r["game_id"] for r in other["results"]} == {mine["game_id"], other["game_id"]}
        assert_english(desk, "day page")
        desk.locator("[data-testid=challenge-deal][data-deal='2']").get_by_test_id(
            "challenge-results").locator("summary").click()
        assert desk.get_by_test_id("challenge-result").count() == 2
        _fits(desk, "day 1280x800")
        shot(desk, "challenge-day-1280x800-en.png", full=True)
        assert violations(desk, "day 1280x800") == []
        # the two games side by side, each from the deal's seat
        desk.locator("[data-testid=challenge-deal][data-deal='2'] "
                     "[data-testid=challenge-result]:not(.me) [data-testid=challenge-compare]"
                     ).click()
        panes = desk.get_by_test_id("compare-pane")
        desk.wait_for_function("() => document.querySelectorAll("
                               "'[data-testid=compare-pane] [data-testid=replay-bar]').length"
                               " === 2")
        assert panes.count() == 2
        seats = desk.eval_on_selector_all(
            "[data-testid=compare-pane] [data-testid=replay-seat]", "els => els.map(e => e.value)")
        assert seats == [str(mine["seat"])] * 2
        boxes = [panes.nth(i).bounding_box() for i in range(2)]
        assert boxes[0] and boxes[1] and boxes[0]["x"] < boxes[1]["x"]   # side by side
        _fits(desk, "compare 1280x800")
        shot(desk, "challenge-compare-1280x800-en.png")
        assert violations(desk, "compare 1280x800") == []
        # past days and a landscape phone
        desk.goto("/#/challenge/days")
        desk.get_by_test_id("challenge-day-row").first.wait_for()
        assert desk.get_by_test_id("challenge-day-row").first.inner_text().startswith(
            desk_day["day"])
        assert_english(desk, "past days")
        phone.set_viewport_size({"width": 844, "height": 390})
        phone.goto(f"/#/challenge/{day['day']}")
        phone.reload()                 # (the same address: read the day again)
        phone.get_by_test_id("challenge-deal").first.wait_for()
        assert phone.get_by_test_id("challenge-rank-row").count() == 2
        _fits(phone, "day 844x390")
        shot(phone, "challenge-day-844x390-zh.png")
        phone.goto(f"/#/challenge/{day['day']}/2/{mine['game_id']}/{other['game_id']}")
        phone.wait_for_function("() => document.querySelectorAll("
                                "'[data-testid=compare-pane] [data-testid=replay-bar]').length"
                                " === 2")
        _fits(phone, "compare 844x390")
    finally:
        phone.context.close()
        desk.context.close()
    assert phone_errors == [] and desk_errors == []
