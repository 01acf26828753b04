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

from typing import Any

import msgspec

from ..game import Game
from ..views import FIELD_JSON, View

__all__ = ["Shared", "event_texts", "game_over", "snapshot", "view_changes"]

_encoder = msgspec.json.Encoder()
_encode = _encoder.encode
#: the fields event messages carry (the event list is not repeated: clients keep it)
_SENT = tuple(name for name in FIELD_JSON if name != "events")
#: fields that are the same for every seat: their JSON is made once per move
_PUBLIC = frozenset({"hand_counts", "last_play", "out", "left", "played", "rebels"})
#: (field, value) -> JSON text, shared by the seats of one broadcast
Shared = dict[tuple[str, Any], str]


def snapshot(game: Game, seat: int | None, *, base: int, index: int) -> dict[str, Any]:
    """The whole state for ``seat``: its view with the game's event list."""
    return {"type": "snapshot", "version": base + game.version, "game": index,
            "view": game.view(seat).to_dict()}


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
    parts: list[str] = []
    for name in _SENT:
        value = getattr(view, name)
        if last is not None and value == getattr(last, name):
            continue
        if shared is not None and name in _PUBLIC:
            key = (name, value)
            text = shared.get(key)
            if text is None:
                text = shared[key] = _encode(FIELD_JSON[name](value)).decode()
        else:
            text = _encode(FIELD_JSON[name](value)).decode()
        parts.append(f'"{name}":{text}')
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
