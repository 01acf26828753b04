"""A table's clock: what time it is, a callback at a time, and work done meanwhile.

The table actor reads time and sets timers only through a :class:`Clock`.  A
server runs its tables on :class:`LoopClock` (the monotonic clock asyncio's
default loop runs on, and timers of the running loop); a test gives each table a
:class:`ManualClock`, which stands still until the test moves it, so a test can
drive turn deadlines, 托管 delays and the Guard's pause without sleeping and
compare *when* things happen at two tables exactly.

A server bot thinks in a worker thread (:meth:`Clock.compute`).  On a real clock its
thinking takes the time it takes — which is why a table shows a bot's answer at a time
drawn before it thinks (:mod:`.turns`), never when the thinking ends; on a
:class:`ManualClock` thinking takes no time: the clock does not move on while any
thinking started on it is running.

>>> import asyncio
>>> async def main() -> list[float]:
...     clock, rang = ManualClock(), []
...     clock.call_at(2.0, lambda: rang.append(clock.now()))
...     clock.call_at(1.0, lambda: rang.append(clock.now())).cancel()
...     await asyncio.to_thread(clock.advance_to, clock.next_due() or 0.0)
...     await asyncio.sleep(0)
...     return rang + [clock.now()]
>>> asyncio.run(main())
[2.0, 2.0]
"""

from __future__ import annotations

import asyncio
import heapq
import itertools
import threading
import time
from collections.abc import Callable
from typing import ClassVar, Protocol, TypeVar

__all__ = ["Clock", "ClockFactory", "LoopClock", "ManualClock", "Timer", "sleep"]

T = TypeVar("T")


class Timer(Protocol):
    """A callback set for a time (``asyncio.Handle`` is one)."""

    def cancel(self) -> None: ...


class Clock(Protocol):
    """The time a table lives by."""

    def now(self) -> float:
        """Monotonic seconds: turns, delays, away times and idleness are measured in it."""

    def wall(self) -> float:
        """The same instant as seconds since the epoch (the deadlines shown to clients)."""

    def call_at(self, when: float, callback: Callable[[], None]) -> Timer:
        """Call ``callback`` (on the table's event loop) once ``now()`` reaches ``when``."""

    def compute(self, work: Callable[[], T]) -> asyncio.Future[T]:
        """Run ``work()`` in a worker thread, started now; its result (called on the
        table's event loop)."""


#: the clock of a new table, given its id (a server: the same :class:`LoopClock` for all)
ClockFactory = Callable[[str], Clock]


class LoopClock:
    """Real time: :func:`time.monotonic` (the clock of asyncio's default loop) and the
    running loop's timers.  A timer of uvloop may ring up to a millisecond early; the
    table sets it again for what is left."""

    def now(self) -> float:
        return time.monotonic()

    def wall(self) -> float:
        return time.time()

    def call_at(self, when: float, callback: Callable[[], None]) -> Timer:
        return asyncio.get_running_loop().call_later(max(0.0, when - time.monotonic()),
                                                     callback)

    def compute(self, work: Callable[[], T]) -> asyncio.Future[T]:
        return asyncio.get_running_loop().run_in_executor(None, work)


async def sleep(clock: Clock, delay: float) -> None:
    """Wait ``delay`` seconds of ``clock``."""
    done: asyncio.Future[None] = asyncio.get_running_loop().create_future()

    def wake() -> None:
        if not done.done():
            done.set_result(None)
    timer = clock.call_at(clock.now() + delay, wake)
    try:
        await done
    finally:
        timer.cancel()


class _ManualTimer:
    __slots__ = ("callback", "cancelled", "loop", "when")

    def __init__(self, when: float, callback: Callable[[], None],
                 loop: asyncio.AbstractEventLoop) -> None:
        self.when, self.callback, self.loop, self.cancelled = when, callback, loop, False

    def cancel(self) -> None:
        self.cancelled = True


class ManualClock:
    """A clock that stands still until :meth:`advance_to` moves it (from any thread).

    Timers are set on the loop that sets them (the table's) and rung there, in the
    order of their times, each at its own time: the test thread that advances waits
    until each callback has run before the clock moves on.  ``wall()`` is ``now()``
    counted from a fixed epoch, so two tables driven alike show the same deadlines.
    Work run by :meth:`compute` takes no time: the clock rings nothing and moves on
    only once all of it has finished."""

    #: (a class attribute in the compiled build too: mypyc makes an unmarked one a slot)
    EPOCH: ClassVar[float] = 1_800_000_000.0

    def __init__(self) -> None:
        self._now = 0.0
        self._timers: list[tuple[float, int, _ManualTimer]] = []
        self._order = itertools.count()
        self._lock = threading.Lock()
        #: work started by :meth:`compute` and not finished, told when some finishes
        self._working = 0
        self._worked = threading.Condition(self._lock)

    def now(self) -> float:
        return self._now

    def wall(self) -> float:
        return self.EPOCH + self._now

    def call_at(self, when: float, callback: Callable[[], None]) -> Timer:
        timer = _ManualTimer(when, callback, asyncio.get_running_loop())
        with self._lock:
            heapq.heappush(self._timers, (when, next(self._order), timer))
        return timer

    def compute(self, work: Callable[[], T]) -> asyncio.Future[T]:
        with self._lock:
            self._working += 1

        def done() -> None:
            with self._lock:
                self._working -= 1
                self._worked.notify_all()
        loop = asyncio.get_running_loop()
        future = loop.run_in_executor(None, work)
        # (finished once whatever waits for its result has been told: after the
        # future's other callbacks)
        future.add_done_callback(lambda _: loop.call_soon(done))
        return future

    def next_due(self) -> float | None:
        """When the next timer rings (``None``: none is set)."""
        with self._lock:
            while self._timers and self._timers[0][2].cancelled:
                heapq.heappop(self._timers)
            return self._timers[0][0] if self._timers else None

    def advance_to(self, when: float) -> None:
        """Move the clock to ``when`` (never back), ringing every timer due on the way at
        its own time.  Called from a thread that is not the loop's (a test's)."""
        while True:
            with self._lock:
                # (work started at this time is done at this time)
                if not self._worked.wait_for(lambda: self._working == 0, 60.0):
                    raise TimeoutError("a table's work did not finish")
                while self._timers and self._timers[0][2].cancelled:
                    heapq.heappop(self._timers)
                if not self._timers or self._timers[0][0] > when:
                    self._now = max(self._now, when)
                    return
                due, _, timer = heapq.heappop(self._timers)
                self._now = max(self._now, due)
            done = threading.Event()

            def ring(timer: _ManualTimer = timer, done: threading.Event = done) -> None:
                try:
                    if not timer.cancelled:
                        timer.callback()
                finally:
                    done.set()
            timer.loop.call_soon_threadsafe(ring)
            if not done.wait(30.0):
                raise TimeoutError("a table's loop did not run its timer")
