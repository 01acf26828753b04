"""The web client in a cluster (Debian's Chromium through Playwright, two real nodes,
one real redis-server): a friend follows an invitation link on node one to a table
that node two runs and plays there through node one; node two is killed (SIGKILL) in
the middle of the game; node one takes the table over and the page goes on at the
same table, resynced by version — never showing the table as gone.  Told that the
table is moving (``table_moving``), the page says so and joins again by itself."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import httpx
import pytest

from baohuang.server.cluster.services import RedisServer
from baohuang.server.harness import ServerProcess

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page

sync_api = pytest.importorskip("playwright.sync_api")

CHROMIUM = "/usr/bin/chromium"
FLAGS = ("--bot-delay", "0.01", "--hosted-delay", "600", "--next-game-delay", "0",
         "--lease-ttl", "1", "--log-level", "info")


@pytest.fixture
def browser() -> Iterator[Browser]:
    if not Path(CHROMIUM).exists():
        pytest.skip("Chromium is not installed at /usr/bin/chromium (apt-get install chromium)")
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"])
        yield b
        b.close()


def _table_on(url: str) -> str:
    """A table made on the node at ``url``: four bots, seat 0 free; its code.  (Plain
    HTTP: Playwright's own event loop runs in this thread.)"""
    token = httpx.post(url + "/api/guest", json={"name": "host"}, timeout=10).json()["token"]
    created = httpx.post(url + "/api/tables", timeout=10,
                         headers={"Authorization": f"Bearer {token}"},
                         json={"timeout": 600, "bots": {str(s): "heuristic"
                                                        for s in range(1, 5)}}).json()
    return str(created["code"])


def _screen(page: Page, what: str) -> object:
    return page.evaluate(f"() => window.baohuang.screen.{what}")


def test_a_page_on_one_node_plays_on_through_the_kill_of_the_tables_node(
        tmp_path: Path, redis_server: RedisServer, browser: Browser) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path / 'cluster.db'}"
    nodes = [ServerProcess(url, None, *FLAGS, "--redis", redis_server.url, "--node", name,
                           log=tmp_path / f"{name}.log") for name in ("one", "two")]
    for node in nodes:
        node.start()
    context = browser.new_context(base_url=nodes[0].url)
    page = context.new_page()
    page.set_default_timeout(20000)
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    try:
        code = _table_on(nodes[1].url)
        page.goto("/")
        page.get_by_test_id("join-code").fill(code)
        page.get_by_test_id("join").click()
        page.get_by_test_id("invite-name").fill("Mei")
        page.get_by_test_id("invite-name").press("Enter")
        page.get_by_test_id("hand").wait_for()
        page.wait_for_function("() => window.baohuang?.screen?.view")
        table_id = _screen(page, "table.id")
        hand = _screen(page, "view.hand")
        before = _screen(page, "version")
        assert isinstance(before, int)
        assert [httpx.get(n.url + "/healthz", timeout=10).json()["tables"]
                for n in nodes] == [0, 1]           # the page is on one, the table on two

        nodes[1].kill()
        # node one sees the table's lease lapse, closes the page's socket (1012); the
        # page reconnects and its join waits until node one has taken the table over
        page.get_by_test_id("reconnect-banner").wait_for(state="visible")
        page.wait_for_function(
            "() => { const s = window.baohuang.screen;"
            " return s.status === 'open' && s.conn.ws.readyState === 1 && !!s.view; }")
        page.get_by_test_id("reconnect-banner").wait_for(state="hidden")
        assert httpx.get(nodes[0].url + "/healthz", timeout=10).json()["tables"] == 1
        assert "took table" in (tmp_path / "one.log").read_text()
        assert _screen(page, "fatal") in (None, False)
        assert _screen(page, "table.id") == table_id
        assert _screen(page, "view.hand") == hand   # the same game, resynced by version
        version = _screen(page, "version")
        assert isinstance(version, int) and version >= before

        # told the table is moving, the page says so, joins again and is back
        page.evaluate("() => window.baohuang.screen.receive({type: 'error', "
                      "code: 'table_moving', message: 'moving', ref: 'join'})")
        page.get_by_test_id("moving-banner").wait_for(state="visible")
        page.get_by_test_id("moving-banner").wait_for(state="hidden")
        assert _screen(page, "fatal") in (None, False)
        assert _screen(page, "table.id") == table_id

        # and the game goes on: a decision made on the page is taken
        page.get_by_test_id("decision").first.wait_for()
        version = _screen(page, "version")
        page.get_by_test_id("decision").first.click()
        page.wait_for_function(f"() => window.baohuang.screen.version > {version}")
        assert errors == []
    finally:
        context.close()
        for node in nodes:
            node.stop()
