"""The 踢 (kick) dialog (issue 36): after the Guard's 明保 each rebel is asked 踢 or not;
two kicks double the stake.  A hosted bot always says 暗保, so these deals are played
against the heuristic bots: at practice seed 5 the Guard (seat 1, a bot) says 明保 and
the rebels are asked in turn, seats 3, 4 and 0 (ours).

The cautious answer (不踢) has the focus and Enter takes it; the dialog and its kick
button show the engine's stakes (the view's ``stake`` and ``choice_stakes``); in English
and Chinese; and a kick that stands (a friend at seat 3 kicked first) doubles the stake
chip at once."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

from baohuang.engine.scoring import stake_of
from web.support import (
    GAME_SECONDS,
    my_turn,
    open_page,
    shot,
    state,
    wait_moved,
    wait_turn_or_over,
)

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page

#: the Guard (seat 1) says 明保; the rebels are asked to kick in the order 3, 4, 0
SEED = 5
#: the bots of that deal, with seat 3 left to a friend (the same bots, seeded by seat)
BOTS = {"1": "heuristic", "2": "heuristic", "4": "heuristic"}

KICK_JS = """() => {
  const v = window.baohuang.screen.view;
  const dialog = document.querySelector('.decision-dialog');
  const focused = document.activeElement;
  return {stage: v.stage, stake: v.stake, legal: v.legal_actions.map((a) => a.kind),
          choice_stakes: v.choice_stakes, guard_open: v.guard_open,
          chip: document.querySelector('[data-testid=stake]').textContent,
          title: dialog.querySelector('h2').firstChild.textContent,
          dialog_stake: Number(dialog.querySelector('[data-testid=dialog-stake]').dataset.stake),
          dialog_stake_text: dialog.querySelector('[data-testid=dialog-stake]').textContent,
          text: dialog.querySelector('.dialog-text').textContent,
          focused: focused && focused.dataset ? {choice: focused.dataset.choice,
                                                 cautious: focused.dataset.cautious} : null,
          buttons: [...dialog.querySelectorAll('[data-testid=decision]')].map((b) => {
            const s = b.querySelector('[data-testid=choice-stake]');
            return {kind: b.dataset.choice, label: b.querySelector('.choice-label').textContent,
                    stake: s ? Number(s.dataset.stake) : null, stake_text: s && s.textContent};
          })};
}"""

TEXT = {
    "zh": {"title": "踢？", "kick": "踢", "decline": "不踢", "now": "当前倍数 ×{n}",
           "if": "踢成立则倍数 ×{n}", "text": "当前倍数 ×{n}"},
    "en": {"title": "Kick?", "kick": "Kick", "decline": "No kick", "now": "×{n}",
           "if": "if the kick stands: stake ×{n}", "text": "(now ×{n})"},
}


def to_the_kick(page: Page) -> dict[str, Any]:
    """Answer this seat's decisions before the 踢 (each the cautious one, the focused
    button's) until the kick dialog is up; the dialog as read then."""
    while True:
        st = wait_turn_or_over(page)
        assert st is not None and st["stage"] != "play", st
        if st["stage"] == "kick":
            page.get_by_test_id("decision").first.wait_for()
            kick: dict[str, Any] = page.evaluate(KICK_JS)
            return kick
        page.locator("[data-testid=decision][data-cautious]").click()
        wait_moved(page, st["version"])


def answer_until_kick(pages: list[Page], asked: Page) -> dict[str, Any]:
    """Each page answers its decisions before the 踢 with the cautious choice, as they
    come, until ``asked`` has the kick dialog up; that dialog as read then."""
    deadline = time.monotonic() + GAME_SECONDS
    while True:
        assert time.monotonic() < deadline, "no kick dialog"
        moved = False
        for page in pages:
            st = state(page)
            if not my_turn(st):
                continue
            assert st is not None and st["stage"] != "play", st
            if st["stage"] == "kick":
                if page is asked:
                    page.get_by_test_id("decision").first.wait_for()
                    kick: dict[str, Any] = page.evaluate(KICK_JS)
                    return kick
                continue
            page.locator("[data-testid=decision][data-cautious]").click()
            wait_moved(page, st["version"])
            moved = True
        if not moved:
            pages[0].wait_for_timeout(50)


def check_kick_dialog(kick: dict[str, Any], lang: str) -> None:
    """The dialog as the engine has it: its stake, each button's, the texts, the focus."""
    text = TEXT[lang]
    assert kick["stage"] == "kick" and kick["guard_open"], kick
    assert kick["legal"] == ["kick", "decline"], kick
    stake = kick["stake"]
    engine = dict(zip(kick["legal"], kick["choice_stakes"], strict=True))
    # (明保 ×2; a 踢 that stands ×2 more), as the engine's scoring counts them
    assert stake == stake_of(guard_open=True, solo=None, rebels=(), kicks=0) == 2, kick
    assert engine == {"kick": stake_of(guard_open=True, solo=None, rebels=(), kicks=1),
                      "decline": stake}, kick
    assert kick["chip"] == f"×{stake}" and kick["dialog_stake"] == stake, kick
    assert text["now"].format(n=stake) in kick["dialog_stake_text"], kick
    assert text["text"].format(n=stake) in kick["text"], kick
    assert kick["title"] == text["title"], kick
    buttons = {b["kind"]: b for b in kick["buttons"]}
    assert buttons["kick"]["label"] == text["kick"], buttons
    assert buttons["decline"]["label"] == text["decline"], buttons
    # the kick button says the stake it makes if it stands; 不踢 leaves it as it is
    assert buttons["kick"]["stake"] == engine["kick"], buttons
    assert buttons["kick"]["stake_text"] == text["if"].format(n=engine["kick"]), buttons
    assert buttons["decline"]["stake"] is None, buttons
    # the cautious answer has the focus
    assert kick["focused"] == {"choice": "decline", "cautious": "true"}, kick


def kicks(page: Page) -> list[dict[str, Any]]:
    events: list[dict[str, Any]] = page.evaluate(
        "() => window.baohuang.screen.events.filter((e) => e.type.includes('kick'))")
    return events


def test_enter_in_the_kick_dialog_is_no_kick(browser: Browser, server: str) -> None:
    page, errors = open_page(browser, server, 1280, 800, lang="zh")
    try:
        page.goto("/")
        page.get_by_test_id("create-form").wait_for()
        page.evaluate("""async (body) => {
          const api = await import('/api.js');
          await window.baohuang.ensureUser('Rebel');
          const res = await api.post('/api/quickplay', body);
          location.hash = `#/t/${res.id}`;
        }""", {"bots": "heuristic", "seed": SEED, "practice": True, "timeout": 600})
        page.get_by_test_id("hand").wait_for()
        kick = to_the_kick(page)
        shot(page, "kick-dialog-zh.png")
        check_kick_dialog(kick, "zh")
        version = page.evaluate("() => window.baohuang.screen.version")
        page.keyboard.press("Enter")
        wait_moved(page, version)
        page.wait_for_function("() => window.baohuang.screen.view.stage === 'play'")
        assert {"type": "no_kick", "seat": 0} in kicks(page), kicks(page)
        assert not any(ev["type"] == "kick_stands" for ev in kicks(page))
        assert page.get_by_test_id("stake").inner_text() == "×2"
        assert errors == []
    finally:
        page.context.close()


def test_a_kick_that_stands_doubles_the_stake_chip(browser: Browser, server: str) -> None:
    """Two rebels, two browsers: the friend at seat 3 kicks, the bot at seat 4 does not,
    and our kick (a tap on a phone) makes it stand."""
    host, host_errors = open_page(browser, server, 390, 844, lang="en", touch=True)
    friend, friend_errors = open_page(browser, server, 390, 844, lang="en", touch=True)
    try:
        host.goto("/")
        host.get_by_test_id("create-form").wait_for()
        res = host.evaluate("""async (body) => {
          const api = await import('/api.js');
          await window.baohuang.ensureUser('Host');
          const res = await api.post('/api/tables', body);
          location.hash = `#/t/${res.id}`;
          return res;
        }""", {"bots": BOTS, "seed": SEED, "practice": True, "timeout": 600})
        host.wait_for_function("() => window.baohuang.screen.table?.seats?.[0]")
        friend.goto("/")
        friend.get_by_test_id("create-form").wait_for()
        friend.evaluate("() => window.baohuang.ensureUser('Friend')")
        friend.goto(f"/#/t/{res['code']}")
        for page in (host, friend):
            page.get_by_test_id("hand").wait_for()
            page.wait_for_function("() => window.baohuang?.screen?.view")
        assert host.evaluate("() => window.baohuang.screen.view.seat") == 0
        assert friend.evaluate("() => window.baohuang.screen.view.seat") == 3
        # the friend is asked first, and kicks (a tap: a risky choice is never Enter's)
        check_kick_dialog(answer_until_kick([host, friend], friend), "en")
        version = friend.evaluate("() => window.baohuang.screen.version")
        friend.locator('[data-testid=decision][data-choice="kick"]').click()
        wait_moved(friend, version)
        kick = answer_until_kick([host, friend], host)
        shot(host, "kick-dialog-en-phone.png")
        check_kick_dialog(kick, "en")
        assert {"type": "kick", "seat": 3} in kicks(host), kicks(host)
        host.locator('[data-testid=decision][data-choice="kick"]').tap()
        for page in (host, friend):
            page.wait_for_function("() => window.baohuang.screen.view.stake === 4")
            assert page.get_by_test_id("stake").inner_text() == "×4"
            assert any(ev["type"] == "kick_stands" for ev in kicks(page)), kicks(page)
        shot(host, "kick-stands-en-phone.png")
        assert host_errors + friend_errors == []
    finally:
        host.context.close()
        friend.context.close()
