"""A whole game in the browser, against a real server: by mouse, by keyboard and on
a phone; reloads, languages, matches and 托管 (the lobby, invitations and accounts:
test_web_lobby.py)."""

from __future__ import annotations

import json
import re
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page


from web.support import (
    GAME_SECONDS,
    assert_chinese,
    assert_english,
    biggest_play,
    click_card,
    open_page,
    play_game,
    quickplay,
    shot,
    sized_page,
    start_vs_bots,
    state,
    sync_api,
    wait_moved,
    wait_turn_or_over,
)


def test_whole_game_vs_bots_with_the_mouse(page: Page) -> None:
    page.goto("/")
    page.get_by_test_id("play-vs-bots").wait_for()
    page.wait_for_selector("[data-testid=create-form]")
    shot(page, "lobby.png", full=True)
    page.get_by_test_id("play-vs-bots").click()
    page.get_by_test_id("hand").wait_for()
    assert re.search(r"#/t/\w+", page.url)
    seats = page.get_by_test_id("seat")
    assert sorted(s.get_attribute("data-seat") or "" for s in seats.all()) == list("01234")
    hand = page.locator("[data-testid=hand] [data-testid=card]")
    assert hand.count() >= 33
    assert all(re.fullmatch(r"(10|[2-9JQKA])[shdc]|[BS]J\*?", c.get_attribute("data-card") or "")
               for c in hand.all())
    shots: set[str] = set()

    def check(pg: Page, moment: str) -> None:
        if moment == "decision" and "decision" not in shots:
            shots.add("decision")
            shot(pg, "table-decision.png")
        if moment == "selected" and "selected" not in shots:
            shots.add("selected")
            shot(pg, "table.png")
            st = state(pg)
            assert st is not None
            _illegal_selection_shows_reason(pg, st)
            _hint_selects_legal_plays(pg)
            for card in biggest_play(st["legal"]) or []:
                click_card(pg, card)

    seen = play_game(page, check=check)
    assert seen["plays"] >= 1
    sheet = page.get_by_test_id("score-sheet")
    assert sheet.is_visible()
    scores = [int(s.inner_text()) for s in sheet.get_by_test_id("score").all()]
    assert len(scores) == 5
    assert_chinese(page, "score sheet")
    shot(page, "score-sheet.png")
    _replay_from_score_sheet(page)


def _illegal_selection_shows_reason(page: Page, st: dict[str, Any]) -> None:
    """Two cards of different ranks are refused before sending, with the reason."""
    version = st["version"]
    page.keyboard.press("Escape")
    ranks: dict[str, str] = {}
    for card in st["hand"]:
        rank = card.rstrip("*").rstrip("shdc") or card
        if not card.startswith(("BJ", "SJ")):
            ranks.setdefault(rank, card)
    if len(ranks) < 2:
        return
    a, b = list(ranks.values())[:2]
    click_card(page, a)
    click_card(page, b)
    page.get_by_test_id("play").click()
    message = page.get_by_test_id("message")
    assert "bad" in (message.get_attribute("class") or "")
    assert "同一点数" in message.inner_text()
    assert page.evaluate("() => window.baohuang.screen.version") == version
    page.keyboard.press("Escape")
    assert page.locator("[data-testid=hand] .card.selected").count() == 0


def _hint_selects_legal_plays(page: Page) -> None:
    seen = set()
    for _ in range(3):
        page.get_by_test_id("hint").click()
        selected = tuple(c.get_attribute("data-card")
                         for c in page.locator("[data-testid=hand] .card.selected").all())
        assert selected
        assert "ok" in (page.get_by_test_id("message").get_attribute("class") or "")
        seen.add(selected)
    assert len(seen) >= 2 or len(page.evaluate(
        "() => window.baohuang.screen.view.legal_actions.filter(a => a.kind === 'play')")) == 1
    page.keyboard.press("Escape")


def _replay_from_score_sheet(page: Page) -> None:
    page.get_by_test_id("review").click()
    page.get_by_test_id("replay-bar").wait_for()
    first = page.get_by_test_id("replay-step").inner_text()     # it opens at the deal
    assert page.get_by_test_id("score-sheet").count() == 0
    page.keyboard.press("End")
    last = page.get_by_test_id("replay-step").inner_text()
    assert first != last
    page.get_by_test_id("replay-first").click()
    assert page.get_by_test_id("replay-step").inner_text() == first
    page.get_by_test_id("replay-next").click()
    page.get_by_test_id("replay-seat").select_option("all")
    open_cards = page.locator(".open-hand [data-card]").count()
    assert open_cards > 100      # four other hands are shown
    page.get_by_test_id("replay-seat").select_option("2")
    held = page.evaluate("() => { const s = window.baohuang.screen;"
                         " return s.steps()[s.step].hands['2']; }")
    shown = [c.get_attribute("data-card") or ""
             for c in page.locator("[data-testid=hand] [data-testid=card]").all()]
    assert len(held) >= 30 and sorted(shown) == sorted(held)
    assert page.locator("[data-testid=seat].me").get_attribute("data-seat") == "2"
    page.keyboard.press("End")
    assert page.get_by_test_id("replay-step").inner_text() == last
    assert_chinese(page, "replay")
    shot(page, "replay.png")


def test_reload_mid_game_resumes_the_same_game(page: Page) -> None:
    start_vs_bots(page)
    st = wait_turn_or_over(page)
    assert st is not None
    url, hand = page.url, st["hand"]
    page.reload()
    page.get_by_test_id("hand").wait_for()
    page.wait_for_function("() => window.baohuang?.screen?.view")
    again = state(page)
    assert again is not None
    assert page.url == url
    assert again["table"] == st["table"]
    assert again["hand"] == hand
    assert again["version"] >= st["version"]
    # and the game goes on from there
    st = wait_turn_or_over(page)
    assert st is not None
    if st["stage"] == "play":
        cards = biggest_play(st["legal"])
        assert cards is not None
        for card in cards:
            click_card(page, card)
        page.get_by_test_id("play").click()
    else:
        page.get_by_test_id("decision").first.click()
    wait_moved(page, st["version"])
    # a dropped connection shows the banner, reconnects by itself and resyncs
    page.evaluate("() => window.baohuang.screen.conn.ws.close()")
    page.get_by_test_id("reconnect-banner").wait_for(state="visible", timeout=3000)
    page.get_by_test_id("reconnect-banner").wait_for(state="hidden", timeout=10000)
    assert page.evaluate("() => window.baohuang.screen.conn.ws.readyState") == 1


def test_language_toggle_switches_every_visible_string(page: Page) -> None:
    page.goto("/")
    page.wait_for_selector("[data-testid=create-form]")
    page.locator("details.all-options").evaluate("el => el.open = true")
    assert_chinese(page, "lobby")
    toggle = page.get_by_test_id("lang-toggle")
    toggle.click()
    page.wait_for_function("() => document.documentElement.lang === 'en'")
    page.locator("details.all-options").evaluate("el => el.open = true")
    assert_english(page, "lobby")
    assert page.get_by_test_id("play-vs-bots").inner_text() == "Play now vs bots"
    shot(page, "lobby-en.png", full=True)
    page.get_by_test_id("play-vs-bots").click()
    page.get_by_test_id("hand").wait_for()
    page.locator("details.log").evaluate("el => el.open = true")
    assert_english(page, "table")
    page.get_by_test_id("lang-toggle").click()
    page.wait_for_function("() => document.documentElement.lang === 'zh-CN'")
    page.locator("details.log").evaluate("el => el.open = true")
    assert_chinese(page, "table")
    keys = page.evaluate("""async () => {
      const zh = (await import('/i18n/zh.js')).default, en = (await import('/i18n/en.js')).default;
      const a = Object.keys(zh), b = Object.keys(en);
      return [a.filter(k => !(k in en)), b.filter(k => !(k in zh))];
    }""")
    assert keys == [[], []]


def test_keyboard_only_game_in_english(browser: Browser, server: str) -> None:
    page, errors = open_page(browser, server, lang="en")
    try:
        start_vs_bots(page, keyboard=True)

        def check(pg: Page, moment: str) -> None:
            pg.locator("details.log").evaluate("el => el.open = true")
            assert_english(pg, moment)

        seen = play_game(page, keyboard=True, check=check)
        assert seen["plays"] >= 1 and seen["decisions"]
        sheet = page.get_by_test_id("score-sheet")
        assert sheet.is_visible()
        assert_english(page, "score sheet")
        shot(page, "score-sheet-en.png")
        assert errors == []
    finally:
        page.context.close()


def test_phone_viewport_shows_the_whole_hand(browser: Browser, server: str) -> None:
    page, errors = open_page(browser, server, width=360, height=740)
    try:
        page.goto("/")
        page.wait_for_selector("[data-testid=create-form]")
        page.locator("details.all-options").evaluate("el => el.open = true")
        for _ in range(2):      # both languages fit
            assert page.evaluate("() => document.scrollingElement.scrollWidth") <= 360
            page.get_by_test_id("lang-toggle").click()
        shot(page, "phone-lobby.png", full=True)
        start_vs_bots(page)
        st = wait_turn_or_over(page)
        assert st is not None
        hand = page.get_by_test_id("hand")
        hand.scroll_into_view_if_needed()
        box = hand.bounding_box()
        assert box is not None and box["height"] <= 740
        assert page.evaluate("() => document.scrollingElement.scrollWidth") <= 360
        cards = page.locator("[data-testid=hand] [data-testid=card]")
        assert cards.count() == len(st["hand"])
        corners = page.evaluate("""() => [...document.querySelectorAll(
            '[data-testid=hand] [data-testid=card]')].map(el => {
              const r = el.getBoundingClientRect();
              const top = document.elementFromPoint(r.left + 4, r.top + 6);
              return {x: r.left, right: r.right, top: r.top, bottom: r.bottom,
                      shown: !!top && el.contains(top)};
            })""")
        for c in corners:
            assert c["x"] >= 0 and c["right"] <= 360, c
            assert c["top"] >= 0 and c["bottom"] <= 740, c
            assert c["shown"], c
        shot(page, "phone-table.png")
        if st["stage"] != "play":
            page.get_by_test_id("decision").first.click()
        assert errors == []
    finally:
        page.context.close()


def _sheet_column(page: Page, testid: str, within: str = "") -> list[int]:
    """One column of the score sheet on screen (``within`` a part of the page), once it
    shows all five seats."""
    cells = page.locator(f"{within} [data-testid=score-sheet]").get_by_test_id(testid)
    sync_api.expect(cells).to_have_count(5)
    return [int(t.inner_text()) for t in cells.all()]


def test_match_of_two_games_shows_totals_and_tribute(page: Page) -> None:
    """A table made in the lobby (Shandong rules with tribute on) plays a match of two."""
    page.goto("/")
    form = page.get_by_test_id("create-form")
    form.wait_for()
    page.get_by_test_id("preset").select_option("seed001_216")
    assert page.locator("[name=opt_tribute]").is_checked()
    page.get_by_test_id("preset").select_option("shandong")
    assert not page.locator("[name=opt_tribute]").is_checked()
    page.locator("details.all-options summary").click()
    page.locator("[name=opt_tribute]").check()
    form.locator("[name=games]").fill("2")
    form.locator("[name=timeout]").fill("600")   # (no turn of this page's goes to 托管)
    form.locator("[name=fill_bots]").check()
    form.get_by_test_id("create-table").click()
    page.get_by_test_id("start").click()       # (the bots take the empty seats now)
    page.get_by_test_id("hand").wait_for()
    assert page.get_by_test_id("totals").is_visible()
    assert page.evaluate("() => window.baohuang.screen.table.rules.tribute") is True
    play_game(page)
    # (the next game is dealt once this player is ready: the first's sheet is then read
    # where it stays, behind the last-score button of the second)
    page.get_by_test_id("ready").click()
    page.wait_for_function("() => window.baohuang.screen.game === 1 && window.baohuang.screen.view"
                           " && window.baohuang.screen.view.stage !== 'over'")
    events = page.evaluate("() => window.baohuang.screen.view.events.map(e => e.type)")
    if "tribute" in events:        # (the view is in; the table may render a moment later)
        sync_api.expect(page.get_by_test_id("tribute")).to_be_visible()
        shot(page, "table-tribute.png")
    page.get_by_test_id("last-score").click()
    sync_api.expect(page.locator(".overlay [data-testid=score-sheet]")).to_be_visible()
    first_totals = _sheet_column(page, "total", within=".overlay")
    first_scores = _sheet_column(page, "score", within=".overlay")
    assert first_totals == first_scores
    page.locator(".overlay [data-testid=close-score]").click()
    sync_api.expect(page.locator(".overlay [data-testid=score-sheet]")).to_have_count(0)
    play_game(page)
    scores = _sheet_column(page, "score")
    totals = _sheet_column(page, "total")
    assert totals == [a + b for a, b in zip(first_totals, scores, strict=True)]
    shot(page, "score-sheet-match.png")


def test_hosted_toggle_plays_on_while_a_watcher_follows(browser: Browser, server: str) -> None:
    with (sized_page(browser, server, "desktop") as page,
          sized_page(browser, server, "desktop", lang="en") as watcher):
        # (ten minutes to think: on a loaded machine opening the watcher can outlast the
        # usual 30 s, and a turn that runs out puts the seat on 托管 before the tap)
        quickplay(page, "Host", timeout=600)
        table_id = page.url.split("#/t/")[1]
        watcher.goto(f"/#/w/{table_id}")
        watcher.wait_for_function("() => window.baohuang?.screen?.view")
        assert watcher.get_by_test_id("seat").count() == 5
        assert watcher.get_by_test_id("hand").count() == 0
        assert watcher.evaluate("() => window.baohuang.screen.view.hand.length") == 0
        shot(watcher, "watcher.png")
        page.get_by_test_id("hosted-toggle").click()
        page.locator("[data-testid=seat].me [data-testid=hosted-mark]").wait_for()
        assert page.get_by_test_id("hosted-toggle").get_attribute("aria-pressed") == "true"
        page.get_by_test_id("score-sheet").wait_for(timeout=GAME_SECONDS * 1000)
        watcher.get_by_test_id("score-sheet").wait_for()
        assert_english(watcher, "watcher score sheet")
        url = page.url
        page.get_by_test_id("again").click()      # a new game against bots, one click
        page.wait_for_function(f"() => location.href !== {json.dumps(url)}")
        page.get_by_test_id("hand").wait_for()
