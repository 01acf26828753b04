"""How long the web client's table takes to take in one server message (parse, redraw,
fit the hand: the main thread's time, which a phone feels as a stall), measured in
Debian's Chromium at 390x844 over whole practice games against fast bots, our seat on
托管 so that the game runs by itself.

    .venv-dev/bin/python bench/web_redraw.py [--games 3] [--throttle 4]

``--throttle`` slows Chromium's CPU as Lighthouse's mobile profile does (4x).  Prints
the median, mean and 90th percentile milliseconds per message and per redraw.
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

HOOK_JS = """() => {
  const s = window.baohuang.screen;
  window.redraws = [];
  window.messages = [];
  const receive = s.receive.bind(s), render = s.render.bind(s);
  s.receive = (msg) => { const t0 = performance.now(); receive(msg);
    window.messages.push([msg.type, performance.now() - t0]); };
  s.render = (...a) => { const t0 = performance.now(); render(...a);
    window.redraws.push(performance.now() - t0); };
}"""


def summary(name: str, values: list[float]) -> str:
    values = sorted(values)
    p90 = values[int(len(values) * 0.9)] if values else 0.0
    return (f"{name}: n={len(values)} median={statistics.median(values):.2f} ms "
            f"mean={statistics.fmean(values):.2f} ms p90={p90:.2f} ms")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=3)
    parser.add_argument("--throttle", type=float, default=4.0)
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright
    from web.support import CHROMIUM, CHROMIUM_ARGS, open_page, quickplay, serving

    messages: list[float] = []
    redraws: list[float] = []
    with serving("bench", "--hosted-delay", "0.05") as server, sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        for game in range(args.games):
            page, _errors = open_page(browser, server, 390, 844, touch=True)
            cdp = page.context.new_cdp_session(page)
            cdp.send("Emulation.setCPUThrottlingRate", {"rate": args.throttle})
            quickplay(page, "Bench", bots="hosted", practice=True, seed=20 + game)
            page.evaluate(HOOK_JS)
            page.get_by_test_id("hosted-toggle").click()
            page.get_by_test_id("score-sheet").wait_for(timeout=300_000)
            got = page.evaluate("() => [window.messages, window.redraws]")
            messages += [ms for kind, ms in got[0] if kind == "update"]
            redraws += got[1]
            page.context.close()
        browser.close()
    print(summary("update message", messages))
    print(summary("redraw", redraws))



if __name__ == "__main__":
    main()
