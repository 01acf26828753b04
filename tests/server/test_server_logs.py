"""The server's log (``--log-format json``, ``--log-level debug``): a whole game on a
real server, a player who logs in with a password, a session cookie, a socket opened
with ``?token=``, a private table looked up by its code and a Prometheus scrape — then
every line of the log is one JSON object with the expected keys, the HTTP requests and
the sockets carry their ids, and no secret is anywhere in it: no password, session
token (the cookie's value), metrics token or invitation code, no seat's hand as dealt
and no deal's seed."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import httpx
import websockets
from server_support import FAST, guests, play_together, running_server

import baohuang as bh
from baohuang.client import Client

PASSWORD = "correct horse battery staple 7"
METRICS_TOKEN = "m3tr1cs-t0ken-f0r-the-l0g-test"
KEYS = {"time", "level", "logger", "event"}
#: consecutive cards of a dealt hand, in any of the ways a hand is written, that the
#: log may not hold
WINDOW = 6


def _hand_texts(hand: list[str]) -> set[str]:
    """A hand as a text could show it — whole, and each run of ``WINDOW`` cards — as a
    view's JSON list, compact JSON, a Python list and cards separated by spaces."""
    texts = set()
    runs = [hand] + [hand[i:i + WINDOW] for i in range(len(hand) - WINDOW + 1)]
    for run in runs:
        texts |= {json.dumps(run), json.dumps(run, separators=(",", ":")), repr(run),
                  " ".join(run)}
    return texts


async def _session(url: str) -> dict[str, Any]:
    """Everything the log must not show, gathered while the server is used."""
    secrets: dict[str, Any] = {"password": PASSWORD, "metrics": METRICS_TOKEN}
    # (as a browser's page sends its requests: the cookie is the session)
    async with httpx.AsyncClient(base_url=url, headers={"Sec-Fetch-Site": "same-origin"}
                                 ) as http:
        registered = await http.post("/api/register", json={"name": "logger",
                                                            "password": PASSWORD})
        assert registered.status_code == 201
        await http.post("/api/logout")
        http.cookies.clear()
        login = await http.post("/api/login", json={"name": "logger", "password": PASSWORD})
        assert login.status_code == 200
        secrets["cookie"] = login.cookies["bh_session"]
        secrets["request_id"] = login.headers["x-request-id"]
        token = login.json()["token"]
        wrong = await http.post("/api/login", json={"name": "logger",
                                                    "password": PASSWORD + "?"})
        assert wrong.status_code == 401
        me = await http.get("/api/me")                   # (the cookie is the session)
        assert me.json()["name"] == "logger"
        scrape = await http.get("/metrics",
                                headers={"Authorization": f"Bearer {METRICS_TOKEN}"})
        assert scrape.status_code == 200
        private = await http.post("/api/tables", json={"private": True})
        secrets["code"] = private.json()["code"]
        found = await http.get(f"/api/tables/{secrets['code']}")
        assert found.status_code == 200
    async with websockets.connect(url.replace("http", "ws", 1) + f"/ws?token={token}") as ws:
        hello = json.loads(await ws.recv())
        assert hello["user"]["name"] == "logger"

    player = Client(url)
    await player.login("logger", PASSWORD)
    others = await guests(url, 4, "lg")
    players = [player, *others]
    secrets["tokens"] = [c.token for c in players]
    table = await player.create_table(timeout=60, games=2)
    await play_together(players, table["id"])
    hands, seeds = [], []
    for game in await player.history():
        record = (await player.replay(game["game_id"]))["record"]
        dealt = bh.Game.from_record(dict(record, actions=[]))
        hands += [[str(card) for card in dealt.hand(seat)] for seat in range(5)]
        seeds.append(record["seed"])
    secrets["hands"], secrets["seeds"] = hands, seeds
    return secrets


def test_the_log_is_json_lines_with_ids_and_holds_no_secret(tmp_path: Path) -> None:
    with running_server("sqlite", tmp_path, *FAST, "--log-level", "debug",
                        "--log-format", "json", "--metrics-token", METRICS_TOKEN) as server:
        secrets = asyncio.run(_session(server.url))
    text = (tmp_path / "server.log").read_text()
    lines = [json.loads(line) for line in text.splitlines()]   # (each line: JSON)
    assert all(line.keys() >= KEYS for line in lines)
    assert {line["level"] for line in lines} >= {"debug", "info"}

    requests = [line for line in lines if line["event"] == "request"]
    login = [line for line in requests if line["path"] == "/api/login"]
    assert [line["status"] for line in login] == [200, 401, 200]     # (the last: play)
    assert login[0]["request"] == secrets["request_id"]       # (as X-Request-ID said)
    assert len({line["request"] for line in requests}) == len(requests)
    opened = [line for line in lines if line["event"] == "socket open"]
    closed = [line for line in lines if line["event"] == "socket closed"]
    assert len(opened) >= 6 and {line["conn"] for line in opened} == \
        {line["conn"] for line in closed}
    assert any(line["event"] == "move" and line.get("table") for line in lines)
    assert any(line["event"] == "message" and line.get("conn") for line in lines)

    assert len(secrets["hands"]) == 10 and len(secrets["tokens"]) == 5
    forbidden = {secrets["password"], secrets["metrics"], secrets["cookie"],
                 *secrets["tokens"], secrets["code"]}
    forbidden |= {str(seed) for seed in secrets["seeds"] if len(str(seed)) >= 6}
    for hand in secrets["hands"]:
        forbidden |= _hand_texts(hand)
    leaked = sorted(secret for secret in forbidden if secret in text)
    assert not leaked, leaked
