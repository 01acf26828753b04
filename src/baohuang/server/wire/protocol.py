"""Every WebSocket message (docs/protocol.md §4), each way a msgspec tagged union:
:data:`ClientMessage` (client → server, §4.1) and :data:`ServerMessage` (server →
client, §4.2), tagged by ``type``.

Client messages are decoded with :func:`decode_client`, which raises
:class:`ProtocolError` with a code from docs/protocol.md §4.3 naming what was
wrong.  Server messages are built as their Structs and encoded with :func:`encode`
once per text (a move's ``update``, the message sent most, is written by
``wire/render.py`` straight to text: the same bytes as its :class:`Update`'s,
which a test checks over whole games).

>>> decode_client(b'{"type":"join","table":"7KQ2PA","as":"watcher"}')
Join(table='7KQ2PA', as_='watcher', version=None, hints=False)
>>> decode_client(b'{"type":"act","action":"play 9 9","version":4}')
Act(action='play 9 9', version=4)
>>> decode_client(b'{"type":"dance"}')
Traceback (most recent call last):
...
baohuang.server.wire.protocol.ProtocolError: unknown_type: unknown message type 'dance'
>>> decode_client(b'{"type":"sit","seat":"two"}')
Traceback (most recent call last):
...
baohuang.server.wire.protocol.ProtocolError: invalid: Expected `int`, got `str` - at `$.seat`
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

import msgspec

__all__ = [
    "CHAT_MAX",
    "CLIENT_TYPES",
    "EMOTES",
    "SERVER_TYPES",
    "Act",
    "AddBot",
    "Chat",
    "Chatted",
    "ClientMessage",
    "Emote",
    "Emoted",
    "ErrorMsg",
    "GameOver",
    "Hello",
    "Hosted",
    "Join",
    "Leave",
    "Left",
    "Limits",
    "MatchState",
    "Pause",
    "Ping",
    "Pong",
    "ProtocolError",
    "Ready",
    "RemoveBot",
    "Resync",
    "ServerMessage",
    "Sit",
    "Snapshot",
    "Stand",
    "Start",
    "TableMsg",
    "Update",
    "You",
    "decode_client",
    "decode_server",
    "encode",
    "error_message",
    "message_type",
]


class ProtocolError(ValueError):
    """A message the server refuses; ``code`` is one of docs/protocol.md §4.3."""

    def __init__(self, code: str, message: str) -> None:
        self.code = code
        self.message = message
        super().__init__(f"{code}: {message}")


class _Msg(msgspec.Struct, tag_field="type", forbid_unknown_fields=True):
    pass


class Join(_Msg, tag="join"):
    """Enter a table as a player (take back or take a seat) or as a watcher."""

    table: str
    as_: Literal["player", "watcher"] = msgspec.field(default="player", name="as")
    version: int | None = None
    #: send the hint order of the legal plays with them (a player's screen wants it; a
    #: program choosing by itself need not pay for it)
    hints: bool = False


class Sit(_Msg, tag="sit"):
    seat: int


class Stand(_Msg, tag="stand"):
    pass


class AddBot(_Msg, tag="add_bot"):
    seat: int
    bot: str


class RemoveBot(_Msg, tag="remove_bot"):
    seat: int


class Start(_Msg, tag="start"):
    pass


class Leave(_Msg, tag="leave"):
    """Leave the table (逃跑 during a game)."""


class Ready(_Msg, tag="ready"):
    """准备: between the games of a match, this seat is ready for the next deal (it is
    dealt once every person at the table is ready, or when the table's countdown runs
    out)."""


class Act(_Msg, tag="act"):
    """A decision: its text as in ``legal_actions`` (``"play 9 9"``) or its
    ``Action.to_dict()`` object; ``version``: the last version seen."""

    action: str | dict[str, Any]
    version: int | None = None


class Hosted(_Msg, tag="hosted"):
    """托管 on or off."""

    on: bool


#: the quick phrases and emotes a player may send (the clients hold their zh and en
#: texts); nothing else is relayed
EMOTES: tuple[str, ...] = (
    "hello", "hurry", "nice", "thanks", "sorry", "well_played", "again", "bye",
    "laugh", "cry", "angry", "thumbs_up", "flower", "tea",
)


class Emote(_Msg, tag="emote"):
    """A quick phrase or emote (one of :data:`EMOTES`) to everyone at the table."""

    id: str


#: the longest free chat message, in characters
CHAT_MAX = 120


class Chat(_Msg, tag="chat"):
    """Free text to everyone at a private table (1 to :data:`CHAT_MAX` characters; the
    server relays it as text and stores it nowhere)."""

    text: Annotated[str, msgspec.Meta(min_length=1, max_length=CHAT_MAX)]


class Resync(_Msg, tag="resync"):
    version: int | None = None


class Ping(_Msg, tag="ping"):
    pass


ClientMessage = Join | Sit | Stand | AddBot | RemoveBot | Start | Leave | Act | Hosted | \
    Resync | Ping | Emote | Chat | Ready

CLIENT_TYPES: tuple[str, ...] = ("join", "sit", "stand", "add_bot", "remove_bot", "start",
                                 "leave", "act", "hosted", "resync", "ping", "emote",
                                 "chat", "ready")

# -- server -> client (docs/protocol.md §4.2) -------------------------------------------
# (the field order is the order on the wire; a field that may be null is sent as null,
# except where a Struct says ``omit_defaults``)

class _Out(msgspec.Struct, tag_field="type"):
    pass


class Limits(msgspec.Struct):
    """What a connection may send (docs/protocol.md §4.3)."""

    max_message_bytes: int
    rate_per_second: float
    burst: int


class Hello(_Out, tag="hello"):
    """The first message on every connection: the session's user (``User``, §1, or
    null), its limits, and the server's unix time (deadlines are counted against it)."""

    user: dict[str, Any] | None
    limits: Limits
    now: float


class Pong(_Out, tag="pong"):
    """The answer to ``ping``."""


class ErrorMsg(_Out, tag="error"):
    """A message refused: ``code`` one of §4.3; ``ref`` the refused message's type when
    it is a known one."""

    code: str
    message: str
    ref: str | None = None


class You(msgspec.Struct):
    """Who the receiver of a ``table`` is: its seat, or a watcher."""

    seat: int | None
    watcher: bool


class TableMsg(_Out, tag="table"):
    """The table's state (TableState, §3) as the receiver's seat may see it."""

    table: dict[str, Any]
    you: You


class Snapshot(_Out, tag="snapshot"):
    """A seat's whole view (``View.to_dict()``, with the game's events, and ``hints``
    when asked for)."""

    version: int
    game: int
    deadline: float | None
    view: dict[str, Any]


class Update(_Out, tag="update"):
    """The events after ``since`` and the fields of the receiver's view they changed
    (written to text by ``render.broadcast``; this Struct gives its shape and reads it)."""

    since: int
    version: int
    game: int
    deadline: float | None
    events: list[dict[str, Any]]
    view: dict[str, Any]


class MatchState(msgspec.Struct):
    """Where a ``game_over`` leaves the match."""

    games: int
    played: int
    over: bool
    status: str
    reason: str | None
    hosted: list[int]


class GameOver(_Out, tag="game_over"):
    """A game's result (``Result.to_dict()``), the same for every receiver."""

    version: int
    game: int
    result: dict[str, Any]
    scored: bool
    totals: list[int]
    match: MatchState


class Emoted(_Out, tag="emote"):
    """A seated player's quick phrase (one of :data:`EMOTES`)."""

    seat: int
    id: str


class Chatted(_Out, tag="chat"):
    """A seated player's free text at a private table, cleaned."""

    seat: int
    text: str


class Pause(_Out, tag="pause", omit_defaults=True):
    """The table waits for its database (``paused``, ``reason: "database"``) or goes on
    (``paused: false``, no ``reason``)."""

    paused: bool
    reason: str | None = None


class Left(_Out, tag="left"):
    """The answer to ``leave``."""

    table: str


ServerMessage = Hello | Pong | ErrorMsg | TableMsg | Snapshot | Update | GameOver | \
    Emoted | Chatted | Pause | Left

SERVER_TYPES: tuple[str, ...] = ("hello", "pong", "error", "table", "snapshot", "update",
                                 "game_over", "emote", "chat", "pause", "left")


_decoder: msgspec.json.Decoder[ClientMessage] = msgspec.json.Decoder(ClientMessage)
_any_decoder: msgspec.json.Decoder[Any] = msgspec.json.Decoder()
_server_decoder: msgspec.json.Decoder[ServerMessage] = msgspec.json.Decoder(ServerMessage)
_encoder = msgspec.json.Encoder()


def decode_client(data: bytes | str) -> ClientMessage:
    """Decode one client message or raise :class:`ProtocolError`."""
    try:
        return _decoder.decode(data)
    except msgspec.ValidationError as exc:
        return _classify_type_error(data, str(exc))
    except msgspec.DecodeError as exc:
        raise ProtocolError("malformed", f"not a JSON message: {exc}") from None
    except RecursionError:
        raise ProtocolError("malformed", "JSON nested too deeply") from None


def _classify_type_error(data: bytes | str, text: str) -> ClientMessage:
    try:
        raw = _any_decoder.decode(data)
    except msgspec.DecodeError:  # pragma: no cover - decoded above already
        raise ProtocolError("malformed", "not a JSON message") from None
    except RecursionError:
        raise ProtocolError("malformed", "JSON nested too deeply") from None
    if not isinstance(raw, dict) or not isinstance(raw.get("type"), str):
        raise ProtocolError("malformed", "a message is an object with a string 'type'")
    if raw["type"] not in CLIENT_TYPES:
        raise ProtocolError("unknown_type", f"unknown message type {raw['type'][:40]!r}")
    raise ProtocolError("invalid", text)


def message_type(data: bytes | str) -> str | None:
    """The ``type`` of a raw message, when it has a sensible one (for ``ref``)."""
    try:
        raw = _any_decoder.decode(data)
    except (msgspec.DecodeError, RecursionError):
        return None
    kind = raw.get("type") if isinstance(raw, dict) else None
    return kind if isinstance(kind, str) and kind in CLIENT_TYPES else None


def encode(message: ServerMessage) -> str:
    """One server message as JSON text.

    >>> encode(Pause(paused=False))
    '{"type":"pause","paused":false}'
    >>> encode(ErrorMsg("stale", "version 3 is not the current version 4", "act"))
    '{"type":"error","code":"stale","message":"version 3 is not the current version 4","ref":"act"}'
    """
    return _encoder.encode(message).decode()


def decode_server(data: bytes | str) -> ServerMessage:
    """One server message read back into its Struct (clients, tests); raises
    ``msgspec.ValidationError`` or ``msgspec.DecodeError`` for anything else."""
    return _server_decoder.decode(data)


def error_message(code: str, message: str, ref: str | None = None) -> ErrorMsg:
    """The ``error`` refusing a message (``ref``: its type, when known)."""
    return ErrorMsg(code, message, ref)
