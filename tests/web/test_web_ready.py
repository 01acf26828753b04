"""Two friends in two browsers at one table with bots: the host invites a friend and
lets bots take the seats still empty (空位由电脑补齐), they play a game, and the next
one is dealt only when both have tapped 准备 — each seeing who is ready and the
countdown meanwhile."""

from __future__ import annotations

import json
import time
from typing import TYPE_CHECKING

from web.support import (
    GAME_SECONDS,
    auto_pass_on,
    biggest_play,
    click_card,
    my_turn,
    only_pass,
    open_page,
    shot,
    state,
    sync_api,
)
from web.test_web_app import violations

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page


def _act_once(page: Page) -> bool:
    """If this page is asked for something now, answer it through the UI (the first
    choice of a decision, the biggest play, or a pass) and wait until the table moved;
    whether it did."""
    st = state(page)
    if not my_turn(st):
        return False
    assert st is not None
    if st["stage"] != "play":
        page.get_by_test_id("decision").first.click()
    elif (cards := biggest_play(st["legal"])) is not None:
        for card in cards:
            click_card(page, card)
        page.get_by_test_id("play").click()
    elif only_pass(st) and auto_pass_on(page):
        pass                                  # (auto-pass passes by itself)
    else:
        page.get_by_test_id("pass").click()
    page.wait_for_function(
        f"() => window.baohuang.screen.version > {st['version']}"
        " || !!document.querySelector('[data-testid=score-sheet]')")
    return True


def _play_both(pages: list[Page]) -> None:
    """Both friends play the game on the table to its score sheet, each answering
    when asked."""
    deadline = time.monotonic() + 2 * GAME_SECONDS
    while not all(p.get_by_test_id("score-sheet").count() for p in pages):
        assert time.monotonic() < deadline, "the game did not end"
        if not any([_act_once(p) for p in pages]):
            pages[0].wait_for_timeout(50)


def _ready_states(page: Page) -> list[str | None]:
    return [cell.get_attribute("data-ready")
            for cell in page.locator("[data-testid=score-sheet] [data-testid=ready-state]").all()]


def test_friends_and_bots_play_on_when_both_are_ready(browser: Browser, server: str) -> None:
    host, host_errors = open_page(browser, server)
    friend, friend_errors = open_page(browser, server)
    try:
        host.goto("/")
        form = host.get_by_test_id("create-form")
        form.wait_for()
        host.evaluate("() => window.baohuang.ensureUser('Host')")
        form.locator("[name=games]").fill("2")
        form.locator("[name=timeout]").fill("600")    # (nobody here goes to 托管)
        form.get_by_test_id("ready-wait-option").fill("600")
        form.locator("[name=fill_bots]").check()
        form.get_by_test_id("create-table").click()
        host.get_by_test_id("share-link").wait_for()
        code = host.evaluate("() => window.baohuang.screen.table.code")
        table = host.evaluate("() => window.baohuang.screen.table")
        assert table["seats"] == [table["seats"][0], None, None, None, None]
        assert table["ready_wait"] == 600

        friend.goto("/")
        friend.get_by_test_id("create-form").wait_for()
        friend.evaluate("() => window.baohuang.ensureUser('Friend')")
        friend.goto(f"/#/t/{code}")
        host.wait_for_function("() => !!window.baohuang.screen.table.seats[1]")
        start = host.get_by_test_id("start")
        assert start.inner_text() == "开始（空位由电脑补齐）"
        assert friend.get_by_test_id("start").count() == 0     # (only the host fills)
        start.click()
        for page in (host, friend):
            page.get_by_test_id("hand").wait_for()
        seats = host.evaluate("() => window.baohuang.screen.table.seats")
        assert [s["name"] for s in seats[:2]] == ["Host", "Friend"]
        assert all(s["bot"] for s in seats[2:]) and not any(s["bot"] for s in seats[:2])

        _play_both([host, friend])
        for page in (host, friend):
            page.get_by_test_id("ready").wait_for()
            countdown = page.get_by_test_id("ready-countdown").inner_text()
            assert "托管" in countdown and any(ch.isdigit() for ch in countdown), countdown
            assert _ready_states(page) == ["false", "false", "true", "true", "true"]
        shot(host, "ready-score-sheet.png")
        assert violations(host, "the score sheet waiting for 准备") == []
        host.get_by_test_id("ready").click()
        host.get_by_test_id("ready-wait").wait_for()
        assert violations(friend, "a friend's sheet, the host ready") == []
        sync_api.expect(friend.locator(
            "[data-testid=score-sheet] [data-testid=ready-state]").first).to_have_attribute(
            "data-ready", "true")
        assert host.evaluate("() => window.baohuang.screen.game") == 0
        assert friend.evaluate("() => window.baohuang.screen.game") == 0
        friend.get_by_test_id("ready").click()
        for page in (host, friend):
            page.wait_for_function("() => { const s = window.baohuang.screen;"
                                   " return s.game === 1 && s.view && s.view.stage !== 'over'; }")
            page.get_by_test_id("hand").wait_for()
            assert not page.evaluate("() => window.baohuang.screen.table.seats"
                                     ".some((s) => s.hosted)")
        assert json.dumps(host_errors + friend_errors) == "[]"
    finally:
        host.context.close()
        friend.context.close()
