"""After a game the table shows every hand that was left, each in its seat's panel beside
the player's name, card count and roles (issue 36): a whole game is played through the
page, the score sheet closed, and every seat's name read whole in its panel — at a
desktop's 1280×800, a portrait phone's 360×740 and a landscape phone's 844×390, in
Chinese and in English.  Before that, the score sheet's buttons are in sight whole
without scrolling the sheet (its rows scroll under them where it is taller than its
room)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pytest

from web.support import LAYOUTS, open_page, play_game, quickplay, shot

if TYPE_CHECKING:
    from playwright.sync_api import Browser

#: each seat's panel: its name as drawn (the text's ink against the box that shows it),
#: the panel's box and whether it shows the seat's hand
NAMES_JS = """() => [...document.querySelectorAll('[data-testid=seat]')].map((seat) => {
  const name = seat.querySelector('.seat-name');
  const box = (r) => ({left: r.left, top: r.top, right: r.right, bottom: r.bottom,
                       width: r.width});
  const range = document.createRange();
  range.selectNodeContents(name);
  return {seat: Number(seat.dataset.seat), text: name.textContent,
          ink: box(range.getBoundingClientRect()), name: box(name.getBoundingClientRect()),
          clipped: name.scrollWidth > name.clientWidth + 0.5,
          panel: box(seat.getBoundingClientRect()),
          hand: seat.querySelectorAll('.open-hand .card').length};
})"""

#: the score sheet's buttons (再来一局, 复盘, 看牌桌 …), each with whether it is in
#: sight, whole, where it is: inside the window and on top at its edges and centre
#: (not clipped away by the sheet, which scrolls, nor under anything)
SHEET_BUTTONS_JS = """() => [...document.querySelectorAll('.score-sheet .choices button')]
  .map((b) => {
    const r = b.getBoundingClientRect();
    const x = (r.left + r.right) / 2, y = (r.top + r.bottom) / 2;
    const on = (x, y) => { const e = document.elementFromPoint(x, y);
      return e !== null && (e === b || b.contains(e)); };
    return {text: b.textContent, top: r.top, bottom: r.bottom,
            seen: r.left >= 0 && r.top >= 0 && r.right <= innerWidth && r.bottom <= innerHeight
              && [[r.left + 3, y], [r.right - 3, y], [x, r.top + 3], [x, r.bottom - 3], [x, y]]
                .every(([px, py]) => on(px, py))};
  })"""

RUNS = [("1280x800", "zh"), ("1280x800", "en"), ("360x740", "zh"), ("844x390", "en")]


@pytest.mark.parametrize(("size", "lang"), RUNS)
def test_every_seat_shows_its_name_beside_its_hand_after_the_game(
        browser: Browser, server: str, size: str, lang: str) -> None:
    width, height = LAYOUTS[size]
    phone = size != "1280x800"
    page, errors = open_page(browser, server, width, height, lang=lang, touch=phone)
    try:
        quickplay(page, "Seats", bots="hosted", seed=9, practice=True)
        play_game(page)
        page.get_by_test_id("score-sheet").wait_for()
        # the sheet's buttons are in sight without scrolling it (where the sheet is
        # taller than its room its rows scroll under them)
        page.wait_for_function("() => !!window.baohuang.screen.gameOver")
        buttons: list[dict[str, Any]] = page.evaluate(SHEET_BUTTONS_JS)
        shot(page, f"after-game-sheet-{size}-{lang}.png")
        assert len(buttons) >= 4 and all(b["seen"] for b in buttons), (size, lang, buttons)
        page.get_by_test_id("close-score").click()
        page.get_by_test_id("score-sheet").wait_for(state="detached")
        seats: list[dict[str, Any]] = page.evaluate(NAMES_JS)
        shot(page, f"after-game-names-{size}-{lang}.png")
        expected = {0: "Seats"} | {s: (f"电脑{s + 1}" if lang == "zh" else f"Bot {s + 1}")
                                   for s in range(1, 5)}
        assert {s["seat"]: s["text"] for s in seats} == expected
        assert sum(s["hand"] > 0 for s in seats) >= 3, seats   # (the hands left, shown)
        for s in seats:
            ink, name, panel = s["ink"], s["name"], s["panel"]
            where = (size, lang, s["seat"], s["text"])
            assert not s["clipped"] and name["width"] >= ink["width"] - 0.5 > 0, (where, s)
            assert (panel["left"] - 0.5 <= ink["left"] and ink["right"] <= panel["right"] + 0.5
                    and panel["top"] - 0.5 <= ink["top"]
                    and ink["bottom"] <= panel["bottom"] + 0.5), (where, s)
            assert ink["left"] >= 0 and ink["right"] <= width, (where, s)
        assert errors == []
    finally:
        page.context.close()
