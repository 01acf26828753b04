"""Legal plays as actions: the shapes of :mod:`.plays` (the one copy of what may be
led and followed) turned into the cards of a hand, and what the play phase keeps
of them between decisions (:class:`PlayCache`)."""

from __future__ import annotations

from typing import Final

from .actions import Action, ActionKind
from .cards import CARDS_OF_RANK, RANK_OF, RANK_SLOTS, Card
from .plays import (
    BJ,
    SJ,
    TH,
    Shape,
    classify,
    follow_shapes,
    joker_follow_shapes,
    joker_lead_shapes,
    lead_shapes,
    plain_follow_ranks,
    rank_lead_shapes,
    whole_hand_rank,
)
from .rules import LeadAfterOut
from .state import GameState

__all__ = ["PlayCache", "legal", "legal_actions", "materialize", "may_ask_lead"]

A = ActionKind
_PASS, _ASK_LEAD = Action(A.PASS), Action(A.ASK_LEAD)
# Enum members are slow to look up as class attributes: the hot path uses these.
_PLAY_KIND: Final = A.PLAY
_APPLY: Final = LeadAfterOut.APPLY
_new = tuple.__new__

#: The lead actions of one rank: (its cards, big jokers, small jokers, the cards that
#: would reveal the Guard, the shapes, actions)
LeadBlock = tuple[tuple[Card, ...], tuple[Card, ...], tuple[Card, ...], frozenset[Card],
                  tuple[Shape, ...], list[Action]]
#: per rank value (index 0..18): (ordinary cards, special cards) held
Groups = list[tuple[tuple[Card, ...], tuple[Card, ...]]]
#: per rank value (index 0..18): the cards held of that rank, low to high
#: (``None`` where not yet looked at since the hand last changed there)
RankCards = list[tuple[Card, ...] | None]
_NO_CARDS: tuple[Card, ...] = ()
_NONE: frozenset[Card] = frozenset()


class PlayCache:
    """What the play phase keeps between decisions of one game, derived from the
    hands (the :class:`~baohuang.engine.game.Game` owns it; the state does not see
    it): per seat its cards of each rank, low to high (``None``: not looked at since
    that rank changed), and the lead actions of each rank with the card tuples they
    were made of.  A play forgets the ranks it took (:meth:`forget`); nothing else
    changes a hand during the play phase."""

    __slots__ = ("groups", "lead_blocks")

    def __init__(self) -> None:
        self.groups: list[RankCards | None] = [None] * 5
        self.lead_blocks: list[list[LeadBlock | None] | None] = [None] * 5

    def forget(self, seat: int, cards: tuple[Card, ...]) -> None:
        groups = self.groups[seat]
        if groups is not None:
            for c in cards:
                groups[RANK_OF[c]] = None


def _rank_cards(kept: PlayCache, seat: int) -> RankCards:
    """``seat``'s cards by rank, kept across decisions in ``kept``: a play forgets
    the ranks it changes, and :func:`_fill` looks a rank up again when it is needed."""
    groups = kept.groups[seat]
    if groups is None:
        groups = kept.groups[seat] = [None] * RANK_SLOTS
    return groups


def _fill(st: GameState, seat: int, groups: RankCards, rank: int) -> tuple[Card, ...]:
    """The cards of ``rank`` that ``seat`` holds, low to high (and remember them)."""
    hand = st.hands[seat]
    cards: list[Card] = []
    for card in CARDS_OF_RANK[rank]:
        k = hand.get(card)
        if k:
            cards += [card] * k
    held = groups[rank] = tuple(cards)
    return held


def _jokers(st: GameState, seat: int,
            groups: RankCards) -> tuple[tuple[Card, ...], tuple[Card, ...]]:
    """``seat``'s big and small jokers (大王, 小王)."""
    big = groups[BJ]
    if big is None:
        big = _fill(st, seat, groups, BJ)
    small = groups[SJ]
    if small is None:
        small = _fill(st, seat, groups, SJ)
    return big, small


def _grouped(st: GameState, kept: PlayCache, seat: int, special: frozenset[Card]) -> Groups:
    """Per rank: (ordinary cards, special cards) held, in a fixed order."""
    groups = _rank_cards(kept, seat)
    special_ranks = {RANK_OF[c] for c in special}
    out: Groups = []
    for rank in range(RANK_SLOTS):
        held = groups[rank]
        if held is None:
            held = _fill(st, seat, groups, rank)
        if rank in special_ranks:
            out.append((tuple(c for c in held if c not in special),
                        tuple(c for c in held if c in special)))
        else:
            out.append((held, _NO_CARDS))
    return out


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


def _ways(group: tuple[tuple[Card, ...], tuple[Card, ...]]) -> list[list[tuple[Card, ...]]]:
    """Per number n of the group's cards (0 up to all): :func:`_choices` — one way to
    take them, or one per number of special cards (their play would reveal the Guard)."""
    return [_choices(group, n) for n in range(len(group[0]) + len(group[1]) + 1)]


def materialize(st: GameState, seat: int, shapes: list[Shape],
                shapes_out: list[Shape] | None = None,
                kept: PlayCache | None = None) -> list[Action]:
    """Actions for shapes: one per way of including a card whose play would
    reveal the Guard; otherwise ordinary cards in a fixed order.  With
    ``shapes_out``, the shape of each action is appended to it."""
    if not shapes:
        return []
    play = _PLAY_KIND
    special = st.special_cards(seat)
    if kept is None:
        kept = PlayCache()
    if not special:
        groups = _rank_cards(kept, seat)
        actions: list[Action] = []
        held_jokers: tuple[tuple[Card, ...], tuple[Card, ...], tuple[Card, ...]] | None = None
        for r, n, x, y, t in shapes:
            held = groups[r]
            if held is None:
                held = _fill(st, seat, groups, r)
            if x or y or t:
                if held_jokers is None:
                    big, small = _jokers(st, seat, groups)
                    tehua = groups[TH]
                    if tehua is None:
                        tehua = _fill(st, seat, groups, TH)
                    held_jokers = big, small, tehua
                attached = held_jokers[0][:y] + held_jokers[1][:x]
                cards = (held_jokers[2] + attached if t else attached) + held[:n]
            else:
                cards = held[:n]
            actions.append(_new(Action, (play, cards, None)))
        if shapes_out is not None:
            shapes_out.extend(shapes)
        return actions
    split = _grouped(st, kept, seat, special)
    special_ranks = {RANK_OF[c] for c in special}
    # the ways to add y big (x small) jokers: one each unless a joker is special
    bigs, smalls = _ways(split[BJ]), _ways(split[SJ])
    tehua = split[TH][0] + split[TH][1]
    out: list[Action] = []
    for shape in shapes:
        r, n, x, y, t = shape
        lows = _choices(split[r], n) if r in special_ranks else (split[r][0][:n],)
        big_ways, small_ways = bigs[y], smalls[x]
        if t:
            big_ways = [tehua + b for b in big_ways]
        if len(big_ways) == 1 and len(small_ways) == 1 and len(lows) == 1:
            # no card of this play could reveal the Guard: one action, as above
            out.append(_new(Action, (play, big_ways[0] + small_ways[0] + lows[0], None)))
            if shapes_out is not None:
                shapes_out.append(shape)
            continue
        first = len(out)
        for big_cards in big_ways:
            for small_cards in small_ways:
                jokers = big_cards + small_cards
                for low in lows:
                    out.append(_new(Action, (play, jokers + low, None)))
        if shapes_out is not None:
            shapes_out.extend(classify(a.cards, st.rules) for a in out[first:])
    return out


def legal(st: GameState, shapes_out: list[Shape] | None = None,
          kept: PlayCache | None = None) -> list[Action]:
    """Legal actions of the seat to act; with ``shapes_out``, the shape of
    each play action is appended to it (in the same order).  ``kept``: the
    game's :class:`PlayCache` (without it the hands are looked at afresh)."""
    kept = kept or PlayCache()
    if shapes_out is None:
        return legal_actions(st, kept)
    return _legal_from_shapes(st, shapes_out, kept)


def _legal_from_shapes(st: GameState, shapes_out: list[Shape] | None,
                       kept: PlayCache) -> list[Action]:
    """:func:`legal` made from the shapes (``shapes_out``: as in :func:`legal`, or
    ``None`` when they are not wanted)."""
    seat = st.to_act
    assert seat is not None
    counts = st.counts[seat]
    if st.last is None:
        return materialize(st, seat, lead_shapes(counts, st.rules), shapes_out, kept)
    actions = materialize(st, seat, follow_shapes(counts, st.last[1], st.rules),
                          shapes_out, kept)
    actions.append(_PASS)
    if may_ask_lead(st):
        actions.append(_ASK_LEAD)
    return actions


def legal_actions(st: GameState, kept: PlayCache | None = None) -> list[Action]:
    """Legal actions of the seat to act: the same list as :func:`legal`, without
    the shapes (leads: made rank by rank, each rank's actions kept since the
    seat's last lead while its cards of that rank and its jokers are unchanged)."""
    seat = st.to_act
    assert seat is not None
    counts = st.counts[seat]
    last = st.last
    if counts[TH]:
        return _legal_from_shapes(st, None, kept or PlayCache())
    if last is None:
        return _lead_actions(st, kept or PlayCache(), seat, counts)
    ranks = plain_follow_ranks(counts, last[1], st.rules)
    if ranks is None:
        shapes = joker_follow_shapes(counts, last[1], st.rules)
        actions = materialize(st, seat, shapes, None, kept) if shapes else []
    elif ranks:
        actions = _plain_follows(st, kept or PlayCache(), seat, ranks, last[1][1])
    else:
        actions = []
    actions.append(_PASS)
    if st.rules.lead_after_out is _APPLY and may_ask_lead(st):
        actions.append(_ASK_LEAD)
    return actions


def _lead_actions(st: GameState, kept: PlayCache, seat: int,
                  counts: list[int]) -> list[Action]:
    """:func:`lead_shapes` made into actions (by :func:`materialize`), in the same
    order.  The actions of one rank are kept (in ``kept.lead_blocks``) with the very
    card tuples and shapes they were made from, and used again at the seat's next
    lead while they are the same (``_fill`` makes new tuples whenever a rank
    changes; :func:`rank_lead_shapes` gives the same tuple for the same counts)."""
    rules = st.rules
    special = st.special_cards(seat) if seat == st.guard and not st.guard_public else _NONE
    groups = _rank_cards(kept, seat)
    blocks = kept.lead_blocks[seat]
    if blocks is None:
        blocks = kept.lead_blocks[seat] = [None] * 16
    big, small = _jokers(st, seat, groups)
    whole = whole_hand_rank(rules)      # its leads depend on the rest of the hand too
    out: list[Action] = []
    for r in range(3, 16):
        if not counts[r]:
            continue
        held = groups[r]
        if held is None:
            held = _fill(st, seat, groups, r)
        block = blocks[r]
        if block is not None and block[0] is held and block[1] is big \
                and block[2] is small and block[3] == special and r != whole:
            out += block[5]             # the same cards: the same shapes
            continue
        shapes = rank_lead_shapes(r, counts, rules)
        if block is None or block[0] is not held or block[1] is not big \
                or block[2] is not small or block[3] != special or block[4] is not shapes:
            block = blocks[r] = (held, big, small, special, shapes,
                                 _plain_leads(shapes, held, big, small) if not special
                                 else materialize(st, seat, list(shapes), None, kept))
        out += block[5]
    shapes = joker_lead_shapes(counts)
    if shapes:
        block = blocks[0]
        if block is None or block[1] is not big or block[2] is not small \
                or block[3] != special or block[4] is not shapes:
            block = blocks[0] = (_NO_CARDS, big, small, special, shapes,
                                 _plain_leads(shapes, _NO_CARDS, big, small) if not special
                                 else materialize(st, seat, list(shapes), None, kept))
        out += block[5]
    return out


def _plain_leads(shapes: tuple[Shape, ...], held: tuple[Card, ...], big: tuple[Card, ...],
                 small: tuple[Card, ...]) -> list[Action]:
    """:func:`materialize` of one rank's leads (``held``: its cards) when no card
    could reveal the Guard and nobody holds the 特画."""
    play = _PLAY_KIND
    return [_new(Action, (play, big[:y] + small[:x] + held[:n], None))
            for _, n, x, y, _ in shapes]


def _plain_follows(st: GameState, kept: PlayCache, seat: int, ranks: list[int],
                   n: int) -> list[Action]:
    """:func:`materialize` of the usual follows: ``n`` cards of each of ``ranks``
    (a hidden Guard's card that would reveal him: one action per way)."""
    if st.special_cards(seat):
        return materialize(st, seat, [_new(Shape, (r, n, 0, 0, 0)) for r in ranks], None, kept)
    groups = _rank_cards(kept, seat)
    play = _PLAY_KIND
    out: list[Action] = []
    for r in ranks:
        held = groups[r]
        if held is None:
            held = _fill(st, seat, groups, r)
        out.append(_new(Action, (play, held[:n], None)))
    return out


def may_ask_lead(st: GameState) -> bool:
    """申请接风: only the next player still in, answering the play with which
    its maker went out (docs/rules.md §7.3, ``apply``)."""
    return (st.rules.lead_after_out is _APPLY and st.last is not None
            and st.last[0] in st.out and st.applicant is None and st.passes == 0
            and st.to_act == st.next_in(st.last[0]))


