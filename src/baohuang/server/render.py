"""The one serializer of game state for clients.

Everything a client learns about a game comes from ``game.view(seat)`` and
``game.events_for(seat, since)`` — ``seat`` is the receiving seat, ``None``
for a watcher — so nothing hidden from a seat can reach it.

>>> import baohuang as bh
>>> game = bh.Game.new(seed=4)
>>> snap = snapshot(game, 2, base=0, index=0)
>>> snap["version"] == game.version, len(snap["view"]["hand"]) > 0
(True, True)
>>> game.apply(game.legal_actions()[0])
>>> texts = event_texts(game, None, base=0, index=0, since=snap["version"])
>>> import json; msg = json.loads(texts[0])
>>> msg["type"], msg["version"] == snap["version"] + 1, msg["view"]["hand"]
('event', True, [])
"""

from __future__ import annotations

import dataclasses
from typing import Any

import msgspec

from ..game import Game

__all__ = ["event_texts", "game_over", "snapshot"]

_encoder = msgspec.json.Encoder()


def snapshot(game: Game, seat: int | None, *, base: int, index: int) -> dict[str, Any]:
    """The whole state for ``seat``: its view with the game's event list."""
    return {"type": "snapshot", "version": base + game.version, "game": index,
            "view": game.view(seat).to_dict()}


def event_texts(game: Game, seat: int | None, *, base: int, index: int,
                since: int, deadline: float | None = None) -> list[str]:
    """``event`` messages (JSON text) for the events after table version ``since``,
    each with the seat's fresh view (without its event list), the version all of
    them bring the table to (``latest``: act only at ``version == latest``) and the
    time the decision now awaited times out (``deadline``, unix seconds, or null)."""
    events = game.events_for(seat, since - base)
    if not events:
        return []
    # the event list is left out of event messages (the client has it): replace() spares
    # View.to_dict() copying every event of the game for every message
    view = dataclasses.replace(game.view(seat), events=()).to_dict()
    del view["events"]
    view_json = _encoder.encode(view).decode()
    head = '{"type":"event","version":'
    tail = (f',"latest":{since + len(events)},"game":{index},'
            f'"deadline":{_encoder.encode(deadline).decode()},"event":')
    return [f'{head}{since + i + 1}{tail}{_encoder.encode(ev).decode()},"view":{view_json}}}'
            for i, ev in enumerate(events)]


def game_over(game: Game, *, base: int, index: int, scored: bool, totals: list[int],
              games: int, played: int, over: bool, status: str) -> dict[str, Any]:
    """The ``game_over`` message (the same for every seat: the result is public)."""
    result = game.result
    assert result is not None
    return {"type": "game_over", "version": base + game.version, "game": index,
            "result": result.to_dict(), "scored": scored, "totals": list(totals),
            "match": {"games": games, "played": played, "over": over, "status": status}}
