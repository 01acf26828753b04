"""Lighthouse's scores for the lobby and for a table in play, as a phone opens them.

A real server (``baohuang serve``, fast bots) and Debian's Chromium; for the table, a
guest starts a practice game against bots in that Chromium, and Lighthouse then loads
the table's page in the same browser profile, so the page comes back to the game in
progress as a player's phone would after a reload.  Lighthouse itself comes from npm
(``npx lighthouse``; it is not a dependency of the package).

    .venv-dev/bin/python bench/lighthouse_table.py [--runs 3] [--out DIR]

Prints each run's four category scores and LCP, then the medians.  Lighthouse
measures the page loading on a throttled mobile profile: run it on an otherwise idle
machine, or its performance score says more about the machine than the page.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

CATEGORIES = ["performance", "accessibility", "best-practices", "seo"]


def lighthouse(url: str, port: int, out: Path) -> dict[str, Any]:
    """One Lighthouse run against ``url`` in the Chromium listening on ``port``; its
    scores (0–100) and LCP (s)."""
    subprocess.run(["npx", "--yes", "lighthouse@12", url, f"--port={port}",
                    "--disable-storage-reset", "--output=json", f"--output-path={out}",
                    "--quiet", "--only-categories=" + ",".join(CATEGORIES)], check=True)
    report = json.loads(out.read_text(encoding="utf-8"))
    row: dict[str, Any] = {name: round(100 * report["categories"][name]["score"])
                           for name in CATEGORIES}
    row["lcp"] = round(report["audits"]["largest-contentful-paint"]["numericValue"] / 1000, 2)
    return row


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3, help="Lighthouse runs of each page")
    parser.add_argument("--out", type=Path, default=None,
                        help="where the JSON reports go (a temporary folder if not given)")
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright
    from web.support import CHROMIUM, CHROMIUM_ARGS, quickplay, serving

    from baohuang.server.children import free_port

    out = args.out or Path(tempfile.mkdtemp(prefix="lighthouse-"))
    out.mkdir(parents=True, exist_ok=True)
    rows: dict[str, list[dict[str, Any]]] = {"lobby": [], "table": []}
    with serving("lighthouse", "--hosted-delay", "600") as server, sync_playwright() as pw, \
            tempfile.TemporaryDirectory() as profile:
        port = free_port()
        context = pw.chromium.launch_persistent_context(
            profile, executable_path=CHROMIUM, base_url=server,
            args=[*CHROMIUM_ARGS, f"--remote-debugging-port={port}"],
            viewport={"width": 412, "height": 823}, has_touch=True, is_mobile=True)
        page = context.new_page()
        page.set_default_timeout(60_000)
        for run in range(args.runs):
            rows["lobby"].append(lighthouse(server + "/", port, out / f"lobby-{run}.json"))
        # a game against bots, our seat to play (托管 would wait ten minutes)
        quickplay(page, "Lighthouse", bots="normal", practice=True, seed=11)
        table = page.url
        for run in range(args.runs):
            rows["table"].append(lighthouse(table, port, out / f"table-{run}.json"))
        context.close()
    for page_name, runs in rows.items():
        for row in runs:
            print(page_name, json.dumps(row))
        medians = {key: statistics.median(r[key] for r in runs) for key in runs[0]}
        print(page_name, "median", json.dumps(medians))
    print("reports:", out)


if __name__ == "__main__":
    main()
