"""What one seat may know: :func:`make_view` is the only way information
leaves a game (bots, server, terminal and web client all read views)."""

from __future__ import annotations

import itertools
import operator
from collections import Counter, deque
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field, fields
from itertools import repeat
from typing import Any, Final, NamedTuple, TypeVar, cast, overload

from .actions import Action
from .cards import CARD_TEXT, Card, make_deck, parse_card
from .events import EventKind, Play
from .scoring import stake_of
from .state import GameState, Stage

__all__ = [
    "FIELD_JSON",
    "OWN_FIELDS",
    "PUBLIC_FIELDS",
    "EventLog",
    "View",
    "ViewCache",
    "build_view",
    "events_seen",
    "make_view",
    "own_values",
    "public_values",
    "view_fields",
    "view_parts",
]

_T = TypeVar("_T")
_new_object = object.__new__
_OVER: Final = Stage.OVER
_PLAY_EVENT: Final = EventKind.PLAY
_PLAY: Final = Stage.PLAY
_GUARD: Final = Stage.GUARD
_EMPEROR: Final = Stage.EMPEROR
#: stages in which nobody is the Guard yet, as far as any view shows
_BEFORE_GUARD: Final = (Stage.EMPEROR, Stage.EMPEROR_SOLO, Stage.STEAL, Stage.CALL)


class EventLog(Sequence[dict[str, Any]]):
    """The first ``n`` items of a list that only ever grows: an unchanging sequence
    made without copying (a game's event list is shared by the views of all its
    states).  It reads, slices (to a tuple) and compares like a tuple.

    >>> grows = [{"type": "deal"}]
    >>> log = EventLog(grows, 1)
    >>> grows.append({"type": "candidate", "seat": 2})
    >>> len(log), log[-1], log == ({"type": "deal"},), EventLog(grows, 2)[1:]
    (1, {'type': 'deal'}, True, ({'type': 'candidate', 'seat': 2},))
    """

    __slots__ = ("_items", "_n")

    def __init__(self, items: list[dict[str, Any]], n: int) -> None:
        self._items = items
        self._n = n

    def __len__(self) -> int:
        return self._n

    @overload
    def __getitem__(self, index: int) -> dict[str, Any]: ...

    @overload
    def __getitem__(self, index: slice) -> tuple[dict[str, Any], ...]: ...

    def __getitem__(self, index: int | slice) -> dict[str, Any] | tuple[dict[str, Any], ...]:
        if isinstance(index, slice):
            start, stop, step = index.indices(self._n)
            return tuple(self._items[start:stop:step])
        n = self._n
        if index < 0:
            index += n
        if not 0 <= index < n:
            raise IndexError("event index out of range")
        return self._items[index]

    def __iter__(self) -> Iterator[dict[str, Any]]:
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


@dataclass(frozen=True, slots=True)
class View:
    """A seat's knowledge of a game (``seat is None``: a spectator).

    ``to_act`` is ``None`` while the Guard decides 明保/暗保, except for the
    deciding seat itself: being asked would show who the Guard is.
    ``role`` is this seat's own role once it is known (``emperor``,
    ``guard``, ``rebel``); ``guard`` is the Guard's seat when this seat may
    know it.  ``hands`` holds other seats' cards only after the game is over.
    """

    seat: int | None
    stage: Stage
    to_act: int | None
    dealer: int
    deal_no: int
    rules: dict[str, Any]
    hand: tuple[Card, ...]
    hand_counts: tuple[int, ...]
    candidate: int | None
    emperor: int | None
    guard: int | None
    role: str | None
    solo: str | None
    called: Card | None
    guard_open: bool
    rebels: tuple[int, ...]
    kicks: int
    stake: int
    leader: int | None
    last_play: tuple[int, tuple[Card, ...]] | None
    out: tuple[int, ...]
    left: tuple[int, ...]
    played: tuple[Card, ...]
    events: Sequence[dict[str, Any]]
    legal_actions: tuple[Action, ...] = ()
    result: dict[str, Any] | None = None
    hands: dict[int, tuple[Card, ...]] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON values only (each field as :data:`FIELD_JSON` makes it)."""
        return {name: convert(getattr(self, name)) for name, convert in FIELD_JSON.items()}


def _same(value: Any) -> Any:
    return value


def _texts(cards: tuple[Card, ...]) -> list[str]:
    return [CARD_TEXT[c] for c in cards]


def _last_play(last: tuple[int, tuple[Card, ...]] | None) -> dict[str, Any] | None:
    return None if last is None else {"seat": last[0], "cards": _texts(last[1])}


#: How each field of a :class:`View` becomes plain JSON, in field order:
#: ``View.to_dict()`` is ``{name: FIELD_JSON[name](value)}`` over all fields.
FIELD_JSON: dict[str, Callable[[Any], Any]] = {
    "seat": _same, "stage": lambda stage: stage.value, "to_act": _same, "dealer": _same,
    "deal_no": _same, "rules": dict, "hand": _texts, "hand_counts": list,
    "candidate": _same, "emperor": _same, "guard": _same, "role": _same, "solo": _same,
    "called": lambda card: None if card is None else CARD_TEXT[card],
    "guard_open": _same, "rebels": list, "kicks": _same, "stake": _same, "leader": _same,
    "last_play": _last_play, "out": list, "left": list, "played": _texts,
    "events": lambda events: [dict(e) for e in events],
    "legal_actions": lambda actions: [str(a) for a in actions],   # ("play 9 9", "pass")
    "result": _same,
    "hands": lambda hands: {str(s): _texts(cards) for s, cards in hands.items()},
}


#: The fields every seat's view of one game state holds alike (the very same objects),
#: and those that are the seat's own, each in :class:`View`'s order.
PUBLIC_FIELDS: Final = ("stage", "dealer", "deal_no", "rules", "hand_counts", "candidate",
                        "emperor", "called", "guard_open", "rebels", "kicks", "stake",
                        "leader", "last_play", "out", "left", "played", "result", "hands")
OWN_FIELDS: Final = ("seat", "to_act", "hand", "guard", "role", "solo", "legal_actions",
                     "events")
#: the values of PUBLIC_FIELDS + OWN_FIELDS -> in View's field order
_in_view_order = operator.itemgetter(*((PUBLIC_FIELDS + OWN_FIELDS).index(f.name)
                                       for f in fields(View)))


class _Public(NamedTuple):
    """What every seat's view of one game state shares (made once per event count;
    a part equal to the one before is that same object, so that views of
    successive states can be compared by identity first)."""

    seen: int                                     # len(st.events) it was made at
    played: list[Card]                            # the cards of every play event so far
    played_cards: tuple[Card, ...]
    hand_counts: tuple[int, ...]
    rebels: tuple[int, ...]
    out: tuple[int, ...]
    left: tuple[int, ...]
    last_play: tuple[int, tuple[Card, ...]] | None
    view: tuple[Any, ...]                         # the values of PUBLIC_FIELDS


class ViewCache:
    """What the views of one game keep between moves, derived from its state (the
    :class:`~baohuang.engine.game.Game` owns it; the state does not see it).

    ``rules``: the rules as one plain dict that every view holds (views are read,
    never changed, so they compare equal by identity); ``public``: what every seat's
    view shares, made once per event count; ``hands``: per seat (hand, its change
    count, its sorted cards) as a view last showed it; ``events``: per viewer (events
    seen, their filtered dicts); ``alike``: (start, stop, event stop - 1, the events
    start..stop as every seat sees them) when every seat sees them alike;
    ``public_events``: per event, the dict every seat's view shows, or None where
    seats differ."""

    __slots__ = ("alike", "events", "hands", "public", "public_events", "rules")

    def __init__(self) -> None:
        self.rules: dict[str, Any] | None = None
        self.public: _Public | None = None
        self.hands: dict[int, tuple[Counter[Card], int, tuple[Card, ...]]] = {}
        self.events: dict[int | None, tuple[int, list[dict[str, Any]]]] = {}
        self.alike: tuple[int, int, Any, tuple[dict[str, Any], ...]] | None = None
        self.public_events: list[dict[str, Any] | None] = []


def _same_or(new: _T, old: _T) -> _T:
    return old if new == old else new


def _public(st: GameState, seen: int, vc: ViewCache) -> _Public:
    """The shared parts of the views of ``st`` (which has ``seen`` events)."""
    before = vc.public
    if before is None or before.seen > seen:
        before = _Public(0, [], (), (), (), (), (), None, ())
    played, played_cards = before.played, before.played_cards
    # Events only ever grow, so the played cards are extended, not rebuilt.
    grew = len(played)
    for ev in st.events[before.seen:]:
        if ev.kind is _PLAY_EVENT:
            played.extend(_cards(cast(Play, ev.data).cards))
    if len(played) != grew:
        played_cards = tuple(played)
    last = st.last
    stake = stake_of(guard_open=st.guard_open, solo=st.solo, rebels=st.rebels, kicks=st.kicks)
    hand_counts = _same_or(tuple([sum(c) for c in st.counts]), before.hand_counts)
    rebels = _same_or(tuple(st.rebels), before.rebels)
    out, left = _same_or(tuple(st.out), before.out), _same_or(tuple(st.left), before.left)
    last_play = None if last is None else _same_or((last[0], last[2]), before.last_play)
    stage = st.stage
    rules = vc.rules
    if rules is None:
        rules = vc.rules = st.rules.to_dict()
    view = (stage, st.dealer, st.deal_no, rules, hand_counts,
            st.candidate if stage is _EMPEROR else None, st.emperor, st.called, st.guard_open,
            rebels, st.kicks, stake, st.leader if stage is _PLAY else None, last_play, out,
            left, played_cards, None if st.result is None else st.result.to_dict(),
            {s: _sorted_hand(st, s, vc) for s in range(5) if st.hands[s]} if stage is _OVER
            else {})
    public = _Public(seen, played, played_cards, hand_counts, rebels, out, left, last_play,
                     view)
    vc.public = public
    return public


def _sorted_hand(st: GameState, seat: int, vc: ViewCache) -> tuple[Card, ...]:
    """``seat``'s cards, low to high (made again only after its hand changed)."""
    hand, changes = st.hands[seat], st.hand_changes[seat]
    cached = vc.hands.get(seat)
    if cached is not None and cached[0] is hand and cached[1] == changes:
        return cached[2]
    cards = tuple(sorted(hand.elements()))
    vc.hands[seat] = (hand, changes, cards)
    return cards


def _seat_events(st: GameState, seat: int | None, seen: int, vc: ViewCache) -> EventLog:
    """The events as ``seat`` may see them (the list is extended with the new ones
    only; each view holds a log of as many as there were).  An event that shows
    every seat the same (nothing private, no hidden seat) is one dict shared by
    all the seats' lists."""
    cache = vc.events
    done, events = cache.get(seat, (0, []))
    if done != seen:
        if done > seen:                            # (a state whose events were cut back)
            done, events = 0, []
        events += events_seen(st, seat, done, seen, vc)
        cache[seat] = (seen, events)
    return EventLog(events, seen)


def events_seen(st: GameState, seat: int | None, start: int, stop: int, vc: ViewCache
                ) -> tuple[dict[str, Any], ...]:
    """Events ``start`` to ``stop`` of ``st`` as ``seat`` may see them.  When every
    seat sees them alike, every seat gets the same tuple (a server sending one move's
    events to five seats makes their text once)."""
    alike = vc.alike
    if alike is not None and alike[0] == start and alike[1] == stop \
            and st.events[stop - 1] is alike[2]:
        same: tuple[dict[str, Any], ...] = alike[3]
        return same
    public = _public_events(st, stop, vc)
    part = tuple(public[start:stop])
    if None not in part:
        shown = cast(tuple[dict[str, Any], ...], part)
        if stop > start:
            vc.alike = (start, stop, st.events[stop - 1], shown)
        return shown
    return tuple([shown if shown is not None else st.events[i].for_seat(seat, reveal_all=False)
                  for i, shown in enumerate(part, start)])


def _public_events(st: GameState, seen: int, vc: ViewCache) -> list[dict[str, Any] | None]:
    """Per event: the dict every seat sees, or None when seats see it differently."""
    public = vc.public_events
    if len(public) > seen:                         # (a state whose events were cut back)
        del public[:]
    for ev in st.events[len(public):seen]:
        public.append(ev.for_seat(None, reveal_all=False) if ev.shown_alike else None)
    return public


def make_view(st: GameState, seat: int | None, legal: Sequence[Action] | None = None,
              vc: ViewCache | None = None) -> View:
    """Build ``seat``'s view of ``st`` (``legal``: that seat's actions, if it acts;
    ``vc``: the game's :class:`ViewCache`, without which everything is made afresh)."""
    return build_view(view_fields(st, seat, legal, vc or ViewCache()))


def view_parts(st: GameState, seat: int | None, legal: Sequence[Action] | None,
               vc: ViewCache) -> tuple[tuple[Any, ...], tuple[Any, ...]]:
    """The values of :func:`make_view`'s view, without making the :class:`View`, in
    two parts: those of :data:`PUBLIC_FIELDS` — one tuple, the same object for every
    seat's view of ``st`` — and those of :data:`OWN_FIELDS`, the seat's own (a server
    compares the views it sends move by move: the public part once for all seats)."""
    seen = len(st.events)
    return public_values(st, vc), (*own_values(st, seat, legal, vc),
                                   _seat_events(st, seat, seen, vc))


def public_values(st: GameState, vc: ViewCache) -> tuple[Any, ...]:
    """The values of :data:`PUBLIC_FIELDS` in every view of ``st`` (one tuple)."""
    public = vc.public
    seen = len(st.events)
    if public is None or public.seen != seen:
        public = _public(st, seen, vc)
    return public.view


def own_values(st: GameState, seat: int | None, legal: Sequence[Action] | None,
               vc: ViewCache) -> tuple[Any, ...]:
    """The values of :data:`OWN_FIELDS` in ``seat``'s view of ``st``, but the last
    (``events``)."""
    stage = st.stage
    over = stage is _OVER
    e, g = st.emperor, st.guard
    early = stage in _BEFORE_GUARD
    role: str | None = None
    if seat is not None and e is not None:
        if seat == e:
            role = "emperor"
        elif seat == g and not early:
            role = "guard"
        elif g is not None:
            role = "rebel"
    knows_guard = over or st.guard_public or (seat is not None and seat == g)
    solo = st.solo
    if solo == "hidden" and not (over or st.guard_public or seat == e):
        solo = None
    guard_seen = g if (g is not None and knows_guard and not early) else None
    if solo is None and guard_seen == e and not over and seat != e:
        guard_seen = None
    to_act = st.to_act
    if stage is _GUARD and seat != to_act:
        to_act = None
    return (seat, to_act, _sorted_hand(st, seat, vc) if seat is not None else (), guard_seen,
            role,
            solo, tuple(legal) if legal else ())


def view_fields(st: GameState, seat: int | None, legal: Sequence[Action] | None,
                vc: ViewCache) -> tuple[Any, ...]:
    """The values of :func:`make_view`'s view in :class:`View`'s field order."""
    public, own = view_parts(st, seat, legal, vc)
    values: tuple[Any, ...] = _in_view_order(public + own)
    return values


#: (the slots of View in field order, and how a slot is set)
_SLOTS = tuple(View.__dict__[f.name] for f in fields(View))
_set_slot = type(_SLOTS[0]).__set__


def build_view(values: tuple[Any, ...]) -> View:
    """``View(*values)`` (every field, in order) without the frozen dataclass's
    ``__init__``, which sets each of its 27 slots through a Python-level call:
    five or six views are made for every move a server table makes, and one for
    every decision of a client.

    >>> import baohuang as bh
    >>> view = bh.Game.new(seed=1).view(0)
    >>> values = tuple(getattr(view, f.name) for f in fields(View))
    >>> build_view(values) == View(*values) == view
    True
    """
    view: View = _new_object(View)
    deque(map(_set_slot, _SLOTS, repeat(view), values), maxlen=0)
    return view


def _cards(tokens: list[str]) -> list[Card]:
    return [_BY_TEXT.get(t) or parse_card(t) for t in tokens]


#: Dealt cards by their text (events hold played cards as text).
_BY_TEXT: dict[str, Card] = {str(c): c for c in set(make_deck("full"))}

assert list(FIELD_JSON) == [f.name for f in fields(View)], "FIELD_JSON covers every field"
assert sorted(PUBLIC_FIELDS + OWN_FIELDS) == sorted(FIELD_JSON), "every field public or own"
