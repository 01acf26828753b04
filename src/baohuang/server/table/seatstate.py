"""The seats of a TableState message as each connection is shown them.

While the Guard decides 明保/暗保, the others see every seat's 托管 state as it was
when the decision began — the deciding Guard's and everyone else's alike, so that
which change is held back tells nothing; the changes show once the decision is
made (docs/rules.md §10, SECURITY.md).  After a restart in the decision nothing
was shown yet: the state now.

>>> from baohuang.server.table.seats import Seat
>>> seats: list[Seat | None] = [Seat(name=f"p{i}", user_id=i, away_since=None)
...                             for i in range(5)]
>>> shown = SeatsShown()
>>> _ = shown.seats(seats, viewer=0, deciding=True, grace=10.0, now=0.0)
>>> seats[3].put_on_hosted()                   # (seat 3 presses 托管 while G decides)
>>> [shown.seats(seats, viewer, deciding=True, grace=10.0, now=1.0)[3]["hosted"]
...  for viewer in (0, 3)]
[False, True]
>>> shown.pending, shown.seats(seats, 0, deciding=False, grace=10.0, now=2.0)[3]["hosted"]
(True, True)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .seats import Seat

__all__ = ["HOSTED_FIELDS", "SeatsShown"]

#: the fields of a seat's TableState entry that tell its 托管 state
HOSTED_FIELDS = ("hosted", "hosted_count", "locked")


class SeatsShown:
    """The 托管 state shown to others, held while the Guard decides."""

    def __init__(self) -> None:
        self._public: list[dict[str, Any] | None] = [None] * 5
        #: a change is held back from someone: the table sends everybody the seats again
        #: once the decision is made
        self.pending = False

    def seats(self, seats: Sequence[Seat | None], viewer: int | None, *, deciding: bool,
              grace: float, now: float) -> list[dict[str, Any] | None]:
        """The five seats for a connection at ``viewer``'s seat (``None``: a watcher);
        ``deciding``: the Guard decides now."""
        out: list[dict[str, Any] | None] = []
        for index, seat in enumerate(seats):
            actual = None if seat is None else seat.public(index, grace, now)
            held = self._public[index]
            if not deciding or held is None:
                self._public[index] = held = actual
            shown = actual
            if deciding and index != viewer and actual is not None and held is not None:
                shown = dict(actual, **{key: held[key] for key in HOSTED_FIELDS})
                if shown != actual:
                    self.pending = True
            out.append(shown)
        return out
