"""The one serializer of game state for clients.

Everything a client learns about a game comes from ``game.view(seat)`` and
``game.events_for(seat, since)`` — ``seat`` is the receiving seat, ``None``
for a watcher — so nothing hidden from a seat can reach it.

A ``snapshot`` carries the whole view.  An ``update`` carries what one action (or
a resync) brought a seat: the events after the version it had, in one message,
and only the fields of its view that differ from the view it was sent last (all
of them when there is none).

>>> import baohuang as bh
>>> game = bh.Game.new(seed=4)
>>> snap = snapshot(game, 2, base=0, index=0)
>>> snap.version == game.version, len(snap.view["hand"]) > 0
(True, True)
>>> shown = game.view_update(None, 0)[:2]
>>> game.apply(game.legal_actions()[0])
>>> text, shown = update_text(game, None, base=0, index=0, since=snap.version,
...                           last=shown)
>>> import json; message = json.loads(text)
>>> message["type"], message["since"] == snap.version, message["version"] == game.version
('update', True, True)
>>> len(message["events"]) == game.version - snap.version
True
>>> sorted(message["view"])            # what this action changed in the watcher's view
['candidate', 'emperor', 'stage']
"""

from __future__ import annotations

from collections.abc import Iterable
from itertools import compress
from operator import ne
from typing import Any

import msgspec

from ...engine.actions import Action, ActionKind
from ...engine.game import Game
from ...engine.hints import hint_indexes, revealing_cards
from ...engine.views import FIELD_JSON, OWN_FIELDS, PUBLIC_FIELDS
from .protocol import GameOver, MatchState, Snapshot

__all__ = ["Parts", "Shared", "broadcast", "game_over", "snapshot", "update_text",
           "view_changes"]

_encoder = msgspec.json.Encoder()
_encode = _encoder.encode
#: a view's field values, as ``Game.view_update`` gives them: those of
#: ``views.PUBLIC_FIELDS`` and of ``views.OWN_FIELDS`` (update messages carry the
#: events, and no view field repeats them: clients keep them)
Parts = tuple[tuple[Any, ...], tuple[Any, ...]]
_LEGAL = OWN_FIELDS.index("legal_actions")


def _json_of(names: tuple[str, ...]) -> tuple[tuple[str, ...], tuple[Any, ...]]:
    """Each field's key text and its conversion to plain JSON values (None: the legal
    actions, made of their kept texts), by the fields' names."""
    return (tuple(f'"{name}":' for name in names),
            tuple(None if name == "legal_actions" else FIELD_JSON[name] for name in names))


_PUBLIC_KEYS, _PUBLIC_CONVERT = _json_of(PUBLIC_FIELDS)
_OWN_KEYS, _OWN_CONVERT = _json_of(OWN_FIELDS)


class Shared:
    """What the messages to the seats of one broadcast share (made for the first seat,
    reused for the others): the changes of the public part of their views — every
    seat's view of one state holds the same public tuple, and most seats were sent
    the same one last time — and the text of events that every seat sees alike
    (its view's event list holds the same dict)."""

    __slots__ = ("events", "head", "public", "seen")

    def __init__(self) -> None:
        #: the events the last seat was sent (a tuple every seat that sees them alike
        #: gets), and its message up to the view
        self.seen: tuple[dict[str, Any], ...] | None = None
        self.head = ""
        #: id of the public part a seat was sent last -> (it, the new one, the changes)
        self.public: dict[int, tuple[Any, Any, str]] = {}
        #: id of an event dict -> (the dict, its JSON text)
        self.events: dict[int, tuple[dict[str, Any], str]] = {}


#: action -> its JSON text (``str(action)`` encoded), kept for the actions seen
#: lately: the same few hundred make up most legal-action lists
_action_texts: dict[Action, str] = {}
_ACTION_TEXTS_MAX = 50_000


def snapshot(game: Game, seat: int | None, *, base: int, index: int,
             deadline: float | None = None, hints: bool = False) -> Snapshot:
    """The whole state for ``seat``: its view with the game's event list, when the
    decision awaited times out (``deadline``, as in an update), and with ``hints`` the
    hint order of its legal plays."""
    view = game.view(seat)
    data = view.to_dict()
    if hints:
        data["hints"] = _hints(view.hand, view.legal_actions, view.role, view.guard_open,
                               view.called)
    return Snapshot(version=base + game.version, game=index, deadline=deadline, view=data)


_CALLED, _GUARD_OPEN = PUBLIC_FIELDS.index("called"), PUBLIC_FIELDS.index("guard_open")
_PLAY = ActionKind.PLAY


def _hints(hand: Any, legal: tuple[Action, ...], role: str | None, guard_open: bool,
           called: Any) -> list[int]:
    """``hints``: indexes into ``legal`` of its plays in the order a player cycles
    through them (engine/hints.py); empty when there is no play."""
    if not any(a.kind is _PLAY for a in legal):
        return []
    return hint_indexes(hand, legal, revealing_cards(role, guard_open, called))


def _actions_json(actions: tuple[Action, ...]) -> str:
    """``FIELD_JSON["legal_actions"](actions)`` as JSON text (each action's text kept)."""
    texts = _action_texts
    try:                                   # (most often every text is kept: joined in C)
        return "[" + ",".join(map(texts.__getitem__, actions)) + "]"
    except KeyError:
        pass
    parts = []
    for action in actions:
        text = texts.get(action)
        if text is None:
            if len(texts) >= _ACTION_TEXTS_MAX:
                texts.clear()
            text = texts[action] = _encode(str(action)).decode()
        parts.append(text)
    return "[" + ",".join(parts) + "]"


def _changes(values: tuple[Any, ...], old: tuple[Any, ...] | None,
             keys: tuple[str, ...], convert: tuple[Any, ...]) -> list[str]:
    """``"key":value`` texts of the values that differ from ``old``'s (all when ``old``
    is None)."""
    changed: Iterable[int]
    if old is None:
        changed = range(len(values))
    else:
        # (compared in C, all at once: most fields hold the very object they held last
        # time, or an equal small value, and few differ)
        changed = list(compress(_INDEXES, map(ne, values, old)))
        if not changed:
            return []
    return [keys[i] + (_actions_json(values[i]) if convert[i] is None
                       else _encode(convert[i](values[i])).decode()) for i in changed]


_INDEXES = range(max(len(PUBLIC_FIELDS), len(OWN_FIELDS)))
_HAND, _ROLE = OWN_FIELDS.index("hand"), OWN_FIELDS.index("role")


def _own_changes(new: tuple[Any, ...], old: tuple[Any, ...] | None) -> list[str]:
    """:func:`_changes` of a seat's own values (compared five or six times a move, and
    mostly differing in ``to_act`` alone: a field holding the very object it held is
    passed over before it is compared).

    >>> import baohuang as bh
    >>> game = bh.Game.new(seed=1)
    >>> own = game.view_values(0)[1]
    >>> _own_changes((own[0], 4, *own[2:]), own)
    ['"to_act":4']
    """
    if old is None:
        return _changes(new, None, _OWN_KEYS, _OWN_CONVERT)
    keys, converts = _OWN_KEYS, _OWN_CONVERT
    texts: list[str] = []
    # (by index: compiled, a loop in C over the two tuples, no iterators)
    for i in range(len(new)):
        value = new[i]
        was = old[i]
        if value is not was and value != was:
            convert = converts[i]
            texts.append(keys[i] + (_actions_json(value) if convert is None
                                    else _encode(convert(value)).decode()))
    return texts


def view_changes(view: Parts, last: Parts | None, shared: Shared | None = None,
                 hints: bool = False) -> str:
    """The JSON object of the fields of the view ``view`` (its parts, as
    ``Game.view_update`` gives them) that differ from ``last``'s — all of them when
    ``last`` is None — as ``View.to_dict()`` has them, without ``events``.

    >>> import baohuang as bh
    >>> game = bh.Game.new(seed=1)
    >>> parts = game.view_update(0, 0)[:2]
    >>> view_changes(parts, parts)
    '{}'
    >>> import json; json.loads(view_changes(parts, None)) == {
    ...     k: v for k, v in game.view(0).to_dict().items() if k != "events"}
    True

    With ``hints``, the hint order of the legal plays comes whenever ``legal_actions``
    does (``"hints": []`` in a role phase).
    """
    public, own = view
    old_public = None if last is None else last[0]
    texts: list[str]
    if old_public is public:
        texts = []
    else:
        made = None if shared is None else shared.public.get(id(old_public))
        if made is not None and made[0] is old_public and made[1] is public:
            texts = [made[2]] if made[2] else []
        else:
            texts = _changes(public, old_public, _PUBLIC_KEYS, _PUBLIC_CONVERT)
            if shared is not None:
                shared.public[id(old_public)] = (old_public, public, ",".join(texts))
    old_own = None if last is None else last[1]
    texts += _own_changes(own, old_own)
    legal = own[_LEGAL]
    if hints and (old_own is None or (legal is not old_own[_LEGAL]
                                      and legal != old_own[_LEGAL])):
        texts.append('"hints":' + _encode(_hints(own[_HAND], legal, own[_ROLE],
                                                  public[_GUARD_OPEN], public[_CALLED])
                                           ).decode())
    return "{" + ",".join(texts) + "}"


def update_text(game: Game, seat: int | None, *, base: int, index: int,
                since: int, deadline: float | None = None, last: Parts | None = None,
                hints: bool = False) -> tuple[str | None, Parts | None]:
    """The ``update`` message (JSON text) of the events after table version ``since``:
    the events, the version they bring the table to (``version``: act at it), the time
    the decision now awaited times out (``deadline``, unix seconds, or null), and the
    fields of the receiver's view that changed since ``last`` (the view it has;
    ``None``: the whole view).  Returns the text and the view it brings the receiver
    to — ``(None, last)`` when there is nothing to send."""
    views = [last]
    texts = broadcast(game, [seat], views, base=base, index=index, since=since,
                      deadline=deadline, hints=[hints])
    return (texts[0], views[0]) if texts else (None, last)


def broadcast(game: Game, seats: list[int | None], views: list[Parts | None], *,
              base: int, index: int, since: int, deadline: float | None = None,
              hints: list[bool] | None = None) -> list[str]:
    """:func:`update_text` for several receivers of the same events at once (the seats
    of a table after a move): ``views[i]`` is the view ``seats[i]`` has, and becomes
    the one its message brings it to; ``hints[i]``: that receiver asked for the hint
    order.  What the receivers' messages share is made once.  No message at all (an
    empty list) when there is no event after ``since``.

    >>> import baohuang as bh
    >>> game = bh.Game.new(seed=4)
    >>> views = [game.view_update(seat, 0)[:2] for seat in range(5)]
    >>> had, before = list(views), game.version
    >>> game.apply(game.legal_actions()[0])
    >>> texts = broadcast(game, [0, 1, 2, 3, 4], views, base=0, index=0, since=before)
    >>> texts[2] == update_text(game, 2, base=0, index=0, since=before, last=had[2])[0]
    True
    >>> views[2] == game.view_update(2, before)[:2]
    True
    """
    start = since - base
    if game.version <= start:
        return []
    public, updates = game.view_updates(seats, start)
    shared = Shared()
    out = []
    for k, (own, events) in enumerate(updates):
        if shared.seen is not events:
            _head(events, since, index, deadline, shared)
        view = (public, own)
        out.append(shared.head + view_changes(view, views[k], shared,
                                              bool(hints and hints[k])) + "}")
        views[k] = view
    return out


def _head(events: tuple[dict[str, Any], ...], since: int, index: int,
          deadline: float | None, shared: Shared) -> None:
    """The ``update`` message of ``events`` up to its view, into ``shared.head``."""
    known = shared.events
    texts = []
    for ev in events:
        # (an event every seat sees alike is one dict: its text is made once)
        made = known.get(id(ev))
        if made is not None and made[0] is ev:
            texts.append(made[1])
        else:
            text = _encode(ev).decode()
            known[id(ev)] = (ev, text)
            texts.append(text)
    shared.seen = events
    shared.head = (f'{{"type":"update","since":{since},"version":{since + len(events)},'
                   f'"game":{index},"deadline":{_encode(deadline).decode()},'
                   f'"events":[{",".join(texts)}],"view":')


def game_over(game: Game, *, base: int, index: int, scored: bool, totals: list[int],
              games: int, played: int, over: bool, status: str,
              hosted: list[int] | None = None) -> GameOver:
    """The ``game_over`` message (the same for every seat: the result is public);
    ``hosted``: the seats on 托管 that dissolved the match."""
    result = game.result
    assert result is not None
    return GameOver(version=base + game.version, game=index, result=result.to_dict(),
                    scored=scored, totals=list(totals),
                    match=MatchState(games=games, played=played, over=over, status=status,
                                     reason="hosted" if status == "dissolved" else None,
                                     hosted=list(hosted or [])))
