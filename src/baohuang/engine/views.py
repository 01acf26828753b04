"""What one seat may know: :func:`make_view` is the only way information
leaves a game (bots, server, terminal and web client all read views)."""

from __future__ import annotations

import operator
from collections import deque
from collections.abc import Sequence
from dataclasses import MISSING, dataclass, field, fields
from itertools import repeat
from typing import Annotated, Any, Final, TypeVar, get_origin, get_type_hints

from .actions import Action
from .cards import Card
from .events import EventLog, Seen, SeenEvent, seen_event
from .lastplay import LastPlay
from .state import GameState, Stage
from .viewvalues import (
    OWN_ORDER,
    PUBLIC_ORDER,
    OwnValues,
    PublicValues,
    ViewCache,
    events_seen,
    own_values,
    public_values,
)
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

_PUBLIC_MARK: Final = "public"
#: A field of :class:`View` that every seat's view of one game state holds alike
#: (the very same object): ``stage: Public[Stage]``.  The others are the seat's own.
Public = Annotated[_T, _PUBLIC_MARK]


@dataclass(frozen=True, slots=True)
class View:
    """A seat's knowledge of a game (``seat is None``: a spectator).

    ``to_act`` is ``None`` while the Guard decides 明保/暗保, except for the
    deciding seat itself: being asked would show who the Guard is.
    ``role`` is this seat's own role once it is known (``emperor``,
    ``guard``, ``rebel``); ``guard`` is the Guard's seat when this seat may
    know it.  ``hands`` holds other seats' cards only after the game is over.
    ``stake`` is the 倍数 every score is multiplied by (``scoring.stake_factors``);
    ``choice_stakes``, in a role-phase decision, the stake each of ``legal_actions``
    makes if it stands (明保, 明独, a 造反 or 踢 that others join), else empty.

    A field is added here, with its value where :func:`public_values` (a
    ``Public`` field) or :func:`own_values` makes it (:mod:`.viewvalues`, with
    its name in ``PUBLIC_ORDER`` or ``OWN_ORDER``): its JSON form
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
    choice_stakes: tuple[int, ...] = ()
    result: Public[dict[str, Any] | None] = None
    hands: Public[dict[int, tuple[Card, ...]]] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON values only (each field as :data:`FIELD_JSON` makes it)."""
        return VIEW_CODEC.encode(self)

    def seen(self, start: int = 0) -> list[Seen]:
        """The events typed (:class:`~baohuang.engine.events.Seen`): what bots and
        clients read, by :class:`~baohuang.engine.events.EventKind` and payload class;
        from the ``start``-th on (a reader that has read the others)."""
        events = self.events
        if isinstance(events, EventLog):
            return events.seen(start)
        return [seen_event(ev) for ev in events[start:]]


def field_parts(cls: type[View]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The names of the fields of ``cls`` (a :class:`View`) marked ``Public`` and of the
    others but ``events``, each in field order."""
    hints = get_type_hints(cls, include_extras=True)
    public = tuple(f.name for f in fields(cls)
                   if get_origin(hints[f.name]) is Annotated
                   and _PUBLIC_MARK in hints[f.name].__metadata__)
    return public, tuple(f.name for f in fields(cls)
                         if f.name not in public and f.name != "events")


def types_alike(view: type[View], *parts: type) -> bool:
    """Whether the classes ``parts`` (:class:`~.viewparts.PublicValues`,
    :class:`~.viewparts.OwnValues`) give each of their fields ``view``'s type for it
    (``Public[T]`` is ``T``)."""
    hints = get_type_hints(view)
    return all(hints.get(name) == of for part in parts
               for name, of in get_type_hints(part).items())


#: The fields every seat's view of one game state holds alike (the very same objects),
#: and those that are the seat's own but its events, each in :class:`View`'s order.
PUBLIC_FIELDS, OWN_FIELDS = field_parts(View)
if (PUBLIC_FIELDS, OWN_FIELDS) != (PUBLIC_ORDER, OWN_ORDER) or not types_alike(
        View, PublicValues, OwnValues):                          # (a field added to View)
    raise ImportError(f"viewvalues.PublicValues and OwnValues must declare View's fields "
                      f"{PUBLIC_FIELDS} and {OWN_FIELDS}, each in field order, with "
                      f"View's types")


def _seat_events(st: GameState, seat: int | None, seen: int, vc: ViewCache) -> EventLog:
    """The events as ``seat`` may see them (the list is extended with the new ones
    only; each view holds a log of as many as there were).  An event that shows
    every seat the same (nothing private, no hidden seat) is one dict shared by
    all the seats' lists."""
    cache = vc.events
    done, events, typed = cache.get(seat, (0, [], []))
    if done != seen:
        if done > seen:                            # (a state whose events were cut back)
            done, events, typed = 0, [], []
        events += events_seen(st, seat, done, seen, vc)
        cache[seat] = (seen, events, typed)
    return EventLog(events, seen, typed)


def make_view(st: GameState, seat: int | None, legal: Sequence[Action] | None = None,
              vc: ViewCache | None = None) -> View:
    """Build ``seat``'s view of ``st`` (``legal``: that seat's actions, if it acts;
    ``vc``: the game's :class:`ViewCache`, without which everything is made afresh)."""
    vc = vc or ViewCache()
    return _assemble(public_values(st, vc) + own_values(st, seat, legal, vc)
                     + (_seat_events(st, seat, len(st.events), vc),))


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
