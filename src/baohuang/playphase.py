"""The play phase: leading, following, soft passes, 接风 and the early end
of a game (RULES.md §5), and settling its result (§6)."""

from __future__ import annotations

from collections import defaultdict

from .actions import Action, ActionKind
from .cards import GUARD_CARD, Card
from .events import Event
from .plays import Shape, classify, follow_shapes, lead_shapes, playable, shape_beats
from .rules import GuardMode, LeadAfterOut, Scoring
from .scoring import settle
from .state import GameState, IllegalAction, Result, Stage

__all__ = ["apply", "check_play", "legal", "materialize"]

A = ActionKind
_PASS, _ASK_LEAD = Action(A.PASS), Action(A.ASK_LEAD)


#: per rank value (index 0..17): (ordinary cards, special cards) held
Groups = list[tuple[tuple[Card, ...], tuple[Card, ...]]]
_NO_CARDS: tuple[Card, ...] = ()


def _grouped(st: GameState, seat: int) -> Groups:
    """Per rank: (ordinary cards, special cards) held, in a fixed order.
    Cached until the seat's hand or its special cards change."""
    special = st.special_cards(seat)
    cached = st.groups[seat]
    if cached is not None and cached[0] == special:
        return cached[1]  # type: ignore[no-any-return]
    lists: list[tuple[list[Card], list[Card]]] = [([], []) for _ in range(18)]
    hand = st.hands[seat]
    for card in sorted(hand):
        lists[card >> 4][1 if card in special else 0].extend([card] * hand[card])
    groups: Groups = [(tuple(plain), tuple(spec)) for plain, spec in lists]
    st.groups[seat] = (special, groups)
    return groups


def _choices(group: tuple[tuple[Card, ...], tuple[Card, ...]],
             n: int) -> list[tuple[Card, ...]]:
    plain, special = group
    if not n:
        return [_NO_CARDS]
    if not special:
        return [plain[:n]]
    lo = max(0, n - len(plain))
    hi = min(n, len(special))
    return [plain[:n - k] + special[:k] for k in range(lo, hi + 1)]


def materialize(st: GameState, seat: int, shapes: list[Shape],
                shapes_out: list[Shape] | None = None) -> list[Action]:
    """Actions for shapes: one per way of including a card whose play would
    reveal the Guard; otherwise ordinary cards in a fixed order.  With
    ``shapes_out``, the shape of each action is appended to it."""
    if not shapes:
        return []
    groups = _grouped(st, seat)
    play = A.PLAY
    if not st.special_cards(seat):
        big, small = groups[17][0], groups[16][0]
        if shapes_out is not None:
            shapes_out.extend(shapes)
        return [Action(play, big[:y] + small[:x] + groups[r][0][:n]) for r, n, x, y in shapes]
    out: list[Action] = []
    for r, n, x, y in shapes:
        for big_cards in _choices(groups[17], y):
            for small_cards in _choices(groups[16], x):
                for low in _choices(groups[r], n):
                    out.append(Action(play, big_cards + small_cards + low))
    if shapes_out is not None:
        shapes_out.extend(classify(a.cards, st.rules) for a in out)
    return out


def legal(st: GameState, shapes_out: list[Shape] | None = None) -> list[Action]:
    """Legal actions of the seat to act; with ``shapes_out``, the shape of
    each play action is appended to it (in the same order)."""
    seat = st.to_act
    assert seat is not None
    counts = st.counts[seat]
    if st.last is None:
        return materialize(st, seat, lead_shapes(counts, st.rules), shapes_out)
    actions = materialize(st, seat, follow_shapes(counts, Shape(*st.last[1]), st.rules),
                          shapes_out)
    actions.append(_PASS)
    if _may_ask_lead(st):
        actions.append(_ASK_LEAD)
    return actions


def _may_ask_lead(st: GameState) -> bool:
    """申请接风: only the next player still in, answering the play with which
    its maker went out (RULES.md §5: "the next player may ask to lead")."""
    return (st.rules.lead_after_out is LeadAfterOut.APPLY and st.last is not None
            and st.last[0] in st.out and st.applicant is None and st.passes == 0
            and st.to_act == st.next_in(st.last[0]))


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


def apply(st: GameState, action: Action, shape: Shape | None = None) -> None:
    """Apply a play-phase action.  ``shape``: the shape of a play already
    known to be legal (from :func:`legal`), which skips the checks."""
    seat = st.to_act
    assert seat is not None
    if action.kind is A.PLAY:
        if shape is None:
            shape = check_play(st, seat, action.cards)
        _play(st, seat, shape, action.cards)
    elif action.kind is A.PASS or action.kind is A.ASK_LEAD:
        if st.last is None:
            raise IllegalAction("the leader must play (no pass when leading)")
        if action.kind is A.ASK_LEAD:
            if not _may_ask_lead(st):
                raise IllegalAction("接风 may be asked only by the next player, on the play "
                                    "with which a player went out, with lead_after_out=apply")
            st.applicant = seat
            st.events.append(Event("ask_lead", seat))
        else:
            st.events.append(Event("pass", seat))
        _after_pass(st, seat)
    else:
        raise IllegalAction(f"{action.kind.value} is not a play-phase action")


def _play(st: GameState, seat: int, shape: Shape, cards: tuple[Card, ...]) -> None:
    st.take(seat, cards)
    st.events.append(Event("play", seat, {"cards": [str(c) for c in cards]}))
    _check_reveal(st, seat, cards)
    st.last = (seat, tuple(shape), cards)  # type: ignore[assignment]
    st.passes = 0
    st.applicant = None
    if not st.hands[seat]:
        st.out.append(seat)
        st.events.append(Event("out", seat, {"place": len(st.out)}))
        if _is_over(st):
            finish(st)
            return
    st.to_act = st.next_in(seat)


def _check_reveal(st: GameState, seat: int, cards: tuple[Card, ...]) -> None:
    """Playing the Guard card, or the called card as Guard, shows the Guard."""
    if st.guard_public or seat != st.guard:
        return
    if st.rules.guard_mode is GuardMode.CARD:
        shown = GUARD_CARD in cards
    else:
        copies = sum(1 for c in cards if c == st.called)
        if seat == st.emperor:
            # A hidden solo shows when he has played every copy of the called
            # card (four; three for the short 6s of the shandong165 deck).
            st.called_played_by_emperor += copies
            shown = copies > 0 and st.called is not None and not st.hands[seat].get(st.called)
        else:
            shown = copies > 0
    if shown:
        st.guard_public = True
        st.events.append(Event("reveal", seat, {"solo": st.solo}))


def _after_pass(st: GameState, seat: int) -> None:
    assert st.last is not None
    st.passes += 1
    last_seat = st.last[0]
    needed = 5 - len(st.out) - (0 if last_seat in st.out else 1)
    if st.passes < needed:
        st.to_act = st.next_in(seat)
        return
    if last_seat not in st.out:
        leader = last_seat
        reason = "round"
    elif st.applicant is not None:
        leader, reason = st.applicant, "ask_lead"
    else:
        leader, reason = _lead_after_out(st, last_seat), "lead_after_out"
    st.last = None
    st.passes = 0
    st.applicant = None
    st.leader = st.to_act = leader
    st.events.append(Event("lead", leader, {"reason": reason}))


def _lead_after_out(st: GameState, out_seat: int) -> int:
    """接风: who leads after ``out_seat`` went out with the round's last play."""
    # With ``apply``, when nobody asked, 接风 goes to the teammate as in 山东 (reading).
    if st.rules.lead_after_out in (LeadAfterOut.TEAMMATE, LeadAfterOut.APPLY):
        side = st.side_of(out_seat)
        for step in range(1, 5):
            s = (out_seat + step) % 5
            if s not in st.out and st.side_of(s) == side:
                return s
    return st.next_in(out_seat)


def _is_over(st: GameState) -> bool:
    out = st.out
    if st.rules.scoring is Scoring.PLACEMENT:
        return len(out) >= 4
    e = st.emperor
    if st.solo == "open":
        return len(out) >= 1
    if st.solo == "hidden":
        return e in out or len(out) >= 2
    royal = st.royal()
    return all(s in out for s in royal) or all(s in out for s in range(5) if s not in royal)


def finish(st: GameState) -> None:
    """Settle the result of a game whose end has come."""
    e, g = st.emperor, st.guard
    assert e is not None and g is not None
    places: list[int | None] = [None] * 5
    for i, seat in enumerate(st.out):
        places[seat] = i + 1
    scores = list(settle(places, e, g, rules=st.rules, solo=st.solo,
                         guard_open=st.guard_open and not st.solo,
                         rebels=st.rebels, kicks=st.kicks))
    royal = st.royal()
    royal_score = scores[e]          # who won, before any leaving penalty
    for seat in st.left:
        scores[seat] -= st.rules.leave_penalty
    not_out = sorted((s for s in range(5) if s not in st.out),
                     key=lambda s: (s in royal, sum(st.counts[s]), (s - e) % 5))
    order = tuple(st.out) + tuple(not_out)
    st.result = Result(tuple(places), tuple(scores), e, g, st.solo, None, order,
                       None if royal_score == 0 else royal_score > 0)
    st.stage, st.to_act = Stage.OVER, None
    st.events.append(Event("over", None, st.result.to_dict()))
