"""The JSON form of the engine's records (docs/protocol.md §3), both ways.

One codec for the server (``server/wire/render.py`` makes its messages with it), the
Python client (``baohuang.client`` reads views with it) and replays.  It is made from
a record class's annotations, field by field by name, so a field added to
:class:`~baohuang.engine.views.View` is sent, read and compared without a change
here, as long as its type is one this module knows (:func:`converters`, where each
type's two ways stand side by side; another type is refused when the codec is made).

Events travel as what :meth:`~baohuang.engine.events.Event.for_seat` makes of them;
:func:`event_from_json` reads such a form back into a typed
:class:`~baohuang.engine.events.Event`.

>>> from typing import NamedTuple
>>> from baohuang import parse_cards
>>> class Trick(NamedTuple):
...     seat: int
...     cards: tuple[Card, ...]
>>> codec = RecordCodec(Trick, Trick)
>>> trick = Trick(2, tuple(parse_cards("9 9 BJ")))
>>> codec.encode(trick)
{'seat': 2, 'cards': ['9', '9', 'BJ']}
>>> codec.decode(codec.encode(trick)) == trick
True
"""

from __future__ import annotations

import dataclasses
import operator
import types
from collections.abc import Callable, Collection, Iterator, Mapping, Sequence
from enum import Enum
from itertools import compress
from operator import is_not
from typing import Any, Generic, TypeVar, Union, get_args, get_origin, get_type_hints

from .actions import Action, parse_actions
from .cards import CARD_BY_TEXT, CARD_TEXT, Card, parse_card
from .events import PAYLOADS, Event, EventKind, EventLog, Payload, SeenEvent

__all__ = ["RecordCodec", "converters", "event_from_json", "from_json", "to_json"]

_R = TypeVar("_R")
#: a field's conversion, or None where the JSON value is the value itself
Convert = Callable[[Any], Any] | None

def _cards(texts: Sequence[str]) -> tuple[Card, ...]:
    try:
        return tuple(map(CARD_BY_TEXT.__getitem__, texts))
    except KeyError:
        return tuple(map(parse_card, texts))


def _texts(cards: Sequence[Card]) -> list[str]:
    return [CARD_TEXT[c] for c in cards]


def _optional(of: Any) -> Any | None:
    """``X`` for ``X | None`` (None for any other type)."""
    if get_origin(of) in (Union, types.UnionType):
        args = [a for a in get_args(of) if a is not type(None)]
        if len(args) == 1 and len(get_args(of)) == 2:
            return args[0]
    return None


def _is_record(of: Any) -> bool:
    """A NamedTuple or a dataclass: a JSON object of its fields."""
    return isinstance(of, type) and (dataclasses.is_dataclass(of)
                                     or (issubclass(of, tuple) and hasattr(of, "_fields")))


def _field_names(of: type) -> tuple[str, ...]:
    if dataclasses.is_dataclass(of):
        return tuple(f.name for f in dataclasses.fields(of))
    names: tuple[str, ...] = of._fields  # type: ignore[attr-defined]
    return names


def to_json(of: Any) -> Convert:
    """How a value of type ``of`` becomes plain JSON values (None: it is one already).

    >>> from baohuang import parse_cards
    >>> to_json(tuple[Card, ...])(parse_cards("10h BJ*")), to_json(int | None)
    (['10h', 'BJ*'], None)
    """
    return converters(of)[0]


def from_json(of: Any) -> Convert:
    """How a value of type ``of`` is read from its JSON form (None: as it is).

    >>> from_json(tuple[Card, ...])(["10h", "BJ*"]), from_json(bool)
    ((Card('10h'), Card('BJ*')), None)
    """
    return converters(of)[1]


def converters(of: Any) -> tuple[Convert, Convert]:
    """How a value of type ``of`` becomes plain JSON values and how it is read back,
    the two ways of each type side by side (both None: a JSON value as it is).  A type
    not here is refused, naming this module."""
    if of in (int, str, bool, float, type(None)) or of is Any:
        return None, None
    inner = _optional(of)
    if inner is not None:
        write, read = converters(inner)
        return _or_none(write), _or_none(read)
    if of is Card:
        return CARD_TEXT.__getitem__, parse_card
    if isinstance(of, type) and issubclass(of, Enum):
        members = {m.value: m for m in of}
        return (lambda v: v.value), (lambda v: members.get(v) or of(v))
    if of is Action:
        return str, Action.parse
    if _is_record(of):
        hints = get_type_hints(of)
        plans = [(name, *converters(hints[name])) for name in _field_names(of)]
        writes = tuple((name, write or _same) for name, write, _ in plans)
        reads = tuple((name, read or _same) for name, _, read in plans)
        return ((lambda v: {name: write(getattr(v, name)) for name, write in writes}),
                (lambda v: of(*[read(v[name]) for name, read in reads])))
    origin, args = get_origin(of), get_args(of)
    if origin is tuple and len(args) == 2 and args[1] is Ellipsis:
        item = args[0]
        if item is Card:
            return _texts, _cards
        if item is Action:
            return (lambda actions: [str(a) for a in actions]), parse_actions
        write_each, read_each = converters(item)
        if write_each is None or read_each is None:
            return list, tuple
        return ((lambda v: [write_each(x) for x in v]),
                (lambda v: tuple(map(read_each, v))))
    if origin is dict and args[0] is str and converters(args[1]) == (None, None):
        return dict, dict
    if origin is dict and args[0] is int:
        write_value, read_value = (c or _same for c in converters(args[1]))
        return ((lambda v: {str(k): write_value(x) for k, x in v.items()}),
                (lambda v: {int(k): read_value(x) for k, x in v.items()}))
    if origin is Sequence and args == (SeenEvent,):
        # (a client's event list only grows: a view read from it holds the events there
        # are now without copying them)
        return ((lambda events: [dict(e) for e in events]),
                (lambda v: EventLog(v, len(v)) if isinstance(v, list) else tuple(v)))
    raise TypeError(f"no JSON form for {of!r}: add it to baohuang.engine.wire")


def _or_none(convert: Convert) -> Convert:
    """``convert`` for ``X | None``: None stays None."""
    if convert is None:
        return None
    return lambda v: None if v is None else convert(v)


class RecordCodec(Generic[_R]):
    """The JSON object form of a record class (a dataclass or NamedTuple), made from
    its fields' annotations: :attr:`encoders` (field name -> conversion to JSON
    values, in field order), :meth:`encode` and :meth:`decode`.  ``build`` makes a
    record from its fields by keyword; ``grows`` names tuple fields that only grow
    (a reader that keeps what it made decodes only their new items)."""

    def __init__(self, cls: type[_R], build: Callable[..., _R], *,
                 grows: Collection[str] = (),
                 build_from: Callable[[dict[str, Any]], _R] | None = None) -> None:
        hints = get_type_hints(cls)
        self.names = _field_names(cls)
        both = {name: converters(hints[name]) for name in self.names}
        self.build = build
        #: ``build`` of a dict of the values (``build_from``, which may keep the dict)
        self._build_from = build_from or (lambda values: build(**values))
        self.grows = frozenset(grows)
        #: field -> how its value becomes JSON values (``to_json`` of its type)
        self.encoders: dict[str, Callable[[Any], Any]] = {
            name: both[name][0] or _same for name in self.names}
        readers = {name: both[name][1] for name in self.names}
        #: the fields whose JSON value is their value
        self._as_is = tuple(name for name in self.names if readers[name] is None)
        self._get_as_is = _getter(self._as_is)
        read = [(name, reader) for name, reader in readers.items() if reader is not None]
        #: the other fields and their readers: all, and for a reader that keeps what it
        #: made, those read afresh (a sequence of events: a client's list of them grows
        #: in place), those kept by the identity of their JSON value, and ``grows``
        self._read = tuple(read)
        self._fresh = tuple((n, r) for n, r in read if get_origin(hints[n]) is Sequence)
        self._kept = tuple((n, r) for n, r in read
                           if (n, r) not in self._fresh and n not in self.grows)
        self._grows = tuple((n, r) for n, r in read if n in self.grows)
        self._kept_names = tuple(n for n, _ in self._kept)
        self._kept_readers = tuple(r for _, r in self._kept)
        self._get_kept = _getter(self._kept_names)
        self._encode = tuple((name, self.encoders[name]) for name in self.names)

    def encode(self, record: _R) -> dict[str, Any]:
        """``record`` as a JSON object (plain values only)."""
        return {name: convert(getattr(record, name)) for name, convert in self._encode}

    def decode(self, data: Mapping[str, Any], kept: dict[str, tuple[Any, Any]] | None = None
               ) -> _R:
        """The record of a JSON object made by :meth:`encode` (a missing field with a
        default takes it).

        With ``kept`` (a dict, empty at first, passed again with the next form of the
        same record) a field whose JSON value is the very object it was the time
        before is not read again — a client that merges each message's changed
        fields into one dict keeps the others — and of a ``grows`` field only the
        items added since are read.  (A sequence of events is never kept: a client's
        list of them grows in place.)"""
        try:
            values = dict(zip(self._as_is, self._get_as_is(data), strict=True))
            if kept is None:
                for name, read in self._read:
                    values[name] = read(data[name])
                return self._build_from(values)
            for name, read in self._fresh:
                values[name] = read(data[name])
            raws = self._get_kept(data)
        except KeyError:                 # (a field left out: it takes its default)
            return self.build(**{name: value for name, value in self._decoded(data, kept)})
        # (the kept fields' JSON values and what was made of them, under the key "": the
        # values compared by identity all at once, and only those that changed read)
        readers = self._kept_readers
        before = kept.get("")
        if before is None:
            made = [read(raw) for read, raw in zip(readers, raws, strict=True)]
        else:
            was, made = before[0], list(before[1])
            for i in compress(range(len(raws)), map(is_not, raws, was)):
                made[i] = readers[i](raws[i])
        kept[""] = (raws, made)
        values.update(zip(self._kept_names, made, strict=True))
        for name, read in self._grows:
            raw = data[name]
            before = kept.get(name)
            if before is None or before[0] is not raw:
                if before is not None and len(raw) >= len(before[0]):
                    made = before[1] + read(raw[len(before[0]):])
                else:
                    made = read(raw)
                before = kept[name] = (raw, made)
            values[name] = before[1]
        return self._build_from(values)

    def _decoded(self, data: Mapping[str, Any], kept: dict[str, tuple[Any, Any]] | None
                 ) -> Iterator[tuple[str, Any]]:
        """Each field given in ``data`` and its value (read afresh)."""
        if kept is not None:
            kept.clear()
        for name in self._as_is:
            if name in data:
                yield name, data[name]
        for name, read in self._read:
            if name in data:
                yield name, read(data[name])


def _getter(names: tuple[str, ...]) -> Callable[[Mapping[str, Any]], tuple[Any, ...]]:
    """``names``' values of a mapping, as a tuple (``KeyError`` for a missing one)."""
    if len(names) == 1:
        name = names[0]
        return lambda data: (data[name],)
    return operator.itemgetter(*names) if names else (lambda data: ())


def _same(value: Any) -> Any:
    return value


def event_from_json(data: Mapping[str, Any], viewer: int | None = None) -> Event:
    """The typed event of an event's JSON form as :meth:`Event.for_seat` makes it for
    ``viewer`` (with ``reveal_all``: every private part).  A part the viewer was not
    shown is not there: the event is what that viewer knows.

    >>> ev = event_from_json({"type": "play", "seat": 3, "cards": ["9", "9"]})
    >>> ev.kind, ev.seat, ev.data
    (<EventKind.PLAY: 'play'>, 3, Play(cards=['9', '9']))
    >>> event_from_json(ev.for_seat(None)) == ev
    True
    """
    kind = EventKind(data["type"])
    public, private = PAYLOADS[kind]
    payload: Payload | None = None
    if public is not None:
        payload = public(**{name: data[name] for name in public.__struct_fields__})
    shown: dict[int, Payload] | None = None
    if private is not None:
        if "private" in data:
            shown = {int(s): private(**part) for s, part in data["private"].items()}
        elif viewer is not None and private.__struct_fields__[0] in data:
            shown = {viewer: private(**{name: data[name]
                                        for name in private.__struct_fields__})}
    return Event(kind, data.get("seat"), payload, shown)
