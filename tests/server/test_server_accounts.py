"""Accounts, sessions, the lobby API, history, replay, levels and ratings over HTTP
against a real server (SQLite file, and PostgreSQL when configured)."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx
import pytest
from hypothesis import given
from hypothesis import strategies as st
from server_support import DATABASES, shared_server

from baohuang.client import Client, ClientError
from baohuang.server.accounts.levels import LEVELS, level_for, next_level_at
from baohuang.server.accounts.rating import rate_game
from baohuang.server.harness import ServerProcess


@pytest.fixture(scope="module", params=DATABASES)
def server(request: pytest.FixtureRequest) -> ServerProcess:
    return shared_server(request.param)


def _post(url: str, path: str, body: Any, token: str | None = None) -> httpx.Response:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    return httpx.post(url + path, json=body, headers=headers)


def test_register_login_logout(server: ServerProcess) -> None:
    url = server.url
    made = _post(url, "/api/register", {"name": " Wang Fang ", "password": "secret-1"})
    assert made.status_code == 201
    assert made.json()["user"]["name"] == "Wang Fang"
    assert made.json()["user"]["title"] == {"zh": "庶民", "en": "Commoner"}
    cookie = made.headers["set-cookie"]
    assert "bh_session=" in cookie and "httponly" in cookie.lower()

    again = _post(url, "/api/register", {"name": "wang fang", "password": "another1"})
    assert (again.status_code, again.json()["error"]["code"]) == (409, "name_taken")
    short = _post(url, "/api/register", {"name": "Li", "password": "123"})
    assert short.json()["error"]["code"] == "bad_password"
    empty = _post(url, "/api/register", {"name": "   ", "password": "secret-1"})
    assert empty.json()["error"]["code"] == "bad_name"
    wrong = _post(url, "/api/login", {"name": "Wang Fang", "password": "wrong-pw"})
    assert (wrong.status_code, wrong.json()["error"]["code"]) == (401, "bad_credentials")

    login = _post(url, "/api/login", {"name": "WANG FANG", "password": "secret-1"})
    token = login.json()["token"]
    with httpx.Client(base_url=url) as browser:       # the cookie alone is a session
        browser.post("/api/login", json={"name": "wang fang", "password": "secret-1"})
        assert browser.get("/api/me").json()["name"] == "Wang Fang"
    me = httpx.get(url + "/api/me", headers={"Authorization": f"Bearer {token}"})
    assert me.json()["id"] == made.json()["user"]["id"]
    assert _post(url, "/api/logout", None, token).json() == {"ok": True}
    gone = httpx.get(url + "/api/me", headers={"Authorization": f"Bearer {token}"})
    assert (gone.status_code, gone.json()["error"]["code"]) == (401, "login_required")
    assert _post(url, "/api/register", [1, 2]).json()["error"]["code"] == "bad_request"


def test_table_creation_is_checked(server: ServerProcess) -> None:
    url = server.url
    token = _post(url, "/api/guest", {"name": "host"}).json()["token"]
    cases = {
        "bad_rules": {"preset": "nowhere"},
        "bad_rules ": {"options": {"kaopia": True}},
        "bad_rules  ": {"options": {"deck": "tarot"}},
        "bad_request": {"timeout": 0},
        "bad_request ": {"games": 2.5},
        "bad_request  ": {"colour": "red"},
        "unknown_bot": {"bots": {"1": "genius"}},
    }
    for code, body in cases.items():
        answer = _post(url, "/api/tables", body, token)
        assert (answer.status_code, answer.json()["error"]["code"]) == (400, code.strip())
    assert _post(url, "/api/tables", {}).status_code == 401
    made = _post(url, "/api/tables", {"preset": "lianzhong_simple",
                                      "options": {"hold_sixes": "on"}, "timeout": 15,
                                      "games": 3, "bots": {"4": "random"}}, token).json()
    detail = httpx.get(f"{url}/api/tables/{made['code'].lower()}").json()
    assert detail["id"] == made["id"] and detail["rules"]["hold_sixes"] is True
    assert detail["rules"]["leave_ends_game"] is False and detail["games"] == 3
    assert detail["seats"][4]["bot"] == "random" and detail["status"] == "open"
    listed = httpx.get(url + "/api/tables").json()["tables"]
    assert made["id"] in [t["id"] for t in listed]
    assert httpx.get(url + "/api/tables/NOPE42").status_code == 404


def test_history_replay_points_and_rating(server: ServerProcess) -> None:
    async def main() -> tuple[list[dict[str, Any]], dict[str, Any], dict[str, Any],
                              dict[str, Any]]:
        client = Client(server.url)
        await client.register("Zhao", "zhao-pass")
        table = await client.quickplay(bots=["hosted", "random", "hosted", "random"])
        result = await asyncio.wait_for(client.play(table["id"], "hosted"), 60)
        history = await client.history()
        replay = await client.replay(history[0]["game_id"])
        board = await client.request("GET", "/api/leaderboard")
        return history, replay, await client.request("GET", "/api/me"), \
            {"result": result.games[0], "board": board}

    history, replay, me, extra = asyncio.run(main())
    score = extra["result"]["result"]["scores"][0]
    assert history[0]["score"] == score == me["points"] and me["games"] == 1
    assert me["wins"] == (1 if score > 0 else 0)
    assert me["rating"]["sigma"] < 25 / 3            # one game made the rating surer
    assert me["id"] in [u["id"] for u in extra["board"]["users"]]
    steps = replay["steps"]
    assert len(steps) == len(replay["record"]["actions"])
    assert sum(len(cards) for cards in steps[-1]["hands"].values()) == \
        sum(steps[-1]["view"]["hand_counts"])
    start = replay["start"]                          # the deal, before any action
    assert start["view"]["hand_counts"] == [len(start["hands"][str(s)]) for s in range(5)]
    assert start["view"]["stage"] == "emperor" and start["view"]["out"] == []
    assert replay["players"][2]["bot"] == "random" and replay["events"][-1]["type"] == "over"
    missing = httpx.get(server.url + "/api/games/999999/replay")
    assert (missing.status_code, missing.json()["error"]["code"]) == (404, "not_found")
    with pytest.raises(ClientError):
        asyncio.run(Client(server.url).history())


def test_levels_endpoint_matches_the_table(server: ServerProcess) -> None:
    levels = httpx.get(server.url + "/api/levels").json()["levels"]
    assert [lv["level"] for lv in levels] == list(range(1, len(LEVELS) + 1))
    assert levels[2] == {"level": 3, "min_points": 60, "zh": "秀才", "en": "Scholar"}


@given(st.integers(-10_000, 20_000))
def test_levels_rise_with_points(points: int) -> None:
    level = level_for(points)
    assert level_for(points + 1).level >= level.level
    nxt = next_level_at(points)
    if nxt is None:
        assert level == LEVELS[-1]
    else:
        assert nxt > points and level_for(nxt).level == level.level + 1


def test_rating_moves_winners_up_and_skips_bots() -> None:
    start = [(25.0, 25 / 3)] * 5
    new = rate_game(start, royal=(1,), royal_won=False, rated=[True] * 4 + [False])
    assert new[1] is not None and new[1][0] < 25.0           # the solo Emperor lost
    assert all(r is not None and r[0] > 25.0 for r in new[0:1] + new[2:4])
    assert new[4] is None
    draw = rate_game(start, royal=(0, 1), royal_won=None, rated=[True] * 5)
    assert all(r is not None and r[1] < 25 / 3 for r in draw)
