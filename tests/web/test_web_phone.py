"""A table on a phone (issue 36): at every turn of a whole game the whole hand, the
play, pass and hint buttons, the current trick, every seat's card count and role and
the timer are on screen without scrolling, in portrait and landscape and on a desktop,
for a 五人局 (``wurenju``) hand of 44 cards too."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page

from web.support import (
    LAYOUTS,
    SMALL_CONTROLS_JS,
    STATE_JS,
    biggest_play,
    click_card,
    only_pass,
    open_page,
    play_game,
    quickplay,
    shot,
    state,
    to_the_play,
    wait_moved,
    wait_turn_or_over,
)

#: what must be inside the window at a turn, each as (what, its rectangle or None)
ON_SCREEN_JS = """() => {
  const W = window.innerWidth, H = window.innerHeight;
  const box = (el) => { const r = el.getBoundingClientRect();
    return {left: r.left, top: r.top, right: r.right, bottom: r.bottom}; };
  const out = {scrollH: document.scrollingElement.scrollHeight,
               scrollW: document.scrollingElement.scrollWidth, W, H, items: []};
  // (and not covered nor clipped: what is at its centre is it)
  const add = (what, el) => {
    if (!el) { out.items.push([what, null]); return; }
    const r = el.getBoundingClientRect();
    const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
    out.items.push([what, box(el), !!hit && el.contains(hit)]);
  };
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
        assert item[2], (where, what, "it is covered or clipped")
    count: int = seen["cards"]
    return count


def big_enough(page: Page, where: str) -> None:
    """Every control a finger can hit is at least 44 px tall, the play/pass/hint
    buttons 44 px wide too."""
    small = page.evaluate(SMALL_CONTROLS_JS)
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
                _nothing_moves_under_overlays(pg)

        seen = play_game(page, check=check)
        assert seen["plays"] >= 1
        if preset == "wurenju":
            assert turns["most"] >= 43
        assert page.get_by_test_id("score-sheet").is_visible()
        assert errors == []
    finally:
        page.context.close()


def _nothing_moves_under_overlays(page: Page) -> None:
    """上一轮, the log, the quick phrases and a chat bubble open over the table: nothing
    on it moves."""
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
    page.get_by_test_id("emote-open").click()
    page.get_by_test_id("emote-panel").wait_for()
    assert page.evaluate(where) == before
    page.locator("[data-testid=emote][data-id=nice]").click()
    page.locator("[data-testid=seat].me [data-testid=bubble]").wait_for()
    assert page.evaluate(where) == before


#: each risky role-phase dialog: its stage, the choices the client is given, and the
#: cautious one (托管's, docs/rules.md §10) that Enter must take
DIALOGS: list[tuple[str, list[dict[str, Any]], str]] = [
    ("steal", [{"kind": "steal"}, {"kind": "decline"}], "decline"),
    ("rebellion", [{"kind": "rebel"}, {"kind": "decline"}], "decline"),
    ("kick", [{"kind": "kick"}, {"kind": "decline"}], "decline"),
    ("guard", [{"kind": "guard_open"}, {"kind": "guard_hidden"}], "guard_hidden"),
    ("guard", [{"kind": "solo_open"}, {"kind": "solo_hidden"}], "solo_hidden"),
    ("emperor_solo", [{"kind": "solo_open"}, {"kind": "decline"}], "decline"),
    ("emperor", [{"kind": "accept"}, {"kind": "abdicate"}], "accept"),
    ("call", [{"kind": "call", "cards": [c]} for c in ("9h", "Qs")] + [{"kind": "solo_open"}],
     "call"),
]

#: the decision buttons a click reaches are noted and go no further (nothing is sent:
#: the dialogs are drawn from a view the server did not send)
NOTE_CHOICES_JS = """() => {
  window.chosen = [];
  window.addEventListener('click', (e) => {
    const b = e.target.closest && e.target.closest('[data-testid=decision]');
    if (!b) return;
    window.chosen.push(b.dataset.choice);
    e.stopImmediatePropagation();
    e.preventDefault();
  }, true);
}"""


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_enter_in_a_risky_dialog_takes_the_cautious_choice(browser: Browser, server: str,
                                                           lang: str) -> None:
    page, errors = open_page(browser, server, 1280, 800, lang=lang)
    try:
        quickplay(page, "Careful", bots="hosted", practice=True, seed=9)
        page.evaluate(NOTE_CHOICES_JS)
        for stage, legal, cautious in DIALOGS:
            risky = next(a["kind"] for a in legal if a["kind"] != cautious)
            page.evaluate(f"""() => {{ const s = window.baohuang.screen;
              s.view = {{...s.view, stage: {json.dumps(stage)}, to_act: s.view.seat,
                         legal_actions: {json.dumps(legal)}}};
              s.answeredAt = null;
              s.render(); }}""")
            page.get_by_test_id("decision").first.wait_for()
            focused = page.evaluate("() => document.activeElement.dataset.choice")
            assert focused == cautious, (stage, focused)
            keys = page.locator(".dialog-keys").inner_text()
            assert ("回车" in keys) if lang == "zh" else ("Enter takes the cautious" in keys)
            page.keyboard.press("Enter")
            # and with the focus off the dialog (a click on the felt), Enter still is cautious
            page.evaluate("() => document.activeElement.blur()")
            page.keyboard.press("Enter")
            # a risky choice takes its number key
            number = page.locator(f"[data-testid=decision][data-choice={risky}]") \
                .get_attribute("data-key")
            page.keyboard.press(number or "")
            assert page.evaluate("() => window.chosen.splice(0)") == [cautious, cautious, risky]
        assert errors == []
    finally:
        page.context.close()


#: each choice of a decision dialog: its help text, whether that shows whole (no line
#: of it cut off, no ellipsis) and whether the button lies whole in the dialog as shown
HELP_JS = """() => [...document.querySelectorAll('[data-testid=decision]')].map((b) => {
  const help = b.querySelector('.choice-help');
  const d = b.closest('.decision-dialog').getBoundingClientRect();
  const r = b.getBoundingClientRect();
  return {choice: b.dataset.choice, help: help ? help.textContent : '',
          whole: !help || (help.scrollHeight <= help.clientHeight + 1
                           && help.scrollWidth <= help.clientWidth + 1),
          inside: r.top >= d.top - 0.5 && r.bottom <= d.bottom + 0.5};
})"""


@pytest.mark.parametrize(("size", "lang"), [("844x390", "zh"), ("844x390", "en"),
                                            ("740x360", "zh")])
def test_a_dialogs_choices_say_their_help_whole_in_a_landscape_phone(
        browser: Browser, server: str, size: str, lang: str) -> None:
    """In a landscape phone a decision dialog lies in rows over the felt's centre: each
    choice's help (踢's "两人以上踢（造反后一人即可）则成立") is read whole, and every
    choice is in the dialog, unscrolled."""
    width, height = LAYOUTS[size]
    page, errors = open_page(browser, server, width, height, lang=lang, touch=True)
    try:
        quickplay(page, "Help", bots="hosted", practice=True, seed=9)
        page.evaluate(NOTE_CHOICES_JS)
        cut = []
        for stage, legal, _ in DIALOGS:
            page.evaluate(f"""() => {{ const s = window.baohuang.screen;
              s.view = {{...s.view, stage: {json.dumps(stage)}, to_act: s.view.seat,
                         legal_actions: {json.dumps(legal)}}};
              s.render(); }}""")
            page.get_by_test_id("decision").first.wait_for()
            choices: list[dict[str, Any]] = page.evaluate(HELP_JS)
            shot(page, f"dialog-help-{stage}-{size}-{lang}.png")
            cut += [(stage, c) for c in choices if not (c["whole"] and c["inside"])]
        assert cut == [], cut
        assert errors == []
    finally:
        page.context.close()


def test_enter_answers_a_real_games_decisions_cautiously(browser: Browser, server: str) -> None:
    """Deals (by seed) until this seat has been asked something: Enter answers every
    question of the role phase with the focused, cautious choice."""
    page, errors = open_page(browser, server, 1280, 800)
    try:
        answered = 0
        for seed in range(1, 9):
            quickplay(page, "Careful", practice=True, seed=seed)
            while True:
                st = wait_turn_or_over(page)
                if st is None or st["stage"] == "play":
                    break
                button = page.locator("[data-testid=decision]:focus")
                assert button.get_attribute("data-cautious") == "true"
                assert button.get_attribute("data-choice") in CAUTIOUS
                page.keyboard.press("Enter")
                wait_moved(page, st["version"])
                answered += 1
            if answered:
                break
        assert answered >= 1
        assert errors == []
    finally:
        page.context.close()


CAUTIOUS = {"accept", "guard_hidden", "solo_hidden", "decline", "abdicate", "call"}


def test_auto_pass_passes_when_nothing_beats_the_play(browser: Browser, server: str) -> None:
    """Auto-pass is on by default: at every turn where passing is all this seat may do,
    a note says so and the turn passes by itself; the test never taps 不要 there."""
    page, errors = open_page(browser, server, 390, 844, touch=True)
    try:
        quickplay(page, "Quick", bots="random", practice=True, seed=12)
        assert page.get_by_test_id("autopass-toggle").get_attribute("aria-pressed") == "true"
        auto = {"n": 0}

        def check(pg: Page, moment: str) -> None:
            # the view and the note read at once: a bot's move may redraw the table
            # between two reads, on a loaded machine
            seen = pg.evaluate(f"""() => ({{st: ({STATE_JS})(),
              note: document.querySelector('[data-testid=message]')?.innerText ?? ''}})""")
            st = seen["st"]
            if moment == "turn" and st is not None and only_pass(st):
                auto["n"] += 1
                assert "没有能大过的牌" in seen["note"], seen["note"]

        play_game(page, check=check)
        assert auto["n"] >= 1
        assert errors == []
    finally:
        page.context.close()


def test_with_auto_pass_off_a_pass_takes_a_tap(browser: Browser, server: str) -> None:
    page, errors = open_page(browser, server, 390, 844, touch=True, lang="en")
    try:
        quickplay(page, "Slow", bots="random", practice=True, seed=12)
        page.get_by_test_id("autopass-toggle").click()
        page.reload()                                   # the switch is remembered
        page.get_by_test_id("hand").wait_for()
        toggle = page.get_by_test_id("autopass-toggle")
        assert toggle.get_attribute("aria-pressed") == "false"
        assert toggle.get_attribute("aria-label") == "Auto-pass: off"
        while True:
            st = wait_turn_or_over(page)
            assert st is not None, "the game ended before a turn where only passing was legal"
            if st["stage"] != "play":
                page.get_by_test_id("decision").first.click()
            elif only_pass(st):
                assert "Nothing beats it" not in page.get_by_test_id("message").inner_text()
                # twice auto-pass's beat later (page time) the turn is still ours ...
                page.evaluate("() => { window.turnSeen = performance.now(); }")
                page.wait_for_function("() => performance.now() - window.turnSeen > 1600")
                assert state(page) == st
                page.get_by_test_id("pass").click()         # ... until 不要 is tapped
                wait_moved(page, st["version"])
                break
            elif biggest_play(st["legal"]) is None:
                page.get_by_test_id("pass").click()
            else:
                for card in biggest_play(st["legal"]) or []:
                    click_card(page, card)
                page.get_by_test_id("play").click()
            wait_moved(page, st["version"])
        assert errors == []
    finally:
        page.context.close()


def test_enter_and_space_on_a_focused_button_are_that_buttons(browser: Browser,
                                                               server: str) -> None:
    """Space on a focused rank button picks the rank (it does not pass the turn), Enter on
    提示 hints (it does not play), and the focus stays on the button across redraws."""
    page, errors = open_page(browser, server, 1280, 800)
    try:
        quickplay(page, "Keys", bots="hosted", practice=True, seed=9)
        to_the_play(page)
        st = state(page)
        assert st is not None
        rank = page.get_by_test_id("rank-pick").first
        which = rank.get_attribute("data-rank")
        rank.focus()
        page.keyboard.press(" ")
        picked = page.evaluate("() => window.baohuang.screen.selection.size")
        assert picked == int((rank.get_by_test_id("rank-count").inner_text()).lstrip("×"))
        assert state(page) == st                        # the turn was not passed
        assert page.evaluate("() => document.activeElement.dataset.rank") == which
        page.keyboard.press(" ")
        assert page.evaluate("() => window.baohuang.screen.selection.size") == 0
        page.get_by_test_id("hint").focus()
        page.keyboard.press("Enter")
        assert page.evaluate("() => window.baohuang.screen.selection.size") > 0
        assert state(page) == st                        # nothing was played
        assert page.evaluate("() => document.activeElement.dataset.testid") == "hint"
        assert errors == []
    finally:
        page.context.close()


def test_the_last_round_lists_seats_in_play_order(browser: Browser, server: str) -> None:
    page, errors = open_page(browser, server, 390, 844, touch=True)
    try:
        quickplay(page, "Order", bots="random", practice=True, seed=12)
        checked = {"n": 0}

        def check(pg: Page, moment: str) -> None:
            if moment != "turn" or checked["n"] or not pg.get_by_test_id("peek-last").count():
                return
            order = _last_round_order(pg.evaluate("() => window.baohuang.screen.view.events"))
            if not order or order == sorted(order):
                return                      # (a round in seat order tells nothing)
            pg.get_by_test_id("peek-last").click()
            rows = pg.get_by_test_id("last-round").locator("li")
            shown = [int(r.get_attribute("data-seat") or -1) for r in rows.all()]
            assert shown[:len(order)] == order and sorted(shown) == [0, 1, 2, 3, 4], \
                (shown, order)
            pg.get_by_test_id("close-peek").click()
            checked["n"] += 1

        play_game(page, check=check)
        assert checked["n"] == 1
        assert errors == []
    finally:
        page.context.close()


def _last_round_order(events: list[dict[str, Any]]) -> list[int]:
    """The seats of the round before the current one, in the order they acted."""
    current: list[int] = []
    before: list[int] = []
    for ev in events:
        if ev["type"] in ("deal", "play_starts"):
            current, before = [], []
        elif ev["type"] == "lead":
            if current:
                before = current
            current = []
        elif ev["type"] in ("play", "pass", "ask_lead") and ev.get("seat") is not None:
            current = [s for s in current if s != ev["seat"]] + [ev["seat"]]
    return before
