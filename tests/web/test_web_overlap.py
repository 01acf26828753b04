"""What lies over the table covers nothing a player needs (issue 36): a chat bubble leaves
every seat's name and timer readable, a 五人局 hand of 44 cards shows every rank label
whole, and a big moment (moments.js) leaves the score sheet's buttons and head, the turn
line ("轮到你出牌"), a dialog's title and stake and the 记牌器 uncovered — at the phone
sizes and on a desktop.  Each is a test of rectangles: what must stay readable is
measured, and nothing drawn over it meets it."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pytest

from web.support import (
    LAYOUTS,
    open_page,
    play_game,
    quickplay,
    shot,
    to_the_play,
    wait_moved,
    wait_turn_or_over,
)

if TYPE_CHECKING:
    from playwright.sync_api import Browser

#: every card's rank label (its corner) and every rank button's label: is it clipped by
#: its own box, or covered by the next card of the row?
LABELS_JS = """() => {
  const out = [];
  const inside = (a, b) => a.left >= b.left - 0.5 && a.right <= b.right + 0.5
    && a.top >= b.top - 0.5 && a.bottom <= b.bottom + 0.5;
  for (const row of document.querySelectorAll('[data-testid=hand] .group-cards')) {
    const cards = [...row.querySelectorAll('[data-testid=card]')];
    cards.forEach((card, i) => {
      // (the label's ink: its text, as drawn, scaled or not)
      const range = document.createRange();
      range.selectNodeContents(card.querySelector('.corner'));
      const r = range.getBoundingClientRect();
      const box = card.getBoundingClientRect();
      const next = cards[i + 1] && cards[i + 1].getBoundingClientRect();
      // (a card with another on its right shows the strip up to that card's left edge)
      const shown = next && next.top <= r.top + 1 ? Math.min(box.right, next.left) : box.right;
      if (!inside(r, box) || r.right > shown + 0.5) {
        out.push(['card', card.dataset.card, r.left, r.right, shown]);
      }
    });
  }
  for (const b of document.querySelectorAll('[data-testid=rank-pick]')) {
    for (const part of b.querySelectorAll('.rp-rank, .rp-n')) {
      const r = part.getBoundingClientRect(), box = b.getBoundingClientRect();
      if (!r.width) continue;           // (a count left out where it would not fit)
      if (part.scrollWidth > part.clientWidth + 0.5 || !inside(r, box)) {
        out.push(['rank', b.dataset.rank, part.textContent, r.left, r.right, box.left, box.right]);
      }
    }
  }
  return out;
}"""


@pytest.mark.parametrize("size", list(LAYOUTS))
def test_a_44_card_hand_shows_every_rank_label_whole(browser: Browser, server: str,
                                                     size: str) -> None:
    width, height = LAYOUTS[size]
    phone = size != "1280x800"
    page, errors = open_page(browser, server, width, height, touch=phone)
    try:
        quickplay(page, "Labels", preset="wurenju", bots="hosted", seed=9, practice=True)
        page.wait_for_function("() => window.baohuang.screen.view.hand.length >= 43")
        clipped: list[Any] = page.evaluate(LABELS_JS)
        shot(page, f"labels-{size}.png")
        assert clipped == [], (size, clipped)
        assert errors == []
    finally:
        page.context.close()


#: the rectangles of each seat's name and timer, and of every chat bubble
BUBBLES_JS = """() => {
  const box = (el) => { const r = el.getBoundingClientRect();
    return {left: r.left, top: r.top, right: r.right, bottom: r.bottom}; };
  const keep = [];
  for (const seat of document.querySelectorAll('[data-testid=seat]')) {
    for (const el of seat.querySelectorAll('.seat-name, [data-testid=timer]')) {
      keep.push([seat.dataset.seat, el.className, box(el)]);
    }
  }
  return {keep, bubbles: [...document.querySelectorAll('[data-testid=bubble]')].map(box)};
}"""


def _meet(a: dict[str, float], b: dict[str, float]) -> bool:
    return (a["left"] < b["right"] - 0.5 and b["left"] < a["right"] - 0.5
            and a["top"] < b["bottom"] - 0.5 and b["top"] < a["bottom"] - 0.5)


@pytest.mark.parametrize("size", list(LAYOUTS))
def test_chat_bubbles_leave_names_and_timers_readable(browser: Browser, server: str,
                                                      size: str) -> None:
    """A quick phrase on every seat at once (our own sent, the others' drawn as they come
    from the server), with a turn timer running: no bubble meets a name or a timer."""
    width, height = LAYOUTS[size]
    phone = size != "1280x800"
    page, errors = open_page(browser, server, width, height, touch=phone)
    try:
        quickplay(page, "Bubbles", bots="hosted", seed=9, practice=True)
        to_the_play(page)
        # a bubble on every seat, as an emote from the server makes them (table.js)
        page.evaluate("""() => { const s = window.baohuang.screen;
          for (let seat = 0; seat < 5; seat += 1) {
            s.bubbles[seat] = {id: 'well_played', until: Date.now() + 60000};
          }
          s.render(); }""")
        seen = page.evaluate(BUBBLES_JS)
        shot(page, f"bubbles-{size}.png")
        assert len(seen["bubbles"]) == 5
        assert any("timer" in cls for _, cls, _ in seen["keep"])
        hits = [(seat, cls, b) for seat, cls, r in seen["keep"] for b in seen["bubbles"]
                if _meet(r, b)]
        assert hits == [], (size, hits)
        assert errors == []
    finally:
        page.context.close()


#: a big moment's rectangle, each time one is drawn or placed again, against the score
#: sheet's buttons and the turn line, where they are to be seen (the turn line under a
#: phone's score sheet is not: what is at its centre is the sheet; the moment catches no
#: pointer, so it is never what is there)
MOMENTS_JS = """() => {
  window.momentHits = [];
  window.momentsChecked = 0;
  const box = (el) => { const r = el.getBoundingClientRect();
    return {left: r.left, top: r.top, right: r.right, bottom: r.bottom}; };
  const seen = (el) => { const r = el.getBoundingClientRect();
    const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
    return r.width > 0 && !!hit && el.contains(hit); };
  const meet = (a, b) => a.left < b.right - 0.5 && b.left < a.right - 0.5
    && a.top < b.bottom - 0.5 && b.top < a.bottom - 0.5;
  const check = () => {
    const m = document.querySelector('[data-testid=moment]');
    if (!m) return;
    window.momentsChecked += 1;
    const r = box(m);
    for (const sel of ['.score-sheet .choices button', '[data-testid=status]',
                       '[data-testid=play]', '[data-testid=pass]']) {
      for (const el of document.querySelectorAll(sel)) {
        if (seen(el) && meet(r, box(el))) {
          window.momentHits.push([sel, el.textContent, r, box(el)]);
        }
      }
    }
  };
  new MutationObserver(() => requestAnimationFrame(check))
    .observe(document.body, {childList: true, subtree: true});
}"""


@pytest.mark.parametrize("size", ["844x390", "740x360", "390x844"])
def test_big_moments_leave_the_score_sheet_buttons_and_turn_line_clear(
        browser: Browser, server: str, size: str) -> None:
    """A whole game with its moments (the Guard shown, players going out, the result):
    no moment, wherever it is placed, meets the score sheet's buttons, the turn line or
    the play and pass buttons (reduced motion: the moment stands still, its box is its
    place)."""
    width, height = LAYOUTS[size]
    page, errors = open_page(browser, server, width, height, touch=True)
    try:
        page.emulate_media(reduced_motion="reduce")
        quickplay(page, "Moments", bots="hosted", seed=13, practice=True)
        page.evaluate(MOMENTS_JS)
        play_game(page)
        page.get_by_test_id("score-sheet").wait_for()
        page.wait_for_function("() => window.momentsChecked > 0")
        shot(page, f"moment-over-{size}.png")
        hits = page.evaluate("() => window.momentHits")
        assert hits == [], (size, hits)
        assert errors == []
    finally:
        page.context.close()


#: a big moment said now, over the page as it is (the events are the seat's own, as the
#: server sent them), and its rectangle against what must stay readable: a dialog's
#: title, its stake line and its buttons, the score sheet's head (its title, who won and the stake,
#: how the points came about), the 记牌器 and the buttons of the table's head and
#: information bar — those on the page now
MOMENT_NOW_JS = """async (events) => {
  // (the client's own module, at its versioned address: /moments.js would be another
  // copy, whose moment would not replace the one the client has up)
  const moments = await import(new URL('moments.js',
    document.querySelector('script[type=module]').src).href);
  const s = window.baohuang.screen;
  moments.showMoments(s.root, events, s.table, s.view.seat);
  const box = (el) => { const r = el.getBoundingClientRect();
    return {left: r.left, top: r.top, right: r.right, bottom: r.bottom}; };
  const meet = (a, b) => a.left < b.right - 0.5 && b.left < a.right - 0.5
    && a.top < b.bottom - 0.5 && b.top < a.bottom - 0.5;
  const m = box(document.querySelector('[data-testid=moment]'));
  const checked = [], hits = [];
  for (const sel of ['.decision-dialog h2', '[data-testid=dialog-stake]', '[data-testid=decision]',
                     '.score-sheet h2',
                     '.score-sheet .outcome', '[data-testid=score-story]',
                     '[data-testid=card-counter]', '.table-head button', '.info-bar button',
                     '.info-bar summary']) {
    for (const el of document.querySelectorAll(sel)) {
      if (!el.getBoundingClientRect().width) continue;
      checked.push(sel);
      if (meet(m, box(el))) hits.push([sel, el.textContent, m, box(el)]);
    }
  }
  // (and each of its titles and lines in one line: none wrapped for want of room)
  const wrapped = [...document.querySelectorAll('.moment-title, .moment-line')].filter((el) => {
    const range = document.createRange();
    range.selectNodeContents(el);
    return new Set([...range.getClientRects()].map((r) => Math.round(r.top))).size > 1;
  }).map((el) => el.textContent);
  return {checked, hits, wrapped};
}"""

#: a practice deal against the heuristic bots where the Guard (seat 1) says 明保 and our
#: seat, a rebel, is then asked 踢
OPEN_GUARD_SEED = 5


@pytest.mark.parametrize(("size", "lang"), [("360x740", "zh"), ("360x740", "en"),
                                            ("1280x800", "zh"), ("1280x800", "en"),
                                            ("844x390", "zh")])
def test_big_moments_leave_dialog_titles_the_stake_sheet_head_and_counter_readable(
        browser: Browser, server: str, size: str, lang: str) -> None:
    """A game from the 明保 to the score sheet, a moment said at four points of it:
    the Guard's 明保 over the 踢 dialog, a player going out at our first turn (the 记牌器
    on the table), and the last one out with the result over the score sheet and again
    over the table once the sheet is closed (看牌桌).  None meets a dialog's title or
    stake line, the 记牌器, the score sheet's head or a button of the table's head, and
    none has a line wrapped (reduced motion: the moment stands still, its box is its
    place)."""
    width, height = LAYOUTS[size]
    phone = size != "1280x800"
    page, errors = open_page(browser, server, width, height, lang=lang, touch=phone)
    try:
        page.emulate_media(reduced_motion="reduce")
        quickplay(page, "Readable", bots="heuristic", seed=OPEN_GUARD_SEED, practice=True)
        checked: list[str] = []
        hits: list[Any] = []

        def moment(events: list[dict[str, Any]], name: str) -> None:
            seen = page.evaluate(MOMENT_NOW_JS, events)
            shot(page, f"moment-{name}-{size}-{lang}.png")
            checked.extend(seen["checked"])
            hits.extend(seen["hits"])
            assert seen["wrapped"] == [], (name, size, lang, seen["wrapped"])

        while (st := wait_turn_or_over(page)) is not None and st["stage"] != "play":
            if st["stage"] == "kick":
                guard = page.evaluate("() => window.baohuang.screen.events"
                                      ".filter((e) => e.type === 'guard' && e.open)")
                assert guard, "no 明保 before the 踢"
                moment(guard, "kick-dialog")
            page.locator("[data-testid=decision][data-cautious]").click()
            wait_moved(page, st["version"])
        assert {".decision-dialog h2", "[data-testid=dialog-stake]"} <= set(checked), checked
        moment([{"type": "out", "seat": 2, "place": 1}], "counter")
        assert "[data-testid=card-counter]" in checked, checked
        play_game(page)
        page.get_by_test_id("score-sheet").wait_for()
        page.wait_for_function("() => !!window.baohuang.screen.gameOver")
        last = page.evaluate("() => { const evs = window.baohuang.screen.events;"
                             " return [evs.filter((e) => e.type === 'out').pop(),"
                             "         evs.filter((e) => e.type === 'over').pop()]; }")
        moment(last, "sheet")
        assert {".score-sheet h2", ".score-sheet .outcome", "[data-testid=score-story]"
                } <= set(checked), checked
        page.get_by_test_id("close-score").click()
        page.get_by_test_id("score-sheet").wait_for(state="hidden")
        moment(last, "after")
        assert {".table-head button", ".info-bar button"} <= set(checked), checked
        assert hits == [], (size, lang, hits)
        assert errors == []
    finally:
        page.context.close()
