"""What people do at a table: join (or come back), take and leave seats, put
bots in, act, toggle 托管, resync, leave, disconnect.  These run inside the
table's actor task, one input at a time, so none of them races another."""

from __future__ import annotations

import time
import unicodedata
from typing import TYPE_CHECKING, assert_never

from ...engine.actions import Action, ActionKind, ActionParseError
from ...engine.state import IllegalAction
from ..db.moderation import muted_text
from ..wire import render
from ..wire.protocol import (
    EMOTES,
    Act,
    AddBot,
    Chat,
    Chatted,
    ClientMessage,
    Emote,
    Emoted,
    Hosted,
    Join,
    Leave,
    Left,
    Ping,
    Pong,
    Ready,
    RemoveBot,
    Resync,
    Sit,
    Stand,
    Start,
    encode,
)
from .clubseats import club_refusal, is_member
from .effects import ClientInput, Disconnect
from .privacy import admits
from .seats import Seat
from .subscriber import Subscriber

if TYPE_CHECKING:
    from .tables import Table

__all__ = ["EMOTE_INTERVAL", "client", "disconnect"]

#: a seat sends at most one quick phrase or emote this often (seconds)
EMOTE_INTERVAL = 3.0


async def handle(table: Table, item: ClientInput | Disconnect) -> None:
    """A connection's message, or its end, as the table's inbox gives them (the table's
    :data:`~.tables.SeatingHandler`)."""
    if isinstance(item, ClientInput):
        await client(table, item.conn, item.msg)
    else:
        await disconnect(table, item.conn)


async def client(table: Table, conn: Subscriber, msg: ClientMessage) -> None:
    """Handle one message of a connection at (or joining) ``table``."""
    if conn.seat is not None and conn.table is table:
        seat = table.seats[conn.seat]
        if seat is None or seat.conn is not conn:
            # (the seat is no longer this connection's: its user stood up, moved or
            # came back on another connection; it acts for nothing now)
            _to_watchers(table, conn)
    if isinstance(msg, Join):
        await join(table, conn, msg)
        return
    if conn.table is not table:
        conn.error("not_joined", "send join first", _ref(msg))
        return
    # (one case for each kind of ClientMessage: mypy checks that none is missing)
    match msg:
        case Act():
            await act(table, conn, msg)
        case Resync():
            sync(table, conn, msg.version)
        case Hosted():
            await hosted(table, conn, msg.on)
        case Leave():
            await leave(table, conn)
        case Emote():
            if not await muted(table, conn, "emote"):
                emote(table, conn, msg.id)
        case Chat():
            if not await muted(table, conn, "chat"):
                chat(table, conn, msg.text)
        case Ready():
            await ready(table, conn)
        case Sit() | Stand() | AddBot() | RemoveBot() | Start():
            await lobby(table, conn, msg)
        case Ping():              # (the transport answers it before it reaches a table)
            conn.send_message(Pong())
        case _:
            assert_never(msg)


async def join(table: Table, conn: Subscriber, msg: Join) -> None:
    """Seat (or re-seat) a player, or add a watcher; then bring them up to date.  A
    private table is entered with its code, or by its members (its owner and seated
    players) with its id too; anyone else is told there is no such table, as for a
    table that does not exist."""
    user = conn.user
    s = table.settings
    # 亲友圈: a club's members find its tables by id; only they sit at them
    member = s.club is not None and user is not None and \
        await is_member(table.storage, s.club, user.id)
    if conn.table is not table and not member and not admits(
            private=s.private, code=s.code, key=msg.table,
            user_id=None if user is None else user.id,
            members=[s.owner, *(seat.user_id for seat in table.seats if seat is not None)],
            members_only=s.challenge is not None):
        conn.error("no_table", f"no table {msg.table[:40]!r}", "join")
        return
    if msg.as_ == "player" and user is None:
        conn.error("login_required", "playing needs a session (log in or play as a guest)",
                   "join")
        return
    if s.club is not None and not member and (
            user is None or table.seat_of(user.id) is None):   # (a seat held is kept)
        refused = await club_refusal(table.storage, s.club, sitting=msg.as_ == "player")
        if refused is not None:
            conn.error(*refused, "join")
            return
    # (a seat change whose write fails leaves everything as it is now: seats_before)
    before = table.seats_before(conn, "join")
    hints = conn.hints
    table.watchers.discard(conn)
    conn.table, conn.seat, conn.hints = table, None, msg.hints
    seat_index = table.seat_of(user.id) if (user and msg.as_ == "player") else None
    if seat_index is not None:
        seat = table.seats[seat_index]
        assert seat is not None
        if seat.conn is not None and seat.conn is not conn:
            seat.conn.table = None
            seat.conn.close(4000, "this seat was taken over by a newer connection")
        seat.conn, seat.away_since, seat.away_hosted = conn, None, False
        conn.seat = seat_index
        if seat.invited:                  # (a new match's player says yes by joining)
            seat.invited = False
            if not await table.save_seats(before):
                conn.hints = hints
                return
        # (the decision's deadline stays where it was set when the turn began: coming
        # back gives no fresh time)
    elif user is not None and msg.as_ == "player" and table.status == "open" and \
            None in table.seats:
        seat_index = table.seats.index(None)
        table.seats[seat_index] = Seat(name=user.name, user_id=user.id, conn=conn,
                                      away_since=None)
        conn.seat = seat_index
        if not await table.save_seats(before):
            conn.hints = hints
            return
    elif len(table.watchers) >= table.config.watchers_per_table:
        conn.table = None
        conn.error("too_many_watchers", f"this table has {len(table.watchers)} watchers, "
                   "as many as it takes: try again later", "join")
        return
    else:
        table.watchers.add(conn)
    table.broadcast_table()
    sync(table, conn, msg.version)
    if table.status == "open" and table.five_seated() and table.settings.autostart:
        await table.start_match()
    else:
        table.schedule()


def sync(table: Table, conn: Subscriber, version: int | None) -> None:
    """Send what ``conn`` missed since ``version``: events of this game, or a snapshot."""
    game = table.game
    if game is None:
        return
    current = table.version
    if version is not None and table.base <= version < current:
        text, _ = render.update_text(game, conn.seat, base=table.base, index=table.index,
                                     since=version, deadline=table.deadline(),
                                     hints=conn.hints)
        if text is not None:
            conn.send(text)               # (with the whole view)
    else:
        conn.send_message(render.snapshot(game, conn.seat, base=table.base, index=table.index,
                                       deadline=table.deadline(), hints=conn.hints))
    if game.is_over and table.recorded:
        conn.send_message(table.game_over_message())


async def act(table: Table, conn: Subscriber, msg: Act) -> None:
    """A seated player's decision: checked here, judged by the engine."""
    game, seat_index = table.game, conn.seat
    if seat_index is None:
        conn.error("not_seated", "only a seated player acts", "act")
        return
    if game is None or game.is_over or table.status != "playing":
        conn.error("not_your_turn", "no game is in progress", "act")
        return
    seat = table.seats[seat_index]
    assert seat is not None
    if game.to_act != seat_index:
        # (naming the seat to act would tell who the hidden Guard is while it decides)
        conn.error("not_your_turn", "it is not your turn", "act")
        return
    if msg.version is not None and msg.version != table.version:
        conn.error("stale", f"version {msg.version} is not the current version "
                   f"{table.version}", "act")
        return
    if seat.auto(table.config.away_grace, table.clock.now()):
        conn.error("not_allowed", "your seat is on 托管: turn it off first", "act")
        return
    try:
        action = Action.read(msg.action)
    except (ActionParseError, ValueError) as exc:
        conn.error("bad_action", str(exc)[:200], "act")
        return
    except (TypeError, KeyError, AttributeError, RecursionError):
        conn.error("bad_action", "'action' is an action text or an action object "
                   "{\"kind\", \"cards\"}", "act")
        return
    if action.kind is ActionKind.LEAVE:
        conn.error("bad_action", "to leave send the leave message", "act")
        return
    try:
        await table.decide(seat_index, action, "player")
    except IllegalAction as exc:
        conn.error("illegal", exc.reason, "act")


async def hosted(table: Table, conn: Subscriber, on: bool) -> None:
    """托管 on or off for the connection's seat (off refused once locked)."""
    seat = table.seats[conn.seat] if conn.seat is not None else None
    game = table.game
    if seat is None or game is None or game.is_over:
        conn.error("not_allowed", "托管 is for a seated player during a game", "hosted")
        return
    before = table.hosted_before(conn, "hosted")
    if on:
        if not seat.hosted:
            table.metrics.hosted_takeovers.labels("asked").inc()
        seat.put_on_hosted()
    elif seat.locked:
        conn.error("locked", "托管 cannot be taken off: put on more than "
                   "three times this game, or you left", "hosted")
        return
    else:
        seat.hosted = False           # (the turn's deadline is where it was: no new time)
    if not await table.save_hosted(before):
        return
    table.broadcast_table()
    table.schedule()


async def ready(table: Table, conn: Subscriber) -> None:
    """准备: the connection's seat is ready for the match's next game."""
    if conn.seat is None:
        conn.error("not_seated", "only a seated player is ready", "ready")
        return
    if table.ready is None:
        conn.error("not_allowed", "nothing to be ready for: 准备 is between the games of "
                   "a match", "ready")
        return
    await table.say_ready(conn.seat)


async def muted(table: Table, conn: Subscriber, ref: str) -> bool:
    """Whether ``conn``'s user is muted (禁言) by a moderator now: told so (``muted``,
    until when) and his chat or emote goes nowhere.  Read from the database each time
    (a mute made on another node or from the shell holds at once)."""
    user = conn.user
    if user is None:
        return False
    text = muted_text(await table.storage.muted_until(user.id), time.time())
    if text is None:
        return False
    conn.error("muted", text, ref)
    return True


def emote(table: Table, conn: Subscriber, phrase: str) -> None:
    """Relay a seated player's quick phrase or emote to everyone at the table, at most
    one per :data:`EMOTE_INTERVAL` seconds a seat."""
    seat = table.seats[conn.seat] if conn.seat is not None else None
    if seat is None or conn.seat is None:
        conn.error("not_seated", "quick phrases are for seated players", "emote")
        return
    if phrase not in EMOTES:
        conn.error("invalid", f"no quick phrase {phrase[:40]!r}", "emote")
        return
    now = table.clock.now()
    if now - seat.emote_at < EMOTE_INTERVAL:
        conn.error("rate_limited", "one quick phrase every "
                   f"{EMOTE_INTERVAL:g} seconds", "emote")
        return
    seat.emote_at = now
    text = encode(Emoted(seat=conn.seat, id=phrase))
    for other in table.conns():
        other.send(text)


def chat(table: Table, conn: Subscriber, text: str) -> None:
    """Relay a seated player's free text to everyone at a private table (as text: line
    breaks and other control and format characters become spaces or go), at most one
    per :data:`EMOTE_INTERVAL` seconds a seat; nothing of it is stored."""
    seat = table.seats[conn.seat] if conn.seat is not None else None
    if seat is None or conn.seat is None:
        conn.error("not_seated", "chat is for seated players", "chat")
        return
    if not table.settings.private:
        conn.error("not_private", "free chat only at a private table; quick phrases "
                   "(emote) everywhere", "chat")
        return
    clean = " ".join(plain_text(text).split())
    if not clean:
        conn.error("invalid", "an empty chat message", "chat")
        return
    now = table.clock.now()
    if now - seat.chat_at < EMOTE_INTERVAL:
        conn.error("rate_limited", f"one chat message every {EMOTE_INTERVAL:g} seconds",
                   "chat")
        return
    seat.chat_at = now
    text = encode(Chatted(seat=conn.seat, text=clean))
    for other in table.conns():
        other.send(text)


def plain_text(text: str) -> str:
    """``text`` without control characters (a space each) and format characters
    (direction overrides, zero-width marks: gone).

    >>> plain_text("hi\\nthere\\u202e!")
    'hi there!'
    """
    out = []
    for ch in text:
        kind = unicodedata.category(ch)
        if kind == "Cc":
            out.append(" ")
        elif kind not in ("Cf", "Cs", "Co", "Cn"):
            out.append(ch)
    return "".join(out)


async def leave(table: Table, conn: Subscriber) -> None:
    """Leave the table; during a game that is 逃跑 (docs/rules.md §10)."""
    seat_index = conn.seat
    seat = table.seats[seat_index] if seat_index is not None else None
    game = table.game
    dissolve = False
    if seat is not None and seat_index is not None:
        if table.status == "open":
            before = table.seats_before(conn, "leave")
            table.seats[seat_index] = None
            if not await table.save_seats(before):
                return
        elif table.status == "playing" and game is not None and not game.is_over \
                and not seat.left:
            # (on 托管 and left before the leave is applied: under leave_ends_game the
            # game ends with it, and is settled with the leaver gone)
            was = seat.hosted, seat.hosted_count
            was_auto = seat.auto(table.config.away_grace, table.clock.now())
            seat.put_on_hosted()
            seat.left = True
            try:
                await table.apply(seat_index, Action(ActionKind.LEAVE, (), seat_index),
                                  "leave")
            except IllegalAction:
                seat.left = False
                seat.hosted, seat.hosted_count = was
                raise
            if not was_auto:
                table.metrics.hosted_takeovers.labels("left").inc()
            if table.game is game and not game.is_over:
                await table.save_hosted()
        elif table.ready is not None:
            dissolve = True           # between the games of a match: it ends here
        seat.conn, seat.away_since = None, table.clock.now()
        table.watch_away(seat)
    table.watchers.discard(conn)
    conn.table, conn.seat = None, None
    conn.send_message(Left(table=table.id))
    if dissolve and seat_index is not None:
        await table.dissolve_left(seat_index)
    table.broadcast_table()
    table.schedule()


async def lobby(table: Table, conn: Subscriber, msg: ClientMessage) -> None:
    """Seating before the start: sit, stand, add or remove a bot, start."""
    ref = _ref(msg)
    if table.status != "open":
        conn.error("started", "this table has started already" if isinstance(msg, Start)
                   else "seats change only before the start", ref)
        return
    user = conn.user
    # (a seat change whose write fails leaves everything as it is now: seats_before)
    before = table.seats_before(conn, ref)
    if isinstance(msg, Start):
        if user is None or (table.seat_of(user.id) is None and user.id != table.settings.owner):
            conn.error("not_seated", "only seated players and the owner start a table", ref)
            return
        bot = table.settings.fill_bots
        if bot is not None and user.id == table.settings.owner and None in table.seats:
            # 空位由电脑补齐: only the seats still empty now (an invited seat is kept)
            for index, held in enumerate(table.seats):
                if held is None:
                    table.seats[index] = Seat.for_bot(bot, table.settings.seed + index)
            if not await table.save_seats(before):
                return
            table.broadcast_table()
        if not table.five_seated():
            conn.error("not_ready", "five seats must be taken to start", ref)
            return
        await table.start_match()
        return
    if user is None:
        conn.error("login_required", "seating needs a session", ref)
        return
    mine = table.seat_of(user.id)
    if isinstance(msg, Stand):
        if mine is None:
            conn.error("not_seated", "you have no seat", ref)
            return
        held = table.seats[mine]
        table.seats[mine] = None
        if held is not None and held.conn is not None and held.conn is not conn:
            _to_watchers(table, held.conn)        # the user's other socket loses it too
        conn.seat = None
        table.watchers.add(conn)
    else:
        assert isinstance(msg, Sit | AddBot | RemoveBot)
        if not 0 <= msg.seat < 5:
            conn.error("bad_seat", f"seat {msg.seat} is not 0..4", ref)
            return
        target = table.seats[msg.seat]
        if isinstance(msg, Sit):
            if target is not None:
                conn.error("seat_taken", f"seat {msg.seat} is taken", ref)
                return
            club = table.settings.club
            if club is not None and not await is_member(table.storage, club, user.id):
                refused = await club_refusal(table.storage, club, sitting=True)
                assert refused is not None
                conn.error(*refused, ref)
                return
            if mine is not None:
                moved = table.seats[mine]
                assert moved is not None
                table.seats[msg.seat], table.seats[mine] = moved, None
                if moved.conn is not None and moved.conn is not conn:
                    _to_watchers(table, moved.conn)   # the seat goes with this socket
                moved.conn, moved.away_since, moved.invited = conn, None, False
                table.watchers.discard(conn)
            else:
                table.seats[msg.seat] = Seat(name=user.name, user_id=user.id, conn=conn,
                                            away_since=None)
                table.watchers.discard(conn)
            conn.seat = msg.seat
        elif mine is None and user.id != table.settings.owner:
            conn.error("not_seated", "only seated players and the owner seat bots", ref)
            return
        elif isinstance(msg, AddBot):
            if target is not None:
                conn.error("seat_taken", f"seat {msg.seat} is taken", ref)
                return
            try:
                table.seats[msg.seat] = Seat.for_bot(msg.bot, table.settings.seed + msg.seat)
            except ValueError as exc:
                conn.error("unknown_bot", str(exc), ref)
                return
        elif target is None or not target.is_bot:
            conn.error("bad_seat", f"seat {msg.seat} holds no bot", ref)
            return
        else:
            table.seats[msg.seat] = None
    if not await table.save_seats(before):
        return
    table.broadcast_table()
    if table.five_seated() and table.settings.autostart:
        await table.start_match()


async def disconnect(table: Table, conn: Subscriber) -> None:
    """A connection is gone: its seat is kept (away) for its player to come back."""
    table.watchers.discard(conn)
    for seat in table.seats:
        if seat is not None and seat.conn is conn:
            seat.conn, seat.away_since = None, table.clock.now()
            table.watch_away(seat)
    if conn.table is table:
        conn.table, conn.seat = None, None
    table.broadcast_table()
    table.schedule()


def _to_watchers(table: Table, conn: Subscriber) -> None:
    """``conn`` no longer holds a seat: it watches (and is sent the table as such by
    the broadcast that follows every seating change)."""
    conn.seat = None
    table.watchers.add(conn)


def _ref(msg: ClientMessage) -> str:
    return str(type(msg).__struct_config__.tag)
