"""``make screenshots``: every screen of the web client for review, in Chinese and English,
at desktop sizes and phone sizes in portrait and landscape (issue 36), saved as PNGs in
``test-output/screenshots/``.

A real ``baohuang serve`` on loopback (SQLite in a temporary directory) and Debian's
Chromium (``/usr/bin/chromium``) through Playwright: the lobby and its table form, the
waiting room and an invitation link followed without a session, a table in play (the
记牌器, the last trick and the 上一轮 peek, the 托管 banner), each role-phase dialog
(drawn by the client from a view with that stage's choices), the score sheet of a
finished game and of a dissolved match, the history and the replay viewer, and free chat
at a private table.  Every wait is on page state; nothing is installed.

    .venv/bin/python tests/web/screenshots.py [--out DIR] [--only zh-phone ...]
"""

from __future__ import annotations

import argparse
import json
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / "test-output" / "screenshots"
CHROMIUM = "/usr/bin/chromium"
ARGS = ["--no-sandbox", "--disable-background-networking", "--disable-component-update",
        "--disable-sync", "--disable-gpu"]
SIZES = {"desktop": (1280, 900), "desktop-800": (1280, 800), "phone": (390, 844),
         "small-phone": (360, 740), "landscape": (844, 390), "small-landscape": (740, 360)}

#: each role-phase dialog: its stage and the choices the client is given
DIALOGS: dict[str, tuple[str, list[dict[str, Any]]]] = {
    "emperor": ("emperor", [{"kind": "accept"}, {"kind": "abdicate"}]),
    "emperor-solo": ("emperor_solo", [{"kind": "solo_open"}, {"kind": "decline"}]),
    "steal": ("steal", [{"kind": "steal"}, {"kind": "decline"}]),
    "call": ("call", [{"kind": "call", "cards": [c]} for c in ("9h", "Qs", "Ad", "2c")]
             + [{"kind": "solo_open"}]),
    "guard": ("guard", [{"kind": "guard_open"}, {"kind": "guard_hidden"}]),
    "guard-solo": ("guard", [{"kind": "solo_open"}, {"kind": "solo_hidden"}]),
    "rebellion": ("rebellion", [{"kind": "rebel"}, {"kind": "decline"}]),
    "kick": ("kick", [{"kind": "kick"}, {"kind": "decline"}]),
}


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


@contextmanager
def serve() -> Iterator[str]:
    """A server with fast bots on loopback; yields its base URL."""
    with tempfile.TemporaryDirectory() as tmp:
        port = _free_port()
        log = (Path(tmp) / "server.log").open("w")
        proc = subprocess.Popen(
            [sys.executable, "-c", "from baohuang.cli import main; main()", "serve",
             "--host", "127.0.0.1", "--port", str(port),
             "--db", f"sqlite+aiosqlite:///{Path(tmp) / 'shots.db'}",
             "--bot-delay", "0.01", "--hosted-delay", "0.01", "--guard-pause", "0",
             "--next-game-delay", "0.5",
             "--log-level", "warning"], stdout=log, stderr=subprocess.STDOUT, cwd=tmp)
        url = f"http://127.0.0.1:{port}"
        try:
            for _ in range(300):
                try:
                    with urllib.request.urlopen(f"{url}/api/rules", timeout=1):
                        break
                except OSError:
                    if proc.poll() is not None:
                        raise SystemExit("baohuang serve exited: "
                                         + (Path(tmp) / "server.log").read_text()) from None
                    time.sleep(0.1)
            yield url
        finally:
            proc.terminate()
            proc.wait(10)
            log.close()


class Shots:
    """One browser context (a language and a size) taking named screenshots."""

    def __init__(self, browser: Any, url: str, lang: str, size: str, out: Path) -> None:
        width, height = SIZES[size]
        touch = not size.startswith("desktop")
        self.context = browser.new_context(viewport={"width": width, "height": height},
                                           base_url=url, has_touch=touch, is_mobile=touch)
        self.context.add_init_script(f"localStorage.setItem('bh_lang', '{lang}')")
        self.page = self.context.new_page()
        self.page.set_default_timeout(30000)
        self.errors: list[str] = []
        self.page.on("pageerror", lambda exc: self.errors.append(str(exc)))
        self.page.on("console", lambda msg: self.errors.append(msg.text)
                     if msg.type == "error" else None)
        self.prefix = f"{lang}-{size}"
        self.out = out
        self.saved: list[Path] = []

    def shot(self, name: str, full: bool = False, page: Any = None) -> None:
        path = self.out / f"{self.prefix}-{name}.png"
        (page or self.page).screenshot(path=str(path), full_page=full)
        self.saved.append(path)

    def quickplay(self, name: str, **body: Any) -> None:
        self.page.evaluate(f"""async () => {{
          const api = await import('/api.js');
          await window.baohuang.ensureUser({json.dumps(name)});
          const res = await api.post('/api/quickplay', {json.dumps(body)});
          location.hash = `#/t/${{res.id}}`;
        }}""")
        self.page.get_by_test_id("hand").wait_for()
        self.page.wait_for_function("() => window.baohuang.screen.view")

    def until_play_turn(self) -> None:
        """Answer role-phase questions with their first choice until it is our turn in play."""
        page = self.page
        while True:
            page.wait_for_function("""() => { const v = window.baohuang.screen.view;
              return v.to_act === v.seat && v.legal_actions.length; }""")
            if page.evaluate("() => window.baohuang.screen.view.stage") == "play":
                return
            version = page.evaluate("() => window.baohuang.screen.version")
            page.get_by_test_id("decision").first.click()
            page.wait_for_function(f"() => window.baohuang.screen.version > {version}")

    def hosted_to_the_end(self) -> None:
        page = self.page
        page.get_by_test_id("hosted-toggle").click()
        page.get_by_test_id("score-sheet").wait_for(timeout=120000)


def run(browser: Any, url: str, lang: str, size: str, out: Path) -> Shots:
    s = Shots(browser, url, lang, size, out)
    page = s.page
    page.goto("/")
    page.get_by_test_id("create-form").wait_for()
    page.wait_for_function("() => window.baohuang.screen")
    s.shot("01-lobby")
    page.locator("details.all-options summary").click()
    s.shot("02-lobby-options", full=True)

    # the waiting room of a table for friends
    page.evaluate("""async () => { await window.baohuang.ensureUser('Shots'); }""")
    page.goto("/")
    page.get_by_test_id("create-form").wait_for()
    page.get_by_test_id("create-form").get_by_test_id("create-table").click()
    page.get_by_test_id("wait-seat").first.wait_for()
    s.shot("03-waiting-room")

    # the invitation link, followed without a session: who joins, before a seat
    link = page.get_by_test_id("share-link").input_value()
    stranger = Shots(browser, url, lang, size, out)
    stranger.page.goto(link)
    stranger.page.get_by_test_id("invite").wait_for()
    s.shot("03-invite", page=stranger.page)
    s.errors += stranger.errors
    stranger.context.close()

    # play: the table, the counter, the won trick and the 上一轮 peek (托管 bots pass)
    page.goto("/")
    page.get_by_test_id("create-form").wait_for()
    s.quickplay("Shots", bots="hosted", practice=True, seed=9)
    s.until_play_turn()
    s.shot("04-table-my-turn")
    page.get_by_test_id("hint").click()
    s.shot("05-table-hint-selected")
    page.get_by_test_id("play").click()
    page.get_by_test_id("last-trick").wait_for()
    s.shot("06-table-last-trick")
    page.get_by_test_id("peek-last").click()
    page.get_by_test_id("last-round").wait_for()
    s.shot("07-last-round-peek")
    page.get_by_test_id("close-peek").click()

    # a 五人局 hand of 44 cards at its first turn in play (a table of its own)
    page.goto("/")
    page.get_by_test_id("create-form").wait_for()
    s.quickplay("Shots", bots="hosted", practice=True, seed=9, preset="wurenju")
    s.until_play_turn()
    page.get_by_test_id("hint").click()
    s.shot("07b-table-wurenju-44-cards")
    page.goto("/")
    page.get_by_test_id("create-form").wait_for()
    s.quickplay("Shots", bots="hosted", practice=True, seed=9)
    s.until_play_turn()

    # each role-phase dialog, drawn by the client from a view with the stage's choices
    for name, (stage, legal) in DIALOGS.items():
        page.evaluate(f"""() => {{ const s = window.baohuang.screen;
          s.view = {{...s.view, stage: {json.dumps(stage)}, to_act: s.view.seat,
                     legal_actions: {json.dumps(legal)}, called: null}};
          s.render(); }}""")
        page.get_by_test_id("decision").first.wait_for()
        s.shot(f"08-dialog-{name}")
    # a big moment over the last of them (the Guard's 明保 over the 踢 dialog), its box
    # where it stands once its motion is over
    # (the client's own modules, at their versioned address)
    page.evaluate("""async () => { const moments = await import(new URL('moments.js',
        document.querySelector('script[type=module]').src).href);
      const s = window.baohuang.screen;
      document.documentElement.dataset.motion = 'off';
      moments.showMoments(s.root, [{type: 'guard', open: true, seat: (s.view.seat + 1) % 5}],
                          s.table, s.view.seat); }""")
    page.get_by_test_id("moment").wait_for()
    s.shot("08z-dialog-kick-moment")
    page.evaluate("""async () => {
      const src = document.querySelector('script[type=module]').src;
      (await import(new URL('moments.js', src).href)).clearMoments();
      (await import(new URL('prefs.js', src).href)).applyMotion(); }""")
    page.evaluate("() => window.baohuang.screen.conn.resync()")
    page.wait_for_function("() => window.baohuang.screen.view.stage === 'play'")

    # 托管: the banner, then the game to its end and the score sheet
    page.get_by_test_id("hosted-toggle").click()
    page.get_by_test_id("hosted-banner").wait_for()
    s.shot("09-hosted-banner")
    page.get_by_test_id("score-sheet").wait_for(timeout=120000)
    s.shot("10-score-sheet")
    page.get_by_test_id("close-score").click()
    s.shot("11-table-after-the-game")

    # a match dissolved by 托管
    page.goto("/")
    page.get_by_test_id("create-form").wait_for()
    s.quickplay("Shots", bots="random", games=3, practice=True, seed=31)
    s.shot("12-match-table")
    s.hosted_to_the_end()
    page.get_by_test_id("match-dissolved").wait_for()
    s.shot("13-match-dissolved")

    # history and the replay of the last game
    page.goto("/#/history")
    page.get_by_test_id("replay-link").first.wait_for()
    s.shot("14-history")
    page.get_by_test_id("replay-link").first.click()
    page.get_by_test_id("replay-bar").wait_for()
    s.shot("15-replay-start")
    page.get_by_test_id("replay-first").click()
    for _ in range(12):
        page.get_by_test_id("replay-next").click()
    s.shot("16-replay-step-12")
    page.goto("/#/leaderboard")
    page.get_by_test_id("leaderboard").wait_for()
    s.shot("16b-leaderboard")

    # a private table: free chat beside the quick phrases, a bubble over the seat
    page.goto("/")
    page.get_by_test_id("create-form").wait_for()
    s.quickplay("Shots", bots="hosted", practice=True, seed=9, private=True)
    s.until_play_turn()
    page.get_by_test_id("emote-open").click()
    page.get_by_test_id("chat-input").fill("这把我来！ My turn to lead" if lang == "zh"
                                           else "My turn to lead — 这把我来！")
    s.shot("17-private-chat-panel")
    page.get_by_test_id("chat-input").press("Enter")
    page.locator("[data-testid=seat].me [data-testid=bubble]").wait_for()
    s.shot("18-private-chat-bubble")
    s.context.close()
    return s


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=OUT)
    parser.add_argument("--only", nargs="*", help="LANG-SIZE runs, e.g. zh-phone en-desktop")
    opts = parser.parse_args()
    if not Path(CHROMIUM).exists():
        print(f"Chromium is needed at {CHROMIUM} (apt-get install chromium)", file=sys.stderr)
        return 2
    from playwright.sync_api import sync_playwright
    opts.out.mkdir(parents=True, exist_ok=True)
    problems: list[str] = []
    count = 0
    with serve() as url, sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        for lang in ("zh", "en"):
            for size in SIZES:
                if opts.only and f"{lang}-{size}" not in opts.only:
                    continue
                shots = run(browser, url, lang, size, opts.out)
                count += len(shots.saved)
                problems += [f"{lang}-{size}: {e}" for e in shots.errors]
                print(f"{lang}-{size}: {len(shots.saved)} screenshots", flush=True)
        browser.close()
    print(f"{count} screenshots in {opts.out}")
    for problem in problems:
        print(f"page error: {problem}", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    raise SystemExit(main())
