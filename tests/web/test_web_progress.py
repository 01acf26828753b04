"""Progress a player can see (issue 36 point 7), in the browser against a real server: a
registered player finishes a rated game, and then his history row says his role, whether
he won, his place and his points, and names the bots by their level; the lobby and his
page show his title with the way to the next; the leaderboard lists him by points. Every
figure is checked against the server's own record, read over its API."""

from __future__ import annotations

import json
import time
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page

from web.support import GAME_SECONDS, shot, sized_page, start_vs_bots


def _api(page: Page, path: str) -> Any:
    """``path`` of the server's API read with the page's session."""
    return page.evaluate(f"""async () => (await import('/api.js')).get({json.dumps(path)})""")


def _register(page: Page) -> str:
    name = f"rank{int(time.time() * 1000) % 10**8}"
    page.goto("/")
    page.get_by_test_id("acct-name").fill(name)
    page.get_by_test_id("acct-password").fill("long-enough-pass")
    page.get_by_test_id("register").click()
    page.get_by_test_id("logout").wait_for()
    return name


def _finish_a_game_on_hosted(page: Page) -> None:
    """A rated game against bots, played to its end by 托管 (the test server's 托管
    answers at once)."""
    start_vs_bots(page)
    page.get_by_test_id("hosted-toggle").click()
    page.get_by_test_id("score-sheet").wait_for(timeout=GAME_SECONDS * 1000)


def _role(result: dict[str, Any], seat: int) -> str:
    """The zh name of ``seat``'s role, worked out here from the stored result."""
    if seat == result["emperor"]:
        return {"open": "皇帝（明独）", "hidden": "皇帝（暗独）"}.get(result["solo"], "皇帝")
    return "侍卫" if seat == result["guard"] else "平民"


def _outcome(result: dict[str, Any], seat: int) -> str:
    if result["left"] == seat:
        return "逃跑"
    if result["royal_won"] is None:
        return "平"
    royal = seat == result["emperor"] or (not result["solo"] and seat == result["guard"])
    return "胜" if royal == result["royal_won"] else "负"


def test_history_level_and_leaderboard_show_a_finished_rated_game(
        browser: Browser, server: str) -> None:
    with sized_page(browser, server, "phone") as page:
        name = _register(page)
        _finish_a_game_on_hosted(page)
        me = _api(page, "/api/me")
        game = _api(page, "/api/history?limit=1")["games"][0]
        assert me["games"] == 1 and me["points"] == game["score"]

        # history: role, outcome, place, points and the players by name or level
        page.goto("/#/history")
        row = page.get_by_test_id("history-row").first
        row.wait_for()
        result, seat = game["result"], game["seat"]
        assert row.get_by_test_id("history-role").inner_text() == _role(result, seat)
        assert row.get_by_test_id("history-outcome").inner_text() == _outcome(result, seat)
        place = game["place"]
        assert row.get_by_test_id("history-place").inner_text() == (
            ["头科", "二科", "三科", "二拉", "大拉"][place - 1] if place else "未出完")
        score = game["score"]
        assert row.get_by_test_id("history-score").inner_text() == (
            f"+{score}" if score > 0 else str(score))
        players = row.get_by_test_id("history-players").inner_text()
        assert name in players
        for p in game["players"]:
            if p["bot"]:
                assert f"电脑{p['seat'] + 1}（普通）" in players   # the level, not its id
        assert "normal" not in players
        shot(page, "history-phone.png")

        # the lobby: title, and a bar from the level's floor to the next level
        page.goto("/")
        progress = page.get_by_test_id("level-progress")
        progress.wait_for()
        assert progress.get_by_test_id("level-title").inner_text() == me["title"]["zh"]
        if me["next_level_at"] is not None:
            bar = progress.get_by_test_id("level-bar")
            floor = me["level_from"] or 0
            assert float(bar.get_attribute("max") or "") == me["next_level_at"] - floor
            assert float(bar.get_attribute("value") or "") == max(0, me["points"] - floor)
            assert progress.get_by_test_id("level-next").inner_text() == (
                f"距{me['next_title']['zh']}还差 {me['next_level_at'] - me['points']} 分")

        shot(page, "level-phone.png")

        # the leaderboard: by points, with me among them
        page.get_by_test_id("leaderboard-link").click()
        page.get_by_test_id("leader-row").first.wait_for()
        board = _api(page, "/api/leaderboard")["users"]
        shown = [int(p) for p in page.get_by_test_id("leader-points").all_inner_texts()]
        assert shown == [u["points"] for u in board] == sorted(shown, reverse=True)
        mine = page.locator(f"[data-testid=leader-row][data-user='{me['id']}']")
        assert "me" in (mine.get_attribute("class") or "")
        shot(page, "leaderboard-phone.png")

        # my page, from the leaderboard; in English, counts take their plural
        mine.get_by_test_id("leader-name").click()
        stats = page.get_by_test_id("profile-stats")
        stats.wait_for()
        assert stats.locator("dd").first.inner_text() == str(me["points"])
        page.get_by_test_id("lang-toggle").click()
        page.goto("/")
        page.get_by_test_id("level-progress").wait_for()
        text = page.get_by_test_id("account").inner_text()
        assert "1 game ·" in text and "1 games" not in text
