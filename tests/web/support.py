"""What the browser tests share: a real ``baohuang serve`` on loopback (uvicorn,
SQLite in a temporary directory), Debian's Chromium through Playwright, and helpers
that play a game through the page the way a person does (clicking cards and buttons,
or typing).  The client's own state (``window.baohuang``) is read only to pick which
legal play to make next.  Screenshots go to ``test-output/``.

Its fixtures reach the tests through ``conftest.py``."""

from __future__ import annotations

import contextlib
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
from server_support import LOOSE

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page

sync_api = pytest.importorskip("playwright.sync_api")
# (expect() waits 5 s by default, the pages' own waits 30 s: the same for both, so that
# a loaded machine — six test workers and a compiler on two cores — slows the tests
# down without failing them)
sync_api.expect.set_options(timeout=30000)

ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / "test-output"
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--disable-gpu"]
CJK = re.compile(r"[\u3400-\u9fff\uf900-\ufaff\u3000-\u303f\uff00-\uffef]")
GAME_SECONDS = 90
#: how long a test server may take to answer its first request
SERVE_SECONDS = 120


# -- fixtures ---------------------------------------------------------------------------------

def chromium_path() -> str | None:
    """Debian's Chromium, installed with apt-get when missing (and possible)."""
    if not Path(CHROMIUM).exists() and shutil.which("apt-get") and os.geteuid() == 0:
        env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
        subprocess.run(["apt-get", "update", "-qq"], env=env, capture_output=True, timeout=600,
                       check=False)
        subprocess.run(["apt-get", "install", "-y", "-qq", "chromium"], env=env,
                       capture_output=True, timeout=900, check=False)
    return CHROMIUM if Path(CHROMIUM).exists() else None


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


@pytest.fixture(scope="session")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A real server with fast bots; yields its base URL."""
    yield from serve(tmp_path_factory, "web", "--hosted-delay", "0.01")


@pytest.fixture(scope="session")
def patient_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A real server with fast bots whose 托管 waits ten minutes before it moves: a
    player who turns 托管 on holds the game at his next turn, so what the test does
    next cannot race the game's end."""
    yield from serve(tmp_path_factory, "patient", "--hosted-delay", "600")


@pytest.fixture(scope="session")
def paused_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A real server with fast bots whose Guard's decision lasts 10 s, its answer shown then
    (the Guard's pause of the other servers is off, so that no test waits on it)."""
    yield from serve(tmp_path_factory, "paused", "--guard-pause", "10")


@contextlib.contextmanager
def serving(name: str, *flags: str) -> Iterator[str]:
    """A server as the browser tests start it, outside pytest (for ``bench/``): its base
    URL, the server stopped on leaving."""
    factory = pytest.TempPathFactory(given_basetemp=None, retention_count=1,
                                     retention_policy="none", trace=lambda *a: None,
                                     basetemp=None)
    server = serve(factory, name, *flags)
    try:
        yield next(server)
    finally:
        next(server, None)          # (past its yield: the server is stopped)


def serve(tmp_path_factory: pytest.TempPathFactory, name: str, *flags: str) -> Iterator[str]:
    tmp = tmp_path_factory.mktemp(name)
    port = free_port()
    log = (tmp / "server.log").open("w")
    proc = subprocess.Popen(
        [sys.executable, "-c", "from baohuang.cli import main; main()", "serve",
         "--host", "127.0.0.1", "--port", str(port),
         "--db", f"sqlite+aiosqlite:///{tmp / 'web.db'}",
         "--bot-delay", "0.01", "--guard-pause", "0", "--next-game-delay", "0.5", *LOOSE,
         *flags,
         "--log-level", "warning"],
        stdout=log, stderr=subprocess.STDOUT, cwd=tmp)
    url = f"http://127.0.0.1:{port}"
    # (a bound, not a timing: a loaded machine — browsers, compiles — can take its time)
    deadline = time.monotonic() + SERVE_SECONDS
    try:
        while True:
            try:
                with urllib.request.urlopen(f"{url}/api/rules", timeout=5) as res:
                    if res.status == 200:
                        break
            except OSError:
                if proc.poll() is not None:
                    raise AssertionError("baohuang serve exited: "
                                         + (tmp / "server.log").read_text()) from None
                if time.monotonic() > deadline:
                    raise AssertionError(
                        f"baohuang serve did not answer within {SERVE_SECONDS} s") from None
                time.sleep(0.1)
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
    """Debian's Chromium through Playwright's sync API, one for each test module: the
    API runs an event loop in the main thread while it is open, which must be closed
    before tests that start their own (the doctests run after these modules)."""
    path = chromium_path()
    if path is None:
        pytest.skip("Chromium is not installed at /usr/bin/chromium and apt-get could not "
                    "install it")
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=path, args=CHROMIUM_ARGS)
        yield b
        b.close()


def open_page(browser: Browser, server: str, width: int = 1280, height: int = 900,
          lang: str | None = None, touch: bool = False) -> tuple[Page, list[str]]:
    # (a Chinese browser: the page speaks the browser's language until one is chosen)
    context = browser.new_context(viewport={"width": width, "height": height},
                                  base_url=server, has_touch=touch, is_mobile=touch,
                                  locale="zh-CN")
    if lang:
        context.add_init_script(f"localStorage.setItem('bh_lang', '{lang}')")
    page = context.new_page()
    page.set_default_timeout(30000)
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    return page, errors


@pytest.fixture
def page(browser: Browser, server: str) -> Iterator[Page]:
    pg, errors = open_page(browser, server)
    yield pg
    pg.context.close()
    assert errors == []


def shot(page: Page, name: str, full: bool = False) -> None:
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
    """Click the visible corner of an unselected copy of ``card`` in the hand, and wait
    until the hand shows it selected (else a second copy's click, on a loaded machine,
    could find the first still unselected and click it off again)."""
    copies = f'[data-testid=hand] [data-testid=card][data-card="{card}"]'
    selected = page.locator(f"{copies}.selected").count()
    page.locator(f"{copies}:not(.selected)").first.click(position={"x": 5, "y": 14})
    sync_api.expect(page.locator(f"{copies}.selected")).to_have_count(selected + 1)


def key_for(card: str) -> str:
    rank = card.rstrip("*")
    if rank == "TH":
        return "x"
    if rank in ("BJ", "SJ"):
        return rank[0].lower()
    rank = rank[:-1] if rank[-1] in "shdc" else rank
    return "0" if rank == "10" else rank.lower()


def to_the_play(page: Page) -> None:
    """Answer this seat's role-phase decisions (the first choice each time) until the
    play begins."""
    while True:
        st = wait_turn_or_over(page)
        assert st is not None
        if st["stage"] == "play":
            return
        page.get_by_test_id("decision").first.click()
        wait_moved(page, st["version"])


def play_game(page: Page, keyboard: bool = False, check: Any = None) -> dict[str, Any]:
    """Play this seat's game to the end through the UI; returns what happened."""
    seen: dict[str, Any] = {"decisions": [], "plays": 0, "passes": 0}
    game = page.evaluate("() => window.baohuang?.screen?.game ?? 0")
    deadline = time.monotonic() + GAME_SECONDS
    while time.monotonic() < deadline:
        st = wait_turn_or_over(page)
        if st is None:
            # the score sheet's totals come with game_over, just after the last event (in
            # a match the next game may already have begun by the time this looks)
            page.wait_for_function("() => !!window.baohuang?.screen?.gameOver"
                                   f" || (window.baohuang?.screen?.game ?? 0) > {game}")
            return seen
        if st["stage"] != "play":
            # the dialog's choices read in one step: on a loaded machine the decision can
            # end (its time ran out, a redraw) between two reads of the page
            choices: list[str] = page.evaluate(
                "() => [...document.querySelectorAll('[data-testid=decision]')]"
                ".map((b) => b.dataset.choice || '')")
            if not choices:
                continue                # the decision is over already: look again
            expected = sorted({a["kind"] for a in st["legal"]})
            assert sorted(set(choices)) == expected
            first = page.get_by_test_id("decision").first
            seen["decisions"].append((st["stage"], choices[0]))
            if check:
                check(page, "decision")
            if keyboard:
                page.keyboard.press("1")
            else:
                first.click()
        else:
            if check:
                check(page, "turn")
            cards = biggest_play(st["legal"])
            can_pass = any(a["kind"] == "pass" for a in st["legal"])
            if cards is None or (keyboard and can_pass and not seen["passes"]):
                if keyboard:
                    page.keyboard.press(" ")
                else:
                    pass_turn(page, st)
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


def only_pass(st: dict[str, Any]) -> bool:
    return [a["kind"] for a in st["legal"]] == ["pass"]


def auto_pass_on(page: Page) -> bool:
    return bool(page.evaluate("() => localStorage.getItem('bh_autopass') !== 'off'"))


def pass_turn(page: Page, st: dict[str, Any]) -> None:
    """Pass this turn: a tap on 不要, or nothing at all where auto-pass (on by default)
    passes by itself because passing is all this seat may do (the caller waits for the
    move either way)."""
    if only_pass(st) and auto_pass_on(page):
        return
    page.get_by_test_id("pass").click()


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
    """What a reader sees, without user-given names, the language switch's own label and
    text of no language (``translate="no"``: the client's version)."""
    text: str = page.evaluate("""() => {
      const body = document.body.cloneNode(true);
      for (const el of body.querySelectorAll(
        '.free, [data-testid=lang-toggle], [translate=no], script')) {
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



# -- sizes of the page -----------------------------------------------------------------

SIZES = {"desktop": (1280, 900), "phone": (390, 844), "small-phone": (360, 740)}
#: the sizes a table must fit without scrolling (issue 36): portrait and landscape
#: phones and a desktop; phones have touch and a coarse pointer
LAYOUTS = {"360x740": (360, 740), "390x844": (390, 844), "844x390": (844, 390),
           "740x360": (740, 360), "1280x800": (1280, 800)}


def sized(browser: Browser, server: str, size: str, lang: str | None = None
           ) -> tuple[Page, list[str]]:
    width, height = SIZES[size]
    return open_page(browser, server, width, height, lang, touch=size != "desktop")


@contextlib.contextmanager
def sized_page(browser: Browser, server: str, size: str, lang: str | None = None
               ) -> Iterator[Page]:
    """A page of ``size`` (see :data:`SIZES`) in a browser context of its own, closed
    after; the test fails if the page raised a script error. Two people (a player and a
    watcher, a host and a friend) are two of these in one ``with``."""
    page, errors = sized(browser, server, size, lang)
    try:
        yield page
    finally:
        page.context.close()
    assert errors == []


def tall_enough(page: Page, testid: str) -> None:
    """The control ``testid`` (read at once: the table redraws on every event) is at
    least 44 px each way."""
    box = page.evaluate(f"""() => {{
      const el = document.querySelector('[data-testid={testid}]');
      if (!el) return null;
      const r = el.getBoundingClientRect();
      return {{width: r.width, height: r.height}};
    }}""")
    assert box is not None and box["height"] >= 44 and box["width"] >= 44, (testid, box)


def quickplay(page: Page, name: str, **body: Any) -> None:
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


SMALL_CONTROLS_JS = """() => [...document.querySelectorAll(
    'button, select, input:not([type=checkbox]), a.btn')]
  .filter((el) => { const r = el.getBoundingClientRect(), s = getComputedStyle(el);
    return r.width > 0 && r.height > 0 && s.visibility !== 'hidden'; })
  .filter((el) => el.getBoundingClientRect().height < 44)
  .map((el) => (el.dataset.testid || el.id || el.className || el.tagName)
       + ' ' + Math.round(el.getBoundingClientRect().height))"""
