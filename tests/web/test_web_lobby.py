"""The lobby in the browser, against a real server: it keeps focus and what was typed
when it redraws, lists every rule option, takes a friend to a table by invitation
(also while it is still loading), and handles accounts: register, log in and out,
waits after too many tries, a password change that logs out the other browser."""

from __future__ import annotations

import json
import re
import time
import urllib.request
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page

from web.support import shot, sized_page


def test_the_lobby_keeps_keyboard_focus_when_it_redraws(page: Page) -> None:
    """The lobby redraws when its tables arrive (and on every refresh): a keyboard
    user's focus on a button stays on it."""
    page.goto("/")
    button = page.get_by_test_id("play-vs-bots")
    button.focus()
    page.evaluate("() => window.baohuang.screen.render()")
    assert page.evaluate("() => document.activeElement.dataset.testid") == "play-vs-bots"


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


def test_friend_joins_by_invitation_link(browser: Browser, server: str) -> None:
    with (sized_page(browser, server, "desktop") as host,
          sized_page(browser, server, "desktop") as friend):
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
        shot(host, "waiting-room.png")
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


def _table_with_a_free_seat(server: str) -> str:
    """A table of four bots and seat 0 free, made over HTTP by another user; its code."""
    def post(path: str, body: dict[str, Any], token: str | None = None) -> Any:
        headers = {"Content-Type": "application/json"}
        if token:
            headers["Authorization"] = f"Bearer {token}"
        req = urllib.request.Request(server + path, json.dumps(body).encode(), headers)
        with urllib.request.urlopen(req) as res:
            return json.load(res)
    token = post("/api/guest", {"name": "host"})["token"]
    bots = {str(seat): "heuristic" for seat in range(1, 5)}
    return str(post("/api/tables", {"timeout": 600, "bots": bots}, token)["code"])


def _lobby_with_its_list_held(page: Page, code: str) -> Any:
    """The lobby, its table list asked for and held back, ``code`` typed to join; the
    held request (``continue_()`` lets the list come)."""
    held: list[Any] = []

    def hold(route: Any) -> None:
        if route.request.method == "GET":
            held.append(route)
        else:
            route.continue_()
    page.route("**/api/tables", hold)
    page.goto("/")
    page.get_by_test_id("join-code").fill(code)
    while not held:                         # (the lobby asked for its list; it waits)
        page.wait_for_timeout(20)
    return held[0]


def test_a_lobby_still_loading_never_draws_over_the_invitation(page: Page,
                                                                  server: str) -> None:
    """A friend who types a code and presses Join before the lobby's table list has come
    is asked who he is, and that panel stays when the list comes after all."""
    code = _table_with_a_free_seat(server)
    held = _lobby_with_its_list_held(page, code)
    page.evaluate("() => { window.lobbyScreen = window.baohuang.screen; }")
    page.get_by_test_id("join").click()
    page.get_by_test_id("invite-name").wait_for()
    held.continue_()                     # the list comes, the lobby draws...
    page.wait_for_function("() => window.lobbyScreen.rules !== null "
                           "|| window.lobbyScreen.error !== null")
    assert page.get_by_test_id("invite-name").is_visible()   # ...where nobody sees it
    assert page.get_by_test_id("create-form").count() == 0
    page.get_by_test_id("invite-name").fill("Mei")
    page.get_by_test_id("invite-name").press("Enter")
    page.get_by_test_id("hand").wait_for()
    page.wait_for_function("() => window.baohuang?.screen?.view")
    assert page.evaluate("() => window.baohuang.screen.view.seat") == 0


def test_a_code_typed_while_the_lobby_loads_is_still_there_when_it_has_loaded(
        page: Page, server: str) -> None:
    """The lobby redraws when its table list comes: a code typed before that is not
    lost, and Join then takes the friend to the table."""
    code = _table_with_a_free_seat(server)
    held = _lobby_with_its_list_held(page, code)
    held.continue_()                     # the list comes, the lobby draws again
    page.get_by_test_id("create-form").wait_for()
    assert page.get_by_test_id("join-code").input_value() == code
    page.get_by_test_id("join").click()
    page.get_by_test_id("invite-name").wait_for()


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


def test_a_login_refused_for_too_many_tries_says_how_long_to_wait(page: Page) -> None:
    name = f"guess{int(time.time() * 1000) % 10**8}"
    page.goto("/")
    page.get_by_test_id("acct-name").wait_for()
    statuses = page.evaluate(f"""async () => {{
      const api = await import('/api.js');
      const out = [];
      for (let i = 0; i < 10; i++) {{
        const guess = {{name: {json.dumps(name)}, password: 'wrong-pass'}};
        try {{ await api.post('/api/login', guess); }}
        catch (err) {{ out.push(err.status); }}
      }}
      return out;
    }}""")
    assert statuses == [401] * 10                # ten wrong guesses a minute are heard...
    page.get_by_test_id("acct-name").fill(name)
    page.get_by_test_id("acct-password").fill("wrong-pass")
    page.get_by_test_id("login").click()
    error = page.get_by_test_id("lobby-error")
    error.wait_for()
    assert re.search(r"请(\d+秒|1分钟)后再试", error.inner_text())     # ...the eleventh waits
    page.get_by_test_id("lang-toggle").click()
    page.get_by_test_id("acct-name").fill(name)
    page.get_by_test_id("acct-password").fill("wrong-pass")
    page.get_by_test_id("login").click()
    page.wait_for_function("() => /try again in (\\d+ s|1 min)\\./.test("
                           "document.querySelector('[data-testid=lobby-error]').textContent)")


def test_a_password_change_logs_out_the_other_browser(browser: Browser, server: str) -> None:
    """A registered user, logged in in two browsers, changes the password in one: a wrong
    current password and a common new one are refused with their reasons, then the
    change is made; the other browser is logged out, and only the new password logs in."""
    name = f"pw{int(time.time() * 1000) % 10**8}"
    with (sized_page(browser, server, "desktop") as first,
          sized_page(browser, server, "desktop") as second):
        for page, kind in ((first, "register"), (second, "login")):
            page.goto("/")
            page.get_by_test_id("acct-name").fill(name)
            page.get_by_test_id("acct-password").fill("plum rain 9")
            page.get_by_test_id(kind).click()
            page.get_by_test_id("logout").wait_for()

        def change(old: str, new: str) -> None:
            first.get_by_test_id("password-change").evaluate("d => { d.open = true; }")
            first.get_by_test_id("pw-old").fill(old)
            first.get_by_test_id("pw-new").fill(new)
            first.get_by_test_id("pw-change").click()

        change("not-mine-1", "pine cone 77")
        first.get_by_text("用户名或密码不对。").wait_for()
        change("plum rain 9", "password1")
        first.get_by_text("密码需8–200位（首尾空格不算），至少含4种不同字符，且不能是常见密码或用户名。").wait_for()
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
