"""The play phase: leading, following, soft passes, 接风 and the early end
of a game (docs/rules.md §7), and settling its result (§8).  What may be played
now is :mod:`.moves`."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Sequence
from typing import Final

from .actions import Action, ActionKind
from .cards import CARD_TEXT, GUARD_CARD, RANK_OF, TEHUA_CARD, Card
from .events import Event, EventKind, Lead, Out, Play, Reveal
from .moves import PlayCache, may_ask_lead
from .plays import BJ, SJ, Shape, classify, playable, shape_beats
from .rules import GuardMode, LeadAfterOut
from .scoring import game_ends, score_parts
from .state import GameState, IllegalAction, Result, Stage

__all__ = ["apply", "apply_legal", "check_play", "finish", "next_holding", "passes_needed",
           "round_leader"]

A = ActionKind
# Enum members are slow to look up as class attributes: the hot path uses these.
_PLAY_KIND: Final = A.PLAY
_PASS_KIND: Final = A.PASS
_ASK_KIND: Final = A.ASK_LEAD
_CARD_MODE: Final = GuardMode.CARD
#: Events without data are never changed, so each seat's pass is one object.
_PASS_EVENTS: Final = tuple(Event(EventKind.PASS, seat) for seat in range(5))
_ASK_EVENTS: Final = tuple(Event(EventKind.ASK_LEAD, seat) for seat in range(5))
_TEXT = CARD_TEXT.__getitem__
_PLAY_EVENT: Final = EventKind.PLAY
_LEAD_EVENT: Final = EventKind.LEAD


def check_play(st: GameState, seat: int, cards: tuple[Card, ...]) -> Shape:
    """The shape of a play ``seat`` may make now, or :class:`IllegalAction`."""
    hand = st.hands[seat]
    need: dict[Card, int] = defaultdict(int)
    for c in cards:
        need[c] += 1
    for c, k in need.items():
        if hand.get(c, 0) < k:
            raise IllegalAction(f"seat {seat} does not hold {'' if k == 1 else f'{k}× '}{c}")
    try:
        shape = classify(cards, st.rules)
    except ValueError as exc:
        raise IllegalAction(str(exc)) from None
    if not playable(shape, st.counts[seat], st.rules):
        raise IllegalAction("a play with a 6 must be your whole hand (憋6)")
    if st.last is not None and not shape_beats(shape, Shape(*st.last[1]), st.rules.kaopai):
        last = " ".join(str(c) for c in st.last[2])
        raise IllegalAction(f"{' '.join(str(c) for c in cards)} does not beat {last}")
    return shape


def apply(st: GameState, action: Action, shape: Shape | None = None,
          kept: PlayCache | None = None) -> None:
    """Apply a play-phase action.  ``shape``: the shape of a play already
    known to be legal (from :func:`legal`), which skips the checks; ``kept``: the
    game's :class:`PlayCache`, which forgets what the play changes."""
    seat = st.to_act
    assert seat is not None
    kind = action.kind
    if kind is _PLAY_KIND:
        if shape is None:
            shape = check_play(st, seat, action.cards)
        _play(st, kept, seat, tuple(shape), action.cards)  # type: ignore[arg-type]
    elif kind is _PASS_KIND or kind is _ASK_KIND:
        if st.last is None:
            raise IllegalAction("the leader must play (no pass when leading)")
        if kind is _ASK_KIND:
            if not may_ask_lead(st):
                raise IllegalAction("接风 may be asked only by the next player, on the play "
                                    "with which a player went out, with lead_after_out=apply")
            st.applicant = seat
            st.events.append(_ASK_EVENTS[seat])
        else:
            st.events.append(_PASS_EVENTS[seat])
        _after_pass(st, seat)
    else:
        raise IllegalAction(f"{kind.value} is not a play-phase action")


def apply_legal(st: GameState, action: Action, kept: PlayCache | None = None) -> None:
    """Apply an action equal to one of :func:`legal_actions` (no checks).

    Their cards run big jokers, small jokers, then cards of one rank, so
    the shape of a play is read off the cards."""
    seat = st.to_act
    assert seat is not None
    cards = action.cards
    if not cards:
        if action.kind is _ASK_KIND:
            st.applicant = seat
            st.events.append(_ASK_EVENTS[seat])
        else:
            st.events.append(_PASS_EVENTS[seat])
        _after_pass(st, seat)
        return
    sj = bj = th = 0
    for c in cards:
        r = RANK_OF[c]
        if r < SJ:
            break
        if r == SJ:
            sj += 1
        elif r == BJ:
            bj += 1
        else:
            th += 1
    n = len(cards) - sj - bj - th
    _play(st, kept, seat, (RANK_OF[cards[-1]] if n else 0, n, sj, bj, th), cards)


def _play(st: GameState, kept: PlayCache | None, seat: int,
          shape: tuple[int, int, int, int, int], cards: tuple[Card, ...]) -> None:
    st.take(seat, cards)
    if kept is not None:
        kept.forget(seat, cards)
    st.events.append(Event(_PLAY_EVENT, seat, Play(list(map(_TEXT, cards)))))
    if seat == st.guard and not st.guard_public:
        _check_reveal(st, seat, cards)
    st.last = (seat, shape, cards)
    st.passes = 0
    st.applicant = None
    if not st.hands[seat]:
        st.out.append(seat)
        st.events.append(Event(EventKind.OUT, seat, Out(len(st.out))))
        if _is_over(st):
            finish(st)
            return
    st.to_act = st.next_in(seat)


def _check_reveal(st: GameState, seat: int, cards: tuple[Card, ...]) -> None:
    """Playing the Guard card, or the called card (its 特画) as Guard, shows the Guard."""
    if st.guard_public or seat != st.guard:
        return
    if st.rules.guard_mode is _CARD_MODE:
        shown = GUARD_CARD in cards
    elif TEHUA_CARD in cards:
        shown = True
    else:
        copies = sum(1 for c in cards if c == st.called)
        if seat == st.emperor:
            # A hidden solo shows when he has played every copy of the called
            # card (four; three for the short 6s of the shandong165 deck).
            shown = copies > 0 and st.called is not None and not st.hands[seat].get(st.called)
        else:
            shown = copies > 0
    if shown:
        st.guard_public = True
        st.events.append(Event(EventKind.REVEAL, seat, Reveal(st.solo)))


def _after_pass(st: GameState, seat: int) -> None:
    last = st.last
    assert last is not None
    passes = st.passes + 1
    out = st.out
    last_seat = last[0]
    last_out = bool(out) and last_seat in out
    if passes < passes_needed(len(out), last_out):
        st.passes = passes
        st.to_act = st.next_in(seat)
        return
    leader, reason = round_leader(last_seat, last_out, st.applicant, st.rules.lead_after_out,
                                  st.hands, st.side_of)
    st.last = None
    st.passes = 0
    st.applicant = None
    st.leader = st.to_act = leader
    st.events.append(Event(_LEAD_EVENT, leader, Lead(reason)))


# -- the flow of a round, shared with the search's simulator (bots/search/rollout.py) --

def passes_needed(out: int, last_out: bool) -> int:
    """How many passes in a row on the play to beat end the round (docs/rules.md §7.2),
    ``out`` seats having gone out: every seat still in but the one who made it, or
    every one still in when he went out with it (``last_out``).

    >>> passes_needed(0, False), passes_needed(1, False), passes_needed(1, True)
    (4, 3, 4)
    """
    return 4 - out + last_out


def next_holding(holding: Sequence[object], seat: int) -> int:
    """The next seat after ``seat`` still holding cards (``holding[s]`` true)."""
    for step in range(1, 6):
        s = (seat + step) % 5
        if holding[s]:
            return s
    return seat


def round_leader(last_seat: int, last_out: bool, applicant: int | None, mode: LeadAfterOut,
                 holding: Sequence[object], side: Callable[[int], object]) -> tuple[int, str]:
    """Who leads once a round has ended, and why (the ``reason`` of the ``lead``
    event): who made its last play; or, when he went out with it (接风, docs/rules.md
    §7.3), the seat that asked for the lead (申请接风, ``applicant``), else his
    teammate still in under ``teammate`` and ``apply`` (as in 山东 when nobody asked;
    reading), else the next seat still in.  ``holding[s]``: seat ``s`` still holds
    cards; ``side(s)``: its side (equal for teammates).

    >>> holding, royal = [1, 0, 1, 1, 1], [True, True, False, True, False]
    >>> round_leader(1, True, None, LeadAfterOut.TEAMMATE, holding, royal.__getitem__)
    (3, 'lead_after_out')
    >>> round_leader(1, True, None, LeadAfterOut.NEXT, holding, royal.__getitem__)
    (2, 'lead_after_out')
    >>> round_leader(1, True, 4, LeadAfterOut.APPLY, holding, royal.__getitem__)
    (4, 'ask_lead')
    """
    if not last_out:
        return last_seat, "round"
    if applicant is not None:
        return applicant, "ask_lead"
    if mode is not LeadAfterOut.NEXT:
        own = side(last_seat)
        for step in range(1, 5):
            s = (last_seat + step) % 5
            if holding[s] and side(s) == own:
                return s, "lead_after_out"
    return next_holding(holding, last_seat), "lead_after_out"


def _is_over(st: GameState) -> bool:
    assert st.emperor is not None and st.guard is not None
    return game_ends(st.out, st.emperor, st.guard, st.solo, st.rules.scoring)


def finish(st: GameState) -> None:
    """Settle the result of a game whose end has come."""
    e, g = st.emperor, st.guard
    assert e is not None and g is not None
    places: list[int | None] = [None] * 5
    for i, seat in enumerate(st.out):
        places[seat] = i + 1
    parts = score_parts(places, e, g, rules=st.rules, solo=st.solo,
                        guard_open=st.guard_open and not st.solo,
                        rebels=st.rebels, kicks=st.kicks)
    scores = list(parts.scores)
    royal = st.royal()
    royal_score = scores[e]          # who won, before any leaving penalty
    for seat in st.left:
        scores[seat] -= st.rules.leave_penalty
    not_out = sorted((s for s in range(5) if s not in st.out),
                     key=lambda s: (s in royal, sum(st.counts[s]), (s - e) % 5))
    order = tuple(st.out) + tuple(not_out)
    st.result = Result(tuple(places), tuple(scores), e, g, st.solo, None, order,
                       None if royal_score == 0 else royal_score > 0, parts.stake,
                       parts.unit, parts.shares, parts.factors)
    st.stage, st.to_act = Stage.OVER, None
    st.events.append(st.result.event())
