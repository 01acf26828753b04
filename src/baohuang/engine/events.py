"""Game events and the one place where secrets are stripped from them.

Every change of a game appends an :class:`Event`: its :class:`EventKind` and the
typed payload of that kind (:data:`PAYLOADS`), with what only some seats learn
(``private``) typed too.  What a seat may learn of an event is decided by
:meth:`Event.for_seat` alone; views, the server and records of what a seat saw
all go through it.  What it returns, a :data:`SeenEvent`, is the event's JSON
form (docs/protocol.md §3): ``{"type": kind, "seat": ..., payload fields...}``.

>>> ev = Event(EventKind.TRIBUTE, 1, Transfer(to=2, count=1),
...            {1: CardShown(card="2h"), 2: CardShown(card="2h")})
>>> ev.for_seat(2), ev.for_seat(3)
({'type': 'tribute', 'seat': 1, 'to': 2, 'count': 1, 'card': '2h'}, \
{'type': 'tribute', 'seat': 1, 'to': 2, 'count': 1})

Whoever reads the events of a view — bots, the terminal, the environments, the
learned bot — reads them typed (:class:`Seen`, from :meth:`EventLog.seen` or
:func:`seen_event`): an :class:`EventKind` and the payload classes above, decoded
from the JSON form by msgspec, never by comparing ``type`` strings.

>>> seen_event(ev.for_seat(2))
Seen(kind=<EventKind.TRIBUTE: 'tribute'>, seat=1, data=Transfer(to=2, count=1), \
mine=CardShown(card='2h'))
"""

from __future__ import annotations

import itertools
import threading
from collections.abc import Iterator, Mapping, Sequence
from enum import StrEnum
from typing import Any, Final, overload

import msgspec

__all__ = [
    "PAYLOADS",
    "CardShown",
    "CardsShown",
    "Deal",
    "Event",
    "EventKind",
    "EventLog",
    "GuardChoice",
    "KickStands",
    "Lead",
    "Out",
    "Over",
    "Payload",
    "Play",
    "RebellionStands",
    "Redeal",
    "Reveal",
    "Seen",
    "SeenEvent",
    "Solo",
    "Tehua",
    "Transfer",
    "seen_event",
]

#: an event as one seat sees it: its JSON form, which views and messages hold
SeenEvent = dict[str, Any]


class EventKind(StrEnum):
    """What happened (the ``type`` of an event's JSON form; docs/protocol.md §3)."""

    DEAL = "deal"                        # the cards are dealt (or dealt again)
    CANDIDATE = "candidate"              # who holds the Emperor card
    TRIBUTE = "tribute"                  # a card given as tribute (进贡)
    ACCEPT = "accept"                    # the candidate takes the throne
    ABDICATE = "abdicate"                # the candidate passes the Emperor card on
    FORCED = "forced"                    # a seat that must take the throne
    REDEAL = "redeal"                    # nobody became Emperor
    EMPEROR = "emperor"                  # the Emperor is fixed
    SOLO = "solo"                        # an open solo (明独)
    DECLINE_SOLO = "decline_solo"
    STEAL = "steal"                      # a seat steals the solo (抢独)
    DECLINE_STEAL = "decline_steal"
    CALL = "call"                        # the Emperor calls the Guard's card
    GUARD = "guard"                      # the Guard's 明保/暗保 (its seat hidden for 暗保)
    REBEL = "rebel"                      # 造反 votes
    NO_REBEL = "no_rebel"
    REBELLION_STANDS = "rebellion_stands"
    KICK = "kick"                        # 踢 votes
    NO_KICK = "no_kick"
    KICK_STANDS = "kick_stands"
    PLAY_STARTS = "play_starts"
    PLAY = "play"
    PASS = "pass"
    ASK_LEAD = "ask_lead"                # asking for the lead (要头)
    LEAD = "lead"                        # a seat leads the next trick
    OUT = "out"                          # a seat has played its last card
    REVEAL = "reveal"                    # the Guard (or a hidden solo) is shown
    LEAVE = "leave"
    OVER = "over"                        # the game's result


class Payload(msgspec.Struct, frozen=True):
    """An event's typed data (its fields are keys of the event's JSON form)."""


class Deal(Payload, frozen=True):
    deal: int                            # deal number of this game (a redeal adds one)
    dealer: int


class Transfer(Payload, frozen=True):
    """Cards passed from the event's seat to ``to`` (tribute, abdication)."""

    to: int
    count: int


class Redeal(Payload, frozen=True):
    reason: str


class Solo(Payload, frozen=True):
    open: bool
    stolen: bool


class Call(Payload, frozen=True):
    card: str                            # the called card's text


class GuardChoice(Payload, frozen=True):
    open: bool                           # 明保 (True) or 暗保


class KickStands(Payload, frozen=True):
    seats: list[int]


class RebellionStands(Payload, frozen=True):
    guard: int | None
    solo: str | None
    rebels: list[int]


class Play(Payload, frozen=True):
    cards: list[str]                     # the cards' texts


class Out(Payload, frozen=True):
    place: int


class Reveal(Payload, frozen=True):
    solo: str | None


class Lead(Payload, frozen=True):
    reason: str                          # "round", "ask_lead" or "lead_after_out"


class Over(Payload, frozen=True):
    """The game's result (``Result.to_dict()``'s fields)."""

    places: list[int | None]
    scores: list[int]
    emperor: int | None
    guard: int | None
    solo: str | None
    left: int | None
    order: list[int]
    royal_won: bool | None
    # how the scores came about (Result's; older logs lack them)
    stake: int = 1
    unit: int = 0
    shares: list[int] = []
    factors: list[str] = []


class CardShown(Payload, frozen=True):
    """Private: the tribute card, for its giver and receiver."""

    card: str


class CardsShown(Payload, frozen=True):
    """Private: the cards an abdication passes, for both seats."""

    cards: list[str]


class Tehua(Payload, frozen=True):
    """Private: the Guard's 特画 card when the called card is the Guard's mark."""

    tehua: str


#: Each kind's public payload and private payload (None: the kind has none).
PAYLOADS: Final[dict[EventKind, tuple[type[Payload] | None, type[Payload] | None]]] = {
    EventKind.DEAL: (Deal, None), EventKind.CANDIDATE: (None, None),
    EventKind.TRIBUTE: (Transfer, CardShown), EventKind.ACCEPT: (None, None),
    EventKind.ABDICATE: (Transfer, CardsShown), EventKind.FORCED: (None, None),
    EventKind.REDEAL: (Redeal, None), EventKind.EMPEROR: (None, None),
    EventKind.SOLO: (Solo, None), EventKind.DECLINE_SOLO: (None, None),
    EventKind.STEAL: (None, None), EventKind.DECLINE_STEAL: (None, None),
    EventKind.CALL: (Call, Tehua), EventKind.GUARD: (GuardChoice, None),
    EventKind.REBEL: (None, None), EventKind.NO_REBEL: (None, None),
    EventKind.REBELLION_STANDS: (RebellionStands, None), EventKind.KICK: (None, None),
    EventKind.NO_KICK: (None, None), EventKind.KICK_STANDS: (KickStands, None),
    EventKind.PLAY_STARTS: (None, None), EventKind.PLAY: (Play, None),
    EventKind.PASS: (None, None), EventKind.ASK_LEAD: (None, None),
    EventKind.LEAD: (Lead, None), EventKind.OUT: (Out, None),
    EventKind.REVEAL: (Reveal, None), EventKind.LEAVE: (None, None),
    EventKind.OVER: (Over, None),
}
assert set(PAYLOADS) == set(EventKind), "every kind has its payloads"

_asdict = msgspec.structs.asdict


class Event(msgspec.Struct, frozen=True):
    """Something that happened.  ``data`` is public; ``private`` maps a seat
    to what only that seat learns.  Events are never changed after they are made."""

    kind: EventKind
    seat: int | None = None
    data: Payload | None = None
    private: dict[int, Payload] | None = None

    @property
    def seat_hidden(self) -> bool:
        """The acting seat is shown only to itself: the Guard's 暗保 decision (who
        decides would show who the Guard is; docs/rules.md §6.4)."""
        data = self.data
        return type(data) is GuardChoice and not data.open

    @property
    def shown_alike(self) -> bool:
        """Every viewer sees this event the same (nothing private, no hidden seat).

        >>> Event(EventKind.PASS, 3).shown_alike
        True
        >>> Event(EventKind.CALL, 0, Call("9h"), {2: Tehua("T")}).shown_alike
        False
        """
        if self.private:
            return False
        data = self.data
        return type(data) is not GuardChoice or data.open

    def for_seat(self, viewer: int | None, *, reveal_all: bool = False) -> SeenEvent:
        """This event as ``viewer`` (``None``: a spectator) may see it.
        ``reveal_all`` (a finished game's replay) shows everything, the private
        parts under ``private`` by seat."""
        out: SeenEvent = {"type": self.kind._value_}
        seat = self.seat
        if seat is not None and (reveal_all or not self.seat_hidden or viewer == seat):
            out["seat"] = seat
        data = self.data
        if data is not None:
            out.update(_asdict(data))
        private = self.private
        if private:
            if reveal_all:
                out["private"] = {str(s): _asdict(private[s]) for s in sorted(private)}
            elif viewer is not None and viewer in private:
                out.update(_asdict(private[viewer]))
        return out


class Seen(msgspec.Struct, frozen=True):
    """An event as one seat saw it, typed: its kind, the acting seat where the seat
    was shown it, the public payload (``PAYLOADS[kind][0]``) and the private part this
    seat was shown (``mine``, ``PAYLOADS[kind][1]``), if any."""

    kind: EventKind
    seat: int | None = None
    data: Payload | None = None
    mine: Payload | None = None


_KIND_OF: Final = {kind.value: kind for kind in EventKind}
_convert = msgspec.convert


def seen_event(data: Mapping[str, Any]) -> Seen:
    """The typed form of an event's JSON form (:meth:`Event.for_seat`), read by msgspec
    into the kind's payload classes; an unknown kind or a bad field raises
    ``ValueError`` (``msgspec.ValidationError``).

    >>> seen_event({"type": "play", "seat": 3, "cards": ["9", "9"]})
    Seen(kind=<EventKind.PLAY: 'play'>, seat=3, data=Play(cards=['9', '9']), mine=None)
    """
    kind = _KIND_OF.get(data["type"])
    if kind is None:
        raise ValueError(f"unknown event type {data['type']!r}")
    public, private = PAYLOADS[kind]
    seat = data.get("seat")
    if seat is not None and type(seat) is not int:
        raise ValueError(f"bad seat {seat!r}")
    return Seen(kind, seat,
                None if public is None else _convert(data, public),
                None if private is None or private.__struct_fields__[0] not in data
                else _convert(data, private))


#: guards the growing of the typed lists shared by the views of one seat
_TYPING = threading.Lock()


class EventLog(Sequence[SeenEvent]):
    """The first ``n`` items of a list that only ever grows: an unchanging sequence
    made without copying (a game's event list is shared by the views of all its
    states).  It reads, slices (to a tuple) and compares like a tuple.

    >>> grows = [{"type": "deal"}]
    >>> log = EventLog(grows, 1)
    >>> grows.append({"type": "candidate", "seat": 2})
    >>> len(log), log[-1], log == ({"type": "deal"},), EventLog(grows, 2)[1:]
    (1, {'type': 'deal'}, True, ({'type': 'candidate', 'seat': 2},))
    """

    __slots__ = ("_items", "_n", "_typed")

    def __init__(self, items: list[SeenEvent], n: int, typed: list[Seen] | None = None
                 ) -> None:
        self._items = items
        self._n = n
        #: the typed forms of ``items`` made so far (shared by the logs of one list)
        self._typed: list[Seen] = [] if typed is None else typed

    def seen(self, start: int = 0) -> list[Seen]:
        """The events typed (:func:`seen_event`), each read once for every log of
        the same list; from the ``start``-th on (a reader that has read the others).

        >>> log = EventLog([{"type": "pass", "seat": 2}, {"type": "pass", "seat": 3}], 2)
        >>> log.seen(1)
        [Seen(kind=<EventKind.PASS: 'pass'>, seat=3, data=None, mine=None)]
        """
        typed, n = self._typed, self._n
        if len(typed) < n:
            with _TYPING:
                if len(typed) < n:
                    typed += [seen_event(ev) for ev in self._items[len(typed):n]]
        return typed[start:n]

    def __len__(self) -> int:
        return self._n

    @overload
    def __getitem__(self, index: int) -> SeenEvent: ...

    @overload
    def __getitem__(self, index: slice) -> tuple[SeenEvent, ...]: ...

    def __getitem__(self, index: int | slice) -> SeenEvent | tuple[SeenEvent, ...]:
        if isinstance(index, slice):
            start, stop, step = index.indices(self._n)
            return tuple(self._items[start:stop:step])
        n = self._n
        if index < 0:
            index += n
        if not 0 <= index < n:
            raise IndexError("event index out of range")
        return self._items[index]

    def __iter__(self) -> Iterator[SeenEvent]:
        return itertools.islice(self._items, self._n)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, EventLog) and other._items is self._items:
            return other._n == self._n
        if isinstance(other, EventLog | tuple | list):
            return len(other) == self._n and all(a == b for a, b in zip(self, other, strict=True))
        return NotImplemented

    def __hash__(self) -> int:
        return hash(tuple(self))

    def __repr__(self) -> str:
        return f"EventLog({list(self)!r})"
