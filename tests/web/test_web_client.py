"""The browser client against a real ``baohuang serve`` (uvicorn on loopback, SQLite in a
temporary directory) driven by Debian's Chromium through Playwright.

Every move is made the way a person makes it: clicking cards and buttons, or typing.
The client's own state (``window.baohuang``) is read only to pick which legal play to
make next; every action goes through the page.  Screenshots go to ``test-output/``.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page

sync_api = pytest.importorskip("playwright.sync_api")

ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / "test-output"
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--disable-gpu"]
CJK = re.compile(r"[\u3400-\u9fff\uf900-\ufaff\u3000-\u303f\uff00-\uffef]")
GAME_SECONDS = 90


# -- fixtures ---------------------------------------------------------------------------------

def _chromium() -> str | None:
    """Debian's Chromium, installed with apt-get when missing (and possible)."""
    if not Path(CHROMIUM).exists() and shutil.which("apt-get") and os.geteuid() == 0:
        env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
        subprocess.run(["apt-get", "update", "-qq"], env=env, capture_output=True, timeout=600,
                       check=False)
        subprocess.run(["apt-get", "install", "-y", "-qq", "chromium"], env=env,
                       capture_output=True, timeout=900, check=False)
    return CHROMIUM if Path(CHROMIUM).exists() else None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A real server with fast bots; yields its base URL."""
    yield from _serve(tmp_path_factory, "web", "--hosted-delay", "0.01")


@pytest.fixture(scope="module")
def patient_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A real server with fast bots whose 托管 waits ten minutes before it moves: a
    player who turns 托管 on holds the game at his next turn, so what the test does
    next cannot race the game's end."""
    yield from _serve(tmp_path_factory, "patient", "--hosted-delay", "600")


def _serve(tmp_path_factory: pytest.TempPathFactory, name: str, *flags: str) -> Iterator[str]:
    tmp = tmp_path_factory.mktemp(name)
    port = _free_port()
    log = (tmp / "server.log").open("w")
    proc = subprocess.Popen(
        [sys.executable, "-c", "from baohuang.cli import main; main()", "serve",
         "--host", "127.0.0.1", "--port", str(port),
         "--db", f"sqlite+aiosqlite:///{tmp / 'web.db'}",
         "--bot-delay", "0.01", "--guard-pause", "0", "--next-game-delay", "0.5", *flags,
         "--log-level", "warning"],
        stdout=log, stderr=subprocess.STDOUT, cwd=tmp)
    url = f"http://127.0.0.1:{port}"
    try:
        for _ in range(300):
            try:
                with urllib.request.urlopen(f"{url}/api/rules", timeout=1) as res:
                    if res.status == 200:
                        break
            except OSError:
                if proc.poll() is not None:
                    raise AssertionError("baohuang serve exited: "
                                         + (tmp / "server.log").read_text()) from None
                time.sleep(0.1)
        else:
            raise AssertionError("baohuang serve did not answer within 30 s")
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(5)
        log.close()


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    path = _chromium()
    if path is None:
        pytest.skip("Chromium is not installed at /usr/bin/chromium and apt-get could not "
                    "install it")
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=path, args=CHROMIUM_ARGS)
        yield b
        b.close()


def _page(browser: Browser, server: str, width: int = 1280, height: int = 900,
          lang: str | None = None, touch: bool = False) -> tuple[Page, list[str]]:
    context = browser.new_context(viewport={"width": width, "height": height},
                                  base_url=server, has_touch=touch, is_mobile=touch)
    if lang:
        context.add_init_script(f"localStorage.setItem('bh_lang', '{lang}')")
    page = context.new_page()
    page.set_default_timeout(15000)
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    return page, errors


@pytest.fixture
def page(browser: Browser, server: str) -> Iterator[Page]:
    pg, errors = _page(browser, server)
    yield pg
    pg.context.close()
    assert errors == []


def _shot(page: Page, name: str, full: bool = False) -> None:
    OUT.mkdir(exist_ok=True)
    page.screenshot(path=str(OUT / name), full_page=full)


# -- driving a game -----------------------------------------------------------------------

STATE_JS = """() => {
  const s = window.baohuang && window.baohuang.screen;
  const v = s && s.view;
  if (!v) return null;
  return {stage: v.stage, to_act: v.to_act, seat: v.seat, legal: v.legal_actions,
          hand: v.hand, version: s.version, table: s.table && s.table.id};
}"""


def state(page: Page) -> dict[str, Any] | None:
    result: dict[str, Any] | None = page.evaluate(STATE_JS)
    return result


def my_turn(st: dict[str, Any] | None) -> bool:
    return bool(st and st["stage"] != "over" and st["seat"] is not None
                and st["to_act"] == st["seat"] and st["legal"])


def wait_turn_or_over(page: Page) -> dict[str, Any] | None:
    """Wait until the page asks this player for something, or shows the score sheet."""
    page.wait_for_function("""() => {
      if (document.querySelector('[data-testid=score-sheet]')) return true;
      const s = window.baohuang && window.baohuang.screen, v = s && s.view;
      return !!(v && v.stage !== 'over' && v.seat !== null && v.to_act === v.seat
                && v.legal_actions.length);
    }""", timeout=GAME_SECONDS * 1000)
    if page.get_by_test_id("score-sheet").count():
        return None
    return state(page)


def wait_moved(page: Page, version: int) -> None:
    page.wait_for_function(
        f"() => window.baohuang.screen.version > {version}"
        " || !!document.querySelector('[data-testid=score-sheet]')")


def biggest_play(legal: list[dict[str, Any]]) -> list[str] | None:
    plays: list[list[str]] = [a["cards"] for a in legal if a["kind"] == "play"]
    if not plays:
        return None
    return max(plays, key=lambda cards: (len(cards), -sum(c[:2] in ("BJ", "SJ") for c in cards)))


def click_card(page: Page, card: str) -> None:
    """Click the visible corner of an unselected copy of ``card`` in the hand."""
    page.locator(f'[data-testid=hand] [data-testid=card][data-card="{card}"]:not(.selected)') \
        .first.click(position={"x": 5, "y": 14})


def key_for(card: str) -> str:
    rank = card.rstrip("*")
    if rank == "TH":
        return "x"
    if rank in ("BJ", "SJ"):
        return rank[0].lower()
    rank = rank[:-1] if rank[-1] in "shdc" else rank
    return "0" if rank == "10" else rank.lower()


def play_game(page: Page, keyboard: bool = False, check: Any = None) -> dict[str, Any]:
    """Play this seat's game to the end through the UI; returns what happened."""
    seen: dict[str, Any] = {"decisions": [], "plays": 0, "passes": 0}
    deadline = time.monotonic() + GAME_SECONDS
    while time.monotonic() < deadline:
        st = wait_turn_or_over(page)
        if st is None:
            # the score sheet's totals come with game_over, just after the last event
            page.wait_for_function("() => !!window.baohuang?.screen?.gameOver")
            return seen
        if st["stage"] != "play":
            buttons = page.get_by_test_id("decision")
            expected = sorted({a["kind"] for a in st["legal"]})
            assert sorted({b.get_attribute("data-choice") or "" for b in buttons.all()}) == expected
            first = buttons.first
            seen["decisions"].append((st["stage"], first.get_attribute("data-choice")))
            if check:
                check(page, "decision")
            if keyboard:
                page.keyboard.press("1")
            else:
                first.click()
        else:
            cards = biggest_play(st["legal"])
            can_pass = any(a["kind"] == "pass" for a in st["legal"])
            if cards is None or (keyboard and can_pass and not seen["passes"]):
                if keyboard:
                    page.keyboard.press(" ")
                else:
                    page.get_by_test_id("pass").click()
                seen["passes"] += 1
            else:
                for card in cards:
                    if keyboard:
                        page.keyboard.press(key_for(card))
                    else:
                        click_card(page, card)
                expect_ok = page.get_by_test_id("message")
                assert "bad" not in (expect_ok.get_attribute("class") or ""), \
                    expect_ok.inner_text()
                if check and seen["plays"] == 0:
                    check(page, "selected")
                if keyboard:
                    page.keyboard.press("Enter")
                else:
                    page.get_by_test_id("play").click()
                seen["plays"] += 1
        wait_moved(page, st["version"])
    raise AssertionError(f"the game did not end within {GAME_SECONDS} s: {seen}")


def start_vs_bots(page: Page, keyboard: bool = False) -> None:
    page.goto("/")
    button = page.get_by_test_id("play-vs-bots")
    if keyboard:
        button.focus()
        page.keyboard.press("Enter")
    else:
        button.click()
    page.get_by_test_id("hand").wait_for()
    page.wait_for_function("() => window.baohuang?.screen?.view")


def visible_text(page: Page) -> str:
    """What a reader sees, without user-given names and the language switch's own label."""
    text: str = page.evaluate("""() => {
      const body = document.body.cloneNode(true);
      for (const el of body.querySelectorAll('.free, [data-testid=lang-toggle], script')) {
        el.remove();
      }
      const host = document.createElement('div');
      host.style.cssText = 'position:absolute;left:-9999px;top:0;width:1200px';
      host.appendChild(body);
      document.documentElement.appendChild(host);
      const text = host.innerText;
      host.remove();
      return text;
    }""")
    return text


def assert_english(page: Page, where: str) -> None:
    text = visible_text(page)
    found = sorted(set(CJK.findall(text)))
    assert not found, f"Chinese left in English mode ({where}): {found} in {text[:400]!r}"


ALLOWED_LATIN = {"Esc"}


def assert_chinese(page: Page, where: str) -> None:
    text = visible_text(page)
    words = {w for w in re.findall(r"[A-Za-z]{3,}", text) if w not in ALLOWED_LATIN}
    assert not words, f"English left in Chinese mode ({where}): {sorted(words)}"


# -- tests --------------------------------------------------------------------------------

def test_whole_game_vs_bots_with_the_mouse(page: Page) -> None:
    page.goto("/")
    page.get_by_test_id("play-vs-bots").wait_for()
    page.wait_for_selector("[data-testid=create-form]")
    _shot(page, "lobby.png", full=True)
    page.get_by_test_id("play-vs-bots").click()
    page.get_by_test_id("hand").wait_for()
    assert re.search(r"#/t/\w+", page.url)
    seats = page.get_by_test_id("seat")
    assert sorted(s.get_attribute("data-seat") or "" for s in seats.all()) == list("01234")
    hand = page.locator("[data-testid=hand] [data-testid=card]")
    assert hand.count() >= 33
    assert all(re.fullmatch(r"(10|[2-9JQKA])[shdc]|[BS]J\*?", c.get_attribute("data-card") or "")
               for c in hand.all())
    shots: set[str] = set()

    def check(pg: Page, moment: str) -> None:
        if moment == "decision" and "decision" not in shots:
            shots.add("decision")
            _shot(pg, "table-decision.png")
        if moment == "selected" and "selected" not in shots:
            shots.add("selected")
            _shot(pg, "table.png")
            st = state(pg)
            assert st is not None
            _illegal_selection_shows_reason(pg, st)
            _hint_selects_legal_plays(pg)
            for card in biggest_play(st["legal"]) or []:
                click_card(pg, card)

    seen = play_game(page, check=check)
    assert seen["plays"] >= 1
    sheet = page.get_by_test_id("score-sheet")
    assert sheet.is_visible()
    scores = [int(s.inner_text()) for s in sheet.get_by_test_id("score").all()]
    assert len(scores) == 5
    assert_chinese(page, "score sheet")
    _shot(page, "score-sheet.png")
    _replay_from_score_sheet(page)


def _illegal_selection_shows_reason(page: Page, st: dict[str, Any]) -> None:
    """Two cards of different ranks are refused before sending, with the reason."""
    version = st["version"]
    page.keyboard.press("Escape")
    ranks: dict[str, str] = {}
    for card in st["hand"]:
        rank = card.rstrip("*").rstrip("shdc") or card
        if not card.startswith(("BJ", "SJ")):
            ranks.setdefault(rank, card)
    if len(ranks) < 2:
        return
    a, b = list(ranks.values())[:2]
    click_card(page, a)
    click_card(page, b)
    page.get_by_test_id("play").click()
    message = page.get_by_test_id("message")
    assert "bad" in (message.get_attribute("class") or "")
    assert "同一点数" in message.inner_text()
    assert page.evaluate("() => window.baohuang.screen.version") == version
    page.keyboard.press("Escape")
    assert page.locator("[data-testid=hand] .card.selected").count() == 0


def _hint_selects_legal_plays(page: Page) -> None:
    seen = set()
    for _ in range(3):
        page.get_by_test_id("hint").click()
        selected = tuple(c.get_attribute("data-card")
                         for c in page.locator("[data-testid=hand] .card.selected").all())
        assert selected
        assert "ok" in (page.get_by_test_id("message").get_attribute("class") or "")
        seen.add(selected)
    assert len(seen) >= 2 or len(page.evaluate(
        "() => window.baohuang.screen.view.legal_actions.filter(a => a.kind === 'play')")) == 1
    page.keyboard.press("Escape")


def _replay_from_score_sheet(page: Page) -> None:
    page.get_by_test_id("review").click()
    page.get_by_test_id("replay-bar").wait_for()
    last = page.get_by_test_id("replay-step").inner_text()
    page.get_by_test_id("replay-first").click()
    first = page.get_by_test_id("replay-step").inner_text()
    assert first != last
    page.get_by_test_id("replay-next").click()
    page.get_by_test_id("replay-seat").select_option("all")
    open_cards = page.locator(".open-hand [data-card]").count()
    assert open_cards > 100      # four other hands are shown
    page.get_by_test_id("replay-seat").select_option("2")
    held = page.evaluate("() => { const s = window.baohuang.screen;"
                         " return s.steps()[s.step].hands['2']; }")
    shown = [c.get_attribute("data-card") or ""
             for c in page.locator("[data-testid=hand] [data-testid=card]").all()]
    assert len(held) >= 30 and sorted(shown) == sorted(held)
    assert page.locator("[data-testid=seat].me").get_attribute("data-seat") == "2"
    page.keyboard.press("End")
    assert page.get_by_test_id("replay-step").inner_text() == last
    assert_chinese(page, "replay")
    _shot(page, "replay.png")


def test_reload_mid_game_resumes_the_same_game(page: Page) -> None:
    start_vs_bots(page)
    st = wait_turn_or_over(page)
    assert st is not None
    url, hand = page.url, st["hand"]
    page.reload()
    page.get_by_test_id("hand").wait_for()
    page.wait_for_function("() => window.baohuang?.screen?.view")
    again = state(page)
    assert again is not None
    assert page.url == url
    assert again["table"] == st["table"]
    assert again["hand"] == hand
    assert again["version"] >= st["version"]
    # and the game goes on from there
    st = wait_turn_or_over(page)
    assert st is not None
    if st["stage"] == "play":
        cards = biggest_play(st["legal"])
        assert cards is not None
        for card in cards:
            click_card(page, card)
        page.get_by_test_id("play").click()
    else:
        page.get_by_test_id("decision").first.click()
    wait_moved(page, st["version"])
    # a dropped connection shows the banner, reconnects by itself and resyncs
    page.evaluate("() => window.baohuang.screen.conn.ws.close()")
    page.get_by_test_id("reconnect-banner").wait_for(state="visible", timeout=3000)
    page.get_by_test_id("reconnect-banner").wait_for(state="hidden", timeout=10000)
    assert page.evaluate("() => window.baohuang.screen.conn.ws.readyState") == 1


def test_language_toggle_switches_every_visible_string(page: Page) -> None:
    page.goto("/")
    page.wait_for_selector("[data-testid=create-form]")
    page.locator("details.all-options").evaluate("el => el.open = true")
    assert_chinese(page, "lobby")
    toggle = page.get_by_test_id("lang-toggle")
    toggle.click()
    page.wait_for_function("() => document.documentElement.lang === 'en'")
    page.locator("details.all-options").evaluate("el => el.open = true")
    assert_english(page, "lobby")
    assert page.get_by_test_id("play-vs-bots").inner_text() == "Play now vs bots"
    _shot(page, "lobby-en.png", full=True)
    page.get_by_test_id("play-vs-bots").click()
    page.get_by_test_id("hand").wait_for()
    page.locator("details.log").evaluate("el => el.open = true")
    assert_english(page, "table")
    page.get_by_test_id("lang-toggle").click()
    page.wait_for_function("() => document.documentElement.lang === 'zh-CN'")
    page.locator("details.log").evaluate("el => el.open = true")
    assert_chinese(page, "table")
    keys = page.evaluate("""async () => {
      const zh = (await import('/i18n/zh.js')).default, en = (await import('/i18n/en.js')).default;
      const a = Object.keys(zh), b = Object.keys(en);
      return [a.filter(k => !(k in en)), b.filter(k => !(k in zh))];
    }""")
    assert keys == [[], []]


def test_the_lobby_keeps_keyboard_focus_when_it_redraws(page: Page) -> None:
    """The lobby redraws when its tables arrive (and on every refresh): a keyboard
    user's focus on a button stays on it."""
    page.goto("/")
    button = page.get_by_test_id("play-vs-bots")
    button.focus()
    page.evaluate("() => window.baohuang.screen.render()")
    assert page.evaluate("() => document.activeElement.dataset.testid") == "play-vs-bots"


def test_keyboard_only_game_in_english(browser: Browser, server: str) -> None:
    page, errors = _page(browser, server, lang="en")
    try:
        start_vs_bots(page, keyboard=True)

        def check(pg: Page, moment: str) -> None:
            pg.locator("details.log").evaluate("el => el.open = true")
            assert_english(pg, moment)

        seen = play_game(page, keyboard=True, check=check)
        assert seen["plays"] >= 1 and seen["decisions"]
        sheet = page.get_by_test_id("score-sheet")
        assert sheet.is_visible()
        assert_english(page, "score sheet")
        _shot(page, "score-sheet-en.png")
        assert errors == []
    finally:
        page.context.close()


def test_phone_viewport_shows_the_whole_hand(browser: Browser, server: str) -> None:
    page, errors = _page(browser, server, width=360, height=740)
    try:
        page.goto("/")
        page.wait_for_selector("[data-testid=create-form]")
        page.locator("details.all-options").evaluate("el => el.open = true")
        for _ in range(2):      # both languages fit
            assert page.evaluate("() => document.scrollingElement.scrollWidth") <= 360
            page.get_by_test_id("lang-toggle").click()
        _shot(page, "phone-lobby.png", full=True)
        start_vs_bots(page)
        st = wait_turn_or_over(page)
        assert st is not None
        hand = page.get_by_test_id("hand")
        hand.scroll_into_view_if_needed()
        box = hand.bounding_box()
        assert box is not None and box["height"] <= 740
        assert page.evaluate("() => document.scrollingElement.scrollWidth") <= 360
        cards = page.locator("[data-testid=hand] [data-testid=card]")
        assert cards.count() == len(st["hand"])
        corners = page.evaluate("""() => [...document.querySelectorAll(
            '[data-testid=hand] [data-testid=card]')].map(el => {
              const r = el.getBoundingClientRect();
              const top = document.elementFromPoint(r.left + 4, r.top + 6);
              return {x: r.left, right: r.right, top: r.top, bottom: r.bottom,
                      shown: !!top && el.contains(top)};
            })""")
        for c in corners:
            assert c["x"] >= 0 and c["right"] <= 360, c
            assert c["top"] >= 0 and c["bottom"] <= 740, c
            assert c["shown"], c
        _shot(page, "phone-table.png")
        if st["stage"] != "play":
            page.get_by_test_id("decision").first.click()
        assert errors == []
    finally:
        page.context.close()


def test_lobby_lists_every_rule_option_with_help(page: Page, server: str) -> None:
    with urllib.request.urlopen(f"{server}/api/rules") as res:
        rules = json.load(res)
    page.goto("/")
    page.wait_for_selector("[data-testid=create-form]")
    options = page.locator(".create-form [data-option]")
    names = [o.get_attribute("data-option") for o in options.all()]
    assert names == list(rules["options"])
    for option in options.all():
        assert (option.locator(".opt-help").text_content() or "").strip()
    presets = page.get_by_test_id("preset").locator("option")
    assert [p.get_attribute("value") for p in presets.all()] == list(rules["presets"])
    # choosing a preset sets its options
    page.get_by_test_id("preset").select_option("lianzhong_classic")
    assert page.locator("[name=opt_deck]").input_value() == "full"
    assert page.locator("[name=opt_guard_mode]").input_value() == "call"


def _sheet_column(page: Page, testid: str) -> list[int]:
    """One column of the score sheet on screen, once it shows all five seats."""
    cells = page.get_by_test_id("score-sheet").get_by_test_id(testid)
    sync_api.expect(cells).to_have_count(5)
    return [int(t.inner_text()) for t in cells.all()]


def test_match_of_two_games_shows_totals_and_tribute(page: Page) -> None:
    """A table made in the lobby (Shandong rules with tribute on) plays a match of two."""
    page.goto("/")
    form = page.get_by_test_id("create-form")
    form.wait_for()
    page.get_by_test_id("preset").select_option("seed001_216")
    assert page.locator("[name=opt_tribute]").is_checked()
    page.get_by_test_id("preset").select_option("shandong")
    assert not page.locator("[name=opt_tribute]").is_checked()
    page.locator("details.all-options summary").click()
    page.locator("[name=opt_tribute]").check()
    form.locator("[name=games]").fill("2")
    form.locator("[name=fill_bots]").check()
    form.get_by_test_id("create-table").click()
    page.get_by_test_id("hand").wait_for()
    assert page.get_by_test_id("totals").is_visible()
    assert page.evaluate("() => window.baohuang.screen.table.rules.tribute") is True
    play_game(page)
    first_totals = _sheet_column(page, "total")
    first_scores = _sheet_column(page, "score")
    assert first_totals == first_scores
    page.wait_for_function("() => window.baohuang.screen.game === 1 && window.baohuang.screen.view"
                           " && window.baohuang.screen.view.stage !== 'over'")
    events = page.evaluate("() => window.baohuang.screen.view.events.map(e => e.type)")
    if "tribute" in events:        # (the view is in; the table may render a moment later)
        sync_api.expect(page.get_by_test_id("tribute")).to_be_visible()
        _shot(page, "table-tribute.png")
    page.get_by_test_id("last-score").click()
    sync_api.expect(page.locator(".overlay [data-testid=score-sheet]")).to_be_visible()
    page.locator(".overlay [data-testid=close-score]").click()
    sync_api.expect(page.locator(".overlay [data-testid=score-sheet]")).to_have_count(0)
    play_game(page)
    scores = _sheet_column(page, "score")
    totals = _sheet_column(page, "total")
    assert totals == [a + b for a, b in zip(first_totals, scores, strict=True)]
    _shot(page, "score-sheet-match.png")


def test_hosted_toggle_plays_on_while_a_watcher_follows(browser: Browser, server: str) -> None:
    page, errors = _page(browser, server)
    watcher, watcher_errors = _page(browser, server, lang="en")
    try:
        start_vs_bots(page)
        table_id = page.url.split("#/t/")[1]
        watcher.goto(f"/#/w/{table_id}")
        watcher.wait_for_function("() => window.baohuang?.screen?.view")
        assert watcher.get_by_test_id("seat").count() == 5
        assert watcher.get_by_test_id("hand").count() == 0
        assert watcher.evaluate("() => window.baohuang.screen.view.hand.length") == 0
        _shot(watcher, "watcher.png")
        page.get_by_test_id("hosted-toggle").click()
        page.locator("[data-testid=seat].me [data-testid=hosted-mark]").wait_for()
        assert page.get_by_test_id("hosted-toggle").get_attribute("aria-pressed") == "true"
        page.get_by_test_id("score-sheet").wait_for(timeout=GAME_SECONDS * 1000)
        watcher.get_by_test_id("score-sheet").wait_for()
        assert_english(watcher, "watcher score sheet")
        url = page.url
        page.get_by_test_id("again").click()      # a new game against bots, one click
        page.wait_for_function(f"() => location.href !== {json.dumps(url)}")
        page.get_by_test_id("hand").wait_for()
        assert errors == [] and watcher_errors == []
    finally:
        page.context.close()
        watcher.context.close()


def test_friend_joins_by_invitation_link(browser: Browser, server: str) -> None:
    host, host_errors = _page(browser, server)
    friend, friend_errors = _page(browser, server)
    try:
        host.goto("/")
        form = host.get_by_test_id("create-form")
        form.wait_for()
        form.get_by_test_id("create-table").click()
        host.get_by_test_id("wait-seat").first.wait_for()
        assert host.get_by_test_id("wait-seat").count() == 5
        link = host.get_by_test_id("share-link").input_value()
        assert "#/t/" in link
        for seat in (2, 3, 4):
            host.locator(f'[data-testid=wait-seat][data-seat="{seat}"] select.bot-pick') \
                .select_option("easy")
            host.wait_for_function(
                f"() => (window.baohuang.screen.table.seats[{seat}] || {{}}).bot === 'easy'")
        _shot(host, "waiting-room.png")
        friend.goto("/")
        friend.get_by_test_id("join-code").fill(link)
        friend.get_by_test_id("join").click()
        friend.get_by_test_id("invite-name").fill("Mei")        # who joins, first
        friend.get_by_test_id("invite-name").press("Enter")
        for pg in (host, friend):
            pg.get_by_test_id("hand").wait_for()
            pg.wait_for_function("() => window.baohuang?.screen?.view")
        assert host.evaluate("() => window.baohuang.screen.view.seat") == 0
        assert friend.evaluate("() => window.baohuang.screen.view.seat") == 1
        assert host_errors == [] and friend_errors == []
    finally:
        host.context.close()
        friend.context.close()


def test_register_log_out_and_log_in(page: Page) -> None:
    name = f"web{int(time.time() * 1000) % 10**8}"
    page.goto("/")
    page.get_by_test_id("acct-name").fill(name)
    page.get_by_test_id("acct-password").fill("secret-pass")
    page.get_by_test_id("register").click()
    page.get_by_test_id("logout").wait_for()
    assert page.get_by_test_id("user").inner_text().startswith(name)
    page.get_by_test_id("logout").click()
    page.get_by_test_id("acct-name").fill(name)
    page.get_by_test_id("acct-password").fill("wrong-pass")
    page.get_by_test_id("login").click()
    error = page.get_by_test_id("lobby-error")
    error.wait_for()
    assert "密码" in error.inner_text()
    page.get_by_test_id("acct-name").fill(name)
    page.get_by_test_id("acct-password").fill("secret-pass")
    page.get_by_test_id("login").click()
    page.get_by_test_id("logout").wait_for()
    page.reload()
    page.get_by_test_id("logout").wait_for()      # the session cookie keeps me logged in
    page.get_by_test_id("history-link").click()
    page.get_by_text("还没有打完的牌局。").wait_for()


def test_a_password_change_logs_out_the_other_browser(browser: Browser, server: str) -> None:
    """A registered user, logged in in two browsers, changes the password in one: a wrong
    current password and a common new one are refused with their reasons, then the
    change is made; the other browser is logged out, and only the new password logs in."""
    name = f"pw{int(time.time() * 1000) % 10**8}"
    opened = []
    for kind in ("register", "login"):
        page, errors = _page(browser, server)
        page.goto("/")
        page.get_by_test_id("acct-name").fill(name)
        page.get_by_test_id("acct-password").fill("plum rain 9")
        page.get_by_test_id(kind).click()
        page.get_by_test_id("logout").wait_for()
        opened.append((page, errors))
    first, second = (page for page, _ in opened)

    def change(old: str, new: str) -> None:
        first.get_by_test_id("password-change").evaluate("d => { d.open = true; }")
        first.get_by_test_id("pw-old").fill(old)
        first.get_by_test_id("pw-new").fill(new)
        first.get_by_test_id("pw-change").click()

    change("not-mine-1", "pine cone 77")
    first.get_by_text("用户名或密码不对。").wait_for()
    change("plum rain 9", "password1")
    first.get_by_text("密码需6–200位，且不能是常见密码或用户名。").wait_for()
    change("plum rain 9", "pine cone 77")
    assert "其他设备" in first.get_by_test_id("pw-changed").inner_text()
    first.reload()
    first.get_by_test_id("logout").wait_for()          # this browser stays logged in
    second.reload()
    second.get_by_test_id("acct-name").wait_for()      # the other one is logged out
    second.get_by_test_id("acct-name").fill(name)
    second.get_by_test_id("acct-password").fill("plum rain 9")
    second.get_by_test_id("login").click()
    second.get_by_test_id("lobby-error").wait_for()
    second.get_by_test_id("acct-name").fill(name)
    second.get_by_test_id("acct-password").fill("pine cone 77")
    second.get_by_test_id("login").click()
    second.get_by_test_id("logout").wait_for()
    for page, errors in opened:
        page.context.close()
        assert errors == []


def _selection_cases() -> list[tuple[dict[str, Any], list[str], bool]]:
    """Real play-phase views with selections (legal plays and random picks from the hand),
    each with whether the engine accepts that play."""
    import random

    import baohuang as bh
    from baohuang.bots import make_bot

    rng = random.Random(11)
    cases: list[tuple[dict[str, Any], list[str], bool]] = []
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
                view = game.view(seat).to_dict()
                del view["events"]
                hand: list[str] = view["hand"]
                plays = [a for a in legal if a.kind is bh.ActionKind.PLAY]
                for action in rng.sample(plays, min(2, len(plays))):
                    cases.append((view, [str(c) for c in action.cards], True))
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
                    cases.append((view, selection, ok))
            game.apply(bots[seat].choose(game.view(seat), legal))
    return cases


def test_selection_check_agrees_with_the_engine(page: Page) -> None:
    """The client's check of a selection (before sending) says what the engine says."""
    cases = _selection_cases()
    assert sum(ok for _, _, ok in cases) > 50 and sum(not ok for _, _, ok in cases) > 50
    page.goto("/")
    answers = page.evaluate("""async (cases) => {
      const m = await import('/cards.js');
      const zh = (await import('/i18n/zh.js')).default;
      return cases.map(([view, selection]) => {
        const r = m.checkSelection(selection, m.readView(view));   // (as received)
        return [r.ok, r.ok || r.reason in zh];
      });
    }""", [[view, selection] for view, selection, _ in cases])
    wrong = [(sel, ok) for (_, sel, ok), (said, _) in zip(cases, answers, strict=True)
             if said != ok]
    assert wrong == []
    assert all(has_text for _, has_text in answers)


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
    _shot(page, "lobby-wurenju.png", full=True)
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
    page.wait_for_selector("[data-testid=hand], [data-testid=create-error]")
    assert page.get_by_test_id("create-error").count() == 0, \
        page.get_by_test_id("create-error").inner_text()
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


def test_the_guard_sees_and_plays_his_tehua(browser: Browser, server: str) -> None:
    """A 五人局 game where the player is the called Guard: his copy of the called card
    is the 特画, drawn in his hand, named in the log and the dialog, and played."""
    page, errors = _page(browser, server)
    try:
        page.goto("/")
        page.get_by_test_id("create-form").wait_for()
        page.evaluate(f"""async () => {{
          const api = await import('/api.js');
          await window.baohuang.ensureUser('Guard');
          const res = await api.post('/api/quickplay',
            {{preset: 'wurenju', seed: {WURENJU_SEED}, practice: true, bots: 'hosted'}});
          location.hash = `#/t/${{res.id}}`;
        }}""")
        page.wait_for_function("""() => {
          const v = window.baohuang.screen && window.baohuang.screen.view;
          return !!v && v.hand.includes('TH') && v.stage === 'guard' && v.to_act === v.seat;
        }""")
        first = page.locator("[data-testid=hand] [data-testid=card]").first
        sync_api.expect(first).to_have_attribute("data-card", "TH")
        assert "特画" in first.inner_text()
        assert "tehua" in (first.get_attribute("class") or "")
        page.locator("details.log summary").click()
        assert "你那张变成了特画" in page.get_by_test_id("log").inner_text()
        assert "特画" in page.locator(".decision-dialog .dialog-text").inner_text()
        _shot(page, "table-tehua.png")
        page.set_viewport_size({"width": 390, "height": 844})
        _shot(page, "phone-table-tehua.png")
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
                    page.get_by_test_id("pass").click()
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


# -- issue 20: a table people enjoy ---------------------------------------------------------

SIZES = {"desktop": (1280, 900), "phone": (390, 844), "small-phone": (360, 740)}


def _sized(browser: Browser, server: str, size: str, lang: str | None = None
           ) -> tuple[Page, list[str]]:
    width, height = SIZES[size]
    return _page(browser, server, width, height, lang, touch=size != "desktop")


def _tall_enough(page: Page, testid: str) -> None:
    """The control ``testid`` (read at once: the table redraws on every event) is at
    least 44 px each way."""
    box = page.evaluate(f"""() => {{
      const el = document.querySelector('[data-testid={testid}]');
      if (!el) return null;
      const r = el.getBoundingClientRect();
      return {{width: r.width, height: r.height}};
    }}""")
    assert box is not None and box["height"] >= 44 and box["width"] >= 44, (testid, box)


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
    page, errors = _sized(browser, patient_server, size)
    try:
        page.goto("/")
        # (the bot choices come from /api/rules: wait until the page has them)
        page.wait_for_function(
            "() => document.querySelectorAll('[data-testid=quick-bot] option').length >= 3")
        options = page.get_by_test_id("quick-bot").locator("option")
        values = [o.get_attribute("value") for o in options.all()]
        assert "hosted" not in values and values == ["easy", "normal", "hard", "expert",
                                                     "learned"]
        assert [o.inner_text() for o in options.all()] == ["简单", "普通", "困难", "大师",
                                                           "自学型"]
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
        assert errors == []
    finally:
        page.context.close()


LEARNED_LABELS = {"zh": "自学型", "en": "Learned"}


@pytest.mark.parametrize("lang", list(LEARNED_LABELS))
def test_the_learned_bot_is_offered_and_plays_a_game(browser: Browser, server: str,
                                                     lang: str) -> None:
    """The trained network is a choice wherever opponents are chosen (the quick game's
    picker and the new table's form, after the four levels), named in the page's
    language; chosen, it sits in the four other seats and plays a whole game (the
    player's own seat left to 托管)."""
    page, errors = _page(browser, server, lang=lang)
    try:
        page.goto("/")
        page.wait_for_function(
            "() => document.querySelectorAll('[data-testid=quick-bot] option').length >= 5")
        label = LEARNED_LABELS[lang]
        for picker in (page.get_by_test_id("quick-bot"),
                       page.locator("[data-testid=create-form] select[name=bot_kind]")):
            options = picker.locator("option").all()
            assert [o.get_attribute("value") for o in options][-1] == "learned"
            assert options[-1].inner_text() == label
        page.get_by_test_id("quick-bot").select_option("learned")
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


def _quickplay(page: Page, name: str, **body: Any) -> None:
    """A quickplay table made from the lobby's page (as ``name``), opened in the page."""
    page.goto("/")
    page.get_by_test_id("create-form").wait_for()
    page.evaluate(f"""async () => {{
      const api = await import('/api.js');
      await window.baohuang.ensureUser({json.dumps(name)});
      const res = await api.post('/api/quickplay', {json.dumps(body)});
      location.hash = `#/t/${{res.id}}`;
    }}""")
    page.get_by_test_id("hand").wait_for()
    page.wait_for_function("() => window.baohuang?.screen?.view")


@pytest.mark.parametrize("size", list(SIZES))
def test_a_dissolved_match_says_why_and_starts_again_in_one_click(browser: Browser, server: str,
                                                                  size: str) -> None:
    page, errors = _sized(browser, server, size)
    try:
        _quickplay(page, "Wang", games=2, bots="random", practice=True, seed=31)
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
        _shot(page, f"match-dissolved-{size}.png")
        old = page.evaluate("() => window.baohuang.screen.table.id")
        page.reload()                   # after a reload the table still says why
        page.get_by_test_id("match-dissolved").wait_for()
        assert "Wang" in page.get_by_test_id("match-dissolved").inner_text()
        again = page.get_by_test_id("again")
        assert again.inner_text() == "再来一场"
        _tall_enough(page, "again")
        again.click()
        page.wait_for_function(f"() => !location.hash.includes({json.dumps(old)})")
        page.get_by_test_id("hand").wait_for()
        page.wait_for_function(f"""() => {{ const s = window.baohuang.screen;
          return s.view && s.table && s.table.id !== {json.dumps(old)}; }}""")
        table = page.evaluate("() => window.baohuang.screen.table")
        assert table["games"] == 2 and table["status"] == "playing"
        assert [s["bot"] for s in table["seats"][1:]] == ["random"] * 4
        assert page.get_by_test_id("match-status").inner_text() == "第 1/2 局"
        assert errors == []
    finally:
        page.context.close()


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
    page, errors = _sized(browser, server, size)
    try:
        _quickplay(page, "Hint", bots="random", practice=True, seed=12)
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
                page.get_by_test_id("pass").click()
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
        assert errors == []
    finally:
        page.context.close()


@pytest.mark.parametrize("size", list(SIZES))
def test_the_turn_clock_counts_to_the_servers_deadline(browser: Browser, server: str,
                                                       size: str) -> None:
    page, errors = _sized(browser, server, size)
    # this computer's clock is five minutes fast: the clock must still show the server's
    page.context.add_init_script("""(() => { const real = Date.now;
      Date.now = () => real() + 300000; })()""")
    try:
        _quickplay(page, "Clock", bots="random", practice=True, seed=3, timeout=60)
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
    page, errors = _sized(browser, server, size)
    try:
        # 托管 bots pass whenever they follow: our lead wins each round
        _quickplay(page, "Counter", bots="hosted", practice=True, seed=9)
        counter = page.get_by_test_id("card-counter")
        counter.wait_for()
        while True:
            st = wait_turn_or_over(page)
            assert st is not None
            if st["stage"] == "play":
                break
            page.get_by_test_id("decision").first.click()
            wait_moved(page, st["version"])
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
        _shot(page, f"last-trick-{size}.png")
        page.get_by_test_id("peek-last").click()
        peek = page.get_by_test_id("last-round")
        peek.wait_for()
        assert peek.locator("li").count() == 5
        _shot(page, f"last-round-{size}.png")
        page.get_by_test_id("close-peek").click()
        peek.wait_for(state="detached")
        # the counter is a table option, on by default (TableState counter)
        assert page.evaluate("() => window.baohuang.screen.table.counter") is True
        # the stake chip: the view's stake, and a solo's own ×2 beside it
        stake = page.evaluate("() => window.baohuang.screen.view.stake")
        assert page.get_by_test_id("stake").inner_text() == f"×{stake}"
        solo = page.evaluate("() => window.baohuang.screen.view.solo")
        chip = page.get_by_test_id("solo-factor")
        assert chip.count() == (1 if solo else 0)
        if solo:
            assert chip.inner_text().endswith("×2")
        # a table made without the 记牌器 shows it to no seat
        _quickplay(page, "NoCounter", bots="hosted", practice=True, seed=9, counter=False)
        assert page.evaluate("() => window.baohuang.screen.table.counter") is False
        page.get_by_test_id("hand").wait_for()
        assert page.get_by_test_id("card-counter").count() == 0
        assert errors == []
    finally:
        page.context.close()


SMALL_CONTROLS_JS = """() => [...document.querySelectorAll(
    'button, select, input:not([type=checkbox]), a.btn')]
  .filter((el) => { const r = el.getBoundingClientRect(), s = getComputedStyle(el);
    return r.width > 0 && r.height > 0 && s.visibility !== 'hidden'; })
  .filter((el) => el.getBoundingClientRect().height < 44)
  .map((el) => (el.dataset.testid || el.id || el.className || el.tagName)
       + ' ' + Math.round(el.getBoundingClientRect().height))"""


@pytest.mark.parametrize("size", list(SIZES))
def test_phone_sizes_login_with_enter_and_a_quiet_console(browser: Browser, server: str,
                                                          size: str) -> None:
    page, errors = _sized(browser, server, size)
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
        _shot(page, f"table-{size}.png")
        assert console == [] and errors == []
    finally:
        page.context.close()


@pytest.mark.parametrize("size", list(SIZES))
def test_quick_phrases_show_over_the_seat_and_can_be_muted(browser: Browser, server: str,
                                                           size: str) -> None:
    page, errors = _sized(browser, server, size)
    watcher, watcher_errors = _sized(browser, server, size, lang="en")
    try:
        _quickplay(page, "Chat", bots="hosted", practice=True, seed=5, timeout=60)
        table_id = page.evaluate("() => window.baohuang.screen.table.id")
        watcher.goto(f"/#/w/{table_id}")
        watcher.wait_for_function("() => window.baohuang.screen && window.baohuang.screen.view")
        page.get_by_test_id("emote-open").click()
        panel = page.get_by_test_id("emote-panel")
        panel.wait_for()
        assert panel.get_by_test_id("emote").count() == 14
        _tall_enough(page, "emote")
        _shot(page, f"emote-panel-{size}.png")
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
        assert errors == [] and watcher_errors == []
    finally:
        page.context.close()
        watcher.context.close()


@pytest.mark.parametrize("size", list(SIZES))
def test_a_swipe_over_the_hand_selects_and_clears(browser: Browser, server: str,
                                                  size: str) -> None:
    page, errors = _sized(browser, server, size)
    try:
        _quickplay(page, "Swipe", bots="hosted", practice=True, seed=9, timeout=60)
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
        assert errors == []
    finally:
        page.context.close()


@pytest.mark.parametrize("size", list(SIZES))
def test_nothing_moves_when_hosted_comes_and_goes(browser: Browser, patient_server: str,
                                                  size: str) -> None:
    page, errors = _sized(browser, patient_server, size)
    try:
        _quickplay(page, "Still", bots="hosted", practice=True, seed=9, timeout=60)
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
        assert errors == []
    finally:
        page.context.close()


@pytest.mark.parametrize("size", list(SIZES))
def test_the_hand_stays_put_when_a_decision_dialog_comes_and_goes(
        browser: Browser, server: str, size: str) -> None:
    page, errors = _sized(browser, server, size)
    try:
        _quickplay(page, "Steady", bots="hosted", practice=True, seed=9, timeout=60)
        top = "() => document.querySelector('[data-testid=hand]').getBoundingClientRect().top" \
            " + window.scrollY"
        page.get_by_test_id("decision").first.wait_for()
        with_dialog = page.evaluate(top)
        version = page.evaluate("() => window.baohuang.screen.version")
        # the cautious answer (the last button): it changes no badge on the table
        page.get_by_test_id("decision").last.click()
        page.wait_for_function(f"() => window.baohuang.screen.version > {version}")
        page.wait_for_function("() => !document.querySelector('[data-testid=decision]')"
                               " || window.baohuang.screen.version > " + str(version + 1))
        if page.get_by_test_id("decision").count() == 0:
            # (a pixel of rounding is no jump)
            assert abs(page.evaluate(top) - with_dialog) <= 2, (page.evaluate(top), with_dialog)
        assert errors == []
    finally:
        page.context.close()


@pytest.mark.parametrize("size", list(SIZES))
def test_sounds_for_plays_and_our_turn_can_be_switched_off(browser: Browser, server: str,
                                                            size: str) -> None:
    page, errors = _sized(browser, server, size)
    try:
        _quickplay(page, "Sound", bots="random", practice=True, seed=7, timeout=60)
        while not page.evaluate("() => (window.baohuangChimes || 0) > 0"):
            st = wait_turn_or_over(page)          # answer the role phase; plays sound
            assert st is not None
            if st["stage"] != "play":
                page.get_by_test_id("decision").first.click()
                wait_moved(page, st["version"])
        toggle = page.get_by_test_id("sound-toggle")
        assert toggle.get_attribute("aria-pressed") == "true"
        _tall_enough(page, "sound-toggle")
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
        assert errors == []
    finally:
        page.context.close()


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
    page, errors = _sized(browser, server, size)
    try:
        _quickplay(page, "Seats", bots="hosted", practice=True, seed=9, timeout=60)
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
        _shot(page, f"dialog-seats-{size}.png")
        assert errors == []
    finally:
        page.context.close()


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
    while True:
        st = wait_turn_or_over(page)
        assert st is not None
        if st["stage"] == "play":
            break
        page.get_by_test_id("decision").first.click()
        wait_moved(page, st["version"])
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
                                      reduced_motion="reduce" if reduce else "no-preference")
        page = context.new_page()
        page.set_default_timeout(15000)
        errors: list[str] = []

        def record(exc: Any, errors: list[str] = errors) -> None:
            errors.append(str(exc))
        page.on("pageerror", record)
        try:
            _quickplay(page, "Calm" if reduce else "Lively", bots="hosted", practice=True,
                       seed=9, timeout=60)
            motion = page.evaluate("() => document.documentElement.dataset.motion")
            assert motion == ("off" if reduce else "on")
            sound = page.get_by_test_id("sound-toggle").get_attribute("aria-pressed")
            assert sound == ("false" if reduce else "true")
            assert page.get_by_test_id("motion-toggle").get_attribute("aria-pressed") == sound
            _tall_enough(page, "motion-toggle")
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
    host, host_errors = _sized(browser, server, size)
    friend, friend_errors = _sized(browser, server, size, lang="en")
    try:
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
        _shot(friend, f"invite-{size}.png")
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
        assert host_errors == [] and friend_errors == []
    finally:
        host.context.close()
        friend.context.close()


@pytest.mark.parametrize("size", list(SIZES))
def test_free_chat_at_a_private_table_is_text_limited_and_mutable(browser: Browser,
                                                                  server: str,
                                                                  size: str) -> None:
    page, errors = _sized(browser, server, size)
    watcher, watcher_errors = _sized(browser, server, size, lang="en")
    try:
        _quickplay(page, "Talk", bots="hosted", practice=True, seed=5, timeout=60,
                   private=True)
        assert page.get_by_test_id("private-badge").inner_text() == "私人桌"
        table_id = page.evaluate("() => window.baohuang.screen.table.id")
        watcher.goto(f"/#/w/{table_id}")
        watcher.wait_for_function("() => window.baohuang.screen && window.baohuang.screen.view")
        page.get_by_test_id("emote-open").click()
        line = page.get_by_test_id("chat-input")
        assert line.get_attribute("maxlength") == "120"
        _tall_enough(page, "chat-input")
        _tall_enough(page, "chat-send")
        # what is being typed survives the table's redraws
        line.fill("draft")
        page.evaluate("() => window.baohuang.screen.render()")
        assert page.get_by_test_id("chat-input").input_value() == "draft"
        _shot(page, f"chat-panel-{size}.png")
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
        _shot(page, f"chat-bubble-{size}.png")
        # one message every 3 seconds
        page.get_by_test_id("emote-open").click()
        page.get_by_test_id("chat-input").fill("again")
        page.get_by_test_id("chat-send").click()
        page.wait_for_function("() => (window.baohuang.screen.message || {}).key"
                               " === 'err_rate_limited'")
        # the watcher mutes: the words go at once
        watcher.evaluate("() => window.baohuang.screen.muteChat()")
        bubble.wait_for(state="detached")
        # a table that is not private has the quick phrases only; the server says why
        _quickplay(page, "Public", bots="hosted", practice=True, seed=5, timeout=60)
        assert page.get_by_test_id("private-badge").count() == 0
        page.get_by_test_id("emote-open").click()
        page.get_by_test_id("emote-panel").wait_for()
        assert page.get_by_test_id("chat-input").count() == 0
        page.evaluate("() => window.baohuang.screen.send({type: 'chat', text: 'hi'})")
        page.wait_for_function("() => (window.baohuang.screen.message || {}).key"
                               " === 'err_not_private'")
        assert "私人桌" in page.get_by_test_id("message").inner_text()
        assert errors == [] and watcher_errors == []
    finally:
        page.context.close()
        watcher.context.close()
