"""A table on a phone (issue 36): at every turn of a whole game the whole hand, the
play, pass and hint buttons, the current trick, every seat's card count and role and
the timer are on screen without scrolling, in portrait and landscape and on a desktop,
for a 五人局 (``wurenju``) hand of 44 cards too."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page

from web.support import (
    LAYOUTS,
    SMALL_CONTROLS_JS,
    open_page,
    play_game,
    quickplay,
    shot,
)

#: what must be inside the window at a turn, each as (what, its rectangle or None)
ON_SCREEN_JS = """() => {
  const W = window.innerWidth, H = window.innerHeight;
  const box = (el) => { const r = el.getBoundingClientRect();
    return {left: r.left, top: r.top, right: r.right, bottom: r.bottom}; };
  const out = {scrollH: document.scrollingElement.scrollHeight,
               scrollW: document.scrollingElement.scrollWidth, W, H, items: []};
  const add = (what, el) => out.items.push([what, el ? box(el) : null]);
  const cards = [...document.querySelectorAll('[data-testid=hand] [data-testid=card]')];
  cards.forEach((el, i) => {
    const r = el.getBoundingClientRect();
    // the card's corner (its rank and suit) is the card under a finger there
    const hit = document.elementFromPoint(r.left + 5, r.top + 8);
    out.items.push([`card ${i} ${el.dataset.card}`, box(el), !!hit && el.contains(hit)]);
  });
  out.cards = cards.length;
  for (const id of ['play', 'pass', 'hint']) {
    add(id, document.querySelector(`[data-testid=${id}]`));
  }
  const trick = document.querySelector('[data-testid=last-play], [data-testid=last-trick]');
  if (trick) add('trick', trick);
  for (const seat of document.querySelectorAll('[data-testid=seat]')) {
    add(`count of seat ${seat.dataset.seat}`, seat.querySelector('[data-testid=cards-left]'));
    for (const b of seat.querySelectorAll('.badge')) add(`badge of seat ${seat.dataset.seat}`, b);
  }
  const timer = document.querySelector('[data-testid=timer]');
  if (timer) add('timer', timer);
  return out;
}"""


def assert_all_on_screen(page: Page, where: str) -> int:
    seen: dict[str, Any] = page.evaluate(ON_SCREEN_JS)
    width, height = seen["W"], seen["H"]
    assert seen["scrollH"] <= height and seen["scrollW"] <= width, (where, seen["scrollH"],
                                                                    seen["scrollW"])
    for item in seen["items"]:
        what, r = item[0], item[1]
        assert r is not None, (where, what)
        assert (r["left"] >= -0.5 and r["top"] >= -0.5 and r["right"] <= width + 0.5
                and r["bottom"] <= height + 0.5), (where, what, r)
        if len(item) > 2:
            assert item[2], (where, what, "its corner is covered")
    count: int = seen["cards"]
    return count


def big_enough(page: Page, where: str) -> None:
    """Every control a finger can hit is at least 44 px tall, the play/pass/hint
    buttons 44 px wide too."""
    small = [s for s in page.evaluate(SMALL_CONTROLS_JS) if not s.startswith("rank-pick")]
    assert small == [], (where, small)
    for testid in ("play", "pass", "hint"):
        box = page.get_by_test_id(testid).bounding_box()
        assert box is not None and box["width"] >= 44 and box["height"] >= 44, (where, testid)


CASES = [("360x740", "wurenju"), ("390x844", "shandong"), ("844x390", "shandong"),
         ("740x360", "wurenju"), ("1280x800", "wurenju")]


@pytest.mark.parametrize(("size", "preset"), CASES)
def test_a_whole_game_fits_the_window_at_every_turn(browser: Browser, server: str, size: str,
                                                    preset: str) -> None:
    width, height = LAYOUTS[size]
    phone = size != "1280x800"
    page, errors = open_page(browser, server, width, height, touch=phone)
    try:
        quickplay(page, "Fit", preset=preset, seed=11, practice=True)
        turns = {"n": 0, "most": 0, "peeked": False, "shot": False}

        def check(pg: Page, moment: str) -> None:
            if moment == "selected":
                return
            turns["n"] += 1
            where = f"{size} {preset} {moment} {turns['n']}"
            if moment == "decision":
                for button in pg.get_by_test_id("decision").all():
                    box = button.bounding_box()
                    assert box is not None and box["y"] >= 0 and box["x"] >= 0
                    assert box["y"] + box["height"] <= height and box["x"] + box["width"] <= width
                return
            turns["most"] = max(turns["most"], assert_all_on_screen(pg, where))
            if not turns["shot"]:
                turns["shot"] = True
                if phone:
                    big_enough(pg, where)
                shot(pg, f"fit-{size}-{preset}.png")
            if not turns["peeked"] and pg.get_by_test_id("peek-last").count():
                turns["peeked"] = True
                _nothing_moves_under_the_last_round(pg)

        seen = play_game(page, check=check)
        assert seen["plays"] >= 1
        if preset == "wurenju":
            assert turns["most"] >= 43
        assert page.get_by_test_id("score-sheet").is_visible()
        assert errors == []
    finally:
        page.context.close()


def _nothing_moves_under_the_last_round(page: Page) -> None:
    where = """() => [...document.querySelectorAll(
        '.felt, [data-testid=hand], [data-testid=play], .bottom > [data-testid=seat]')]
        .map((el) => { const r = el.getBoundingClientRect(); return [r.left, r.top]; })"""
    before = page.evaluate(where)
    page.get_by_test_id("peek-last").click()
    page.get_by_test_id("last-round").wait_for()
    assert page.evaluate(where) == before
    page.get_by_test_id("close-peek").click()
    page.get_by_test_id("log").locator("summary").click()
    assert page.evaluate(where) == before
    page.get_by_test_id("log").locator("summary").click()
