"""Requests another site's page could make with a player's cookie, against a real
server on loopback (SECURITY.md, "A network attacker or another site"): a request
that changes something with the session cookie must show it comes from the site's own
pages — an ``Origin`` of this site, or ``Sec-Fetch-Site: same-origin``/``none`` — while
programs, which send a bearer token or no session at all, need neither."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import httpx
import pytest
from server_support import Raw, shared_server
from websockets.exceptions import InvalidStatus

from baohuang.server.harness import ServerProcess


@pytest.fixture(scope="module")
def server() -> ServerProcess:
    return shared_server("sqlite")


def _code(response: httpx.Response) -> tuple[int, str]:
    return response.status_code, response.json()["error"]["code"]


def _owned(url: str, user_id: int) -> list[dict[str, Any]]:
    """The lobby's tables that ``user_id`` created (every page of the list)."""
    tables: list[dict[str, Any]] = []
    offset, total = 0, 1
    while offset < total:
        page = httpx.get(url + "/api/tables", params={"limit": 100, "offset": offset}).json()
        tables += page["tables"]
        offset, total = offset + 100, page["total"]
    return [t for t in tables if t["owner"] == user_id]


def _register(url: str, name: str, password: str) -> tuple[str, int]:
    made = httpx.post(url + "/api/register", json={"name": name, "password": password})
    assert made.status_code == 201, made.text
    return made.json()["token"], made.json()["user"]["id"]


def test_a_cookie_request_without_origin_is_refused_and_changes_nothing(
        server: ServerProcess) -> None:
    url = server.url
    token, user_id = _register(url, "Zhao Cookie", "zhao-pass-1")
    cookie = {"Cookie": f"bh_session={token}"}
    # an old browser sends neither header; a newer one without Origin says where from
    for extra in ({}, {"Sec-Fetch-Site": "cross-site"}, {"Sec-Fetch-Site": "same-site"}):
        headers = {**cookie, **extra}
        made = httpx.post(url + "/api/tables", json={}, headers=headers)
        assert _code(made) == (403, "origin_required"), made.text
        assert "Origin" in made.json()["error"]["message"]
        assert _code(httpx.post(url + "/api/quickplay", json={"bots": "random"},
                                headers=headers)) == (403, "origin_required")
        assert _code(httpx.post(url + "/api/password", headers=headers, json={
            "password": "zhao-pass-1", "new_password": "zhao-pass-2"})) \
            == (403, "origin_required")
        assert _code(httpx.post(url + "/api/logout", headers=headers)) \
            == (403, "origin_required")
    # nothing changed: no table, the same password, the session alive
    assert _owned(url, user_id) == []
    assert httpx.post(url + "/api/login", json={"name": "Zhao Cookie",
                                                "password": "zhao-pass-1"}).status_code == 200
    assert httpx.get(url + "/api/me", headers=cookie).json()["id"] == user_id
    # reading needs nothing
    assert httpx.get(url + "/api/history", headers=cookie).status_code == 200


def test_a_cookie_request_from_the_sites_own_page_works(server: ServerProcess) -> None:
    url = server.url
    token, user_id = _register(url, "Qian Cookie", "qian-pass-1")
    cookie = {"Cookie": f"bh_session={token}"}
    own = {**cookie, "Origin": f"http://{url.split('://', 1)[1]}"}
    made = httpx.post(url + "/api/tables", json={}, headers=own)
    assert made.status_code == 201, made.text
    # a browser that sends Sec-Fetch-Site but no Origin
    fetched = httpx.post(url + "/api/tables", json={},
                         headers={**cookie, "Sec-Fetch-Site": "same-origin"})
    assert fetched.status_code == 201, fetched.text
    # the page was loaded over HTTPS from a TLS proxy on a trusted address (loopback),
    # which passes the Host on
    proxied = httpx.post(url + "/api/tables", json={}, headers={
        **cookie, "Origin": f"https://{url.split('://', 1)[1]}", "X-Forwarded-Proto": "https"})
    assert proxied.status_code == 201, proxied.text
    assert sorted(t["id"] for t in _owned(url, user_id)) \
        == sorted(r.json()["id"] for r in (made, fetched, proxied))
    changed = httpx.post(url + "/api/password", headers=own, json={
        "password": "qian-pass-1", "new_password": "qian-pass-2"})
    assert changed.status_code == 200, changed.text
    assert httpx.post(url + "/api/logout", headers=own).json() == {"ok": True}
    assert httpx.get(url + "/api/me", headers=cookie).status_code == 401
    # another site's Origin stays refused, whatever Sec-Fetch-Site says
    token, _ = _register(url, "Qian Again", "qian-pass-3")
    evil = httpx.post(url + "/api/tables", json={}, headers={
        "Cookie": f"bh_session={token}", "Origin": "https://evil.example",
        "Sec-Fetch-Site": "same-origin"})
    assert _code(evil) == (403, "bad_origin")


def test_programs_without_origin_keep_working(server: ServerProcess) -> None:
    """A bearer token, or no session at all, needs no Origin — even with a cookie
    beside the token (a program's HTTP library may keep one)."""
    url = server.url
    guest = httpx.post(url + "/api/guest", json={"name": "script"})
    assert guest.status_code == 200
    token, user_id = guest.json()["token"], guest.json()["user"]["id"]
    bearer = {"Authorization": f"Bearer {token}"}
    made = httpx.post(url + "/api/tables", json={}, headers=bearer)
    assert made.status_code == 201, made.text
    both = httpx.post(url + "/api/tables", json={},
                      headers={**bearer, "Cookie": f"bh_session={token}"})
    assert both.status_code == 201, both.text
    assert len(_owned(url, user_id)) == 2
    assert httpx.post(url + "/api/logout", headers=bearer).json() == {"ok": True}
    assert httpx.get(url + "/api/me", headers=bearer).status_code == 401


def test_a_websocket_handshake_with_the_cookie_needs_an_origin(server: ServerProcess) -> None:
    url = server.url
    token, user_id = _register(url, "Sun Socket", "sun-pass-1")
    cookie = {"Cookie": f"bh_session={token}"}
    origin = {"Origin": f"http://{url.split('://', 1)[1]}"}

    async def refused(headers: dict[str, str]) -> tuple[int, dict[str, Any]]:
        with pytest.raises(InvalidStatus) as handshake:
            await Raw.connect(url, headers=headers)
        response = handshake.value.response
        return response.status_code, json.loads(response.body or b"{}")

    async def hello(token: str | None = None, headers: dict[str, str] | None = None
                    ) -> Any:
        raw = await Raw.connect(url, token, headers)
        await raw.close()
        return raw.seen[0]["user"]

    async def main() -> None:
        status, body = await refused(cookie)
        assert (status, body["error"]["code"]) == (403, "origin_required")
        status, body = await refused({**cookie, "Origin": "https://evil.example"})
        assert (status, body["error"]["code"]) == (403, "bad_origin")
        assert (await hello(headers={**cookie, **origin}))["id"] == user_id
        assert (await hello(headers={**cookie, "Sec-Fetch-Site": "same-origin"}))["id"] \
            == user_id
        assert (await hello(token))["id"] == user_id          # a program's bearer token
        assert await hello() is None                           # a watcher without a session
    asyncio.run(main())
