"""What a table's pure logic is told and what it asks its shell to do, and the
instant it decides at.

A table's actor handles its inputs one at a time (:data:`Input`): a client's message,
a disconnect, a timer, a bot's move, a moderator closing it, the stop.

A move, a seat change, 托管 and a game's end are decided without waiting: the table
answers with a list of effects, in the order its shell carries them out — first
:class:`Persist` (store this: an action appended to the table's log, its seats, the
seats' 托管, a game's result), then the sends (:class:`SendEach`, one text a seat, a
move's ``update``; :class:`Send`, one text to many; :class:`SendTable`, the
``table`` message to each; :class:`Refuse`, an ``error`` to one), then the timing.
A ``Persist`` is a barrier: the shell goes on only once it is written; a write that
fails ends the list there — nothing after it is sent — and the table is told
(:class:`StoreFailed`) so that it takes the change back.  Store before send holds by
construction.

The table's timing (:mod:`.turns`) neither reads a clock nor sets a timer: it is
told the time (an :class:`Instant`, read once per input) and answers with effects —
time this turn (:class:`SetTimer`), time nothing (:class:`CancelTimer`), ask a
server bot (:class:`AskBot`) — that the table's shell (:mod:`.shell`) carries out
on the table's :class:`~.clock.Clock`.  What a turn's timer ringing means is
answered as a :data:`Ring`: show the held answer to the Guard's decision, let
托管 answer, time the seat out, or tell everyone a seat's away grace ran out.

>>> SetTimer(TimerName.TURN, due=3.0, token=(0, 4))
SetTimer(name=<TimerName.TURN: 'turn'>, due=3.0, token=(0, 4))
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from enum import Enum
from typing import Any, Literal, NamedTuple

from ...engine.actions import Action
from ...engine.views import View
from ..wire.protocol import ClientMessage
from .results import Settlement
from .subscriber import Subscriber

__all__ = ["AppendAction", "AskBot", "AwayOver", "BotMove", "CancelTimer", "ClientInput",
           "CloseTable", "Disconnect", "Effect", "FinishGame", "HostedMove", "Input",
           "Instant", "Persist", "Refuse", "Ring", "SaveHosted", "SaveSeats", "Send",
           "SendEach", "SendTable", "SetTimer", "ShowHeld", "Stop", "StoreFailed", "StoreOp",
           "TimedOut", "TimerFired", "TimerName", "TimingEffect", "Token"]

Token = tuple[int, int]   # (game index, moves made in it): the turn a timer is meant for


class Instant(NamedTuple):
    """The table's time at one input: monotonic seconds (turns, delays, away times are
    measured in it) and the same instant as seconds since the epoch (the deadlines
    shown to clients)."""

    mono: float
    wall: float


class TimerName(Enum):
    """The timers a table keeps, one handle each."""

    #: the decision awaited now: its timeout, 托管's answer, the end of the Guard's pause
    #: or of a seat's away grace
    TURN = "turn"
    #: the match's next game is dealt (everyone is ready: 准备)
    NEXT_GAME = "next_game"
    #: the countdown of 准备 runs out: the next game is dealt anyway
    READY = "ready"
    #: a seat's away grace runs out: everyone is shown it on 托管
    AWAY = "away"


@dataclass(frozen=True, slots=True)
class SetTimer:
    """Ring ``name`` for ``token`` at ``due`` (the table's clock), instead of what it
    timed before."""

    name: TimerName
    due: float
    token: Token


@dataclass(frozen=True, slots=True)
class CancelTimer:
    """Ring ``name`` for nothing (its handle may be kept and ring in vain)."""

    name: TimerName


@dataclass(frozen=True, slots=True)
class AskBot:
    """A server bot decides for ``seat`` at the turn ``token``: it thinks now, and its
    answer shows no sooner than ``due`` (drawn before it thinks from public facts
    only, :func:`.turns.answer_delay`)."""

    token: Token
    seat: int
    due: float
    view: View
    legal: tuple[Action, ...]


TimingEffect = SetTimer | CancelTimer | AskBot


# -- what is stored ---------------------------------------------------------------------
# (AppendAction, Persist, SendEach and Send are made on every move: not frozen, as a
# frozen dataclass costs four times as much to make; nothing changes them once made)
@dataclass(slots=True)
class AppendAction:
    """An action, appended to the table's log as its version ``version`` (fenced:
    :class:`~baohuang.server.db.storage.FencedWrite`), move ``seq`` of game
    ``game_id``."""

    game_id: int
    seq: int
    seat: int
    action: dict[str, Any]
    source: str
    version: int


@dataclass(frozen=True, slots=True)
class SaveSeats:
    """Who sits where (the table's row, ``seats``)."""

    seats: list[dict[str, Any] | None]


@dataclass(frozen=True, slots=True)
class SaveHosted:
    """The seats' 托管 in game ``game_id`` (托管, its count, who left)."""

    game_id: int
    hosted: list[dict[str, Any] | None]


@dataclass(frozen=True, slots=True)
class FinishGame:
    """Game ``game_id``'s result as :func:`~.results.settle` settled it, with the seats'
    托管 then; the table's totals and status with it."""

    settled: Settlement
    game_id: int
    hosted: list[dict[str, Any] | None]


StoreOp = AppendAction | SaveSeats | SaveHosted | FinishGame


@dataclass(slots=True)
class Persist:
    """Store ``op`` before anything after it is done (a barrier)."""

    op: StoreOp


# -- what is sent -----------------------------------------------------------------------
@dataclass(slots=True)
class SendEach:
    """One text to each connection: ``texts[i]`` to ``to[i]`` (a move's updates)."""

    to: tuple[Subscriber, ...]
    texts: tuple[str, ...]


@dataclass(slots=True)
class Send:
    """The same text to every connection of ``to``."""

    to: tuple[Subscriber, ...]
    text: str


@dataclass(frozen=True, slots=True)
class SendTable:
    """The ``table`` message to everyone at the table, each from his seat's side."""


@dataclass(frozen=True, slots=True)
class Refuse:
    """An ``error`` to ``conn``: its message changed nothing."""

    conn: Subscriber
    code: str
    message: str
    ref: str | None = None


Effect = Persist | SendEach | Send | SendTable | Refuse | SetTimer | CancelTimer | AskBot


@dataclass(frozen=True, slots=True)
class StoreFailed:
    """The write of ``op`` failed: the database refused it (``refused``), the table
    stopped while it was out of reach (``stopped``), or another server holds the table
    now (``fenced``: the table ends here)."""

    op: StoreOp
    why: Literal["fenced", "refused", "stopped"]


@dataclass(frozen=True, slots=True)
class ShowHeld:
    """The Guard's pause is over: apply the answer held until now."""

    seat: int
    action: Action
    source: str


@dataclass(frozen=True, slots=True)
class HostedMove:
    """托管 answers for ``seat`` now; ``takeover``: the first of its decisions since its
    player went away (counted once an absence in the server's figures)."""

    seat: int
    takeover: bool


@dataclass(frozen=True, slots=True)
class TimedOut:
    """``seat`` ran out of time: 托管 answers, and plays on for it — except in the
    Guard's decision (``guard``), which 托管 only answers (docs/rules.md §10)."""

    seat: int
    guard: bool


@dataclass(frozen=True, slots=True)
class AwayOver:
    """A seat's away grace ran out before the decision's time: everyone is shown the
    seats on 托管, then the turn is timed again."""


Ring = ShowHeld | HostedMove | TimedOut | AwayOver


# -- what a table is told ----------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class ClientInput:
    """A client's message to the table."""

    conn: Subscriber
    msg: ClientMessage


@dataclass(frozen=True, slots=True)
class Disconnect:
    """A client's connection ended."""

    conn: Subscriber


@dataclass(frozen=True, slots=True)
class TimerFired:
    """The table's timer ``name`` rang for ``token``: the turn it timed (``TURN``), the
    game it deals (``NEXT_GAME``, ``READY``: ``(index, 0)``), or an away grace's end
    (``AWAY``)."""

    name: TimerName
    token: Token


@dataclass(frozen=True, slots=True)
class BotMove:
    """A server bot's answer for ``seat`` at the turn ``token``."""

    token: Token
    seat: int
    action: Action


@dataclass(frozen=True, slots=True)
class CloseTable:
    """A moderator closes the table (:mod:`baohuang.server.moderation`): its game is
    abandoned unscored, it is dissolved (reason ``closed``) and every seat and watcher
    is told ``note``, the moderator's reason; ``done`` is answered whether it was open
    or playing (and so closed now)."""

    note: str
    done: asyncio.Future[bool]


@dataclass(frozen=True, slots=True)
class Stop:
    """The table stops (its task ends)."""


Input = ClientInput | Disconnect | TimerFired | BotMove | CloseTable | Stop
