"""The browser client agrees with the engine's rules: which selections are plays,
五人局 tables, the 特画 and draws."""

from __future__ import annotations

import json
import time
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page


from web.support import (
    CJK,
    GAME_SECONDS,
    assert_english,
    biggest_play,
    click_card,
    open_page,
    pass_turn,
    quickplay,
    shot,
    sync_api,
    wait_moved,
    wait_turn_or_over,
)


def _selection_cases() -> list[tuple[dict[str, Any], list[str], bool, str | None]]:
    """Real play-phase views with selections (legal plays and random picks from the hand),
    each with whether the engine accepts that play and the engine's reason if not
    (``engine/refusals.py``)."""
    import random

    import baohuang as bh
    from baohuang.bots import make_bot
    from baohuang.engine.refusals import refusal

    rng = random.Random(11)
    cases: list[tuple[dict[str, Any], list[str], bool, str | None]] = []
    variants = [("shandong", {}), ("lianzhong_classic", {}),
                ("shandong", {"kaopai": True, "hold_sixes": True, "jokers_with_twos": True}),
                ("wurenju", {})]     # the Guard's 特画 TH
    for n, (preset, options) in enumerate(variants):
        game = bh.Game.new(bh.RuleSet.preset(preset).replace(**options), seed=100 + n)
        bots = [make_bot("random", seed=n * 5 + s) for s in range(5)]
        while not game.is_over:
            seat = game.to_act
            assert seat is not None
            legal = game.legal_actions()
            if game.stage is bh.Stage.PLAY and rng.random() < 0.2:
                seen = game.view(seat)
                view = seen.to_dict()
                del view["events"]
                hand: list[str] = view["hand"]
                plays = [a for a in legal if a.kind is bh.ActionKind.PLAY]
                for action in rng.sample(plays, min(2, len(plays))):
                    cases.append((view, [str(c) for c in action.cards], True, None))
                for _ in range(4):
                    held = sorted({c.rstrip("*").rstrip("shdc") for c in hand})
                    ranks = rng.sample(held, k=1 if rng.random() < 0.7 else min(2, len(held)))
                    pick = [c for c in hand if c.rstrip("*").rstrip("shdc") in ranks]
                    selection = rng.sample(pick, rng.randint(1, len(pick)))
                    trial = game.copy()
                    try:
                        trial.apply(bh.Action(bh.ActionKind.PLAY,
                                              tuple(bh.parse_cards(selection))))
                        ok = True
                    except bh.IllegalAction:
                        ok = False
                    why = refusal(seen, selection)
                    cases.append((view, selection, ok, None if why is None else why[0].value))
            game.apply(bots[seat].choose(game.view(seat), legal))
    return cases


def test_selection_check_agrees_with_the_engine(page: Page) -> None:
    """The client's check of a selection (before sending) says what the engine says, for
    the engine's reason, in the engine's words (served by /api/rules) in both languages."""
    from baohuang.engine.refusals import REFUSAL_TEXTS, Refusal

    cases = _selection_cases()
    assert sum(ok for _, _, ok, _ in cases) > 50 and sum(not ok for _, _, ok, _ in cases) > 50
    page.goto("/")
    answers = page.evaluate("""async (cases) => {
      const m = await import('/cards.js');
      await m.servedRules;
      const { DICTS } = await import('/i18n.js');
      return cases.map(([view, selection]) => {
        const r = m.checkSelection(selection, m.readView(view));   // (as received)
        return [r.ok, r.ok ? null : r.reason,
                r.ok ? null : [DICTS.zh[r.reason], DICTS.en[r.reason]]];
      });
    }""", [[view, selection] for view, selection, _, _ in cases])
    wrong = [(sel, ok, why, said) for (_, sel, ok, why), said in zip(cases, answers, strict=True)
             if said[:2] != [ok, why]]
    assert wrong == []
    for _, why, texts in answers:
        if why is not None:
            assert texts == list(REFUSAL_TEXTS[Refusal(why)])


def test_the_card_counter_counts_the_engines_decks(page: Page) -> None:
    """The 记牌器's deck counts are the engine's, for every deck (and the deck of a view
    without one is the option's default)."""
    from baohuang import RuleSet
    from baohuang.engine.cards import Deck
    from baohuang.engine.refusals import deck_counts

    page.goto("/")
    counts = page.evaluate("""async (decks) => {
      const m = await import('/cards.js');
      await m.servedRules;
      const served = await (await fetch('/api/rules')).json();
      return [decks.map((deck) => m.deckCounts({ deck })), m.deckCounts({}), served.decks];
    }""", [deck.value for deck in Deck])
    engine = [{str(r): n for r, n in deck_counts(deck).items()} for deck in Deck]
    assert counts[0] == engine
    assert counts[2] == dict(zip([deck.value for deck in Deck], engine, strict=True))
    assert counts[1] == {str(r): n for r, n in deck_counts(RuleSet().deck).items()}


# -- 五人局 (wurenju): its options in the form, the 特画 TH, a draw -------------------------

WURENJU_SEED = 5    # seat 0 (the player) is called as Guard and holds the TH before deciding


def _form_value(page: Page, option: str) -> object:
    control = page.locator(f"[name=opt_{option}]")
    if control.get_attribute("type") == "checkbox":
        return control.is_checked()
    return control.input_value()


def test_wurenju_table_through_the_form(page: Page) -> None:
    page.goto("/")
    form = page.get_by_test_id("create-form")
    form.wait_for()
    page.get_by_test_id("preset").select_option("wurenju")
    page.locator("details.all-options summary").click()
    expected = {"deck": "full", "hold_back_emperor_card": False, "guard_mode": "call",
                "called_card_high": True, "abdication": "clockwise_then_two",
                "forced_call": True, "forced_call_rule": "three_not_four",
                "scoring": "wurenju", "rebellion": False, "kick": False}
    assert {name: _form_value(page, name) for name in expected} == expected
    assert "五人局" in page.get_by_test_id("preset").locator("option:checked").inner_text()
    assert page.locator("[name=opt_scoring] option:checked").inner_text() == "五人局胜平负"
    for name in ("called_card_high", "hold_back_emperor_card", "forced_call_rule"):
        row = page.locator(f"[data-option={name}]")
        assert CJK.search(row.locator(".opt-name").inner_text())
        assert CJK.search(row.locator(".opt-help").inner_text())
    shot(page, "lobby-wurenju.png", full=True)
    # 特画 needs a called Guard, holding the Emperor card back needs all 216 cards
    high = page.locator("[data-option=called_card_high]")
    assert high.is_visible()
    page.locator("[name=opt_guard_mode]").select_option("card")
    assert high.is_hidden()
    assert not page.locator("[name=opt_called_card_high]").is_checked()
    hold = page.locator("[data-option=hold_back_emperor_card]")
    assert hold.is_visible()
    page.locator("[name=opt_deck]").select_option("no345")
    assert hold.is_hidden()
    page.locator("[name=opt_deck]").select_option("full")
    assert hold.is_visible()
    # the server takes this combination (特画 is turned off before the guard mode changes)
    form.locator("[name=fill_bots]").check()
    # the 记牌器 is a table option, on unless unticked here: then no seat shows it
    assert page.get_by_test_id("counter-option").is_checked()
    assert CJK.search(page.locator("label", has=page.get_by_test_id("counter-option"))
                      .inner_text())
    page.get_by_test_id("counter-option").uncheck()
    form.get_by_test_id("create-table").click()
    page.wait_for_selector("[data-testid=start], [data-testid=create-error]")
    assert page.get_by_test_id("create-error").count() == 0, \
        page.get_by_test_id("create-error").inner_text()
    page.get_by_test_id("start").click()       # (the bots take the empty seats now)
    page.get_by_test_id("hand").wait_for()
    assert page.evaluate("() => window.baohuang.screen.table.counter") is False
    assert page.get_by_test_id("card-counter").count() == 0
    rules = page.evaluate("() => window.baohuang.screen.table.rules")
    assert rules["guard_mode"] == "card" and rules["called_card_high"] is False
    # (back at all 216 cards, holding the Emperor card back is on again, as it was when hidden)
    assert rules["scoring"] == "wurenju" and rules["hold_back_emperor_card"] is True


def test_a_rejected_table_shows_the_servers_reason(page: Page) -> None:
    page.route("**/api/tables", lambda route: route.fulfill(
        status=400, content_type="application/json",
        body=json.dumps({"error": {"code": "bad_rules", "message":
                                   "rule option 'called_card_high' (特画) needs guard_mode=call"}}))
        if route.request.method == "POST" else route.continue_())
    page.goto("/")
    page.get_by_test_id("create-form").wait_for()
    page.get_by_test_id("preset").select_option("wurenju")
    page.locator("[name=games]").fill("3")
    page.get_by_test_id("create-table").click()
    error = page.get_by_test_id("create-error")
    error.wait_for()
    assert "needs guard_mode=call" in error.inner_text()
    assert "规则" in error.inner_text()
    # what was chosen stays chosen
    assert page.get_by_test_id("preset").input_value() == "wurenju"
    assert page.locator("[name=games]").input_value() == "3"


def test_cards_module_draws_and_sorts_the_tehua(page: Page) -> None:
    page.goto("/")
    page.get_by_test_id("create-form").wait_for()
    drawn = page.evaluate("""async () => {
      const cv = await import('/cardview.js');
      const cards = await import('/cards.js');
      const i18n = await import('/i18n.js');
      const out = {};
      for (const lang of ['zh', 'en']) {
        i18n.setLang(lang);
        const el = cv.cardEl('TH');
        document.body.appendChild(el);
        out[lang] = {cls: el.className, text: el.innerText, title: el.title,
                     mini: cv.cardEl('TH', {mini: true}).innerText};
        el.remove();
      }
      out.order = cards.groupHand(['9', 'BJ', 'TH', 'SJ*', '2']).map((g) => g.rank);
      out.key = cards.rankForKey('x');
      return out;
    }""")
    assert "joker" in drawn["zh"]["cls"] and "tehua" in drawn["zh"]["cls"]
    assert "特画" in drawn["zh"]["text"] and "特画" in drawn["zh"]["title"]
    assert "TH" in drawn["en"]["text"] and not CJK.search(drawn["en"]["text"])
    assert "above the big joker" in drawn["en"]["title"]
    assert drawn["order"] == [18, 17, 16, 15, 9]
    assert drawn["key"] == 18


def _called_as_guard(page: Page, name: str) -> None:
    """A practice 五人局 table (against 托管) where the player, ``name``, is called as the
    Guard and is asked 明保 or 暗保."""
    quickplay(page, name, preset="wurenju", seed=WURENJU_SEED, practice=True, bots="hosted")
    page.wait_for_function("""() => {
      const v = window.baohuang.screen.view;
      return v.stage === 'guard' && v.to_act === v.seat;
    }""")


def test_the_guard_sees_and_plays_his_tehua(browser: Browser, server: str) -> None:
    """A 五人局 game where the player is the called Guard: his copy of the called card
    is the 特画, drawn in his hand, named in the log and the dialog, and played."""
    page, errors = open_page(browser, server)
    try:
        _called_as_guard(page, "Guard")
        assert "TH" in page.evaluate("() => window.baohuang.screen.view.hand")
        first = page.locator("[data-testid=hand] [data-testid=card]").first
        sync_api.expect(first).to_have_attribute("data-card", "TH")
        assert "特画" in first.inner_text()
        assert "tehua" in (first.get_attribute("class") or "")
        page.locator("details.log summary").click()
        assert "你那张变成了特画" in page.get_by_test_id("log").inner_text()
        assert "特画" in page.locator(".decision-dialog .dialog-text").inner_text()
        shot(page, "table-tehua.png")
        page.set_viewport_size({"width": 390, "height": 844})
        shot(page, "phone-table-tehua.png")
        assert page.evaluate("() => document.scrollingElement.scrollWidth") <= 390
        page.set_viewport_size({"width": 1280, "height": 900})
        page.get_by_test_id("lang-toggle").click()
        sync_api.expect(first).to_contain_text("TH")
        assert "became the TH" in page.get_by_test_id("log").inner_text()
        assert_english(page, "the Guard's dialog with the TH")
        page.get_by_test_id("lang-toggle").click()
        # play on; the first play holding the TH is made by clicking it
        played_th = False
        deadline = time.monotonic() + GAME_SECONDS
        while time.monotonic() < deadline:
            st = wait_turn_or_over(page)
            if st is None:
                break
            if st["stage"] != "play":
                page.get_by_test_id("decision").first.click()
            else:
                plays = [a["cards"] for a in st["legal"] if a["kind"] == "play"]
                with_th = [cards for cards in plays if "TH" in cards]
                cards = (min(with_th, key=len) if with_th and not played_th
                         else biggest_play(st["legal"]))
                if cards is None:
                    pass_turn(page, st)
                else:
                    for card in cards:
                        click_card(page, card)
                    message = page.get_by_test_id("message")
                    assert "bad" not in (message.get_attribute("class") or ""), \
                        message.inner_text()
                    page.get_by_test_id("play").click()
                    played_th = played_th or "TH" in cards
            wait_moved(page, st["version"])
        assert played_th
        sheet = page.get_by_test_id("score-sheet")
        sheet.wait_for()
        result = page.evaluate("() => window.baohuang.screen.view.result")
        outcome = sheet.locator(".outcome").inner_text()
        if result["royal_won"] is None:
            assert "平局" in outcome
        else:
            assert "获胜" in outcome
        assert errors == []
    finally:
        page.context.close()


def test_a_wurenju_draw_reads_as_a_draw(page: Page) -> None:
    page.goto("/")
    page.get_by_test_id("create-form").wait_for()
    texts = page.evaluate("""async () => {
      const { scoreSheet } = await import('/scoresheet.js');
      const i18n = await import('/i18n.js');
      const view = {seat: 0, stake: 1, rebels: [], result: {
        scores: [0, 0, 0, 0, 0], places: [2, 1, 3, 4, 5], emperor: 0, guard: 2,
        solo: null, royal_won: null, left: null}};
      const out = [];
      for (const lang of ['zh', 'en']) {
        i18n.setLang(lang);
        out.push(scoreSheet({view, table: null, on: {}}).querySelector('.outcome').innerText);
      }
      return out;
    }""")
    assert texts[0].startswith("平局")
    assert texts[1].startswith("Draw")




def test_the_guards_answer_closes_his_dialog_while_the_pause_holds_it(
        browser: Browser, paused_server: str) -> None:
    """The server holds the Guard's 明保/暗保 until the decision's pause ends (so that
    nobody can tell who answered, or how fast): the Guard's dialog closes the moment he
    answers and says his answer is in, and the game goes on when the pause ends."""
    page, errors = open_page(browser, paused_server)
    try:
        _called_as_guard(page, "Held")
        page.get_by_test_id("decision").first.wait_for()
        # clicked and read in one task of the page: no answer of the server can come between
        after = page.evaluate("""() => {
          const screen = window.baohuang.screen, version = screen.version;
          document.querySelector('[data-testid=decision]').click();
          return {dialog: document.querySelectorAll('[data-testid=decision]').length,
                  answered: document.querySelector('[data-testid=answered]')?.innerText,
                  status: document.querySelector('[data-testid=status]')?.innerText,
                  same: screen.version === version};
        }""")
        assert after["same"] and after["dialog"] == 0, after
        assert after["answered"] == "已作出选择，稍后公布…"
        # the held answer is shown when the pause ends: the game moves on, no error
        page.wait_for_function("() => window.baohuang.screen.view.stage !== 'guard'")
        sync_api.expect(page.get_by_test_id("answered")).to_have_count(0)
        message = page.get_by_test_id("message")
        assert not message.count() or "bad" not in (message.get_attribute("class") or "")
    finally:
        page.context.close()
    assert errors == []
