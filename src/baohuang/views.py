"""What one seat may know: :func:`make_view` is the only way information
leaves a game (bots, server, terminal and web client all read views)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, fields
from typing import Any

from .actions import Action
from .cards import CARD_TEXT, Card, make_deck, parse_card
from .state import GameState, Stage

__all__ = ["FIELD_JSON", "View", "make_view"]


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
    events: tuple[dict[str, Any], ...]
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
    "legal_actions": lambda actions: [a.to_dict() for a in actions],
    "result": _same,
    "hands": lambda hands: {str(s): _texts(cards) for s, cards in hands.items()},
}


def _sorted_hand(st: GameState, seat: int) -> tuple[Card, ...]:
    return tuple(sorted(st.hands[seat].elements()))


def make_view(st: GameState, seat: int | None,
              legal: list[Action] | None = None) -> View:
    """Build ``seat``'s view of ``st`` (``legal``: that seat's actions, if it acts)."""
    over = st.stage is Stage.OVER
    e, g = st.emperor, st.guard
    role: str | None = None
    if seat is not None and e is not None:
        if seat == e:
            role = "emperor"
        elif seat == g and st.stage not in (Stage.EMPEROR, Stage.EMPEROR_SOLO, Stage.STEAL,
                                             Stage.CALL):
            role = "guard"
        elif g is not None:
            role = "rebel"
    knows_guard = over or st.guard_public or (seat is not None and seat == g)
    solo = st.solo
    if solo == "hidden" and not (over or st.guard_public or seat == e):
        solo = None
    guard_seen = g if (g is not None and knows_guard and st.stage not in (
        Stage.EMPEROR, Stage.EMPEROR_SOLO, Stage.STEAL, Stage.CALL)) else None
    if solo is None and guard_seen == e and not over and seat != e:
        guard_seen = None
    to_act = st.to_act
    if st.stage is Stage.GUARD and seat != to_act:
        to_act = None
    stake = 1
    if st.guard_open and not st.solo:
        stake *= 2
    if len(st.rebels) >= 2:
        stake *= 2
    stake *= 2 ** st.kicks
    # Events only ever grow, so each seat's filtered list is extended, not rebuilt.
    seen, events, played = st.view_cache.get(seat, (0, [], []))
    for ev in st.events[seen:]:
        if ev.type == "play":
            played.extend(_cards(ev.data["cards"]))
        events.append(ev.for_seat(seat, reveal_all=False))
    st.view_cache[seat] = (len(st.events), events, played)
    hands: dict[int, tuple[Card, ...]] = {}
    if over:
        hands = {s: _sorted_hand(st, s) for s in range(5) if st.hands[s]}
    return View(
        seat=seat, stage=st.stage, to_act=to_act, dealer=st.dealer, deal_no=st.deal_no,
        rules=st.rules_dict,
        hand=_sorted_hand(st, seat) if seat is not None else (),
        hand_counts=tuple(sum(c) for c in st.counts),
        candidate=st.candidate if st.stage is Stage.EMPEROR else None,
        emperor=e, guard=guard_seen, role=role, solo=solo, called=st.called,
        guard_open=st.guard_open, rebels=tuple(st.rebels), kicks=st.kicks, stake=stake,
        leader=st.leader if st.stage is Stage.PLAY else None,
        last_play=None if st.last is None else (st.last[0], st.last[2]),
        out=tuple(st.out), left=tuple(st.left), played=tuple(played),
        events=tuple(events), legal_actions=tuple(legal or ()),
        result=None if st.result is None else st.result.to_dict(), hands=hands)


def _cards(tokens: list[str]) -> list[Card]:
    return [_BY_TEXT.get(t) or parse_card(t) for t in tokens]


#: Dealt cards by their text (events hold played cards as text).
_BY_TEXT: dict[str, Card] = {str(c): c for c in set(make_deck("full"))}

assert list(FIELD_JSON) == [f.name for f in fields(View)], "FIELD_JSON covers every field"
