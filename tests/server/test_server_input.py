"""Bounded input against a real server (issue 16, SECURITY.md): deeply nested JSON,
huge numbers and ids, oversized bodies and frames get a clear 4xx or error message,
and fuzzed frames and requests change no game."""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
import typing
from pathlib import Path
from typing import Any

import httpx
import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from server_support import Raw, guests, shared_server
from websockets.exceptions import ConnectionClosed

from baohuang.client import Client
from baohuang.server.harness import ServerProcess
from baohuang.server.transport.api import routes as API_ROUTES
from baohuang.server.wire.protocol import CLIENT_TYPES, ClientMessage


@pytest.fixture(scope="module")
def server() -> ServerProcess:
    return shared_server("sqlite")


# -- 5. bounded input -------------------------------------------------------------------------
DEEP = "[" * 5000 + "]" * 5000
HUGE = 10**40


def test_hostile_http_bodies_and_ids_get_a_4xx(server: ServerProcess) -> None:
    token = httpx.post(server.url + "/api/guest", json={"name": "hostile"}).json()["token"]
    auth = {"Authorization": f"Bearer {token}"}
    json_type = {**auth, "Content-Type": "application/json"}
    cases = [
        (httpx.post(server.url + "/api/tables", content=DEEP, headers=json_type), 400),
        (httpx.post(server.url + "/api/login", content='{"name":' + DEEP + "}",
                    headers=json_type), 400),
        (httpx.post(server.url + "/api/tables", content=b"{" + b" " * 100_000 + b"}",
                    headers=json_type), 413),
        (httpx.post(server.url + "/api/guest", content='{"name": "plain"}',
                    headers={"Content-Type": "text/plain"}), 415),
        (httpx.post(server.url + "/api/tables", json={"options": {"leave_penalty": 10**24}},
                    headers=auth), 400),
        (httpx.post(server.url + "/api/tables", json={"timeout": HUGE, "games": HUGE},
                    headers=auth), 400),
        (httpx.get(server.url + f"/api/users/{HUGE}"), 404),
        (httpx.get(server.url + f"/api/games/{HUGE}/replay"), 404),
        (httpx.get(server.url + "/api/history?limit=" + "9" * 5000, headers=auth), 400),
    ]
    for response, status in cases:
        assert response.status_code == status, (response.request.url, response.text)
        assert response.json()["error"]["message"]
    penalty = cases[4][0].json()["error"]
    assert penalty["code"] == "bad_rules" and "'leave_penalty'" in penalty["message"]


def test_hostile_websocket_frames_get_an_error(server: ServerProcess) -> None:
    async def main() -> list[dict[str, Any]]:
        raw = await Raw.connect(server.url)
        answers = []
        for frame in (DEEP[:2000] + DEEP[-2000:],
                      '{"type": "act", "action": {"kind": "play", "cards": '
                      + "[" * 1500 + "]" * 1500 + "}}",
                      f'{{"type": "sit", "seat": {HUGE}}}',
                      f'{{"type": "join", "table": "x", "version": {HUGE}}}',
                      "x" * 5000):
            await raw.send(frame)
            answers.append(await raw.recv_type("error"))
        await raw.send({"type": "ping"})
        await raw.recv_type("pong")
        await raw.close()
        return answers

    codes = [a["code"] for a in asyncio.run(main())]
    assert codes == ["malformed", "malformed", "not_joined", "no_table", "too_large"]


_json_values = st.recursive(
    st.none() | st.booleans() | st.integers(min_value=-HUGE, max_value=HUGE)
    | st.floats(allow_nan=False) | st.text(max_size=30) | st.sampled_from(["9h", "pass", "BJ*"]),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner,
                                                                max_size=4),
    max_leaves=12)
#: every field of every client message (as the protocol module defines them), and a few
#: that none has
_MESSAGE_FIELDS = sorted({f.encode_name for kind in typing.get_args(ClientMessage)
                          for f in msgspec.structs.fields(kind)} | {"kind", "cards", "x"})
_field_names = st.sampled_from(_MESSAGE_FIELDS)


@st.composite
def _frames(draw: st.DrawFn) -> str | bytes:
    """A hostile frame: a message of every kind with fields of any value, deep or
    huge JSON, or no JSON at all."""
    kind = draw(st.sampled_from([*CLIENT_TYPES, "dance", ""]))
    fields = draw(st.dictionaries(_field_names, _json_values, max_size=4))
    shape = draw(st.sampled_from(["message", "message", "deep", "huge", "text", "bytes"]))
    if shape == "message":
        return json.dumps({"type": kind, **fields})
    if shape == "deep":
        depth = draw(st.integers(500, 2040))
        return '{"type": "' + kind + '", "action": ' + "[" * depth + "]" * depth + "}"
    if shape == "huge":
        return '{"type": "' + kind + '", "seat": ' + "9" * draw(st.integers(20, 4000)) + "}"
    if shape == "text":
        return draw(st.text(max_size=200))
    return draw(st.binary(max_size=200))


#: every endpoint of the API (as the server defines them) with its methods
_ENDPOINTS = sorted({(route.path, method) for route in API_ROUTES
                     for method in (route.methods or {"GET"}) if method != "HEAD"})
#: every field a request body or query of docs/protocol.md §2 names, and one none does
_BODY_FIELDS = ["name", "password", "new_password", "preset", "options", "timeout", "games",
                "bots", "autostart", "seed", "practice", "counter", "private", "limit",
                "offset", "optional", "x"]


@st.composite
def _requests(draw: st.DrawFn) -> tuple[str, str, bytes, dict[str, str]]:
    path, method = draw(st.sampled_from(_ENDPOINTS))
    if draw(st.booleans()):
        method = draw(st.sampled_from(["GET", "POST", "PUT", "DELETE"]))
    word = st.text(alphabet=st.characters(codec="ascii", categories=["L", "N"]), max_size=50)
    path = re.sub(r"\{\w+\}", lambda _: str(draw(
        st.one_of(st.integers(min_value=-HUGE, max_value=HUGE), word))), path)
    query = draw(st.dictionaries(st.sampled_from(_BODY_FIELDS), word, max_size=2))
    if query:
        path += "?" + "&".join(f"{k}={v}" for k, v in query.items())
    body = draw(st.one_of(_json_values.map(lambda v: json.dumps(v).encode()),
                          st.dictionaries(st.sampled_from(_BODY_FIELDS), _json_values,
                                          max_size=4).map(lambda v: json.dumps(v).encode()),
                          st.binary(max_size=100),
                          st.integers(100, 5000).map(lambda d: b"[" * d + b"]" * d)))
    kind = draw(st.sampled_from(["application/json", "text/plain", ""]))
    return method, path, body, {"Content-Type": kind} if kind else {}


def test_fuzzed_frames_and_requests_change_no_game(server: ServerProcess) -> None:
    """Random and hostile frames of every message kind from a watcher's socket, and
    random requests to every endpoint: no 500, no crash, and the game a player is
    thinking about at that table stays exactly where it was."""
    runner = asyncio.Runner()
    try:
        async def setup() -> tuple[Client, Raw, dict[str, Any], int, str]:
            player = Client(server.url)
            await player.guest("fuzz-target")
            table = await player.quickplay(bots="hosted", timeout=600)
            raw = await Raw.connect(server.url, player.token)
            await raw.send({"type": "join", "table": table["id"]})
            while True:
                msg = await raw.recv()
                if msg["type"] in ("update", "snapshot") and raw.view["to_act"] == 0:
                    break
            attacker = await guests(server.url, 1, "fuzzer")
            assert attacker[0].token is not None
            return player, raw, table, msg["version"], attacker[0].token

        player, _raw, table, version, token = runner.run(setup())
        # (the requests get a session of their own: they may log it out)
        rest_token = httpx.post(server.url + "/api/guest", json={"name": "rest"}).json()["token"]

        async def frames(batch: list[str | bytes]) -> None:
            sock = await Raw.connect(server.url, token)
            await sock.send({"type": "join", "table": table["id"], "as": "watcher"})
            await sock.recv_type("table")
            with contextlib.suppress(ConnectionClosed):
                for frame in batch:
                    await sock.send(frame)
                await sock.send({"type": "ping"})
                await sock.recv_type("pong")          # every frame was handled
            await sock.close()

        @settings(max_examples=60, deadline=None, database=None,
                  suppress_health_check=list(HealthCheck))
        @given(st.lists(_frames(), min_size=1, max_size=5), st.lists(_requests(), max_size=3))
        def fuzz(batch: list[str | bytes],
                 requests: list[tuple[str, str, bytes, dict[str, str]]]) -> None:
            runner.run(frames(batch))
            for method, path, body, headers in requests:
                with_auth = {**headers, "Authorization": f"Bearer {rest_token}"}
                response = httpx.request(method, server.url + path, content=body,
                                         headers=with_auth)
                assert response.status_code < 500, (method, path, response.text)

        fuzz()

        async def after() -> dict[str, Any]:
            # (from a new socket: the first one's loop stood still during the fuzzing,
            # answering no keepalive ping, and a loaded server may have closed it)
            back = await Raw.connect(server.url, player.token)
            await back.send({"type": "join", "table": table["id"]})
            snapshot = await back.recv_type("snapshot")
            await back.close()
            return snapshot
        snapshot = runner.run(after())
    finally:
        runner.close()
    assert snapshot["version"] == version and snapshot["view"]["to_act"] == 0
    assert httpx.get(server.url + "/healthz").status_code == 200
    log = Path(server.log or "").read_text() if server.log else ""
    assert "Traceback" not in log and "error handling" not in log
