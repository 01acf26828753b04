"""One stake, one story: the stake chip, the decision dialogs, their buttons and the
score sheet show the engine's stake (倍数) — the view's ``stake`` and ``choice_stakes``,
the result's ``stake``, ``unit``, ``shares`` and ``factors`` — and the score sheet says
how every score came about (shares × one share's points × the stake).

Two practice deals against bots that play like 托管 (the same moves every time): one
where we are the Emperor and declare 明独 (seed 1), one where we hold the Guard card and
say 明保 (seed 13).  Each is played to its end through the page."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import baohuang as bh
from web.support import play_game, quickplay, shot, sized_page, wait_moved, wait_turn_or_over

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page

#: our seat is the Emperor candidate and is asked 明独 (emperor_solo) after accepting
SOLO_SEED = 1
#: our seat holds the Guard card (not the Emperor card) and is asked 明保/暗保
GUARD_SEED = 13

DIALOG_JS = """() => {
  const v = window.baohuang.screen.view;
  const chip = document.querySelector('[data-testid=stake]');
  const dialog = document.querySelector('[data-testid=dialog-stake]');
  return {stage: v.stage, stake: v.stake, choice_stakes: v.choice_stakes,
          legal: v.legal_actions.map((a) => a.kind), chip: chip && chip.textContent,
          dialog: dialog && Number(dialog.dataset.stake), dialog_text: dialog && dialog.textContent,
          buttons: [...document.querySelectorAll('[data-testid=decision]')].map((b) => {
            const s = b.querySelector('[data-testid=choice-stake]');
            return {kind: b.dataset.choice, stake: s ? Number(s.dataset.stake) : null,
                    text: s ? s.textContent : null};
          })};
}"""

SHEET_JS = """() => {
  const v = window.baohuang.screen.view;
  const sheet = document.querySelector('[data-testid=score-sheet]');
  const story = sheet.querySelector('[data-testid=score-story]');
  return {view_stake: v.stake, kicks: v.kicks, rebels: v.rebels, guard_open: v.guard_open,
          result: v.result, rules: v.rules,
          chip: document.querySelector('[data-testid=stake]').textContent,
          sheet: sheet.querySelector('[data-testid=sheet-stake]').textContent,
          story: story.textContent, factors: story.dataset.factors,
          rows: [...sheet.querySelectorAll('tbody tr')].map((tr) => ({
            seat: Number(tr.dataset.seat),
            score: tr.querySelector('[data-testid=score]').firstChild.textContent,
            calc: tr.querySelector('[data-testid=score-calc]').textContent,
            share: Number(tr.querySelector('[data-testid=score-calc]').dataset.share)}))};
}"""


def decide(page: Page, wanted: str) -> list[dict[str, Any]]:
    """Answer this seat's role-phase decisions until the one offering ``wanted`` is
    taken (the cautious choice before it); each dialog as it was read."""
    seen = []
    while True:
        st = wait_turn_or_over(page)
        assert st is not None and st["stage"] != "play", st
        dialog = page.evaluate(DIALOG_JS)
        seen.append(dialog)
        kinds = [b["kind"] for b in dialog["buttons"]]
        choice = wanted if wanted in kinds else kinds[-1] if "decline" in kinds else kinds[0]
        page.locator(f'[data-testid=decision][data-choice="{choice}"]').first.click()
        wait_moved(page, st["version"])
        if choice == wanted:
            return seen


def check_dialogs(dialogs: list[dict[str, Any]], lang: str) -> None:
    """Every dialog shows the view's stake, in its title and in the top bar, and each
    button that changes it the engine's stake for that choice."""
    for d in dialogs:
        assert d["chip"] == f"×{d['stake']}" and d["dialog"] == d["stake"], d
        assert f"×{d['stake']}" in d["dialog_text"], d
        assert len(d["choice_stakes"]) == len(d["legal"]), d
        engine = dict(zip(d["legal"], d["choice_stakes"], strict=True))
        for b in d["buttons"]:
            if b["kind"] == "call":
                continue
            expected = engine[b["kind"]]
            assert b["stake"] == (None if expected == d["stake"] else expected), (b, d)
            if b["stake"] is not None:
                assert f"×{expected}" in b["text"], b


def check_sheet(page: Page, factor: str, share_word: str) -> dict[str, Any]:
    """The score sheet, the top bar and the story agree with the engine's result, and
    the result is what ``bh.score_parts`` makes of the game's places and doublings."""
    sheet: dict[str, Any] = page.evaluate(SHEET_JS)
    result = sheet["result"]
    stake = result["stake"]
    assert sheet["chip"] == sheet["sheet"] == f"×{stake}", sheet
    assert sheet["view_stake"] == stake, sheet
    assert factor in result["factors"] and sheet["factors"] == " ".join(result["factors"])
    assert stake == 2 ** len(result["factors"])
    rules = bh.RuleSet.from_dict(sheet["rules"])
    parts = bh.score_parts(result["places"], result["emperor"], result["guard"], rules=rules,
                           solo=result["solo"], guard_open=sheet["guard_open"],
                           rebels=tuple(sheet["rebels"]), kicks=sheet["kicks"])
    assert (parts.stake, parts.unit, list(parts.shares), list(parts.factors)) == \
        (stake, result["unit"], result["shares"], result["factors"])
    assert list(parts.scores) == result["scores"]
    assert f"{result['unit']}" in sheet["story"] and f"{stake}" in sheet["story"]
    for row in sheet["rows"]:
        seat = row["seat"]
        score = result["scores"][seat]
        assert row["score"] == (f"+{score}" if score > 0 else str(score)), row
        assert row["share"] == result["shares"][seat]
        assert row["calc"].replace(" ", "").startswith(
            f"{row['share']}{share_word}×{result['unit']}×{stake}"), row
        assert row["share"] * result["unit"] * stake == score
    return sheet


def test_an_open_solo_shows_one_stake_from_dialog_to_score_sheet(browser: Browser,
                                                                 server: str) -> None:
    with sized_page(browser, server, "phone", lang="zh") as page:
        quickplay(page, "Solo", bots="hosted", practice=True, seed=SOLO_SEED)
        dialogs = decide(page, "solo_open")
        check_dialogs(dialogs, "zh")
        solo = dialogs[-1]
        assert solo["stage"] == "emperor_solo"
        # 明独 doubles the stake: ×1 now, the button says ×2
        assert solo["stake"] == 1 and [b["stake"] for b in solo["buttons"]
                                       if b["kind"] == "solo_open"] == [2]
        st = wait_turn_or_over(page)
        assert st is not None and st["stage"] == "play"
        assert page.get_by_test_id("stake").inner_text() == "×2"
        assert page.get_by_test_id("solo-factor").inner_text() == "明独"     # (no second ×2)
        play_game(page)
        page.get_by_test_id("score-story").wait_for()
        sheet = check_sheet(page, "solo_open", "份")
        emperor = sheet["result"]["emperor"]
        assert sheet["result"]["shares"][emperor] == 4
        assert abs(sheet["result"]["scores"][emperor]) == 24 * sheet["result"]["stake"] // 2
        shot(page, "stake-solo-open-phone.png")


def test_an_open_guard_shows_one_stake_from_dialog_to_score_sheet(browser: Browser,
                                                                  server: str) -> None:
    with sized_page(browser, server, "phone", lang="en") as page:
        quickplay(page, "Guard", bots="hosted", practice=True, seed=GUARD_SEED)
        dialogs = decide(page, "guard_open")
        check_dialogs(dialogs, "en")
        guard = dialogs[-1]
        assert guard["stage"] == "guard" and guard["stake"] == 1
        assert [b["stake"] for b in guard["buttons"] if b["kind"] == "guard_open"] == [2]
        assert [b["stake"] for b in guard["buttons"] if b["kind"] == "guard_hidden"] == [None]
        st = wait_turn_or_over(page)
        assert st is not None and st["stage"] == "play"
        assert page.get_by_test_id("stake").inner_text() == "×2"
        play_game(page)
        page.get_by_test_id("score-story").wait_for()
        sheet = check_sheet(page, "guard_open", "")
        assert "open Guard ×2" in sheet["story"]
        guard_seat = sheet["result"]["guard"]
        assert guard_seat == 0 and sheet["result"]["shares"][guard_seat] == 1
        shot(page, "stake-guard-open-phone.png")


def test_in_call_mode_the_marked_small_joker_is_a_small_joker(browser: Browser,
                                                               server: str) -> None:
    """五人局 calls its Guard (叫侍卫): the marked small joker our seat holds (seed 3) is
    drawn and named as any small joker — no shield, no 侍卫牌."""
    with sized_page(browser, server, "phone", lang="zh") as page:
        quickplay(page, "Call", preset="wurenju", bots="hosted", practice=True, seed=3)
        joker = page.locator('[data-testid=hand] [data-testid=card][data-card="SJ*"]')
        assert joker.count() == 1
        assert joker.get_attribute("title") == "小王"
        assert "marked" not in (joker.get_attribute("class") or "")
        assert joker.locator(".corner-mark, .pip.mark").count() == 0
        assert "侍卫牌" not in page.get_by_test_id("hand").inner_html()


def test_a_dialog_with_one_choice_says_why(browser: Browser, server: str) -> None:
    """The Emperor candidate without the Guard card (seed 2, 山东) may not abdicate: the
    dialog offers 当皇帝 alone and says why, with the stake."""
    with sized_page(browser, server, "phone", lang="zh") as page:
        quickplay(page, "Why", bots="hosted", practice=True, seed=2)
        st = wait_turn_or_over(page)
        assert st is not None and st["stage"] == "emperor"
        assert [a["kind"] for a in st["legal"]] == ["accept"]
        assert page.get_by_test_id("decision").count() == 1
        assert "侍卫牌" in page.get_by_test_id("decision-why").inner_text()
        assert page.get_by_test_id("dialog-stake").inner_text() == "当前倍数 ×1"
        shot(page, "dialog-why-phone.png")
