"""Game events and the one place where secrets are stripped from them.

Every change of a game appends an :class:`Event`.  What a seat may learn of
an event is decided by :meth:`Event.for_seat` alone; views, the server and
records of what a seat saw all go through it.
"""

from __future__ import annotations

from typing import Any, NamedTuple

__all__ = ["Event", "make_event"]


_EMPTY: dict[Any, Any] = {}


class Event(NamedTuple):
    """Something that happened.  ``data`` is public; ``private`` maps a seat
    to what only that seat learns; with ``seat_hidden`` the acting seat is
    shown only to itself (the Guard's 明保/暗保 decision).  Events are never
    changed after they are made."""

    type: str
    seat: int | None = None
    data: dict[str, Any] = _EMPTY
    private: dict[int, dict[str, Any]] = _EMPTY
    seat_hidden: bool = False

    @property
    def shown_alike(self) -> bool:
        """Every viewer sees this event the same (nothing private, no hidden seat).

        >>> Event("pass", 3).shown_alike, Event("deal", None, {}, {0: {"hand": []}}).shown_alike
        (True, False)
        """
        return not self.private and not self.seat_hidden

    def for_seat(self, viewer: int | None, *, reveal_all: bool = False) -> dict[str, Any]:
        """This event as ``viewer`` (``None``: a spectator) may see it.
        ``reveal_all`` (a finished game's replay) shows everything."""
        out: dict[str, Any] = {"type": self.type}
        if self.seat is not None and (reveal_all or not self.seat_hidden or viewer == self.seat):
            out["seat"] = self.seat
        out.update(self.data)
        if reveal_all:
            for seat in sorted(self.private):
                out.setdefault("private", {})[str(seat)] = self.private[seat]
        elif viewer is not None and viewer in self.private:
            out.update(self.private[viewer])
        return out


_new = tuple.__new__


def make_event(type: str, seat: int | None, data: dict[str, Any] = _EMPTY) -> Event:
    """``Event(type, seat, data)`` with nothing private, made without the
    keyword handling of the generated constructor (for the play phase's
    many events).

    >>> make_event("pass", 3) == Event("pass", 3)
    True
    """
    return _new(Event, (type, seat, data, _EMPTY, False))
