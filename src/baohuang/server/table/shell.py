"""What carries a table's timing effects out on its clock: one timer handle a
:class:`~.effects.TimerName` (:class:`TimerSlot`), and a server bot's thinking
(:class:`BotAnswer`).  Neither decides anything: a ring or an answer only posts an
input to the table's inbox (:class:`Inbox`), and the table's logic, told the time,
decides what it means (:mod:`.turns`).

A table's inbox is the queue of its one actor task.  ``asyncio.Queue`` asks asyncio for
the running loop each time its reader waits (on Python 3.11 that is a ``getpid`` system
call), and a busy server's table waits for its next input after every move.  An inbox
has one reader, takes the loop once, and otherwise does what the queue did: ``put``
never blocks, ``get`` waits for the next item, items come out in order.

>>> async def main() -> list[str]:
...     inbox: Inbox[str] = Inbox()
...     inbox.put("act")
...     later = asyncio.get_running_loop().call_later(0.01, inbox.put, "timer")
...     return [await inbox.get(), await inbox.get()]
>>> asyncio.run(main())
['act', 'timer']
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import deque
from collections.abc import Callable
from typing import Generic, TypeVar

from ...bots import Bot, hosted_action
from ...engine.actions import Action
from ..metrics import ServerMetrics
from .clock import Clock, Timer
from .effects import AskBot, Token

__all__ = ["BotAnswer", "Inbox", "TimerSlot"]

log = logging.getLogger("baohuang.server")

_T = TypeVar("_T")


class TimerSlot:
    """One timer of a table: ``ring(token)`` is called (on the table's loop) once what
    was timed for the turn ``token`` is due.

    One handle is kept and moved only when it would ring too late: a move made
    milliseconds after the one before neither cancels nor makes a handle (a handle
    that rings early — uvloop's may, by up to a millisecond — is set again for the
    time now wanted, so the table is never told of a ring before its time)."""

    def __init__(self, clock: Clock, ring: Callable[[Token], None]) -> None:
        self.clock = clock
        self._ring_to = ring
        self._timer: Timer | None = None
        self._timer_due = 0.0
        self._timed: tuple[float, Token] | None = None

    def set_at(self, due: float, token: Token) -> None:
        """Ring for ``token`` at ``due`` (clock time), instead of what was timed."""
        self._timed = (due, token)
        handle = self._timer
        if handle is None or self._timer_due > due:
            if handle is not None:
                handle.cancel()
            self._timer = self.clock.call_at(due, self._ring)
            self._timer_due = due

    def cancel(self, *, drop: bool = False) -> None:
        """Time nothing: a timer handle that is kept finds nothing to ring (``drop``:
        cancel the handle too, for a table that stops)."""
        self._timed = None
        if drop and self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def _ring(self) -> None:
        self._timer = None
        timed = self._timed
        if timed is None:
            return
        if self.clock.now() < timed[0] - 0.001:
            self._timer = self.clock.call_at(timed[0], self._ring)
            self._timer_due = timed[0]
            return
        self._timed = None
        self._ring_to(timed[1])


class BotAnswer:
    """A server bot's answer to one decision (:class:`~.effects.AskBot`): ``post``-ed
    once the bot has thought and its answer time has come, whichever is last — from
    the callback of the one that comes last, so nothing else at the table can come in
    between.  A bot that fails answers as 托管 would."""

    def __init__(self, ask: AskBot, player: Bot, clock: Clock, metrics: ServerMetrics,
                 post: Callable[[BotAnswer], None], table_id: str) -> None:
        self.token, self.seat, self.player = ask.token, ask.seat, player
        self.view, self.legal = ask.view, list(ask.legal)
        self.metrics, self._post_to, self.table_id = metrics, post, table_id
        self.action: Action | None = None
        self.rang = False
        # (its thinking starts now: its answer time was drawn before)
        self.thinking = clock.compute(self._timed_choice)
        self.timer = clock.call_at(ask.due, self._ring)
        self.thinking.add_done_callback(self._thought)

    def _timed_choice(self) -> Action:
        """The bot's choice, its thinking time counted in the server's figures."""
        began = time.perf_counter()
        action = self.player.choose(self.view, self.legal)
        self.metrics.bot_think_seconds.labels(self.player.name).observe(
            time.perf_counter() - began)
        return action

    def _thought(self, thinking: asyncio.Future[Action]) -> None:
        if thinking.cancelled():
            return
        error = thinking.exception()
        if error is None:
            self.action = thinking.result()
        else:
            log.error("table %s: bot %s failed; 托管 moves instead", self.table_id,
                      self.player.name, exc_info=error)
            self.action = hosted_action(self.view, self.legal)
        if self.rang:
            log.warning("table %s: bot %s thought past its answer time; its answer "
                        "shows late", self.table_id, self.player.name)
            self._post_to(self)

    def _ring(self) -> None:
        self.rang = True
        if self.action is not None:
            self._post_to(self)

    def cancel(self) -> None:
        """Answer nothing (the table stops)."""
        self.timer.cancel()
        self.thinking.cancel()


class Inbox(Generic[_T]):
    """An unbounded FIFO queue read by one task."""

    __slots__ = ("_items", "_loop", "_waiter")

    def __init__(self) -> None:
        self._items: deque[_T] = deque()
        self._waiter: asyncio.Future[None] | None = None
        self._loop: asyncio.AbstractEventLoop | None = None

    def __len__(self) -> int:
        return len(self._items)

    def put(self, item: _T) -> None:
        """Add ``item`` and wake the reader if it waits."""
        self._items.append(item)
        waiter = self._waiter
        if waiter is not None:
            self._waiter = None
            if not waiter.done():
                waiter.set_result(None)

    async def get(self) -> _T:
        """The next item, waiting for one if there is none (one reader at a time)."""
        items = self._items
        while not items:
            if self._waiter is not None:
                raise RuntimeError("an inbox has one reader")
            loop = self._loop
            if loop is None:
                loop = self._loop = asyncio.get_running_loop()
            waiter = self._waiter = loop.create_future()
            try:
                await waiter
            finally:
                if self._waiter is waiter:       # (cancelled while waiting)
                    self._waiter = None
        return items.popleft()
