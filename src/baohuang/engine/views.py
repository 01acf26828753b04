"""What one seat may know: :func:`make_view` is the only way information
leaves a game (bots, server, terminal and web client all read views)."""

from __future__ import annotations

import operator
from collections import Counter, deque
from collections.abc import Callable, Sequence
from dataclasses import MISSING, dataclass, field, fields
from itertools import repeat
from typing import Annotated, Any, Final, NamedTuple, TypeVar, cast, get_origin, get_type_hints

from .actions import Action
from .cards import Card, parse_cards
from .events import EventKind, EventLog, Play, SeenEvent
from .scoring import stake_of
from .state import GameState, Stage
from .wire import RecordCodec

__all__ = [
    "FIELD_JSON",
    "OWN_FIELDS",
    "PUBLIC_FIELDS",
    "VIEW_CODEC",
    "EventLog",
    "LastPlay",
    "Public",
    "View",
    "ViewCache",
    "build_view",
    "events_seen",
    "field_parts",
    "make_view",
    "own_values",
    "public_values",
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

_PUBLIC_MARK: Final = "public"
#: A field of :class:`View` that every seat's view of one game state holds alike
#: (the very same object): ``stage: Public[Stage]``.  The others are the seat's own.
Public = Annotated[_T, _PUBLIC_MARK]


class LastPlay(NamedTuple):
    """The play to beat: who played it and its cards."""

    seat: int
    cards: tuple[Card, ...]


@dataclass(frozen=True, slots=True)
class View:
    """A seat's knowledge of a game (``seat is None``: a spectator).

    ``to_act`` is ``None`` while the Guard decides 明保/暗保, except for the
    deciding seat itself: being asked would show who the Guard is.
    ``role`` is this seat's own role once it is known (``emperor``,
    ``guard``, ``rebel``); ``guard`` is the Guard's seat when this seat may
    know it.  ``hands`` holds other seats' cards only after the game is over.

    A field is added here, with its value where :func:`public_values` (a
    ``Public`` field) or :func:`own_values` makes it: its JSON form
    (:data:`VIEW_CODEC`, from its type), the server's messages and the Python
    client's reading follow from its name and type.
    """

    seat: int | None
    stage: Public[Stage]
    to_act: int | None
    dealer: Public[int]
    deal_no: Public[int]
    rules: Public[dict[str, Any]]
    hand: tuple[Card, ...]
    hand_counts: Public[tuple[int, ...]]
    candidate: Public[int | None]
    emperor: Public[int | None]
    guard: int | None
    role: str | None
    solo: str | None
    called: Public[Card | None]
    guard_open: Public[bool]
    rebels: Public[tuple[int, ...]]
    kicks: Public[int]
    stake: Public[int]
    leader: Public[int | None]
    last_play: Public[LastPlay | None]
    out: Public[tuple[int, ...]]
    left: Public[tuple[int, ...]]
    played: Public[tuple[Card, ...]]
    events: Sequence[SeenEvent] = ()
    legal_actions: tuple[Action, ...] = ()
    result: Public[dict[str, Any] | None] = None
    hands: Public[dict[int, tuple[Card, ...]]] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON values only (each field as :data:`FIELD_JSON` makes it)."""
        return VIEW_CODEC.encode(self)


def field_parts(cls: type[View]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The names of the fields of ``cls`` (a :class:`View`) marked ``Public`` and of the
    others but ``events``, each in field order."""
    hints = get_type_hints(cls, include_extras=True)
    public = tuple(f.name for f in fields(cls)
                   if get_origin(hints[f.name]) is Annotated
                   and _PUBLIC_MARK in hints[f.name].__metadata__)
    return public, tuple(f.name for f in fields(cls)
                         if f.name not in public and f.name != "events")


#: The fields every seat's view of one game state holds alike (the very same objects),
#: and those that are the seat's own but its events, each in :class:`View`'s order.
PUBLIC_FIELDS, OWN_FIELDS = field_parts(View)


def _by_name(names: tuple[str, ...]) -> Callable[..., tuple[Any, ...]]:
    """A function that takes the values of ``names`` by keyword, all of them, and
    returns them as a tuple in that order.  (It is written out, as ``dataclasses``
    writes an ``__init__``: called five or six times a move by a server, it makes no
    dict of its arguments.)

    >>> _by_name(("seat", "hand"))(hand=(), seat=3)
    (3, ())
    """
    assert all(name.isidentifier() for name in names)
    listed = ", ".join(names)
    namespace: dict[str, Any] = {}
    exec(f"def values(*, {listed}):\n    return ({listed},)\n", namespace)
    made: Callable[..., tuple[Any, ...]] = namespace["values"]
    return made


_public_tuple = _by_name(PUBLIC_FIELDS)
_own_tuple = _by_name(OWN_FIELDS)


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
    last_play: LastPlay | None
    view: tuple[Any, ...]                         # the values of PUBLIC_FIELDS
    # what hand_counts and last_play were made of: made again only when these change
    counts: list[list[int]] | None                # st.counts (the list itself)
    hand_changes: tuple[int, ...]                 # st.hand_changes then
    last: Any                                     # st.last (the tuple itself)


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
        before = _Public(0, [], (), (), (), (), (), None, (), None, (), None)
    played, played_cards = before.played, before.played_cards
    # Events only ever grow, so the played cards are extended, not rebuilt.
    grew = len(played)
    for ev in st.events[before.seen:]:
        if ev.kind is _PLAY_EVENT:
            played.extend(parse_cards(cast(Play, ev.data).cards))
    if len(played) != grew:
        played_cards = tuple(played)
    stake = stake_of(guard_open=st.guard_open, solo=st.solo, rebels=st.rebels, kicks=st.kicks)
    # (a hand's card counts change only with its change count, or with a new deal's
    # lists; the play to beat only with a new st.last: most moves leave both alone)
    counts, hand_changes = st.counts, tuple(st.hand_changes)
    if counts is before.counts and hand_changes == before.hand_changes:
        hand_counts = before.hand_counts
    else:
        hand_counts = _same_or(tuple(map(sum, counts)), before.hand_counts)
    last = st.last
    if last is before.last:
        last_play = before.last_play
    else:
        last_play = None if last is None else _same_or(LastPlay(last[0], last[2]),
                                                        before.last_play)
    rebels = _same_or(tuple(st.rebels), before.rebels)
    out, left = _same_or(tuple(st.out), before.out), _same_or(tuple(st.left), before.left)
    stage = st.stage
    rules = vc.rules
    if rules is None:
        rules = vc.rules = st.rules.to_dict()
    view = _public_tuple(
        stage=stage, dealer=st.dealer, deal_no=st.deal_no, rules=rules,
        hand_counts=hand_counts, candidate=st.candidate if stage is _EMPEROR else None,
        emperor=st.emperor, called=st.called, guard_open=st.guard_open, rebels=rebels,
        kicks=st.kicks, stake=stake, leader=st.leader if stage is _PLAY else None,
        last_play=last_play, out=out, left=left, played=played_cards,
        result=None if st.result is None else st.result.to_dict(),
        hands={s: _sorted_hand(st, s, vc) for s in range(5) if st.hands[s]}
        if stage is _OVER else {})
    public = _Public(seen, played, played_cards, hand_counts, rebels, out, left, last_play,
                     view, counts, hand_changes, last)
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
    vc = vc or ViewCache()
    return _assemble(public_values(st, vc) + own_values(st, seat, legal, vc)
                     + (_seat_events(st, seat, len(st.events), vc),))


def public_values(st: GameState, vc: ViewCache) -> tuple[Any, ...]:
    """The values of :data:`PUBLIC_FIELDS` in every view of ``st``: one tuple, the same
    object for every seat's view (a server compares the views it sends move by move:
    the public part once for all seats)."""
    public = vc.public
    seen = len(st.events)
    if public is None or public.seen != seen:
        public = _public(st, seen, vc)
    return public.view


def own_values(st: GameState, seat: int | None, legal: Sequence[Action] | None,
               vc: ViewCache) -> tuple[Any, ...]:
    """The values of :data:`OWN_FIELDS` in ``seat``'s view of ``st`` (its events come
    apart: :func:`events_seen`)."""
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
    return _own_tuple(seat=seat, to_act=to_act,
                      hand=_sorted_hand(st, seat, vc) if seat is not None else (),
                      guard=guard_seen, role=role, solo=solo,
                      legal_actions=tuple(legal) if legal else ())


#: (the slots of View in field order, and how a slot is set)
_NAMES: Final = tuple(f.name for f in fields(View))
_SLOTS: Final = tuple(View.__dict__[name] for name in _NAMES)
_set_slot = type(_SLOTS[0]).__set__
#: the values of PUBLIC_FIELDS + OWN_FIELDS + events -> in View's field order
_in_view_order = operator.itemgetter(*((*PUBLIC_FIELDS, *OWN_FIELDS, "events").index(name)
                                       for name in _NAMES))
#: each field's default, for build_view
_DEFAULTS: Final = {f.name: f.default if f.default_factory is MISSING else f.default_factory()
                    for f in fields(View)
                    if f.default is not MISSING or f.default_factory is not MISSING}


def _assemble(values: tuple[Any, ...]) -> View:
    """The view of these values (of PUBLIC_FIELDS, OWN_FIELDS and events, in that
    order), made without the frozen dataclass's ``__init__``, which sets each of its
    27 slots through a Python-level call: five or six views are made for every move a
    server table makes, and one for every decision of a client."""
    view: View = _new_object(View)
    deque(map(_set_slot, _SLOTS, repeat(view), _in_view_order(values)), maxlen=0)
    return view


_by_field = operator.itemgetter(*_NAMES)


def build_view(**values: Any) -> View:
    """``View(**values)``, made the fast way (:func:`_assemble`); a field left out takes
    its default (a new ``hands`` dict is made only by ``View()`` itself).

    >>> import baohuang as bh
    >>> view = bh.Game.new(seed=1).view(0)
    >>> values = {f.name: getattr(view, f.name) for f in fields(View)}
    >>> build_view(**values) == View(**values) == view
    True
    """
    return _view_of(values)


def _view_of(values: dict[str, Any]) -> View:
    """:func:`build_view` of a dict of the values (which it does not change)."""
    if len(values) != len(_NAMES):
        values = {**_DEFAULTS, **values}
        if len(values) != len(_NAMES):
            raise TypeError(f"View fields missing or unknown: "
                            f"{sorted(set(values) ^ set(_NAMES))}")
    view: View = _new_object(View)
    deque(map(_set_slot, _SLOTS, repeat(view), _by_field(values)), maxlen=0)
    return view



#: The JSON form of a :class:`View` (made from its fields by :mod:`.wire`): the server
#: sends it, the Python client reads it (``VIEW_CODEC.decode``; the played cards only
#: grow within a game).
VIEW_CODEC: Final = RecordCodec(View, build_view, grows=("played",), build_from=_view_of)
#: How each field of a :class:`View` becomes plain JSON, in field order:
#: ``View.to_dict()`` is ``{name: FIELD_JSON[name](value)}`` over all fields.
FIELD_JSON: Final = VIEW_CODEC.encoders
