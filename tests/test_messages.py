"""Every WebSocket message is typed in wire/protocol.py: the server's texts are its
Structs' encodings, byte for byte (the hand-written ``update`` included, over whole
games); the table's dispatcher handles every kind of client message; the web
client's reader handles every kind of server message."""

from __future__ import annotations

import ast
import inspect
import random
import re
import textwrap
import typing
from pathlib import Path
from typing import Any

import msgspec
import pytest
from helpers import examples
from hypothesis import given, settings
from hypothesis import strategies as st

import baohuang as bh
from baohuang.engine.views import OWN_FIELDS, PUBLIC_FIELDS
from baohuang.server.table import seating
from baohuang.server.wire import render
from baohuang.server.wire.protocol import (
    CLIENT_TYPES,
    SERVER_TYPES,
    Chatted,
    ClientMessage,
    Emoted,
    ErrorMsg,
    Hello,
    Left,
    Limits,
    Pause,
    Pong,
    ServerMessage,
    TableMsg,
    Update,
    You,
    decode_server,
    encode,
)

ROOT = Path(__file__).resolve().parents[1]


def tags(union: Any) -> list[str]:
    return [str(member.__struct_config__.tag) for member in typing.get_args(union)]


def test_each_union_is_tagged_by_its_list_of_kinds() -> None:
    assert sorted(tags(ClientMessage)) == sorted(CLIENT_TYPES)
    assert sorted(tags(ServerMessage)) == sorted(SERVER_TYPES)
    assert len(set(SERVER_TYPES)) == len(SERVER_TYPES) == 11


# the texts the server sent before its messages were Structs (dict literals, encoded by
# msgspec): the same bytes now
GOLDEN: list[tuple[ServerMessage, str]] = [
    (Hello(user=None, limits=Limits(max_message_bytes=4096, rate_per_second=50.0, burst=100),
           now=1700000000.25),
     '{"type":"hello","user":null,"limits":{"max_message_bytes":4096,"rate_per_second":50.0,'
     '"burst":100},"now":1700000000.25}'),
    (Pong(), '{"type":"pong"}'),
    (ErrorMsg("not_joined", "send join first", None),
     '{"type":"error","code":"not_joined","message":"send join first","ref":null}'),
    (TableMsg(table={"id": "7KQ2PA", "status": "open"}, you=You(seat=None, watcher=True)),
     '{"type":"table","table":{"id":"7KQ2PA","status":"open"},'
     '"you":{"seat":null,"watcher":true}}'),
    (Emoted(seat=3, id="tea"), '{"type":"emote","seat":3,"id":"tea"}'),
    (Chatted(seat=0, text="好牌"), '{"type":"chat","seat":0,"text":"好牌"}'),
    (Pause(paused=True, reason="database"),
     '{"type":"pause","paused":true,"reason":"database"}'),
    (Pause(paused=False), '{"type":"pause","paused":false}'),       # (no reason: left out)
    (Left(table="7KQ2PA"), '{"type":"left","table":"7KQ2PA"}'),
]


@pytest.mark.parametrize(("message", "text"), GOLDEN, ids=lambda v: type(v).__name__)
def test_a_message_is_sent_as_before(message: ServerMessage, text: str) -> None:
    assert encode(message) == text
    assert decode_server(text) == message


def test_a_games_snapshot_and_result_are_sent_as_before() -> None:
    game = bh.Game.new(seed=5)
    rng = random.Random(5)
    snap = render.snapshot(game, 1, base=10, index=2, deadline=1.5)
    view = msgspec.json.encode(game.view(1).to_dict()).decode()
    assert encode(snap) == ('{"type":"snapshot","version":' + str(10 + game.version)
                            + ',"game":2,"deadline":1.5,"view":' + view + "}")
    while not game.is_over:
        game.apply(rng.choice(game.legal_actions()))
    over = render.game_over(game, base=10, index=2, scored=True, totals=[1, 2, 3, 4, 5],
                            games=4, played=3, over=True, status="dissolved", hosted=[2])
    result = msgspec.json.encode(game.result.to_dict() if game.result else None).decode()
    assert encode(over) == (
        '{"type":"game_over","version":' + str(10 + game.version) + ',"game":2,"result":'
        + result + ',"scored":true,"totals":[1,2,3,4,5],"match":{"games":4,"played":3,'
        '"over":true,"status":"dissolved","reason":"hosted","hosted":[2]}}')
    assert decode_server(encode(over)) == over


_ORDER = PUBLIC_FIELDS + OWN_FIELDS


def _expected_update(game: bh.Game, seat: int | None, shown: dict[str, Any] | None, *,
                     since: int, base: int, index: int, deadline: float | None,
                     hints: bool) -> tuple[Update, dict[str, Any]]:
    """The ``update`` a receiver at ``seat`` that was shown ``shown`` gets, built as its
    Struct from the engine's public calls (not from render's parts): the events after
    ``since`` and the fields of ``View.to_dict()`` that differ from those shown, in the
    order of the engine's fields, ``hints`` (as a snapshot has them) with the legal
    actions."""
    whole = render.snapshot(game, seat, base=base, index=index, hints=hints).view
    now = {name: whole[name] for name in _ORDER}
    changed = {name: value for name, value in now.items()
               if shown is None or shown[name] != value}
    if hints and "legal_actions" in changed:
        changed["hints"] = whole["hints"]
    events = game.events_for(seat, since - base)
    return Update(since=since, version=since + len(events), game=index, deadline=deadline,
                  events=msgspec.json.decode(msgspec.json.encode(events)),
                  view=msgspec.json.decode(msgspec.json.encode(changed))), now


@settings(max_examples=examples(12), deadline=None)
@given(seed=st.integers(0, 10_000), preset=st.sampled_from(sorted(bh.PRESETS)),
       base=st.integers(0, 500), index=st.integers(0, 7),
       deadlines=st.lists(st.one_of(st.none(), st.floats(0, 2e9)), min_size=1))
def test_the_written_update_is_its_structs_encoding(seed: int, preset: str, base: int,
                                                    index: int,
                                                    deadlines: list[float | None]) -> None:
    """``render.broadcast`` writes each ``update`` by hand (the message sent most): over
    whole games, to every seat (one asking for hints) and a watcher, its text is byte for
    byte the encoding of the :class:`Update` the engine's views make, and reads back as
    one."""
    game = bh.Game.new(bh.RuleSet.preset(preset), seed=seed)
    rng = random.Random(seed)
    receivers: list[int | None] = [0, 1, 2, 3, 4, None]
    hints = [seat == 2 for seat in receivers]
    views: list[render.Parts | None] = [None] * 6
    shown: list[dict[str, Any] | None] = [None] * 6
    since = base
    moves = 0
    while not game.is_over:
        if moves % 7 == 3:
            views[1], shown[1] = None, None          # (a seat back: sent its whole view)
        game.apply(rng.choice(game.legal_actions()))
        deadline = deadlines[moves % len(deadlines)]
        texts = render.broadcast(game, receivers, views, base=base, index=index, since=since,
                                 deadline=deadline, hints=hints)
        assert len(texts) == len(receivers)
        for k, (seat, text) in enumerate(zip(receivers, texts, strict=True)):
            expected, shown[k] = _expected_update(game, seat, shown[k], since=since,
                                                  base=base, index=index,
                                                  deadline=deadline, hints=hints[k])
            assert text == encode(expected), (seat, moves)
            assert decode_server(text) == expected
        since = base + game.version
        moves += 1


def _handled(function: Any) -> set[str]:
    """The message classes a dispatcher names: in ``isinstance`` tests and ``case``
    patterns."""
    tree = ast.parse(textwrap.dedent(inspect.getsource(function)))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.MatchClass) and isinstance(node.cls, ast.Name):
            names.add(node.cls.id)
        elif isinstance(node, ast.Call) and getattr(node.func, "id", None) == "isinstance":
            names |= {n.id for n in ast.walk(node.args[1]) if isinstance(n, ast.Name)}
    return names


def test_the_tables_dispatcher_handles_every_kind_of_client_message() -> None:
    """``seating.client`` ends in ``assert_never`` (mypy flags a kind added to
    ``ClientMessage`` and not handled); here the kinds it names are the union's."""
    source = inspect.getsource(seating.client)
    assert "assert_never(msg)" in source
    members = {member.__name__ for member in typing.get_args(ClientMessage)}
    assert _handled(seating.client) == members


def test_the_web_clients_reader_handles_every_kind_of_server_message() -> None:
    """table.js's ``receive`` has a case for each kind the server sends, but ``pong``
    (the connection's keepalive: nothing to do) and ``left`` (the page has gone back to
    the lobby by the time it comes); no case for a kind the server never sends."""
    script = (ROOT / "src/baohuang/web/static/table.js").read_text(encoding="utf-8")
    body = script[script.index("  receive(msg) {"):]
    body = body[:body.index("\n  }\n")]
    cases = set(re.findall(r"case '([a-z_]+)':", body))
    assert cases | {"pong", "left"} == set(SERVER_TYPES)
    assert not cases & {"pong", "left"}
