"""What a table's actor handles, one at a time: a client's message, a disconnect,
a timer, a bot's move, the next game of the match, the stop."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Protocol

from ...engine.actions import Action
from ..wire.protocol import ClientMessage
from .effects import TimerName, Token
from .subscriber import Subscriber

__all__ = ["BotMove", "ClientInput", "CloseTable", "Disconnect", "Input", "Route", "Stop",
           "TimerFired", "Token"]

@dataclass(frozen=True, slots=True)
class ClientInput:
    conn: Subscriber
    msg: ClientMessage


@dataclass(frozen=True, slots=True)
class Disconnect:
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
    pass


Input = ClientInput | Disconnect | TimerFired | BotMove | CloseTable | Stop


class Route(Protocol):
    """Where a client's messages go: its table's actor (a
    :class:`~baohuang.server.table.tables.Table`), or, in a cluster, the node that runs
    the table (:class:`~baohuang.server.cluster.relay.RemoteRoute`)."""

    def post(self, item: Input) -> None: ...
