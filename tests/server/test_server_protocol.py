"""The WebSocket protocol's defences against a real server: every refused message
gets an error naming what was wrong and leaves the table alone; abuse closes the
socket; origins are checked; a slow reader is dropped; fuzzed messages never
break a table."""

from __future__ import annotations

import asyncio
import json
import socket
from pathlib import Path
from typing import Any

import pytest
import websockets
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from server_support import Raw, guests, shared_server
from websockets.exceptions import ConnectionClosed, InvalidStatus

from baohuang.client import Client
from baohuang.server.config import ServerConfig
from baohuang.server.harness import ServerProcess, ServerThread
from baohuang.server.wire.protocol import CLIENT_TYPES


@pytest.fixture(scope="module")
def server() -> ServerProcess:
    return shared_server("sqlite")


async def _my_turn(server: ServerProcess, name: str) -> tuple[Client, Raw, dict[str, Any],
                                                               dict[str, Any]]:
    """A human at seat 0 against four bots, with the table waiting for the human."""
    client = Client(server.url)
    await client.guest(name)
    table = await client.quickplay(bots="hosted", practice=True, seed=13, timeout=60)
    raw = await Raw.connect(server.url, client.token)
    await raw.send({"type": "join", "table": table["id"]})
    while True:
        msg = await raw.recv()
        if msg["type"] in ("update", "snapshot") and raw.view["to_act"] == 0:
            return client, raw, table, {**msg, "view": dict(raw.view)}


def test_refused_messages_name_what_was_wrong_and_change_nothing(server: ServerProcess) -> None:
    async def main() -> tuple[dict[str, str], dict[str, Any], dict[str, Any], int]:
        client, raw, table, turn = await _my_turn(server, "careful")
        version = turn["version"]
        legal = turn["view"]["legal_actions"]
        battery: dict[str, str | bytes | dict[str, Any]] = {
            "malformed": b"not json at all",
            "malformed ": "[1, 2]",
            "unknown_type": {"type": "dance"},
            "invalid": {"type": "sit", "seat": "two"},
            "invalid ": {"type": "join"},
            "invalid  ": {"type": "ping", "extra": 1},
            "too_large": json.dumps({"type": "ping", "pad": "x" * 5000}),
            "bad_action": {"type": "act", "action": {"kind": "fly"}},
            "bad_action ": {"type": "act", "action": {"kind": "play", "cards": ["ZZ"]}},
            "bad_action  ": {"type": "act", "action": "play ZZ"},
            "bad_action   ": {"type": "act", "action": "fly"},
            "stale": {"type": "act", "action": legal[0], "version": version - 1},
            "illegal": {"type": "act", "action": {"kind": "play", "cards": ["BJ"] * 9}},
            "started": {"type": "sit", "seat": 2},
            "started ": {"type": "start"},
            "no_table": {"type": "join", "table": "no-such-table"},
        }
        codes: dict[str, str] = {}
        for expected, message in battery.items():
            await raw.send(message)
            reply = await raw.recv_type("error")
            codes[expected.strip()] = reply["code"]
            assert reply["message"]
            # (``ref``: the kind refused, when it is one; an unknown kind is not echoed)
            kind = message.get("type") if isinstance(message, dict) else None
            assert reply["ref"] == (None if expected.startswith(("malformed", "unknown",
                                                                 "too_large")) else kind)
            if message == {"type": "start"}:
                assert reply["message"] == "this table has started already"
        # nothing moved: our legal move still works at the same version (sent in the
        # text form views list it in)
        assert isinstance(legal[0], str)
        await raw.send({"type": "act", "action": legal[0], "version": version})
        after = await raw.recv_type("update")
        info = await client.request("GET", f"/api/tables/{table['id']}")
        return codes, after, info, version

    codes, after, info, version = asyncio.run(main())
    assert codes == {k: k for k in codes}
    assert info["status"] == "playing"
    # (nothing happened between: the update starts at the version we acted at)
    assert after["since"] == version and after["events"][0]["seat"] == 0


def test_out_of_turn_and_seatless_acts_are_refused(server: ServerProcess) -> None:
    async def main() -> list[str]:
        a, b = await guests(server.url, 2, "duo")
        table = await a.create_table(practice=True, seed=2, timeout=60,
                                     bots={"2": "hosted", "3": "hosted", "4": "hosted"})
        raws = [await Raw.connect(server.url, c.token) for c in (a, b)]
        seats = {}
        for raw in raws:
            await raw.send({"type": "join", "table": table["id"]})
            seats[(await raw.recv_type("table"))["you"]["seat"]] = raw
        waiting = None
        while waiting is None:
            msg = await raws[0].recv()
            if msg["type"] in ("update", "snapshot") and raws[0].view["to_act"] is not None:
                waiting = raws[0].view["to_act"]
        idle = seats[1 - waiting] if waiting in (0, 1) else seats[0]
        await idle.send({"type": "act", "action": {"kind": "pass"}})
        codes = [(await idle.recv_type("error"))["code"]]
        watcher = await Raw.connect(server.url)
        await watcher.send({"type": "join", "table": table["id"], "as": "player"})
        codes.append((await watcher.recv_type("error"))["code"])
        await watcher.send({"type": "join", "table": table["id"], "as": "watcher"})
        await watcher.recv_type("table")
        await watcher.send({"type": "act", "action": {"kind": "pass"}})
        codes.append((await watcher.recv_type("error"))["code"])
        return codes

    assert asyncio.run(main()) == ["not_your_turn", "login_required", "not_seated"]


async def _abuse(raw: Raw) -> int | None:
    """Send malformed messages until the server closes the socket; its close code."""
    try:
        for _ in range(40):
            await raw.send("{")
            await asyncio.sleep(0)
        while True:
            await raw.recv()
    except ConnectionClosed as closed:
        return closed.rcvd.code if closed.rcvd else None


def test_repeated_abuse_closes_the_socket(server: ServerProcess) -> None:
    async def main() -> int | None:
        return await _abuse(await Raw.connect(server.url))

    assert asyncio.run(main()) == 1008


def test_a_seated_player_closed_for_abuse_is_away_at_once(server: ServerProcess) -> None:
    """The table hears of a player's socket closed for abuse right away: the seat shows
    as not connected (and 托管 takes over after the away grace), the game goes on."""
    async def main() -> tuple[int | None, dict[str, Any]]:
        client, raw, table, _ = await _my_turn(server, "rowdy")
        code = await _abuse(raw)
        info: dict[str, Any] = {}
        for _ in range(50):
            info = await client.request("GET", f"/api/tables/{table['id']}")
            if not info["seats"][0]["connected"]:
                break
            await asyncio.sleep(0.05)
        return code, info

    code, info = asyncio.run(main())
    assert code == 1008
    assert info["seats"][0]["connected"] is False
    assert info["status"] == "playing"


def test_rate_limit(server: ServerProcess) -> None:
    async def main() -> list[str]:
        raw = await Raw.connect(server.url)
        for _ in range(130):
            await raw.send({"type": "ping"})
        codes = []
        with_errors = 0
        try:
            while with_errors < 3:
                msg = await raw.recv(5)
                if msg["type"] == "error":
                    codes.append(msg["code"])
                    with_errors += 1
        except (ConnectionClosed, TimeoutError):
            pass
        return codes

    assert "rate_limited" in asyncio.run(main())


def test_origin_is_checked(server: ServerProcess) -> None:
    async def main() -> tuple[int, str]:
        with pytest.raises(InvalidStatus) as refused:
            await Raw.connect(server.url, headers={"Origin": "https://evil.example"})
        local = await Raw.connect(server.url, headers={"Origin": "http://localhost:5173"})
        await local.send({"type": "ping"})
        return refused.value.response.status_code, (await local.recv())["type"]

    status, answer = asyncio.run(main())
    assert status == 403 and answer == "pong"


_values = st.recursive(
    st.none() | st.booleans() | st.integers(-2**40, 2**40) | st.floats(allow_nan=False)
    | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner,
                                                                max_size=4),
    max_leaves=10)
_fields = st.sampled_from(["table", "as", "version", "seat", "bot", "action", "on", "kind",
                           "cards", "x"])
_messages = st.one_of(
    st.builds(lambda t, extra: json.dumps({"type": t, **extra}),
              st.sampled_from([t for t in CLIENT_TYPES if t != "leave"]) | st.text(max_size=10),
              st.dictionaries(_fields, _values, max_size=4)),
    st.builds(lambda kind, cards: json.dumps({"type": "act", "action": {"kind": kind,
                                                                        "cards": cards}}),
              st.sampled_from(["play", "pass", "call", "accept", "leave", "kick", "zz"]),
              st.lists(st.sampled_from(["9", "BJ", "SJ*", "10h", "2", "x", ""]), max_size=5)),
    st.text(max_size=60),
    st.binary(max_size=60),
)


def test_fuzzed_messages_never_disturb_a_table(server: ServerProcess) -> None:
    runner = asyncio.Runner()
    try:
        client, raw, table, _ = runner.run(_my_turn(server, "fuzzer"))
        conn: dict[str, Raw] = {"raw": raw}

        async def send_all(messages: list[str | bytes]) -> None:
            for message in messages:
                try:
                    await conn["raw"].send(message)
                except ConnectionClosed:
                    conn["raw"] = await Raw.connect(server.url, client.token)
                    await conn["raw"].send({"type": "join", "table": table["id"]})
            # drain what came back so far (the server may have closed us for abuse)
            try:
                while True:
                    await conn["raw"].recv(0.02)
            except (TimeoutError, ConnectionClosed):
                pass

        @settings(max_examples=150, deadline=None, database=None,
                  suppress_health_check=list(HealthCheck))
        @given(st.lists(_messages, min_size=1, max_size=4))
        def fuzz(messages: list[str | bytes]) -> None:
            runner.run(send_all(messages))

        fuzz()
        # the table is still there and still playable to the end
        result = runner.run(asyncio.wait_for(client.play(table["id"], "hosted"), 60))
    finally:
        runner.close()
    assert len(result.games) == 1 and result.games[0]["result"]["scores"]
    log = Path(server.log or "").read_text() if server.log else ""
    assert "Traceback" not in log and "error handling" not in log


async def _watcher_on_a_small_buffer(url: str, table: str, **options: Any) -> Any:
    """A watcher of ``table`` whose socket takes in at most 4 KiB before the server's
    sends to it must wait (it reads only when the test says)."""
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    sock.connect(("127.0.0.1", int(url.rsplit(":", 1)[1])))
    watcher = await websockets.connect(url.replace("http", "ws", 1) + "/ws", sock=sock,
                                       compression=None, max_size=None, **options)
    await watcher.send(json.dumps({"type": "join", "table": table, "as": "watcher"}))
    return watcher


def test_a_slow_reader_is_dropped_and_the_table_plays_on(tmp_path: Path) -> None:
    config = ServerConfig(db_url=f"sqlite+aiosqlite:///{tmp_path / 'slow.db'}", send_queue=8,
                          bot_delay=0, hosted_delay=0, guard_pause=0, next_game_delay=0)

    async def main(url: str) -> tuple[int, int, int | None]:
        owner = Client(url)
        await owner.guest("owner")
        table = await owner.create_table(practice=True, seed=1, games=2, timeout=60,
                                         bots={str(s): "hosted" for s in range(5)},
                                         autostart=False)
        slow = await _watcher_on_a_small_buffer(url, table["id"])
        watcher = Client(url)
        joined = asyncio.Event()
        watching = asyncio.create_task(watcher.play(table["id"], None, watch=True,
                                                    on_message=lambda _: joined.set()))
        await joined.wait()                  # (the watcher is at the table before the start)
        raw = await Raw.connect(url, owner.token)
        await raw.send({"type": "join", "table": table["id"], "as": "watcher"})
        await raw.send({"type": "start"})
        watched = await asyncio.wait_for(watching, 120)
        received = 0
        code = None
        try:
            while True:
                await asyncio.wait_for(slow.recv(), 10)
                received += 1
        except ConnectionClosed as closed:
            code = closed.rcvd.code if closed.rcvd else None
        return received, watched.messages, code

    with ServerThread(config, send_buffer=8192) as running:
        received, full, code = asyncio.run(main(running.url))
    assert code == 1008
    assert received < full


def test_a_reader_behind_within_its_queue_gets_every_message_in_order(tmp_path: Path) -> None:
    """A watcher that reads nothing during a match of two games — its socket's buffers
    full, so that sends to it wait — gets every message afterwards, once each and in
    order (each update follows the version before it), as a watcher who kept up."""
    config = ServerConfig(db_url=f"sqlite+aiosqlite:///{tmp_path / 'behind.db'}",
                          send_queue=100_000, bot_delay=0, hosted_delay=0, guard_pause=0,
                          next_game_delay=0)

    async def main(url: str) -> tuple[list[dict[str, Any]], int]:
        owner = Client(url)
        await owner.guest("owner")
        table = await owner.create_table(practice=True, seed=3, games=2, timeout=60,
                                         bots={str(s): "hosted" for s in range(5)},
                                         autostart=False)
        behind = await _watcher_on_a_small_buffer(url, table["id"], max_queue=1)
        joined = asyncio.Event()
        watching = asyncio.create_task(Client(url).play(table["id"], None, watch=True,
                                                        on_message=lambda _: joined.set()))
        await joined.wait()                  # (the watcher is at the table before the start)
        raw = await Raw.connect(url, owner.token)
        await raw.send({"type": "join", "table": table["id"], "as": "watcher"})
        await raw.send({"type": "start"})
        kept_up = await asyncio.wait_for(watching, 120)
        got: list[dict[str, Any]] = []
        while sum(m["type"] == "game_over" for m in got) < 2:
            got.append(json.loads(await asyncio.wait_for(behind.recv(), 10)))
        await behind.close()
        return got, kept_up.messages

    with ServerThread(config, send_buffer=8192) as running:
        got, kept_up = asyncio.run(main(running.url))
    version = None
    for message in got:
        if message["type"] == "snapshot":
            version = message["version"]
        elif message["type"] == "update":
            assert message["since"] == version
            version = message["version"]
        elif message["type"] == "game_over":
            assert message["version"] == version
    assert sum(m["type"] == "snapshot" for m in got) == 2
    assert len(got) >= kept_up - 2 > 200    # (the other may see one more table message)


def test_quick_phrases_reach_the_table_rate_limited(server: ServerProcess) -> None:
    async def main() -> tuple[dict[str, Any], dict[str, Any], dict[str, Any], dict[str, Any]]:
        client, raw, table, _ = await _my_turn(server, "chatty")
        watcher = await Raw.connect(server.url, client.token)
        await watcher.send({"type": "join", "table": table["id"], "as": "watcher"})
        await watcher.recv_type("snapshot")
        await raw.send({"type": "emote", "id": "nice"})
        mine = await raw.recv_type("emote")
        seen = await watcher.recv_type("emote")
        await raw.send({"type": "emote", "id": "hello"})       # too soon after the last
        limited = await raw.recv_type("error")
        await watcher.send({"type": "emote", "id": "hello"})   # watchers do not chat
        refused = await watcher.recv_type("error")
        await raw.close()
        await watcher.close()
        return mine, seen, limited, refused

    mine, seen, limited, refused = asyncio.run(main())
    assert mine == seen == {"type": "emote", "seat": 0, "id": "nice"}
    assert limited["code"] == "rate_limited" and limited["ref"] == "emote"
    assert refused["code"] == "not_seated"


def test_free_chat_only_at_private_tables_as_text_and_never_stored(
        server: ServerProcess) -> None:
    async def main() -> dict[str, Any]:
        out: dict[str, Any] = {}
        _, public_raw, _, _ = await _my_turn(server, "public")
        await public_raw.send({"type": "chat", "text": "hello"})
        out["public"] = await public_raw.recv_type("error")
        await public_raw.close()
        host = Client(server.url)
        await host.guest("host")
        table = await host.quickplay(bots="hosted", practice=True, seed=13, timeout=60,
                                     private=True)
        listed = await host.request("GET", "/api/tables?limit=100")
        out["listed"] = [t["id"] for t in listed["tables"]]
        out["table"] = table
        raw = await Raw.connect(server.url, host.token)
        await raw.send({"type": "join", "table": table["id"]})
        await raw.recv_type("snapshot")
        watcher = await Raw.connect(server.url, host.token)
        await watcher.send({"type": "join", "table": table["code"], "as": "watcher"})
        await watcher.recv_type("snapshot")
        await raw.send({"type": "chat", "text": "  <b>好</b>\nplay\u202e on  "})
        out["mine"] = await raw.recv_type("chat")
        out["seen"] = await watcher.recv_type("chat")
        await raw.send({"type": "chat", "text": "again"})             # within 3 s
        out["limited"] = await raw.recv_type("error")
        await raw.send({"type": "chat", "text": "x" * 121})
        out["long"] = await raw.recv_type("error")
        await raw.send({"type": "chat", "text": "\n\u200b "})
        out["empty"] = await raw.recv_type("error")
        await watcher.send({"type": "chat", "text": "hi"})
        out["watcher"] = await watcher.recv_type("error")
        # 托管 plays the game to its end: its replay holds no chat
        await raw.send({"type": "hosted", "on": True})
        await raw.recv_type("game_over", timeout=120)
        history = await host.history()
        out["replay"] = json.dumps(await host.replay(history[0]["game_id"]),
                                   ensure_ascii=False)
        await raw.close()
        await watcher.close()
        return out

    out = asyncio.run(main())
    assert out["public"]["code"] == "not_private" and out["public"]["ref"] == "chat"
    assert out["table"]["table"]["private"] is True
    assert out["table"]["id"] not in out["listed"]         # only its link or code finds it
    said = {"type": "chat", "seat": 0, "text": "<b>好</b> play on"}
    assert out["mine"] == out["seen"] == said
    assert out["limited"]["code"] == "rate_limited"
    assert out["long"]["code"] == "invalid" and "120" in out["long"]["message"]
    assert out["empty"]["code"] == "invalid"
    assert out["watcher"]["code"] == "not_seated"
    assert "<b>" not in out["replay"] and "play on" not in out["replay"]


def test_a_snapshot_says_when_the_decision_awaited_times_out(server: ServerProcess) -> None:
    """A client that starts from a snapshot (the deal, a join, a resync) shows the turn's
    clock at once: the snapshot carries the same ``deadline`` as the updates."""
    async def main() -> tuple[dict[str, Any], dict[str, Any], list[dict[str, Any]]]:
        _, raw, _, turn = await _my_turn(server, "timely")
        await raw.send({"type": "resync", "version": None})
        snap = await raw.recv_type("snapshot")
        await raw.close()
        return turn, snap, raw.seen

    turn, snap, seen = asyncio.run(main())
    deadlines = [m["deadline"] for m in seen if m["type"] == "update"] or [None]
    assert isinstance(snap["deadline"], float)
    assert snap["deadline"] == (turn["deadline"] if turn["type"] == "update"
                                else deadlines[-1] or snap["deadline"])
    first = next(m for m in seen if m["type"] == "snapshot")
    assert "deadline" in first
