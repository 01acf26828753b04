"""The timing of a table's decisions: when the decision awaited now began (its
deadline is fixed then), the one timer that times it, and the Guard's pause.

**The Guard's pause** (docs/rules.md §10, SECURITY.md).  The other seats do not
see who decides 明保/暗保, so no answer may come at a moment that tells how it was
made: the decision lasts exactly ``pause`` (its time limit, :func:`.autoplay.time_limit`)
and every answer — the Guard's own, a bot's, 托管's, a timeout's — is shown when it
ends.  An answer made before is *held*: checked, kept, and applied when the pause
ends; until then nothing is sent.

>>> from baohuang.server.table.clock import ManualClock
>>> turns = Turns(ManualClock(), pause=3.0)
>>> turns.begin((0, 4), deciding_guard=True)
>>> turns.guard_shown_at, turns.answer_at(0.5, limit=3.0)   # 托管 waits for the pause
(3.0, 3.0)
>>> turns.begin((0, 5), deciding_guard=False, fresh=True)
>>> turns.guard_shown_at, turns.answer_at(0.5, limit=20.0)
(None, 0.5)

托管's answer is timed once a turn: asked again later (a reconnect, a toggle), it is
still due when it first was — and never after the turn's own time runs out.

>>> turns.clock.advance_to(0.4)
>>> turns.answer_at(0.5, limit=20.0), turns.answer_at(600.0, limit=20.0)
(0.5, 0.5)
>>> turns.begin((0, 6), deciding_guard=False)
>>> turns.answer_at(600.0, limit=20.0)
20.4

An action that does not concern the seat deciding — a seat leaving the game (逃跑) —
moves the table's version but not the decision's clock: the deadline shown stays, and
so does the moment a held answer shows (a clock restarted by it would tell, while
the Guard decides, whether he had answered yet).

>>> turns.clock.advance_to(1.0)
>>> turns.begin((0, 7), deciding_guard=False, same=True)
>>> turns.started, turns.decision
(0.4, (0, 6))
"""

from __future__ import annotations

from collections.abc import Callable

from ...engine.actions import Action
from .clock import Clock, Timer
from .inputs import Token

__all__ = ["Held", "Turns"]

#: a decision made before the Guard's pause ended: (seat, action, source)
Held = tuple[int, Action, str]


class Turns:
    """A table's decision clock.  ``ring(token)`` is called (on the table's loop) when
    what was timed for the turn ``token`` is due."""

    def __init__(self, clock: Clock, pause: float,
                 ring: Callable[[Token], None] | None = None) -> None:
        self.clock = clock
        self.pause = pause
        self._ring_to = ring
        self.turn: Token | None = None
        #: the turn at which the decision awaited now began (an action that did not
        #: concern it moves :attr:`turn` only)
        self.decision: Token | None = None
        #: when the decision awaited now began (clock time), and the same instant by the
        #: wall clock, from which the deadline shown is counted
        self.started = 0.0
        self.started_at = 0.0
        #: when the Guard's decision began (``None``: the Guard is not deciding)
        self.guard_since: float | None = None
        self.held: Held | None = None
        #: when 托管 answers the decision awaited now, once it was first asked
        self._answer_due: float | None = None
        # (one kept handle and when it rings; what it times, and for which turn)
        self._timer: Timer | None = None
        self._timer_due = 0.0
        self._timed: tuple[float, Token] | None = None

    def begin(self, token: Token, *, deciding_guard: bool, fresh: bool = False,
              same: bool = False) -> None:
        """The decision awaited at ``token`` (a new one if the token changed, or
        ``fresh``; ``same``: the one awaited before, although the token changed — the
        action that changed it did not concern the seat deciding); ``deciding_guard``:
        the Guard decides 明保/暗保 now."""
        if same and self.turn is not None:
            self.turn = token
        elif fresh or token != self.turn:
            self.turn = self.decision = token
            self.started = self.clock.now()
            self.started_at = self.clock.wall()
            self._answer_due = None
        if not deciding_guard:
            self.guard_since, self.held = None, None
        elif self.guard_since is None:
            self.guard_since = self.started

    def elapsed(self) -> float:
        return self.clock.now() - self.started

    @property
    def guard_shown_at(self) -> float | None:
        """When the Guard's answer may be shown (``None``: the Guard is not deciding)."""
        return None if self.guard_since is None else self.guard_since + self.pause

    def too_early(self) -> bool:
        """Whether an answer made now must be held (the Guard's pause is still on)."""
        shown = self.guard_shown_at
        return shown is not None and self.clock.now() < shown - 1e-3

    def answer_at(self, delay: float, limit: float) -> float:
        """When 托管 answers the decision awaited now: ``delay`` after it was first asked
        to this turn (asking again moves nothing: a reconnect or a 托管 toggle gives no
        new time), no later than the turn's time ``limit`` runs out, and not before the
        Guard's pause ends."""
        if self._answer_due is None:
            self._answer_due = self.clock.now() + delay
        due = min(self._answer_due, max(self.clock.now(), self.started + limit))
        shown = self.guard_shown_at
        return due if shown is None else max(due, shown)

    # -- the timer ------------------------------------------------------------------------
    def cancel(self, *, drop: bool = False) -> None:
        """Time nothing: a timer handle that is kept finds nothing to ring (``drop``:
        cancel the handle too, for a table that stops)."""
        self._timed = None
        if drop and self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def set_at(self, due: float, token: Token) -> None:
        """Ring for ``token`` at ``due`` (clock time), instead of what was timed.

        One timer handle is kept and moved only when it would ring too late: a move
        made milliseconds after the one before neither cancels nor makes a handle
        (a handle that rings early is set again for the time now wanted)."""
        self._timed = (due, token)
        handle = self._timer
        if handle is None or self._timer_due > due:
            if handle is not None:
                handle.cancel()
            self._timer = self.clock.call_at(due, self._ring)
            self._timer_due = due

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
        if self._ring_to is not None:
            self._ring_to(timed[1])
