"""复盘 in the browser: a game played through the page, then its review opened from the
score sheet and from the history — the progress bar, the markers on the timeline, the
expected-score chart and the best choice drawn on the cards — at phone and desktop sizes,
in Chinese and English."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page

from web.support import (
    assert_chinese,
    assert_english,
    open_page,
    play_game,
    serve,
    shot,
    start_vs_bots,
)
from web.test_web_app import AXE, AXE_OPTIONS

#: width, height and language of each page: portrait and landscape phones, a desktop
LAYOUTS = {"390x844": (390, 844, "zh"), "844x390": (844, 390, "en"),
           "1280x800": (1280, 800, "en")}


@pytest.fixture(scope="module")
def review_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A server whose reviews take 40 playouts a decision (a few seconds a game)."""
    yield from serve(tmp_path_factory, "review", "--hosted-delay", "0.01",
                     "--review-playouts", "40")


def review(page: Page) -> dict[str, Any]:
    """The review the page shows, once the server has computed it."""
    page.get_by_test_id("review-chart").wait_for(timeout=120000)
    found: dict[str, Any] = page.evaluate("() => window.baohuang.screen.loader.review")
    return found


def axe_findings(page: Page) -> list[str]:
    """axe-core's findings in the review panel (WCAG 2.1 AA and best practices)."""
    if not page.evaluate("() => typeof window.axe === 'object'"):
        page.evaluate(AXE)
    found: list[dict[str, Any]] = page.evaluate(
        "(options) => axe.run(document.querySelector('[data-testid=review-panel]'), options)"
        ".then((r) => r.violations)", AXE_OPTIONS)
    return [f"{v['id']} {[n['target'] for n in v['nodes']][:4]}" for v in found]


def fits(page: Page) -> None:
    """Nothing of the review is wider than the window."""
    width = page.evaluate("() => document.documentElement.scrollWidth")
    inner = page.evaluate("() => window.innerWidth")
    assert width <= inner, (width, inner)
    box = page.get_by_test_id("review-panel").bounding_box()
    assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= inner + 1


@pytest.mark.parametrize("layout", list(LAYOUTS))
def test_a_games_review_from_the_score_sheet_and_the_history(browser: Browser,
                                                              review_server: str,
                                                              layout: str) -> None:
    width, height, lang = LAYOUTS[layout]
    page, errors = open_page(browser, review_server, width, height, lang, touch=width < 1000)
    try:
        start_vs_bots(page)
        play_game(page)
        seat = page.evaluate("() => window.baohuang.screen.view.seat")
        page.get_by_test_id("analyse").click()
        page.wait_for_url(re.compile(rf"#/replay/\d+/review/{seat}$"))
        # while the server computes it: a progress bar (or, on a fast machine, the review)
        page.locator("[data-testid=review-progress], [data-testid=review-chart]").first \
            .wait_for()
        data = review(page)
        assert data["seat"] == seat and data["reviewed"] == data["total"] > 0
        shot(page, f"review-{layout}.png")
        # the chart: one point per decision, the line of the expected score
        dots = page.locator("[data-testid=review-chart] .dot")
        assert dots.count() == len(data["decisions"])
        assert page.locator("[data-testid=review-line]").count() == 1
        # the markers: one per marked decision, by its mark
        marked = [d for d in data["decisions"] if d["mark"]]
        marks = page.get_by_test_id("review-mark")
        assert marks.count() == len(marked)
        assert sorted(m.get_attribute("data-mark") or "" for m in marks.all()) == \
            sorted(d["mark"] for d in marked)
        summary = page.get_by_test_id("review-summary").inner_text()
        for name in ("inaccuracy", "mistake", "blunder"):
            assert str(data["marks"][name]) in summary
        if marked:
            marks.first.click()
            assert page.evaluate("() => window.baohuang.screen.step") == marked[0]["index"]
            assert page.get_by_test_id("review-mark-label").count() == 1
        # a decision whose best choice is a play: its cards are drawn selected in the hand
        better = next((d for d in data["decisions"] if d["best"]["action"]["kind"] == "play"
                       and d["best"]["action"] != d["made"]["action"]), None)
        shown = better or data["decisions"][0]
        page.locator(f"[data-testid=review-chart] .dot[data-index='{shown['index']}']") \
            .dispatch_event("click")
        assert page.evaluate("() => window.baohuang.screen.step") == shown["index"]
        page.get_by_test_id("review-decision").wait_for()
        assert page.get_by_test_id("review-open").count() == 1
        if better is not None:
            selected = page.locator("[data-testid=hand] .card.selected")
            assert sorted(c.get_attribute("data-card") or "" for c in selected.all()) == \
                sorted(better["best"]["action"]["cards"])
            assert page.get_by_test_id("review-best").count() == 1
            shot(page, f"review-best-{layout}.png")
        fits(page)
        assert axe_findings(page) == []
        (assert_chinese if lang == "zh" else assert_english)(page, f"review {layout}")
        # the history's row opens the same review, stored: no second computation
        page.goto("/#/history")
        link = page.get_by_test_id("review-link").first
        assert link.get_attribute("href", timeout=30000).endswith(f"/review/{seat}")  # type: ignore[union-attr]
        link.click()
        assert review(page) == data
        fits(page)
    finally:
        page.context.close()
    assert errors == []
