"""The one serializer of game state for clients.

Everything a client learns about a game comes from ``game.view(seat)`` and
``game.events_for(seat, since)`` — ``seat`` is the receiving seat, ``None``
for a watcher — so nothing hidden from a seat can reach it.

A ``snapshot`` carries the whole view.  ``event`` messages carry only what
changed: the fields of the seat's view that differ from the view it was sent
last (all of them when there is none), on the last message of a batch.

>>> import baohuang as bh
>>> game = bh.Game.new(seed=4)
>>> snap = snapshot(game, 2, base=0, index=0)
>>> snap["version"] == game.version, len(snap["view"]["hand"]) > 0
(True, True)
>>> shown = game.view_fields(None)
>>> game.apply(game.legal_actions()[0])
>>> texts, shown = event_texts(game, None, base=0, index=0, since=snap["version"],
...                            last=shown)
>>> import json; first, last = json.loads(texts[0]), json.loads(texts[-1])
>>> first["type"], first["version"] == snap["version"] + 1, last["version"] == game.version
('event', True, True)
>>> sorted(last["view"])               # what this action changed in the watcher's view
['candidate', 'emperor', 'stage']
"""

from __future__ import annotations

import operator
from collections.abc import Iterable
from itertools import compress
from operator import is_not
from typing import Any

import msgspec

from ..actions import Action
from ..game import Game
from ..views import FIELD_JSON

__all__ = ["Fields", "Shared", "event_texts", "game_over", "snapshot", "view_changes"]

_encoder = msgspec.json.Encoder()
_encode = _encoder.encode
#: the fields event messages carry (the event list is not repeated: clients keep it)
_SENT = tuple(name for name in FIELD_JSON if name != "events")
_NAMES = tuple(FIELD_JSON)
_EVENTS = _NAMES.index("events")
#: a view's field values (``Game.view_fields``) -> those of the fields sent
_values = operator.itemgetter(*(_NAMES.index(name) for name in _SENT))
#: a view's field values, as ``Game.view_fields`` gives them (``View``'s field order)
Fields = tuple[Any, ...]
_KEYS = tuple(f'"{name}":' for name in _SENT)
_CONVERT = tuple(FIELD_JSON[name] for name in _SENT)
#: fields that are the same for every seat: their JSON is made once per move
_PUBLIC = frozenset({"hand_counts", "last_play", "out", "left", "played", "rebels"})
_SHARED = tuple(name in _PUBLIC for name in _SENT)
_LEGAL = _SENT.index("legal_actions")
_INDICES = range(len(_SENT))


class Shared:
    """What the messages to the seats of one broadcast share (made for the first seat,
    reused for the others): the JSON of public fields — every seat's view of one
    state holds the same objects there — and the text of events that every seat
    sees alike (its view's event list holds the same dict)."""

    __slots__ = ("events", "fields", "tail")

    def __init__(self) -> None:
        #: the part of every event message after its version (the same since, latest,
        #: game and deadline for every seat of one broadcast)
        self.tail: str | None = None
        #: field index -> (value, its JSON text)
        self.fields: dict[int, tuple[Any, str]] = {}
        #: id of an event dict -> (the dict, its message text up to the view)
        self.events: dict[int, tuple[dict[str, Any], str]] = {}

#: action -> its JSON text (``str(action)`` encoded), kept for the actions seen
#: lately: the same few hundred make up most legal-action lists
_action_texts: dict[Action, str] = {}
_ACTION_TEXTS_MAX = 50_000


def snapshot(game: Game, seat: int | None, *, base: int, index: int) -> dict[str, Any]:
    """The whole state for ``seat``: its view with the game's event list."""
    return {"type": "snapshot", "version": base + game.version, "game": index,
            "view": game.view(seat).to_dict()}


def _actions_json(actions: tuple[Action, ...]) -> str:
    """``FIELD_JSON["legal_actions"](actions)`` as JSON text (each action's text kept)."""
    texts = _action_texts
    parts = []
    for action in actions:
        text = texts.get(action)
        if text is None:
            if len(texts) >= _ACTION_TEXTS_MAX:
                texts.clear()
            text = texts[action] = _encode(str(action)).decode()
        parts.append(text)
    return "[" + ",".join(parts) + "]"


def view_changes(view: Fields, last: Fields | None, shared: Shared | None = None) -> str:
    """The JSON object of the fields of the view ``view`` (its field values, as
    ``Game.view_fields`` gives them) that differ from ``last``'s — all of them when
    ``last`` is None — as ``View.to_dict()`` has them, without ``events``.

    >>> import baohuang as bh
    >>> game = bh.Game.new(seed=1)
    >>> fields = game.view_fields(0)
    >>> view_changes(fields, fields)
    '{}'
    >>> import json; json.loads(view_changes(fields, None)) == {
    ...     k: v for k, v in game.view(0).to_dict().items() if k != "events"}
    True
    """
    values = _values(view)
    changed: Iterable[int]
    if last is None:
        changed = _INDICES
    else:
        # (most fields hold the very object they held last time: only the others are
        # compared by value)
        old = _values(last)
        changed = [i for i in compress(_INDICES, map(is_not, values, old))
                   if values[i] != old[i]]
    parts: list[str] = []
    known_fields = None if shared is None else shared.fields
    for i in changed:
        value = values[i]
        if known_fields is not None and _SHARED[i]:
            known = known_fields.get(i)
            if known is not None and known[0] is value:
                text = known[1]
            else:
                text = _encode(_CONVERT[i](value)).decode()
                known_fields[i] = (value, text)
        elif i == _LEGAL:
            text = _actions_json(value)
        else:
            text = _encode(_CONVERT[i](value)).decode()
        parts.append(_KEYS[i] + text)
    return "{" + ",".join(parts) + "}"


def event_texts(game: Game, seat: int | None, *, base: int, index: int,
                since: int, deadline: float | None = None, last: Fields | None = None,
                shared: Shared | None = None) -> tuple[list[str], Fields | None]:
    """``event`` messages (JSON text) for the events after table version ``since``,
    each with the version all of them bring the table to (``latest``: act only at
    ``version == latest``) and the time the decision now awaited times out
    (``deadline``, unix seconds, or null).  The last message's ``view`` holds what
    changed since ``last`` (the view the receiver has; ``None``: the whole view),
    the others' an empty object.  Returns the texts and the view they bring the
    receiver to (``last`` when there is nothing to send)."""
    if game.version <= since - base:
        return [], last
    view = game.view_fields(seat)
    events = view[_EVENTS][since - base:]    # (as game.events_for(seat) has them)
    tail = None if shared is None else shared.tail
    if tail is None:
        tail = (f',"latest":{since + len(events)},"game":{index},'
                f'"deadline":{_encode(deadline).decode()},"event":')
        if shared is not None:
            shared.tail = tail
    known = None if shared is None else shared.events
    heads = []                               # each message up to its view
    for number, ev in enumerate(events, since + 1):
        # (an event every seat sees alike makes the same text up to the view)
        made = None if known is None else known.get(id(ev))
        if made is not None and made[0] is ev:
            heads.append(made[1])
        else:
            head = f'{{"type":"event","version":{number}{tail}{_encode(ev).decode()},"view":'
            if known is not None:
                known[id(ev)] = (ev, head)
            heads.append(head)
    texts = [head + "{}}" for head in heads[:-1]]
    texts.append(heads[-1] + view_changes(view, last, shared) + "}")
    return texts, view


def game_over(game: Game, *, base: int, index: int, scored: bool, totals: list[int],
              games: int, played: int, over: bool, status: str) -> dict[str, Any]:
    """The ``game_over`` message (the same for every seat: the result is public)."""
    result = game.result
    assert result is not None
    return {"type": "game_over", "version": base + game.version, "game": index,
            "result": result.to_dict(), "scored": scored, "totals": list(totals),
            "match": {"games": games, "played": played, "over": over, "status": status}}
