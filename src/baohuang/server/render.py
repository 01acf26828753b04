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
>>> shown = game.view(None)
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
from operator import ne
from typing import Any

import msgspec

from ..actions import Action
from ..game import Game
from ..views import FIELD_JSON, View

__all__ = ["Shared", "event_texts", "game_over", "snapshot", "view_changes"]

_encoder = msgspec.json.Encoder()
_encode = _encoder.encode
#: the fields event messages carry (the event list is not repeated: clients keep it)
_SENT = tuple(name for name in FIELD_JSON if name != "events")
_values = operator.attrgetter(*_SENT)
_KEYS = tuple(f'"{name}":' for name in _SENT)
_CONVERT = tuple(FIELD_JSON[name] for name in _SENT)
#: fields that are the same for every seat: their JSON is made once per move
_PUBLIC = frozenset({"hand_counts", "last_play", "out", "left", "played", "rebels"})
_SHARED = tuple(name in _PUBLIC for name in _SENT)
_LEGAL = _SENT.index("legal_actions")
_INDICES = range(len(_SENT))
#: field index -> (value, its JSON text), shared by the seats of one broadcast (public
#: fields only: every seat's view of one state holds the same objects there)
Shared = dict[int, tuple[Any, str]]
#: action -> its JSON text (``Action.to_dict()`` encoded), kept for the actions seen
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
            text = texts[action] = _encode(action.to_dict()).decode()
        parts.append(text)
    return "[" + ",".join(parts) + "]"


def view_changes(view: View, last: View | None, shared: Shared | None = None) -> str:
    """The JSON object of ``view``'s fields (as ``View.to_dict()`` has them, without
    ``events``) that differ from ``last``'s — all of them when ``last`` is None.

    >>> import baohuang as bh
    >>> game = bh.Game.new(seed=1)
    >>> view = game.view(0)
    >>> view_changes(view, view)
    '{}'
    >>> import json; json.loads(view_changes(view, None)) == {
    ...     k: v for k, v in view.to_dict().items() if k != "events"}
    True
    """
    values = _values(view)
    changed: Iterable[int] = _INDICES if last is None else \
        compress(_INDICES, map(ne, values, _values(last)))
    parts: list[str] = []
    for i in changed:
        value = values[i]
        if shared is not None and _SHARED[i]:
            known = shared.get(i)
            if known is not None and known[0] is value:
                text = known[1]
            else:
                text = _encode(_CONVERT[i](value)).decode()
                shared[i] = (value, text)
        elif i == _LEGAL:
            text = _actions_json(value)
        else:
            text = _encode(_CONVERT[i](value)).decode()
        parts.append(_KEYS[i] + text)
    return "{" + ",".join(parts) + "}"


def event_texts(game: Game, seat: int | None, *, base: int, index: int,
                since: int, deadline: float | None = None, last: View | None = None,
                shared: Shared | None = None) -> tuple[list[str], View | None]:
    """``event`` messages (JSON text) for the events after table version ``since``,
    each with the version all of them bring the table to (``latest``: act only at
    ``version == latest``) and the time the decision now awaited times out
    (``deadline``, unix seconds, or null).  The last message's ``view`` holds what
    changed since ``last`` (the view the receiver has; ``None``: the whole view),
    the others' an empty object.  Returns the texts and the view they bring the
    receiver to (``last`` when there is nothing to send)."""
    if game.version <= since - base:
        return [], last
    view = game.view(seat)
    events = view.events[since - base:]      # (as game.events_for(seat) has them)
    latest = since + len(events)
    head = '{"type":"event","version":'
    tail = (f',"latest":{latest},"game":{index},'
            f'"deadline":{_encode(deadline).decode()},"event":')
    texts = [f'{head}{since + i + 1}{tail}{_encode(ev).decode()},"view":{{}}}}'
             for i, ev in enumerate(events[:-1])]
    texts.append(f'{head}{latest}{tail}{_encode(events[-1]).decode()},'
                 f'"view":{view_changes(view, last, shared)}}}')
    return texts, view


def game_over(game: Game, *, base: int, index: int, scored: bool, totals: list[int],
              games: int, played: int, over: bool, status: str) -> dict[str, Any]:
    """The ``game_over`` message (the same for every seat: the result is public)."""
    result = game.result
    assert result is not None
    return {"type": "game_over", "version": base + game.version, "game": index,
            "result": result.to_dict(), "scored": scored, "totals": list(totals),
            "match": {"games": games, "played": played, "over": over, "status": status}}
