"""准备 (ready) between the games of a match, as pure logic: who is ready for the next
deal, and when it comes anyway (docs/rules.md §10).  Told the time, it answers with
the timers to set (:mod:`.effects`): the next game once everyone is ready — at once for
people, after the server's pause between games at a table of bots — or the table's
countdown (``Settings.ready_wait``), whose end deals the game with the seats not
ready on 托管.

>>> from baohuang.server.table.effects import Instant
>>> from baohuang.server.table.seats import Seat
>>> seats = [Seat(name="Li", user_id=1, away_since=None)] + [
...     Seat.for_bot("normal", i) for i in range(4)]
>>> between = Readiness(next_game_delay=2.0, ready_wait=15.0)
>>> between.ask(seats, 1, now=100.0)[-1]
SetTimer(name=<TimerName.READY: 'ready'>, due=115.0, token=(1, 0))
>>> between.json(Instant(103.0, 1003.0))
{'seats': [1, 2, 3, 4], 'deadline': 1015.0}
>>> between.say(0), between.everyone(seats), between.late()
(True, True, frozenset())
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .effects import CancelTimer, Instant, SetTimer, TimerName, TimingEffect
from .seats import Seat

__all__ = ["Readiness"]


class Readiness:
    """Who is ready for the match's next game, and when it is dealt anyway."""

    def __init__(self, next_game_delay: float, ready_wait: float | None) -> None:
        self.next_game_delay, self.ready_wait = next_game_delay, ready_wait
        #: the seats ready for the next deal (bots always are); ``None``: nobody is
        #: asked (a game is on, or the match is over)
        self.ready: set[int] | None = None
        #: when the next deal starts anyway (the table's clock; ``None``: no countdown)
        self.due: float | None = None

    def ask(self, seats: Sequence[Seat | None], index: int,
            now: float) -> list[TimingEffect]:
        """Game ``index`` is next: every person at the table is asked 准备; what to time
        (the next game, or the countdown)."""
        self.ready = {i for i, seat in enumerate(seats) if seat is not None and seat.is_bot}
        self.due = None
        effects: list[TimingEffect] = [CancelTimer(TimerName.READY)]
        if self.everyone(seats):
            return [*effects, SetTimer(TimerName.NEXT_GAME, now + self.next_game_delay,
                                       (index, 0))]
        if self.ready_wait is not None:
            self.due = now + self.ready_wait
            effects.append(SetTimer(TimerName.READY, self.due, (index, 0)))
        return effects

    def everyone(self, seats: Sequence[Seat | None]) -> bool:
        """Whether every seat taken is ready."""
        ready = self.ready or set()
        return all(seat is None or i in ready for i, seat in enumerate(seats))

    def say(self, seat: int) -> bool:
        """``seat`` says it is ready: whether that changes anything (it was asked and
        had not said so)."""
        if self.ready is None or seat in self.ready:
            return False
        self.ready.add(seat)
        return True

    def late(self) -> frozenset[int]:
        """The seats not ready (dealt in on 托管 when the countdown ran out)."""
        ready = self.ready or set()
        return frozenset(i for i in range(5) if i not in ready)

    def postpone(self, by: float) -> None:
        """The countdown starts ``by`` seconds later (the table paused meanwhile)."""
        if self.due is not None:
            self.due += by

    def end(self) -> list[TimingEffect]:
        """Nobody is asked any more (the game is dealt, or the match ended)."""
        self.ready, self.due = None, None
        return [CancelTimer(TimerName.READY)]

    def json(self, now: Instant) -> dict[str, Any] | None:
        """The TableState's ``ready``: who is ready for the next deal and when it comes
        anyway (``deadline``, the server's unix time; ``None``: no countdown)."""
        if self.ready is None:
            return None
        deadline = None if self.due is None else now.wall + (self.due - now.mono)
        return {"seats": sorted(self.ready), "deadline": deadline}
