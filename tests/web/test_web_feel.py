"""A table people enjoy (2): quick phrases and chat, swipes, sound and motion,
dialogs that hide no seat, invitation links."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page


from web.support import (
    GAME_SECONDS,
    SIZES,
    SMALL_CONTROLS_JS,
    click_card,
    quickplay,
    shot,
    sized_page,
    tall_enough,
    to_the_play,
    wait_moved,
    wait_turn_or_over,
)


@pytest.mark.parametrize("size", list(SIZES))
def test_quick_phrases_show_over_the_seat_and_can_be_muted(browser: Browser, server: str,
                                                           size: str) -> None:
    with (sized_page(browser, server, size) as page,
          sized_page(browser, server, size, lang="en") as watcher):
        quickplay(page, "Chat", bots="hosted", practice=True, seed=5, timeout=60)
        table_id = page.evaluate("() => window.baohuang.screen.table.id")
        watcher.goto(f"/#/w/{table_id}")
        watcher.wait_for_function("() => window.baohuang.screen && window.baohuang.screen.view")
        page.get_by_test_id("emote-open").click()
        panel = page.get_by_test_id("emote-panel")
        panel.wait_for()
        assert panel.get_by_test_id("emote").count() == 14
        tall_enough(page, "emote")
        shot(page, f"emote-panel-{size}.png")
        page.locator("[data-testid=emote][data-id=nice]").click()
        page.locator("[data-testid=seat].me [data-testid=bubble]").wait_for()
        assert page.locator("[data-testid=seat].me [data-testid=bubble]").inner_text() == "漂亮！"
        bubble = watcher.locator("[data-testid=seat][data-seat='0'] [data-testid=bubble]")
        bubble.wait_for()
        assert bubble.inner_text() == "Nice!"
        # the watcher mutes quick phrases: the bubble goes at once and stays away
        watcher.evaluate("() => window.baohuang.screen.muteChat()")
        bubble.wait_for(state="detached")
        # muting from the panel, for a player
        page.get_by_test_id("emote-open").click()
        page.get_by_test_id("emote-mute").click()
        page.locator("[data-testid=seat].me [data-testid=bubble]").wait_for(state="detached")
        assert page.get_by_test_id("emote-mute").get_attribute("aria-pressed") == "true"


@pytest.mark.parametrize("size", list(SIZES))
def test_a_swipe_over_the_hand_selects_and_clears(browser: Browser, server: str,
                                                  size: str) -> None:
    with sized_page(browser, server, size) as page:
        quickplay(page, "Swipe", bots="hosted", practice=True, seed=9, timeout=60)
        wait_turn_or_over(page)
        page.evaluate("() => document.querySelector('[data-testid=hand]')"
                      ".scrollIntoView({block: 'end'})")
        spots = page.evaluate("""() => [...document.querySelectorAll(
            '[data-testid=hand] [data-testid=card]')].slice(0, 4).map((el) => {
          const r = el.getBoundingClientRect();
          return {index: Number(el.dataset.index), x: r.left + 5, y: r.top + 20}; })""")
        first, last = spots[0], spots[-1]
        if size == "desktop":
            page.mouse.move(first["x"], first["y"])
            page.mouse.down()
            for spot in spots[1:]:
                page.mouse.move(spot["x"], spot["y"], steps=3)
            page.mouse.up()
        else:   # a finger: the same path as pointer events of a touch
            page.evaluate("""(spots) => {
              const at = (s) => document.elementFromPoint(s.x, s.y);
              const fire = (el, type, s) => el.dispatchEvent(new PointerEvent(type, {
                bubbles: true, clientX: s.x, clientY: s.y, pointerType: 'touch',
                isPrimary: true, button: 0 }));
              fire(at(spots[0]), 'pointerdown', spots[0]);
              for (const s of spots.slice(1)) fire(at(s), 'pointermove', s);
              fire(at(spots[spots.length - 1]), 'pointerup', spots[spots.length - 1]);
            }""", spots)
        selected = page.evaluate(
            "() => [...window.baohuang.screen.selection].sort((a, b) => a - b)")
        assert selected == sorted(s["index"] for s in spots)
        # a plain click still toggles one card
        page.evaluate("(i) => document.querySelector(`[data-testid=card][data-index='${i}']`)"
                      ".click()", last["index"])
        assert page.evaluate("() => window.baohuang.screen.selection.size") == 3
        # swiping from a selected card clears the cards passed over
        page.mouse.move(first["x"], first["y"])
        page.mouse.down()
        page.mouse.move(spots[2]["x"], spots[2]["y"], steps=4)
        page.mouse.up()
        assert page.evaluate("() => window.baohuang.screen.selection.size") == 0


@pytest.mark.parametrize("size", list(SIZES))
def test_nothing_moves_when_hosted_comes_and_goes(browser: Browser, patient_server: str,
                                                  size: str) -> None:
    with sized_page(browser, patient_server, size) as page:
        quickplay(page, "Still", bots="hosted", practice=True, seed=9, timeout=60)
        wait_turn_or_over(page)
        # where the table starts on the page
        where = "() => document.querySelector('.felt').getBoundingClientRect().top" \
            " + window.scrollY"
        before = page.evaluate(where)
        # (read the moment the banner comes, and take 托管 back at once)
        page.evaluate(f"""() => {{
          const watch = new MutationObserver(() => {{
            const back = document.querySelector('[data-testid=take-back]');
            if (!back || window.feltTop !== undefined) return;
            window.feltTop = ({where})();
            watch.disconnect();
            back.click();
          }});
          watch.observe(document.getElementById('app'), {{childList: true, subtree: true}});
        }}""")
        page.evaluate("() => window.baohuang.screen.send({type: 'hosted', on: true})")
        page.wait_for_function("() => window.feltTop !== undefined")
        assert page.evaluate("() => window.feltTop") == before
        page.get_by_test_id("hosted-banner").wait_for(state="detached")


@pytest.mark.parametrize("size", list(SIZES))
def test_the_hand_stays_put_when_a_decision_dialog_comes_and_goes(
        browser: Browser, server: str, size: str) -> None:
    with sized_page(browser, server, size) as page:
        quickplay(page, "Steady", bots="hosted", practice=True, seed=9, timeout=60)
        top = "() => document.querySelector('[data-testid=hand]').getBoundingClientRect().top" \
            " + window.scrollY"
        page.get_by_test_id("decision").first.wait_for()
        with_dialog = page.evaluate(top)
        # our turn's timer does not make our seat taller: the hand would move a few
        # pixels each time the turn comes and goes
        shown, hidden = page.evaluate("""() => {
          const seat = document.querySelector('.bottom > [data-testid=seat]');
          const timer = seat.querySelector('[data-testid=timer]');
          const shown = seat.getBoundingClientRect().height;
          timer.style.display = 'none';
          const hidden = seat.getBoundingClientRect().height;
          timer.style.display = '';
          return [shown, hidden]; }""")
        assert shown == hidden, (shown, hidden)
        version = page.evaluate("() => window.baohuang.screen.version")
        # the cautious answer (the last button): it changes no badge on the table
        page.get_by_test_id("decision").last.click()
        page.wait_for_function(f"() => window.baohuang.screen.version > {version}")
        page.wait_for_function("() => !document.querySelector('[data-testid=decision]')"
                               " || window.baohuang.screen.version > " + str(version + 1))
        if page.get_by_test_id("decision").count() == 0:
            # (a pixel of rounding is no jump)
            assert abs(page.evaluate(top) - with_dialog) <= 2, (page.evaluate(top), with_dialog)


@pytest.mark.parametrize("size", list(SIZES))
def test_sounds_for_plays_and_our_turn_can_be_switched_off(browser: Browser, server: str,
                                                            size: str) -> None:
    with sized_page(browser, server, size) as page:
        quickplay(page, "Sound", bots="random", practice=True, seed=7, timeout=60)
        while not page.evaluate("() => (window.baohuangChimes || 0) > 0"):
            st = wait_turn_or_over(page)          # answer the role phase; plays sound
            assert st is not None
            if st["stage"] != "play":
                page.get_by_test_id("decision").first.click()
                wait_moved(page, st["version"])
        toggle = page.get_by_test_id("sound-toggle")
        assert toggle.get_attribute("aria-pressed") == "true"
        tall_enough(page, "sound-toggle")
        toggle.click()
        assert page.get_by_test_id("sound-toggle").get_attribute("aria-pressed") == "false"
        heard = page.evaluate("() => window.baohuangChimes")
        version = page.evaluate("() => window.baohuang.screen.version")
        # play on (托管 for us) until the game is over: not one more sound
        page.evaluate("() => window.baohuang.screen.send({type: 'hosted', on: true})")
        page.wait_for_function(f"() => window.baohuang.screen.version > {version} + 5"
                               " || !!document.querySelector('[data-testid=score-sheet]')",
                               timeout=GAME_SECONDS * 1000)
        assert page.evaluate("() => window.baohuangChimes") == heard
        page.reload()
        page.get_by_test_id("sound-toggle").wait_for()
        assert page.get_by_test_id("sound-toggle").get_attribute("aria-pressed") == "false"


DIALOG_OVER_SEATS_JS = """() => {
  const dialog = document.querySelector('.decision-dialog');
  if (!dialog) return null;
  const d = dialog.getBoundingClientRect();
  const overlaps = [...document.querySelectorAll('.felt [data-testid=seat]')].filter((el) => {
    const r = el.getBoundingClientRect();
    return r.left < d.right && d.left < r.right && r.top < d.bottom && d.top < r.bottom;
  }).map((el) => el.dataset.seat);
  const small = [...dialog.querySelectorAll('button')].filter((el) => {
    const r = el.getBoundingClientRect();
    return r.height < 44 || r.width < 44;
  }).map((el) => el.dataset.choice);
  return {overlaps, small, seats: document.querySelectorAll('.felt [data-testid=seat]').length};
}"""


@pytest.mark.parametrize("size", list(SIZES))
def test_a_decision_dialog_hides_no_opponents_seat(browser: Browser, server: str,
                                                   size: str) -> None:
    with sized_page(browser, server, size) as page:
        quickplay(page, "Seats", bots="hosted", practice=True, seed=9, timeout=60)
        page.get_by_test_id("decision").first.wait_for()
        found = page.evaluate(DIALOG_OVER_SEATS_JS)
        assert found is not None and found["seats"] == 4
        assert found["overlaps"] == [], found        # every opponent's seat in full view
        assert found["small"] == [], found           # every choice at least 44 px
        # the call of a Guard's card: the largest dialog, drawn from a view with its choices
        page.evaluate("""() => { const s = window.baohuang.screen;
          s.setView({...s.view, stage: 'call', to_act: s.view.seat, legal_actions:
            ['9h', 'Qs', 'Ad', '2c'].map((c) => ({kind: 'call', cards: [c]}))
              .concat([{kind: 'solo_open'}])});
          s.render(); }""")
        page.locator("[data-testid=decision][data-choice=call]").first.wait_for()
        found = page.evaluate(DIALOG_OVER_SEATS_JS)
        assert found is not None and found["overlaps"] == [] and found["small"] == [], found
        shot(page, f"dialog-seats-{size}.png")


WATCH_MOTION_JS = """() => {
  window.motionSeen = [];
  new MutationObserver(() => {
    for (const el of document.querySelectorAll('.enter .card')) {
      window.motionSeen.push(getComputedStyle(el).animationName);
    }
  }).observe(document.getElementById('app'), {childList: true, subtree: true});
}"""


def _lead_a_single(page: Page) -> list[str]:
    """Answer the role phase, lead the lowest single; the animations its cards had."""
    to_the_play(page)
    view = page.evaluate("() => window.baohuang.screen.view")
    single = next(a["cards"] for a in reversed(view["legal_actions"])
                  if a["kind"] == "play" and len(a["cards"]) == 1)
    page.evaluate(WATCH_MOTION_JS)
    click_card(page, single[0])
    page.get_by_test_id("play").click()
    page.wait_for_function("() => window.motionSeen.length > 0")
    seen: list[str] = page.evaluate("() => window.motionSeen")
    return seen


@pytest.mark.parametrize("size", list(SIZES))
def test_sound_and_motion_follow_reduced_motion_and_switch(browser: Browser, server: str,
                                                           size: str) -> None:
    width, height = SIZES[size]
    touch = size != "desktop"
    for reduce in (True, False):
        context = browser.new_context(viewport={"width": width, "height": height},
                                      base_url=server, has_touch=touch, is_mobile=touch,
                                      locale="zh-CN",
                                      reduced_motion="reduce" if reduce else "no-preference")
        page = context.new_page()
        page.set_default_timeout(30000)
        errors: list[str] = []

        def record(exc: Any, errors: list[str] = errors) -> None:
            errors.append(str(exc))
        page.on("pageerror", record)
        try:
            quickplay(page, "Calm" if reduce else "Lively", bots="hosted", practice=True,
                       seed=9, timeout=60)
            motion = page.evaluate("() => document.documentElement.dataset.motion")
            assert motion == ("off" if reduce else "on")
            sound = page.get_by_test_id("sound-toggle").get_attribute("aria-pressed")
            assert sound == ("false" if reduce else "true")
            assert page.get_by_test_id("motion-toggle").get_attribute("aria-pressed") == sound
            tall_enough(page, "motion-toggle")
            seen = _lead_a_single(page)
            # a played card moves in only where motion is on; no sound asked for, none made
            assert set(seen) == ({"none"} if reduce else {"deal-in"}), seen
            if reduce:
                assert page.evaluate("() => window.baohuangChimes || 0") == 0
            # the player's switch overrides the system's wish, and is remembered
            page.get_by_test_id("motion-toggle").click()
            page.reload()
            page.get_by_test_id("motion-toggle").wait_for()
            assert page.evaluate("() => document.documentElement.dataset.motion") == \
                ("on" if reduce else "off")
            assert page.get_by_test_id("motion-toggle").get_attribute("aria-pressed") == \
                ("true" if reduce else "false")
            bubble = page.evaluate("""() => { const el = document.createElement('div');
              el.className = 'card-row enter'; el.innerHTML = '<div class=card></div>';
              document.body.appendChild(el);
              const name = getComputedStyle(el.firstChild).animationName;
              el.remove(); return name; }""")
            assert bubble == ("deal-in" if reduce else "none")
            assert errors == []
        finally:
            context.close()


@pytest.mark.parametrize("size", list(SIZES))
def test_an_invitation_asks_who_joins_before_seating(browser: Browser, server: str,
                                                     size: str) -> None:
    with (sized_page(browser, server, size) as host,
          sized_page(browser, server, size, lang="en") as friend):
        host.goto("/")
        host.get_by_test_id("create-form").wait_for()
        table = host.evaluate("""async () => {
          const api = await import('/api.js');
          await window.baohuang.ensureUser('Host');
          return api.post('/api/tables', {bots: {'2': 'random', '3': 'random', '4': 'random'},
                                          practice: true, seed: 4});
        }""")
        seats = "() => window.baohuang.screen && window.baohuang.screen.table" \
            " && window.baohuang.screen.table.seats"
        host.goto(f"/#/t/{table['code']}")
        host.wait_for_function(f"() => ({seats})() && ({seats})()[0]")
        # the link alone seats nobody: it asks for a name (or a login) first
        friend.goto(f"/#/t/{table['code']}")
        panel = friend.get_by_test_id("invite")
        panel.wait_for()
        assert "who you are" in panel.inner_text()
        assert friend.evaluate("() => window.baohuang.user") is None
        assert host.evaluate(f"() => ({seats})()[1]") is None
        if size != "desktop":
            assert friend.evaluate(SMALL_CONTROLS_JS) == []
        shot(friend, f"invite-{size}.png")
        friend.get_by_test_id("invite-sit").click()              # no name: asked again
        assert friend.get_by_test_id("invite-error").inner_text() == "Type a name first."
        assert host.evaluate(f"() => ({seats})()[1]") is None
        if size == "desktop":
            # someone with an account logs in there, Enter in the password field
            name = f"inv{int(time.time() * 1000) % 10**8}"
            friend.evaluate(f"""async () => {{ const api = await import('/api.js');
              await api.post('/api/register', {{name: '{name}', password: 'secret-pass'}});
              await api.post('/api/logout'); }}""")
            friend.get_by_test_id("invite-acct-name").fill(name)
            friend.get_by_test_id("invite-password").fill("secret-pass")
            friend.get_by_test_id("invite-password").press("Enter")
        else:
            name = f"Mei{size[0]}"
            friend.get_by_test_id("invite-name").fill(name)
            friend.get_by_test_id("invite-sit").click()
        friend.get_by_test_id("hand").wait_for()
        host.wait_for_function(f"() => (({seats})()[1] || {{}}).name === '{name}'")
        assert friend.evaluate("() => window.baohuang.screen.view.seat") == 1


@pytest.mark.parametrize("size", list(SIZES))
def test_free_chat_at_a_private_table_is_text_limited_and_mutable(browser: Browser,
                                                                  server: str,
                                                                  size: str) -> None:
    with (sized_page(browser, server, size) as page,
          sized_page(browser, server, size, lang="en") as watcher):
        quickplay(page, "Talk", bots="hosted", practice=True, seed=5, timeout=60,
                   private=True)
        assert page.get_by_test_id("private-badge").inner_text() == "私人桌"
        # (a private table is watched by its invitation code: its id admits its members only)
        code = page.evaluate("() => window.baohuang.screen.table.code")
        watcher.goto(f"/#/w/{code}")
        watcher.wait_for_function("() => window.baohuang.screen && window.baohuang.screen.view")
        page.get_by_test_id("emote-open").click()
        line = page.get_by_test_id("chat-input")
        assert line.get_attribute("maxlength") == "120"
        tall_enough(page, "chat-input")
        tall_enough(page, "chat-send")
        # what is being typed survives the table's redraws
        line.fill("draft")
        page.evaluate("() => window.baohuang.screen.render()")
        assert page.get_by_test_id("chat-input").input_value() == "draft"
        shot(page, f"chat-panel-{size}.png")
        said = '<img src=x onerror="window.pwned=1">好牌 <b>bold</b>'
        page.get_by_test_id("chat-input").fill(said)
        page.get_by_test_id("chat-input").press("Enter")
        mine = page.locator("[data-testid=seat].me [data-testid=bubble]")
        mine.wait_for()
        assert mine.inner_text() == said                  # as text, never as markup
        bubble = watcher.locator("[data-testid=seat][data-seat='0'] [data-testid=bubble]")
        bubble.wait_for()
        assert bubble.inner_text() == said
        for pg in (page, watcher):
            assert pg.locator("[data-testid=bubble] img, [data-testid=bubble] b").count() == 0
            assert pg.evaluate("() => window.pwned") is None
        shot(page, f"chat-bubble-{size}.png")
        # one message every 3 seconds: of two sent one right after the other, the second
        # is refused, however long the checks above took (the first is refused too if
        # they took less than 3 s)
        for text in ("again", "once more"):
            page.get_by_test_id("emote-open").click()
            page.get_by_test_id("chat-input").fill(text)
            page.get_by_test_id("chat-send").click()
        page.wait_for_function("() => (window.baohuang.screen.message || {}).key"
                               " === 'err_rate_limited'")
        # the watcher mutes: the words go at once
        watcher.evaluate("() => window.baohuang.screen.muteChat()")
        bubble.wait_for(state="detached")
        # a table that is not private has the quick phrases only; the server says why
        quickplay(page, "Public", bots="hosted", practice=True, seed=5, timeout=60)
        assert page.get_by_test_id("private-badge").count() == 0
        page.get_by_test_id("emote-open").click()
        page.get_by_test_id("emote-panel").wait_for()
        assert page.get_by_test_id("chat-input").count() == 0
        page.evaluate("() => window.baohuang.screen.send({type: 'chat', text: 'hi'})")
        page.wait_for_function("() => (window.baohuang.screen.message || {}).key"
                               " === 'err_not_private'")
        assert "私人桌" in page.get_by_test_id("message").inner_text()
