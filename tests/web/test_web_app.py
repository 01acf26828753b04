"""The web client as an app (issue 36): installable (a valid manifest, a service worker
that controls the page) and opening offline; a new build's worker replaces the old one
and its cache; axe-core finds nothing on the lobby and at a table in play (also under
托管) at a phone's size and a desktop's, in Chinese and English; what happens at the table
and the turn are said through a live region; the page speaks the browser's language
until the player chooses one."""

from __future__ import annotations

import importlib.resources
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from server_support import LOOSE_CONFIG

from baohuang.server.config import ServerConfig
from baohuang.server.harness import ServerThread
from baohuang.web import STATIC_DIR
from web.support import (
    click_card,
    play_game,
    quickplay,
    to_the_play,
    wait_turn_or_over,
)

if TYPE_CHECKING:
    from playwright.sync_api import Browser, BrowserContext, Page

#: axe-core's script (the copy the axe-playwright-python package ships)
AXE = (importlib.resources.files("axe_playwright_python") / "axe.min.js").read_text(
    encoding="utf-8")
#: WCAG 2.1 A and AA, axe's best practices (a heading on every page, landmarks) and, from
#: its experimental rules, that a control's name contains the text it shows
AXE_OPTIONS = {"runOnly": {"type": "tag", "values": ["wcag2a", "wcag2aa", "wcag21a",
                                                     "wcag21aa", "best-practice"]},
               "rules": {"label-content-name-mismatch": {"enabled": True}},
               "resultTypes": ["violations"]}
SIZES = {"390x844": (390, 844), "1280x800": (1280, 800)}

#: the service worker is active and controls the page
CONTROLLED_JS = ("() => navigator.serviceWorker.ready"
                 ".then(() => !!navigator.serviceWorker.controller)")


def new_context(browser: Browser, server: str, size: str = "1280x800",
                locale: str = "zh-CN", lang: str | None = None) -> BrowserContext:
    width, height = SIZES[size]
    phone = width < 600
    context = browser.new_context(viewport={"width": width, "height": height}, base_url=server,
                                  has_touch=phone, is_mobile=phone, locale=locale)
    if lang:
        context.add_init_script(f"localStorage.setItem('bh_lang', '{lang}')")
    context.set_default_timeout(30000)
    return context


@pytest.fixture
def context(browser: Browser, server: str) -> Iterator[BrowserContext]:
    ctx = new_context(browser, server)
    yield ctx
    ctx.close()


def violations(page: Page, where: str) -> list[str]:
    """axe-core's findings on the page as it is, one line each — once a big moment's
    announcement (moments.js: it fades, and text fading out is no lasting contrast) has
    gone."""
    page.wait_for_function("() => !document.querySelector('.moment')")
    if not page.evaluate("() => typeof window.axe === 'object'"):
        page.evaluate(AXE)
    found: list[dict[str, Any]] = page.evaluate(
        "(options) => axe.run(document, options).then((r) => r.violations)", AXE_OPTIONS)
    return [f"{where}: {v['id']} {[n['target'] for n in v['nodes']][:4]} "
            f"{v['nodes'][0].get('failureSummary', '')[:200]!r}" for v in found]


# -- installable, offline ------------------------------------------------------------------

def test_the_app_installs_and_its_page_opens_offline(context: BrowserContext) -> None:
    page = context.new_page()
    page.goto("/")
    page.get_by_test_id("create-form").wait_for()
    cdp = context.new_cdp_session(page)
    manifest = cdp.send("Page.getAppManifest")
    assert manifest["errors"] == [], manifest["errors"]
    assert "/s/" in manifest["url"] and '"orientation": "landscape"' in manifest["data"]
    installable = cdp.send("Page.getInstallabilityErrors")["installabilityErrors"]
    # (a test's browser context is an incognito one: that alone is no fault of the app)
    assert [e["errorId"] for e in installable if e["errorId"] != "in-incognito"] == []
    assert page.wait_for_function(CONTROLLED_JS).json_value() is True
    version = page.get_by_test_id("app-version").inner_text()
    assert version.startswith("版本 0.1.0+"), version
    context.set_offline(True)
    try:
        page.reload()
        # the page and every script of it came from the worker's cache: the shell is
        # drawn, in its language, with its version
        page.get_by_test_id("app-version").wait_for()
        assert page.get_by_test_id("app-version").inner_text() == version
        assert page.get_by_test_id("lang-toggle").inner_text() == "English"
        assert page.evaluate("() => document.body.dataset.screen") == "lobby"
        loaded = page.evaluate("""() => performance.getEntriesByType('resource')
          .filter((e) => e.name.includes('/s/')).length""")
        assert loaded >= 20
    finally:
        context.set_offline(False)


def test_a_new_build_replaces_the_worker_and_its_cache(browser: Browser,
                                                        tmp_path: Path) -> None:
    files = tmp_path / "static"
    shutil.copytree(STATIC_DIR, files)
    config = ServerConfig(db_url=f"sqlite+aiosqlite:///{tmp_path / 'web.db'}", **LOOSE_CONFIG)
    with ServerThread(config, files) as server:
        ctx = new_context(browser, server.url)
        try:
            page = ctx.new_page()
            page.goto("/")
            page.wait_for_function(CONTROLLED_JS)
            old = page.evaluate("() => caches.keys()")
            assert len(old) == 1 and old[0].startswith("baohuang-0.1.0+")
            css = files / "style.css"
            css.write_text(css.read_text() + "\n.app-version { letter-spacing: 1px; }\n")
            page.reload()
            page.wait_for_function("""(old) => caches.keys().then((keys) =>
              keys.length === 1 && keys[0] !== old)""", arg=old[0])
            page.reload()
            page.get_by_test_id("app-version").wait_for()
            assert page.evaluate("""() => getComputedStyle(
              document.querySelector('[data-testid=app-version]')).letterSpacing""") == "1px"
            assert page.get_by_test_id("app-version").inner_text() != old[0][len("baohuang-"):]
        finally:
            ctx.close()


# -- accessibility ---------------------------------------------------------------------------

@pytest.mark.parametrize("lang", ["zh", "en"])
@pytest.mark.parametrize("size", list(SIZES))
def test_axe_finds_nothing_on_the_lobby_and_a_table_in_play(browser: Browser,
                                                            patient_server: str, size: str,
                                                            lang: str) -> None:
    ctx = new_context(browser, patient_server, size, lang=lang)
    try:
        page = ctx.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        page.goto("/")
        page.get_by_test_id("create-form").wait_for()
        found = violations(page, "lobby")
        # (ten minutes to think: axe's scans on a loaded machine can outlast the usual
        # 30 s, and a turn that ran out would put the seat on 托管 before the tap)
        quickplay(page, "Axe", practice=True, seed=11, timeout=600)
        to_the_play(page)
        found += violations(page, "table")
        # (托管 waits ten minutes on this server: the game holds at this seat's turn)
        page.get_by_test_id("hosted-toggle").click()
        page.get_by_test_id("hosted-banner").wait_for()
        found += violations(page, "table under 托管")
        assert found == []
        assert errors == []
    finally:
        ctx.close()


def test_axe_finds_nothing_on_the_score_sheet_history_and_leaderboard(browser: Browser,
                                                                     server: str) -> None:
    ctx = new_context(browser, server, "390x844", lang="en")
    try:
        page = ctx.new_page()
        quickplay(page, "Axe", practice=True, seed=11)
        play_game(page)
        page.get_by_test_id("score-sheet").wait_for()
        found = violations(page, "score sheet")
        page.goto("/#/history")
        page.get_by_test_id("history-row").first.wait_for()
        found += violations(page, "history")
        page.goto("/#/leaderboard")
        page.locator("[data-testid=leader-row], [data-testid=leaderboard-empty]").first.wait_for()
        found += violations(page, "leaderboard")
        assert found == []
    finally:
        ctx.close()


#: every badge the table draws (tableview.js, model.js' roleBadges), and the 托管 switch on
BADGES = ("emperor", "guard", "solo", "rebel", "candidate", "hoe", "hosted", "place", "left",
          "offline", "botlevel", "watcher", "level", "ready")


def test_every_badge_and_the_hosted_switch_are_readable(context: BrowserContext) -> None:
    """Badges a test's game may not show (侍卫, 离线, 逃跑 …), drawn with the page's
    stylesheet, meet WCAG AA's contrast (4.5:1)."""
    page = context.new_page()
    page.goto("/")
    page.get_by_test_id("create-form").wait_for()
    page.evaluate("""(kinds) => {
      const probe = document.createElement('div');
      probe.id = 'probe';
      probe.className = 'badges';
      for (const kind of kinds) {
        const badge = document.createElement('span');
        badge.className = `badge ${kind}`;
        badge.textContent = `侍卫 Guard ${kind}`;
        probe.appendChild(badge);
      }
      const on = document.createElement('button');
      on.className = 'btn hosted-toggle on';
      on.textContent = '托管中 Hosted';
      probe.appendChild(on);
      document.querySelector('main').appendChild(probe);
    }""", list(BADGES))
    page.evaluate(AXE)
    found = page.evaluate("""() => axe.run('#probe', {runOnly: ['color-contrast']})
      .then((r) => r.violations.flatMap((v) => v.nodes.map((n) => n.html)))""")
    assert found == []
    assert page.locator("#probe .badge").count() == len(BADGES)


HEARD_JS = """() => {
  // every line the live region is given, in order (older ones leave the region)
  window.heard = [];
  new MutationObserver((changes) => { for (const c of changes) for (const n of c.addedNodes)
    window.heard.push(n.textContent); })
    .observe(document.querySelector('[data-testid=announcer]'), {childList: true});
}"""


def test_plays_and_the_turn_are_said_through_a_live_region(context: BrowserContext) -> None:
    page = context.new_page()
    quickplay(page, "Ears", practice=True, seed=11)
    region = page.get_by_test_id("announcer")
    assert region.get_attribute("aria-live") == "polite"
    to_the_play(page)
    page.evaluate(HEARD_JS)
    for _ in range(12):
        st = wait_turn_or_over(page)
        if st is None:
            break
        heard: list[str] = page.evaluate("() => window.heard")
        if any(" 出 " in line and not line.startswith("Ears") for line in heard):
            # a bot's play was said, then the turn coming back to this seat
            assert heard[-1] == "轮到你出牌", heard
            # the focus stayed on the button last used, drawn anew at every update
            assert page.evaluate("() => document.activeElement.dataset.testid") in (
                "play", "pass"), heard
            break
        # pass where one may (the bots then lead and play), else lead the smallest play
        if any(a["kind"] == "pass" for a in st["legal"]):
            page.get_by_test_id("pass").click()
        else:
            plays = [a["cards"] for a in st["legal"] if a["kind"] == "play"]
            for card in min(plays, key=len):
                click_card(page, card)
            page.get_by_test_id("play").click()
        page.wait_for_function(f"() => window.baohuang.screen.version > {st['version']}")
    else:
        raise AssertionError("no bot played in twelve turns")
    heard = page.evaluate("() => window.heard")
    assert any(line.startswith("Ears ") for line in heard), heard      # this seat's too


# -- language --------------------------------------------------------------------------------

def test_the_page_speaks_the_browsers_language_until_one_is_chosen(browser: Browser,
                                                                   server: str) -> None:
    english = new_context(browser, server, "390x844", locale="en-US")
    chinese = new_context(browser, server, "390x844", locale="zh-CN")
    try:
        page = english.new_page()
        page.goto("/")
        page.get_by_test_id("create-form").wait_for()
        assert page.evaluate("() => document.documentElement.lang") == "en"
        assert page.get_by_test_id("play-vs-bots").inner_text() != ""
        assert page.get_by_test_id("lang-toggle").inner_text() == "中文"
        assert "Version" in page.get_by_test_id("app-version").inner_text()
        # the player's choice wins over the browser's, and is kept
        page.get_by_test_id("lang-toggle").click()
        assert page.get_by_test_id("lang-toggle").inner_text() == "English"
        page.reload()
        page.get_by_test_id("create-form").wait_for()
        assert page.evaluate("() => document.documentElement.lang") == "zh-CN"
        other = chinese.new_page()
        other.goto("/")
        other.get_by_test_id("create-form").wait_for()
        assert other.get_by_test_id("lang-toggle").inner_text() == "English"
    finally:
        english.close()
        chinese.close()
