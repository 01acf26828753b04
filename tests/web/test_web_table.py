"""A table people enjoy (1): 托管 at a glance, bot levels, dissolved and unscored
games, hints, the turn clock, the last trick and the card counter, phone sizes."""

from __future__ import annotations

import json
import re
import time
from typing import TYPE_CHECKING, Any

import pytest

from baohuang.bots.levels import offered_levels

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page


from web.support import (
    GAME_SECONDS,
    SIZES,
    SMALL_CONTROLS_JS,
    click_card,
    open_page,
    pass_turn,
    quickplay,
    shot,
    sized,
    sized_page,
    start_vs_bots,
    tall_enough,
    to_the_play,
    wait_moved,
    wait_turn_or_over,
)

HOSTED_SEEN_JS = """() => {
  const watch = new MutationObserver(() => {
    const back = document.querySelector('[data-testid=take-back]');
    if (!back || window.hostedSeen) return;
    const r = back.getBoundingClientRect();
    window.hostedSeen = {width: r.width, height: r.height, chimes: window.baohuangChimes || 0,
      mark: !!document.querySelector('[data-testid=seat].me [data-testid=hosted-mark]')};
    watch.disconnect();
    back.click();
  });
  watch.observe(document.getElementById('app'), {childList: true, subtree: true});
}"""


LOCKED_SEEN_JS = """() => {
  const watch = new MutationObserver(() => {
    const banner = document.querySelector('[data-testid=hosted-banner][data-locked=true]');
    if (!banner || window.lockedSeen) return;
    window.lockedSeen = {text: banner.textContent,
      back: !!document.querySelector('[data-testid=take-back]')};
    watch.disconnect();
  });
  watch.observe(document.getElementById('app'), {childList: true, subtree: true});
}"""


@pytest.mark.parametrize("size", list(SIZES))
def test_hosted_is_seen_at_once_and_taken_back_with_one_tap(browser: Browser,
                                                            patient_server: str,
                                                            size: str) -> None:
    with sized_page(browser, patient_server, size) as page:
        page.goto("/")
        # (the bot choices come from /api/rules: wait until the page has them)
        page.wait_for_function(
            "() => document.querySelectorAll('[data-testid=quick-bot] option').length >= 3")
        options = page.get_by_test_id("quick-bot").locator("option")
        values = [o.get_attribute("value") for o in options.all()]
        # (the levels /api/rules serves, and no list of the client's own)
        assert values == [level.name for level in offered_levels()] \
            == ["easy", "normal", "hard", "expert"]
        assert [o.inner_text() for o in options.all()] == ["简单", "普通", "困难", "大师"]
        assert page.get_by_test_id("quick-bot").input_value() == "normal"
        start_vs_bots(page)
        levels = page.get_by_test_id("bot-level")
        assert levels.count() == 4 and {x.inner_text() for x in levels.all()} == {"普通"}
        assert page.get_by_test_id("hosted-banner").count() == 0
        # (the page notes what it shows the moment the banner comes, and a finger taps
        # 取消托管 at once; 托管 waits before it moves, so the game is still on)
        page.evaluate(HOSTED_SEEN_JS)
        page.get_by_test_id("hosted-toggle").click()
        page.wait_for_function("() => window.hostedSeen")
        seen = page.evaluate("() => window.hostedSeen")
        assert seen["mark"] and seen["chimes"] >= 1, seen
        assert seen["width"] >= 44 and seen["height"] >= 44, seen
        page.get_by_test_id("hosted-banner").wait_for(state="detached")
        assert page.evaluate("() => window.baohuang.screen.view.stage") != "over"
        page.evaluate(LOCKED_SEEN_JS)
        # three more times on and off again, then on: more than three times this game
        page.evaluate("""() => { const s = window.baohuang.screen;
          for (let i = 0; i < 3; i++) { s.send({type: 'hosted', on: true});
                                        s.send({type: 'hosted', on: false}); }
          s.send({type: 'hosted', on: true}); }""")
        page.wait_for_function("() => window.lockedSeen")
        locked = page.evaluate("() => window.lockedSeen")
        assert not locked["back"] and "不能再取消托管" in locked["text"], locked


HARD_LABELS = {"zh": "困难", "en": "Hard"}


@pytest.mark.parametrize("lang", list(HARD_LABELS))
def test_the_hard_level_is_offered_and_plays_a_game(browser: Browser, server: str,
                                                    lang: str) -> None:
    """The hard level (the trained network) is a choice wherever opponents are chosen
    (the quick game's picker and the new table's form, third of the four levels),
    named in the page's language; chosen, it sits in the four other seats and plays a
    whole game (the player's own seat left to 托管)."""
    page, errors = open_page(browser, server, lang=lang)
    try:
        page.goto("/")
        page.wait_for_function(
            "() => document.querySelectorAll('[data-testid=quick-bot] option').length >= 4")
        label = HARD_LABELS[lang]
        for picker in (page.get_by_test_id("quick-bot"),
                       page.locator("[data-testid=create-form] select[name=bot_kind]")):
            options = picker.locator("option").all()
            assert [o.get_attribute("value") for o in options][2] == "hard"
            assert options[2].inner_text() == label
        page.get_by_test_id("quick-bot").select_option("hard")
        page.get_by_test_id("play-vs-bots").click()
        page.get_by_test_id("hand").wait_for()
        page.wait_for_function("() => window.baohuang?.screen?.view")
        levels = page.get_by_test_id("bot-level")
        assert levels.count() == 4 and {x.inner_text() for x in levels.all()} == {label}
        page.get_by_test_id("hosted-toggle").click()
        page.wait_for_function("() => window.baohuang.screen.view.stage === 'over'",
                               timeout=GAME_SECONDS * 1000)
        result = page.evaluate("() => window.baohuang.screen.view.result")
        assert result is not None and len(result["scores"]) == 5
        assert errors == []
    finally:
        page.context.close()


@pytest.mark.parametrize("size", list(SIZES))
def test_a_dissolved_match_says_why_and_starts_again_in_one_click(browser: Browser, server: str,
                                                                  size: str) -> None:
    with sized_page(browser, server, size) as page:
        quickplay(page, "Wang", games=2, bots="random", practice=True, seed=31)
        assert page.get_by_test_id("match-status").inner_text() == "第 1/2 局"
        page.get_by_test_id("hosted-toggle").click()
        sheet = page.get_by_test_id("score-sheet")
        sheet.wait_for(timeout=GAME_SECONDS * 1000)
        dissolved = page.get_by_test_id("match-dissolved")
        dissolved.wait_for()
        assert "比赛已解散" in dissolved.inner_text() and "Wang" in dissolved.inner_text()
        assert page.get_by_test_id("next-soon").count() == 0
        assert page.get_by_test_id("match-line").count() == 0      # no "已打 1/2 局"
        page.wait_for_function("() => window.baohuang.screen.table.status === 'dissolved'")
        assert page.get_by_test_id("match-status").inner_text() == "比赛已解散"
        shot(page, f"match-dissolved-{size}.png")
        old = page.evaluate("() => window.baohuang.screen.table.id")
        page.reload()                   # after a reload the table still says why
        page.get_by_test_id("match-dissolved").wait_for()
        assert "Wang" in page.get_by_test_id("match-dissolved").inner_text()
        again = page.get_by_test_id("again")
        assert again.inner_text() == "再来一场"
        tall_enough(page, "again")
        again.click()
        page.wait_for_function(f"() => !location.hash.includes({json.dumps(old)})")
        page.get_by_test_id("hand").wait_for()
        page.wait_for_function(f"""() => {{ const s = window.baohuang.screen;
          return s.view && s.table && s.table.id !== {json.dumps(old)}; }}""")
        table = page.evaluate("() => window.baohuang.screen.table")
        assert table["games"] == 2 and table["status"] == "playing"
        assert [s["bot"] for s in table["seats"][1:]] == ["random"] * 4
        assert page.get_by_test_id("match-status").inner_text() == "第 1/2 局"


def test_an_unscored_game_reads_as_unscored(page: Page) -> None:
    page.goto("/")
    page.get_by_test_id("create-form").wait_for()
    texts = page.evaluate("""async () => {
      const { scoreSheet } = await import('/scoresheet.js');
      const i18n = await import('/i18n.js');
      const view = {seat: 0, stake: 2, rebels: [], result: {
        scores: [4, -1, -1, -1, -1], places: [1, 2, 3, 4, 5], emperor: 0, guard: 2,
        solo: null, royal_won: true, left: null}};
      const gameOver = {scored: false, totals: [0, 0, 0, 0, 0], match: {games: 3, played: 1,
        over: true, status: 'dissolved', reason: 'hosted', hosted: [0, 1, 2, 3, 4]}};
      const out = [];
      for (const lang of ['zh', 'en']) {
        i18n.setLang(lang);
        const el = scoreSheet({view, table: null, gameOver, on: {}});
        out.push([el.querySelector('[data-testid=unscored]').innerText,
                  el.querySelector('[data-testid=match-dissolved]').innerText]);
      }
      return out;
    }""")
    assert texts[0][0] == "本局不计分：五家都在托管" and "比赛已解散" in texts[0][1]
    assert texts[1][0].startswith("Not scored") and "Match dissolved" in texts[1][1]


def _engine_hints(view: dict[str, Any]) -> list[int]:
    """The engine's hint order of a page's view (as the server computed it)."""
    from baohuang import Action, ActionKind, parse_card, parse_cards
    from baohuang.engine.hints import hint_indexes, revealing_cards
    legal = [Action(ActionKind(a["kind"]), tuple(parse_cards(" ".join(a.get("cards") or []))))
             for a in view["legal_actions"]]
    called = parse_card(view["called"]) if view.get("called") else None
    return hint_indexes(parse_cards(" ".join(view["hand"])), legal,
                        revealing_cards(view.get("role"), bool(view.get("guard_open")), called))


@pytest.mark.parametrize("size", list(SIZES))
def test_the_hint_cycles_the_engines_order(browser: Browser, server: str, size: str) -> None:
    with sized_page(browser, server, size) as page:
        quickplay(page, "Hint", bots="random", practice=True, seed=12)
        checked = 0
        while checked < 2:
            st = wait_turn_or_over(page)
            assert st is not None, "the game ended before two turns in play"
            if st["stage"] != "play":
                page.get_by_test_id("decision").first.click()
                wait_moved(page, st["version"])
                continue
            view = page.evaluate("() => window.baohuang.screen.view")
            assert view["hints"] == _engine_hints(view)
            plays = [view["legal_actions"][i]["cards"] for i in view["hints"]]
            if not plays:                               # nothing beats the last play
                pass_turn(page, st)
                wait_moved(page, st["version"])
                continue
            shown = min(len(plays), 4)
            for cards in plays[:shown]:
                page.get_by_test_id("hint").click()
                picked = page.evaluate("""() => { const s = window.baohuang.screen;
                  return [...s.selection].map((i) => s.view.hand[i]); }""")
                assert sorted(picked) == sorted(cards)
            page.get_by_test_id("play").click()
            wait_moved(page, st["version"])
            checked += 1


@pytest.mark.parametrize("size", list(SIZES))
def test_the_turn_clock_counts_to_the_servers_deadline(browser: Browser, server: str,
                                                       size: str) -> None:
    page, errors = sized(browser, server, size)
    # this computer's clock is five minutes fast: the clock must still show the server's
    page.context.add_init_script("""(() => { const real = Date.now;
      Date.now = () => real() + 300000; })()""")
    try:
        quickplay(page, "Clock", bots="random", practice=True, seed=3, timeout=60)
        wait_turn_or_over(page)
        timer = page.locator("[data-testid=seat].me [data-testid=timer]")
        timer.wait_for()
        shown = int(re.sub(r"\D", "", timer.inner_text()))
        assert 50 <= shown <= 60, timer.inner_text()
        deadline = page.evaluate("() => window.baohuang.screen.deadline")
        page.reload()
        page.wait_for_function("() => window.baohuang?.screen?.view")
        wait_turn_or_over(page)
        timer.wait_for()
        again = int(re.sub(r"\D", "", timer.inner_text()))
        assert 0 < again <= 60
        table_deadline = page.evaluate("() => window.baohuang.screen.table.deadline")
        assert page.evaluate("() => window.baohuang.screen.deadline") == table_deadline
        # the decision's deadline is fixed when it begins: a reload does not restart it
        assert abs(table_deadline - deadline) < 0.5
        assert again <= shown
        assert errors == []
    finally:
        page.context.close()


def _unseen(view: dict[str, Any]) -> dict[int, int]:
    """The 记牌器's counts computed here from the deck, the hand and the played cards."""
    from collections import Counter

    from baohuang import make_deck, parse_card
    deck = Counter(int(c.rank) for c in make_deck(view["rules"]["deck"]))
    seen = Counter(int(parse_card(c).rank) for c in view["hand"] + view["played"])
    return {rank: n - seen[rank] for rank, n in deck.items()}


@pytest.mark.parametrize("size", list(SIZES))
def test_last_trick_counter_and_rank_groups(browser: Browser, server: str, size: str) -> None:
    with sized_page(browser, server, size) as page:
        # 托管 bots pass whenever they follow: our lead wins each round
        quickplay(page, "Counter", bots="hosted", practice=True, seed=9)
        counter = page.get_by_test_id("card-counter")
        counter.wait_for()
        to_the_play(page)
        # the hand: a count over each rank, a tap selects the whole group
        view = page.evaluate("() => window.baohuang.screen.view")
        groups = page.get_by_test_id("rank-pick")
        first = groups.first
        rank = int(first.get_attribute("data-rank") or 0)
        from baohuang import parse_card
        held = [c for c in view["hand"] if int(parse_card(c).rank) == rank]
        assert first.get_by_test_id("rank-count").inner_text() == f"×{len(held)}"
        first.click()
        picked = page.evaluate("""() => { const s = window.baohuang.screen;
          return [...s.selection].map((i) => s.view.hand[i]); }""")
        assert sorted(picked) == sorted(held)
        first.click()
        assert page.evaluate("() => window.baohuang.screen.selection.size") == 0
        # lead the lowest single: everyone passes, the trick stays until we lead again
        single = next(a["cards"] for a in reversed(view["legal_actions"])
                      if a["kind"] == "play" and len(a["cards"]) == 1)
        click_card(page, single[0])
        page.get_by_test_id("play").click()
        page.wait_for_function("""() => { const v = window.baohuang.screen.view;
          return v.to_act === v.seat && v.last_play === null && v.played.length > 0; }""")
        trick = page.get_by_test_id("last-trick")
        trick.wait_for()
        assert trick.locator(".card").count() == 1
        view = page.evaluate("() => window.baohuang.screen.view")
        shown = {int(el.get_attribute("data-rank") or 0): int(el.get_attribute("data-left") or 0)
                 for el in page.get_by_test_id("counter-rank").all()}
        assert shown == _unseen(view)
        shot(page, f"last-trick-{size}.png")
        page.get_by_test_id("peek-last").click()
        peek = page.get_by_test_id("last-round")
        peek.wait_for()
        assert peek.locator("li").count() == 5
        shot(page, f"last-round-{size}.png")
        page.get_by_test_id("close-peek").click()
        peek.wait_for(state="detached")
        # the counter is a table option, on by default (TableState counter)
        assert page.evaluate("() => window.baohuang.screen.table.counter") is True
        # the stake chip: the view's stake (an open solo's doubling is in it), and a
        # solo named beside it with no factor of its own
        stake = page.evaluate("() => window.baohuang.screen.view.stake")
        assert page.get_by_test_id("stake").inner_text() == f"×{stake}"
        solo = page.evaluate("() => window.baohuang.screen.view.solo")
        chip = page.get_by_test_id("solo-factor")
        assert chip.count() == (1 if solo else 0)
        if solo:
            assert "×" not in chip.inner_text()
        # a table made without the 记牌器 shows it to no seat
        quickplay(page, "NoCounter", bots="hosted", practice=True, seed=9, counter=False)
        assert page.evaluate("() => window.baohuang.screen.table.counter") is False
        page.get_by_test_id("hand").wait_for()
        assert page.get_by_test_id("card-counter").count() == 0


@pytest.mark.parametrize("size", list(SIZES))
def test_phone_sizes_login_with_enter_and_a_quiet_console(browser: Browser, server: str,
                                                          size: str) -> None:
    page, errors = sized(browser, server, size)
    console: list[str] = []
    page.on("console", lambda msg: console.append(msg.text) if msg.type == "error" else None)
    try:
        page.goto("/")
        page.get_by_test_id("create-form").wait_for()
        page.wait_for_function("() => window.baohuang && window.baohuang.screen")
        if size != "desktop":
            assert page.evaluate(SMALL_CONTROLS_JS) == []
        name = f"enter{size[:2]}{int(time.time() * 1000) % 10**7}"
        page.get_by_test_id("acct-name").fill(name)
        page.get_by_test_id("acct-password").fill("secret-pass")
        page.get_by_test_id("register").click()
        page.get_by_test_id("logout").wait_for()
        page.get_by_test_id("logout").click()
        page.get_by_test_id("acct-name").fill(name)
        page.get_by_test_id("acct-password").fill("secret-pass")
        page.get_by_test_id("acct-password").press("Enter")        # Enter logs in
        page.get_by_test_id("logout").wait_for()
        assert page.get_by_test_id("user").inner_text().startswith(name)
        start_vs_bots(page)
        wait_turn_or_over(page)
        keys = page.locator(".dialog-keys:visible, .key-hint:visible").count()
        message = page.get_by_test_id("message")
        if size == "desktop":
            assert keys > 0 or "Esc" in message.inner_text()
        else:
            assert keys == 0 and "Esc" not in (message.inner_text() if message.count() else "")
            assert page.evaluate(SMALL_CONTROLS_JS.replace(
                "button, select", ".table-view button, .table-head button, select")) == []
        shot(page, f"table-{size}.png")
        assert console == [] and errors == []
    finally:
        page.context.close()


