"""Big moments (大场面): the Guard shown, a solo, a standing rebellion, the 特画, a player
going out and the game's result are said large over the trick for a moment, with motion
unless reduced motion is asked for; a seat learns nothing from them that its own events
have not told it.

The games are practice deals against bots (the heuristic ones unless said), our seat on
托管 (the same moves every time: the bots and 托管 are seeded by the deal's seed).  Every
moment shown is recorded as it comes (a MutationObserver), with the seat's events by then."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pytest

from web.support import GAME_SECONDS, quickplay, shot, sized_page

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page

#: practice seeds whose games (heuristic bots, our seat 0 on 托管, a rebel in each) show
#: the Guard: by 明保 (seed 0), and by the hidden Guard's card played (seed 3)
GUARD_OPEN_SEED = 0
GUARD_PLAYED_SEED = 3
#: and the Emperor playing alone: 明独 (seed 8), 暗独 shown by his play (seed 18)
SOLO_OPEN_SEED = 8
SOLO_HIDDEN_SEED = 18
#: a rebellion that stands (two random bots rebel; we are the Emperor), and the 特画
#: played by its hidden Guard (called Guard, 特画 on; we are a rebel)
REBELLION: dict[str, Any] = {"seed": 4, "bots": ["random", "heuristic", "random", "heuristic"]}
TEHUA: dict[str, Any] = {"seed": 0, "preset": "lianzhong_classic",
                         "options": {"called_card_high": True}}
PLACES = {1: "头科", 2: "二科", 3: "三科", 4: "二拉", 5: "大拉"}

RECORD_JS = """() => {
  window.momentsSeen = [];
  new MutationObserver((records) => {
    for (const rec of records) {
      for (const el of rec.addedNodes) {
        if (!(el instanceof HTMLElement) || el.dataset.testid !== 'moment') continue;
        const style = getComputedStyle(el);
        const box = el.getBoundingClientRect();
        const center = document.querySelector('.felt .center').getBoundingClientRect();
        window.momentsSeen.push({
          items: [...el.querySelectorAll('[data-testid=moment-item]')].map((item) => ({
            kind: item.dataset.kind,
            title: item.querySelector('.moment-title').textContent,
            line: item.querySelector('.moment-line').textContent})),
          events: window.baohuang.screen.events.length,
          animation: style.animationName, pointer: style.pointerEvents,
          position: style.position, hidden: el.getAttribute('aria-hidden'),
          x: box.left + box.width / 2, y: box.top + box.height / 2,
          center: [center.left, center.top, center.right, center.bottom],
          sheet: !!document.querySelector('[data-testid=score-sheet]')});
      }
    }
  }).observe(document.body, {childList: true});
}"""


def hosted_game(page: Page, seed: int, **body: Any
                ) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Play a practice game on 托管 to its end (against the heuristic bots unless ``body``
    says other bots, or other rules); the moments shown and the seat's events."""
    body = {"bots": "heuristic", **body}
    quickplay(page, "Moments", practice=True, seed=seed, timeout=60, **body)
    page.evaluate(RECORD_JS)
    page.evaluate("() => window.baohuang.screen.send({type: 'hosted', on: true})")
    page.get_by_test_id("score-sheet").wait_for(timeout=GAME_SECONDS * 1000)
    page.wait_for_function("() => window.momentsSeen.some((m) => "
                           "m.items.some((i) => i.kind === 'over'))")
    seen: list[dict[str, Any]] = page.evaluate("() => window.momentsSeen")
    events: list[dict[str, Any]] = page.evaluate("() => window.baohuang.screen.events")
    return seen, events


def items(seen: list[dict[str, Any]], kind: str) -> list[dict[str, Any]]:
    return [{**item, "events": m["events"]} for m in seen for item in m["items"]
            if item["kind"] == kind]


@pytest.mark.parametrize("motion", ["on", "reduce"])
def test_going_out_and_the_result_are_announced_over_the_trick(browser: Browser, server: str,
                                                              motion: str) -> None:
    with sized_page(browser, server, "desktop") as page:
        if motion == "reduce":
            page.emulate_media(reduced_motion="reduce")
        seen, events = hosted_game(page, GUARD_PLAYED_SEED)
        shot(page, f"moment-over-{motion}.png")
        outs = [ev for ev in events if ev["type"] == "out"]
        assert len(outs) >= 2
        # each player going out: his place, large (头科, 二科 …), with the log's line
        shown = items(seen, "out")
        assert [i["title"] for i in shown] == [PLACES[ev["place"]] for ev in outs], shown
        assert all(PLACES[ev["place"]] in i["line"] for i, ev in zip(shown, outs, strict=True))
        # the result: who won, and whether we did
        over = next(ev for ev in events if ev["type"] == "over")
        result = items(seen, "over")
        assert len(result) == 1, result
        side = "保皇派获胜" if over["royal_won"] else "平民获胜"
        assert result[0]["title"] == side
        mine = over["royal_won"] is False     # (our seat is a rebel in this game)
        assert result[0]["line"] == ("你赢了" if mine else "你输了")
        for m in seen:
            # over the trick area (beside the score sheet, which is read, once it is up),
            # taking no room and catching no pointer, hidden from the screen reader (the
            # live region says the same line)
            left, top, right, bottom = m["center"]
            assert m["sheet"] or (left <= m["x"] <= right and top <= m["y"] <= bottom), m
            assert (m["position"], m["pointer"], m["hidden"]) == ("fixed", "none", "true"), m
            # motion, unless reduced motion is asked for: then it is shown still
            assert m["animation"] == ("moment" if motion == "on" else "none"), m
        # it goes by itself
        page.wait_for_function("() => !document.querySelector('[data-testid=moment]')")


@pytest.mark.parametrize("seed", [GUARD_OPEN_SEED, GUARD_PLAYED_SEED])
def test_a_rebel_sees_the_guard_announced_only_once_he_is_public(browser: Browser, server: str,
                                                                 seed: int) -> None:
    with sized_page(browser, server, "phone") as page:
        seen, events = hosted_game(page, seed)
        guard_seat = next(ev for ev in events if ev["type"] == "over")["guard"]
        assert guard_seat not in (None, 0)          # (we are a rebel: the Guard is another)
        # where he became public: 明保, or his card played
        public = next(i for i, ev in enumerate(events)
                      if (ev["type"] == "guard" and ev.get("open")) or ev["type"] == "reveal")
        # (the hidden Guard's 暗保 came to us without his seat)
        assert all("seat" not in ev for ev in events[:public] if ev["type"] == "guard")
        shown = items(seen, "guard")
        assert shown, seen
        assert all(i["events"] > public for i in shown), (public, shown)
        title = "明保！" if events[public]["type"] == "guard" else "侍卫现身！"
        assert shown[0]["title"] == title
        name = page.locator(f'[data-testid=seat][data-seat="{guard_seat}"] .seat-name').first
        assert name.inner_text() in shown[0]["line"]


@pytest.mark.parametrize("seed", [SOLO_OPEN_SEED, SOLO_HIDDEN_SEED])
def test_a_solo_is_announced_once_it_is_public(browser: Browser, server: str, seed: int) -> None:
    with sized_page(browser, server, "desktop", lang="en") as page:
        seen, events = hosted_game(page, seed)
        over = next(ev for ev in events if ev["type"] == "over")
        assert over["solo"] in ("open", "hidden") and over["emperor"] != 0
        # 明独 is said when declared; 暗独 only when his play shows it, never before
        public = next(i for i, ev in enumerate(events) if ev["type"] == "solo"
                      or (ev["type"] == "reveal" and ev.get("solo")))
        shown = items(seen, "solo")
        assert len(shown) == 1 and shown[0]["events"] > public, (public, shown)
        assert shown[0]["title"] == {"open": "Open solo!", "hidden": "Hidden solo!"}[over["solo"]]
        assert not items(seen, "guard")            # (he is his own Guard: none to show)
        result = items(seen, "over")
        assert result[0]["title"] == ("The solo Emperor wins" if over["royal_won"]
                                      else "The solo Emperor loses")


def test_a_standing_rebellion_is_announced(browser: Browser, server: str) -> None:
    with sized_page(browser, server, "desktop") as page:
        seen, events = hosted_game(page, **REBELLION)
        stands = next(i for i, ev in enumerate(events) if ev["type"] == "rebellion_stands")
        shown = items(seen, "rebellion")
        assert len(shown) == 1 and shown[0]["events"] > stands, (stands, shown)
        assert shown[0]["title"] == "造反！"
        assert shown[0]["line"].startswith("造反成功！侍卫是 ")


def test_the_tehua_played_is_announced_with_the_guard_it_shows(browser: Browser,
                                                                server: str) -> None:
    with sized_page(browser, server, "desktop", lang="en") as page:
        seen, events = hosted_game(page, **TEHUA)
        played = next(i for i, ev in enumerate(events)
                      if ev["type"] == "play" and "TH" in ev["cards"])
        guard = next(ev for ev in events if ev["type"] == "over")["guard"]
        assert guard not in (None, 0) and events[played]["seat"] == guard
        shown = items(seen, "tehua")
        assert len(shown) == 1 and shown[0]["events"] > played, (played, shown)
        assert shown[0]["title"] == "The TH!"
        # the TH shows its Guard: said at the same time, never before
        guards = items(seen, "guard")
        assert guards and all(i["events"] >= shown[0]["events"] for i in guards), guards
