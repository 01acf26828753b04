"""The values of a seat's view of a game state, made from the state: the part of
:mod:`.views` that runs on every move (five or six views a move for a server table,
one or two a decision for a learning environment), in a module of its own so that the
compiled build (``setup.py``) compiles it; :mod:`.views` keeps the :class:`View` type,
its assembly and its JSON form, and re-exports these.

:class:`~.viewparts.PublicValues` and :class:`~.viewparts.OwnValues` (:mod:`.viewparts`)
declare the fields of ``View`` whose values :func:`public_values` and :func:`own_values`
make, by name, and hand on as tuples in their orders (:data:`PUBLIC_ORDER`,
:data:`OWN_ORDER`); :mod:`.views` checks on import that they are ``View``'s ``Public``
fields and its others but ``events``, in field order and with ``View``'s types (a field
added to ``View`` is added there too).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any, Final, TypeVar, cast

from .actions import Action, ActionKind
from .cards import CARD_BY_TEXT, Card, parse_card
from .events import EventKind, Play, Seen, SeenEvent
from .lastplay import LastPlay
from .scoring import stake_of
from .state import GameState, Stage
from .viewparts import OWN_ORDER, PUBLIC_ORDER, OwnValues, PublicValues, values

__all__ = [
    "OWN_ORDER",
    "PUBLIC_ORDER",
    "OwnValues",
    "PublicValues",
    "ViewCache",
    "events_seen",
    "own_values",
    "public_values",
    "sorted_hand",
]

_T = TypeVar("_T")
_new_tuple: Final = tuple.__new__
_values: Final = values
_OVER: Final = Stage.OVER
_PLAY_EVENT: Final = EventKind.PLAY
_PLAY: Final = Stage.PLAY
_GUARD: Final = Stage.GUARD
_EMPEROR: Final = Stage.EMPEROR
#: stages in which nobody is the Guard yet, as far as any view shows
_BEFORE_GUARD: Final = frozenset((Stage.EMPEROR, Stage.EMPEROR_SOLO, Stage.STEAL, Stage.CALL))

class _Public:
    """What every seat's view of one game state shares (made once per event count;
    a part equal to the one before is that same object, so that views of
    successive states can be compared by identity first)."""

    __slots__ = ("counts", "hand_changes", "hand_counts", "last", "last_play", "left", "out",
                 "played", "played_cards", "rebels", "seen", "view")

    def __init__(self, seen: int, played: list[Card], played_cards: tuple[Card, ...],
                 hand_counts: tuple[int, ...], rebels: tuple[int, ...], out: tuple[int, ...],
                 left: tuple[int, ...], last_play: LastPlay | None, view: tuple[Any, ...] | None,
                 counts: list[list[int]] | None, hand_changes: tuple[int, ...],
                 last: Any) -> None:
        self.seen = seen                           # len(st.events) it was made at
        self.played = played                       # the cards of every play event so far
        self.played_cards = played_cards
        self.hand_counts = hand_counts
        self.rebels = rebels
        self.out = out
        self.left = left
        self.last_play = last_play
        self.view = view                           # the values (None: none made yet)
        # what hand_counts and last_play were made of: made again only when these change
        self.counts = counts                       # st.counts (the list itself)
        self.hand_changes = hand_changes           # st.hand_changes then
        self.last = last                           # st.last (the tuple itself)


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
        self.events: dict[int | None, tuple[int, list[dict[str, Any]], list[Seen]]] = {}
        self.alike: tuple[int, int, Any, tuple[dict[str, Any], ...]] | None = None
        self.public_events: list[dict[str, Any] | None] = []


def _same_or(new: _T, old: _T) -> _T:
    return old if new == old else new


_EMPTY: Final[tuple[int, ...]] = ()


def _public(st: GameState, seen: int, vc: ViewCache) -> _Public:
    """The shared parts of the views of ``st`` (which has ``seen`` events)."""
    before = vc.public
    if before is None or before.seen > seen:
        before = _Public(0, [], (), _EMPTY, _EMPTY, _EMPTY, _EMPTY, None, None, None, _EMPTY,
                         None)
    played, played_cards = before.played, before.played_cards
    # Events only ever grow, so the played cards are extended, not rebuilt.
    grew = len(played)
    for ev in st.events[before.seen:]:
        if ev.kind is _PLAY_EVENT:
            for text in cast(Play, ev.data).cards:
                card = CARD_BY_TEXT.get(text)
                played.append(card if card is not None else parse_card(text))
    if len(played) != grew:
        played_cards = tuple(played)
    stake = stake_of(guard_open=st.guard_open, solo=st.solo, rebels=st.rebels, kicks=st.kicks,
                     scoring=st.rules.scoring)
    # (a hand's card counts change only with its change count, or with a new deal's
    # lists; the play to beat only with a new st.last: most moves leave both alone)
    counts, hand_changes = st.counts, tuple(st.hand_changes)
    hand_counts: tuple[int, ...]
    if counts is before.counts and hand_changes == before.hand_changes:
        hand_counts = before.hand_counts
    else:
        hand_counts = _same_or(tuple([sum(c) for c in counts]), before.hand_counts)
    last = st.last
    last_play: LastPlay | None
    if last is before.last:
        last_play = before.last_play
    elif last is None:
        last_play = None
    else:
        made = _new_tuple(LastPlay, (last[0], last[2]))     # (LastPlay(...), in C)
        before_play = before.last_play
        last_play = before_play if before_play is not None and made == before_play else made
    rebels = _same_or(tuple(st.rebels), before.rebels)
    out, left = _same_or(tuple(st.out), before.out), _same_or(tuple(st.left), before.left)
    stage = st.stage
    rules = vc.rules
    if rules is None:
        rules = vc.rules = st.rules.to_dict()
    result = st.result
    view = _values(PublicValues(
        stage=stage, dealer=st.dealer, deal_no=st.deal_no, rules=rules,
        hand_counts=hand_counts, candidate=st.candidate if stage is _EMPEROR else None,
        emperor=st.emperor, called=st.called, guard_open=st.guard_open, rebels=rebels,
        kicks=st.kicks, stake=stake, leader=st.leader if stage is _PLAY else None,
        last_play=last_play, out=out, left=left, played=played_cards,
        result=None if result is None else result.to_dict(),
        hands={s: sorted_hand(st, s, vc) for s in range(5) if st.hands[s]}
        if stage is _OVER else {}))
    public = _Public(seen, played, played_cards, hand_counts, rebels, out, left, last_play,
                     view, counts, hand_changes, last)
    vc.public = public
    return public


def sorted_hand(st: GameState, seat: int, vc: ViewCache) -> tuple[Card, ...]:
    """``seat``'s cards, low to high (made again only after its hand changed)."""
    hand, changes = st.hands[seat], st.hand_changes[seat]
    cached = vc.hands.get(seat)
    if cached is not None and cached[0] is hand:
        if cached[1] == changes:
            return cached[2]
        cards = _less(cached[2], hand)
    else:
        cards = tuple(sorted(hand.elements()))
    vc.hands[seat] = (hand, changes, cards)
    return cards


def _less(before: tuple[Card, ...], hand: Counter[Card]) -> tuple[Card, ...]:
    """The cards of ``hand``, low to high, which held ``before`` (in order) last: after
    cards left it (a play, most changes) those of ``before`` it still holds are in order
    already; a hand that got a card is sorted afresh."""
    left: dict[Card, int] = dict(hand)
    kept: list[Card] = []
    for card in before:
        n = left.get(card, 0)
        if n > 0:
            kept.append(card)
            left[card] = n - 1
    if len(kept) == sum([n for n in hand.values() if n > 0]):    # (what elements() gives)
        return tuple(kept)
    return tuple(sorted(hand.elements()))


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


def _public_events(st: GameState, seen: int, vc: ViewCache) -> list[SeenEvent | None]:
    """Per event: the dict every seat sees, or None when seats see it differently."""
    public = vc.public_events
    if len(public) > seen:                         # (a state whose events were cut back)
        del public[:]
    for ev in st.events[len(public):seen]:
        public.append(ev.for_seat(None, reveal_all=False) if ev.shown_alike else None)
    return public


def public_values(st: GameState, vc: ViewCache) -> tuple[Any, ...]:
    """The values of :data:`PUBLIC_ORDER` in every view of ``st``: one tuple, the same
    object for every seat's view (a server compares the views it sends move by move:
    the public part once for all seats)."""
    public = vc.public
    seen = len(st.events)
    if public is None or public.seen != seen:
        public = _public(st, seen, vc)
    view = public.view
    assert view is not None                        # (_public made it)
    return view


def own_values(st: GameState, seat: int | None, legal: Sequence[Action] | None,
               vc: ViewCache) -> tuple[Any, ...]:
    """The values of :data:`OWN_ORDER` in ``seat``'s view of ``st`` (its events come
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
    return _values(OwnValues(
        seat=seat, to_act=to_act, hand=sorted_hand(st, seat, vc) if seat is not None else (),
        guard=guard_seen, role=role, solo=solo, legal_actions=tuple(legal) if legal else (),
        choice_stakes=choice_stakes(st, legal) if legal and stage is not _PLAY else ()))


def choice_stakes(st: GameState, legal: Sequence[Action]) -> tuple[int, ...]:
    """The stake (倍数) each of ``legal`` makes if it stands: 明保 and 明独保 (抢独 is
    one) at once; a 造反 once another rebel joins; a 踢 once it stands; any other
    choice leaves it.  The stake itself is :func:`~.scoring.stake_of`'s, so every
    screen shows the same number.

    >>> import baohuang as bh
    >>> game = bh.Game.new(seed=1)
    >>> game.view(game.to_act).choice_stakes
    (1,)
    """
    scoring = st.rules.scoring
    out = []
    for action in legal:
        kind = action.kind
        guard_open, solo, rebels, kicks = st.guard_open, st.solo, tuple(st.rebels), st.kicks
        if kind is ActionKind.GUARD_OPEN:
            guard_open = True
        elif kind is ActionKind.SOLO_OPEN or kind is ActionKind.STEAL:
            solo, guard_open = "open", False
        elif kind is ActionKind.REBEL:
            rebels = (0, 1)                        # (two rebels: the rebellion stands)
        elif kind is ActionKind.KICK:
            kicks += 1
        out.append(stake_of(guard_open=guard_open, solo=solo, rebels=rebels, kicks=kicks,
                            scoring=scoring))
    return tuple(out)
