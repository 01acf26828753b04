"""Play shapes (牌型) and which play beats which (docs/rules.md §3).

A play is ``n`` cards of one rank plus ``sj`` small and ``bj`` big jokers (and,
with ``called_card_high``, the one 特画 ``th``).
Its :class:`Shape` is all that matters for beating, so legal plays are
generated from rank counts, never by searching subsets of cards.

>>> import baohuang as bh
>>> bh.beats("BJ BJ J J J", "SJ SJ 9 9 9")
True
>>> bh.beats("9 9 9 9", "SJ 8 8 8")
False
>>> bh.beats("BJ BJ 8 8 8 8", "BJ 7 7 7 7", rules=bh.RuleSet().replace(kaopai=True))
True
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from functools import cache
from typing import NamedTuple

from .cards import RANK_OF, RANK_SLOTS, Card, Rank, parse_cards
from .rules import RuleSet

__all__ = [
    "InvalidPlay",
    "Shape",
    "answer_shapes",
    "beatable",
    "beats",
    "classify",
    "follow_shapes",
    "joker_follow_shapes",
    "joker_lead_shapes",
    "lead_shapes",
    "plain_follow_ranks",
    "rank_counts",
    "rank_lead_shapes",
    "shape_beats",
    "whole_hand_rank",
]

SJ = int(Rank.SMALL_JOKER)
BJ = int(Rank.BIG_JOKER)
TH = int(Rank.TEHUA)
TWO = int(Rank.TWO)
SIX = int(Rank.SIX)
_RANK_CARDS = range(int(Rank.THREE), TWO + 1)
_new = tuple.__new__


class InvalidPlay(ValueError):
    """Cards that form no legal play shape (e.g. two different ranks)."""


class Shape(NamedTuple):
    """``n`` cards of ``rank`` (0 when there are none) with ``sj`` small and
    ``bj`` big jokers attached (王挂牌), and ``th`` (0 or 1) the 特画, a joker
    above 大王 (``called_card_high``)."""

    rank: int
    n: int
    sj: int
    bj: int
    th: int = 0

    @property
    def size(self) -> int:
        return self.n + self.sj + self.bj + self.th

    @property
    def has_joker(self) -> bool:
        return self.sj + self.bj + self.th > 0

    def __str__(self) -> str:
        parts = ["TH"] * self.th + ["BJ"] * self.bj + ["SJ"] * self.sj
        if self.n:
            parts += [Rank(self.rank).symbol] * self.n
        return " ".join(parts)


def rank_counts(cards: Iterable[Card]) -> list[int]:
    """Counts indexed by rank value (indices 3..18; 16 = SJ, 17 = BJ, 18 = 特画)."""
    counts = [0] * RANK_SLOTS
    for c in cards:
        counts[RANK_OF[c]] += 1
    return counts


def classify(cards: Sequence[Card], rules: RuleSet | None = None) -> Shape:
    """The shape of a play, or :class:`InvalidPlay` naming what is wrong.

    >>> from baohuang import parse_cards
    >>> classify(parse_cards("SJ 8 8 8"))
    Shape(rank=8, n=3, sj=1, bj=0, th=0)
    >>> classify(parse_cards("SJ 2 2"))
    Traceback (most recent call last):
    ...
    baohuang.engine.plays.InvalidPlay: jokers may not be attached to 2s (不可以用2配牌): SJ 2 2
    """
    if not cards:
        raise InvalidPlay("a play needs at least one card")
    rank = n = sj = bj = th = 0
    for c in cards:
        r = RANK_OF[c]
        if r == BJ:
            bj += 1
        elif r == SJ:
            sj += 1
        elif r == TH:
            th += 1
        elif rank and r != rank:
            raise InvalidPlay("a play may hold only one rank besides jokers "
                              f"(no straights or mixed ranks): {_fmt(cards)}")
        else:
            rank = r
            n += 1
    if rank == TWO and sj + bj + th and not (rules and rules.jokers_with_twos):
        raise InvalidPlay(f"jokers may not be attached to 2s (不可以用2配牌): {_fmt(cards)}")
    return Shape(rank, n, sj, bj, th)


def _fmt(cards: Sequence[Card]) -> str:
    return " ".join(str(c) for c in cards)


def shape_beats(new: Sequence[int], old: Sequence[int], kaopai: bool = False) -> bool:
    """Whether ``new`` beats ``old`` (each a :class:`Shape` or its four or five
    numbers): the same number of cards and every card strictly higher, position
    by position (with :attr:`RuleSet.kaopai`, more jokers may cover a play that
    holds a joker).  Nothing beats a play that holds the 特画; the 特画 stands
    above any card."""
    if len(old) > 4 and old[4]:
        return False
    if len(new) > 4 and new[4]:
        return (_kaopai_beats(new, old) if kaopai and (old[2] or old[3])
                else _positions_beat(new, old))
    r2, n2, x2, y2 = new[0], new[1], new[2], new[3]
    r1, n1, x1, y1 = old[0], old[1], old[2], old[3]
    if kaopai and x1 + y1:
        return _kaopai_beats(new, old)
    if y1 or n2 + x2 + y2 != n1 + x1 + y1 or y2 < x1:
        return False
    return not (n2 and r2 <= r1)


def beatable(old: Sequence[int], kaopai: bool = False) -> bool:
    """Whether any play without the 特画 may beat ``old`` (as :func:`shape_beats`
    says): not a play holding the 特画, nor, without 烤牌, one holding a big
    joker (挂大王的牌为最大).

    >>> beatable(Shape(9, 2, 0, 1)), beatable(Shape(9, 2, 0, 1), kaopai=True)
    (False, True)
    """
    return not ((len(old) > 4 and old[4]) or (old[3] and not kaopai))


def _values(shape: Sequence[int]) -> list[int]:
    """The rank values of a shape's cards, high to low."""
    r, n, x, y = shape[:4]
    th = shape[4] if len(shape) > 4 else 0
    return [TH] * th + [BJ] * y + [SJ] * x + [r] * n


def _positions_beat(new: Sequence[int], old: Sequence[int]) -> bool:
    """Every card strictly higher, position by position (the general rule)."""
    a, b = _values(new), _values(old)
    return len(a) == len(b) and all(x > y for x, y in zip(a, b, strict=True))


def _kaopai_beats(new: Sequence[int], old: Sequence[int]) -> bool:
    """烤牌: every old card covered by its own group of new cards.

    An old BJ takes 2 BJ or 3 SJ; an old SJ 1 BJ or 2 SJ; an old rank card
    one higher card (a higher rank or any joker); a 特画 covers any one old
    card.  Every new rank card must cover an old rank card; extra jokers are
    allowed."""
    r2, n2, x2, y2 = new[:4]
    r1, n1, x1, y1 = old[:4]
    if len(new) > 4 and new[4]:
        # the 特画 covers the old card that would cost the most to cover
        if y1:
            y1 -= 1
        elif x1:
            x1 -= 1
        elif n1:
            n1 -= 1
        return _kaopai_beats(Shape(r2, n2, x2, y2), Shape(r1, n1, x1, y1))
    if n2 > n1 or (n2 and r2 <= r1):
        return False
    rest = n1 - n2
    for a in range(x1 + 1):          # old SJs covered by one BJ each
        for b in range(y1 + 1):      # old BJs covered by two BJs each
            bj_left = y2 - a - 2 * b
            sj_left = x2 - 2 * (x1 - a) - 3 * (y1 - b)
            if bj_left >= 0 and sj_left >= 0 and bj_left + sj_left >= rest:
                return True
    return False


def beats(new: str | Sequence[Card], old: str | Sequence[Card],
          rules: RuleSet | None = None) -> bool:
    """Whether the play ``new`` beats the play ``old`` under ``rules``
    (default: the ``shandong`` preset).  Raises :class:`InvalidPlay` when
    either is not a legal play shape.

    >>> beats("SJ 8 8 8", "7 7 7 7"), beats("SJ", "SJ"), beats("2", "BJ")
    (True, False, False)
    """
    rules = rules or RuleSet()
    new_cards = parse_cards(new) if isinstance(new, str) else new
    old_cards = parse_cards(old) if isinstance(old, str) else old
    return shape_beats(classify(new_cards, rules), classify(old_cards, rules), rules.kaopai)


def _jokers_ok(rank: int, x: int, y: int, rules: RuleSet) -> bool:
    return rank != TWO or not (x or y) or rules.jokers_with_twos


def _tehua(counts: Sequence[int]) -> int:
    return counts[TH] if len(counts) > TH else 0


def lead_shapes(counts: Sequence[int], rules: RuleSet) -> list[Shape]:
    """Every shape a player holding ``counts`` may lead (with the 特画, each
    also with it attached, right after the same shape without it): rank by
    rank (:func:`rank_lead_shapes`), then jokers alone."""
    out: list[Shape] = []
    for r in _RANK_CARDS:
        if counts[r]:
            out += rank_lead_shapes(r, counts, rules)
    out += joker_lead_shapes(counts)
    return out


def rank_lead_shapes(rank: int, counts: Sequence[int], rules: RuleSet) -> tuple[Shape, ...]:
    """The leads of :func:`lead_shapes` that hold cards of ``rank`` (a rank the
    player holds): 1 up to all of them, each with every number of jokers that
    may be attached (不可以用2配牌 unless ``jokers_with_twos``); under 憋6
    (``hold_sixes``) sixes go only with the whole hand.  The same tuple for the
    same counts, so a caller may keep what it made of it."""
    c, sj, bj, th = counts[rank], counts[SJ], counts[BJ], _tehua(counts)
    if rank == SIX and rules.hold_sixes:
        return _sixes_lead(c, sj, bj, th, c + sj + bj + th == sum(counts))
    return _rank_leads(rank, c, sj, bj, th, rank == TWO and not rules.jokers_with_twos)


def whole_hand_rank(rules: RuleSet) -> int | None:
    """The rank whose leads depend on the rest of the hand, not only on its own
    cards and the jokers: the sixes under 憋6 (``hold_sixes``), else none.

    >>> whole_hand_rank(RuleSet().replace(hold_sixes=True)), whole_hand_rank(RuleSet())
    (6, None)
    """
    return SIX if rules.hold_sixes else None


@cache
def _rank_leads(rank: int, c: int, sj: int, bj: int, th: int,
                plain: bool) -> tuple[Shape, ...]:
    if plain:
        return tuple(_new(Shape, (rank, n, 0, 0, 0)) for n in range(1, c + 1))
    out: list[Shape] = []
    for n in range(1, c + 1):
        for x in range(sj + 1):
            for y in range(bj + 1):
                out.append(_new(Shape, (rank, n, x, y, 0)))
                if th:
                    out.append(_new(Shape, (rank, n, x, y, 1)))
    return tuple(out)


@cache
def _sixes_lead(c: int, sj: int, bj: int, th: int, whole: bool) -> tuple[Shape, ...]:
    """憋6: sixes are led only together with the rest of the hand."""
    return (_new(Shape, (SIX, c, sj, bj, th)),) if whole else ()


def joker_lead_shapes(counts: Sequence[int]) -> tuple[Shape, ...]:
    """The leads of :func:`lead_shapes` of jokers alone (and the 特画, alone or
    with them); the same tuple for the same jokers."""
    return _joker_leads(counts[SJ], counts[BJ], _tehua(counts))


@cache
def _joker_leads(sj: int, bj: int, th: int) -> tuple[Shape, ...]:
    """Leads of jokers alone (and the 特画, alone or with them)."""
    out: list[Shape] = []
    for x in range(sj + 1):
        for y in range(bj + 1):
            if x or y:
                out.append(_new(Shape, (0, 0, x, y, 0)))
            if th:
                out.append(_new(Shape, (0, 0, x, y, 1)))
    return tuple(out)


def follow_shapes(counts: Sequence[int], last: Sequence[int], rules: RuleSet) -> list[Shape]:
    """Every shape a player holding ``counts`` may play on ``last`` (a :class:`Shape`
    or its four or five numbers): as many cards, each higher (:func:`shape_beats`), or
    with 烤牌 (``kaopai``) more jokers on a play that holds one; under 憋6
    (``hold_sixes``) sixes only with the whole hand; no jokers on 2s unless
    ``jokers_with_twos``."""
    ranks = plain_follow_ranks(counts, last, rules)
    if ranks is not None:
        n1 = last[1]
        return [_new(Shape, (r, n1, 0, 0, 0)) for r in ranks]
    return joker_follow_shapes(counts, last, rules)


def joker_follow_shapes(counts: Sequence[int], last: Sequence[int],
                        rules: RuleSet) -> list[Shape]:
    """:func:`follow_shapes` when jokers are involved (:func:`plain_follow_ranks`
    gave ``None``): for a caller that has asked that already."""
    r1, n1, x1, y1 = last[:4]
    t1 = last[4] if len(last) > 4 else 0
    if t1:
        return []                         # nothing beats the 特画
    if _tehua(counts):
        return _tehua_follows(counts, Shape(r1, n1, x1, y1, t1), rules)
    sj, bj = counts[SJ], counts[BJ]
    hold = rules.hold_sixes
    out: list[Shape] = []
    size = sum(counts)
    if rules.kaopai and x1 + y1:
        last = Shape(r1, n1, x1, y1)
        for n in range(n1 + 1):
            ranks = [0] if n == 0 else [r for r in range(r1 + 1, TWO + 1) if counts[r] >= n]
            for r in ranks:
                for x in range(sj + 1):
                    for y in range(bj + 1):
                        if n + x + y == 0 or not _jokers_ok(r, x, y, rules):
                            continue
                        if hold and r == SIX and n + x + y != size:
                            continue
                        shape = Shape(r, n, x, y)
                        if _kaopai_beats(shape, last):
                            out.append(shape)
        return out
    total = n1 + x1
    if y1 or bj < x1 or size < total:
        return out
    # the ranks held above the play (under 憋6 sixes only with the whole hand)
    held = [r for r in range(r1 + 1, TWO + 1)
            if counts[r] and not (hold and r == SIX and total != size)]
    for y in range(x1, min(bj, total) + 1):
        for x in range(min(sj, total - y) + 1):
            n = total - y - x
            if n == 0:
                out.append(_new(Shape, (0, 0, x, y, 0)))
                continue
            twos = _jokers_ok(TWO, x, y, rules)
            for r in held:
                if counts[r] >= n and (twos or r != TWO):
                    out.append(_new(Shape, (r, n, x, y, 0)))
    return out


@cache
def answer_shapes(last: tuple[int, int, int, int], rules: RuleSet) -> tuple[Shape, ...]:
    """Every shape :func:`follow_shapes` gives on ``last`` (four numbers, a
    play without the 特画) to a hand holding enough of every card but no 特画:
    a player may play one of them when he holds its cards and :func:`playable`
    says yes (that matters only for sixes under 憋6, which go only with the
    whole hand).  Not for a play holding jokers under 烤牌 (``kaopai``), whose
    answers may be larger.  The same tuple for the same ``last``.

    >>> [str(s) for s in answer_shapes((13, 1, 0, 0), RuleSet())]
    ['A', '2', 'SJ', 'BJ']
    """
    if rules.kaopai and (last[2] or last[3]):
        raise ValueError("under kaopai a play holding jokers has answers of other sizes")
    total = last[1] + last[2] + last[3]
    full = [0] * 3 + [total] * (TWO - 2) + [total, total, 0]
    return tuple(follow_shapes(full, last, rules.replace(hold_sixes=False)))


def plain_follow_ranks(counts: Sequence[int], last: Sequence[int],
                       rules: RuleSet) -> list[int] | None:
    """The usual follow, when neither ``last`` nor the hand holds a joker (or the
    特画): the ranks of which the player may play as many cards as ``last`` has,
    each higher (under 憋6 sixes only with the whole hand).  ``None`` when jokers
    are involved (then :func:`follow_shapes` looks further).

    >>> counts = rank_counts(parse_cards("9 9 6 6 K"))
    >>> plain_follow_ranks(counts, Shape(5, 2, 0, 0), RuleSet())
    [6, 9]
    >>> plain_follow_ranks(counts, Shape(5, 2, 0, 0), RuleSet().replace(hold_sixes=True))
    [9]
    """
    r1, n1, x1, y1 = last[:4]
    if x1 or y1 or (len(last) > 4 and last[4]) or counts[SJ] or counts[BJ] \
            or (len(counts) > TH and counts[TH]):
        return None
    higher = counts[r1 + 1:TWO + 1]
    if not higher or max(higher) < n1:
        return []
    ranks = [r for r, c in enumerate(higher, r1 + 1) if c >= n1]
    if rules.hold_sixes and r1 < SIX and counts[SIX] >= n1 and n1 != sum(counts):
        ranks.remove(SIX)
    return ranks


def _tehua_follows(counts: Sequence[int], last: Shape, rules: RuleSet) -> list[Shape]:
    """:func:`follow_shapes` for the one player who holds the 特画: every shape
    he could play, without the 特画 and then with it, that beats ``last``."""
    plain = list(counts)
    plain[TH] = 0
    out = [s for s in follow_shapes(plain, last, rules) if playable(s, counts, rules)]
    sj, bj = counts[SJ], counts[BJ]
    most = sum(counts) if rules.kaopai and last.has_joker else last.size
    for n in range(most):
        ranks = [0] if n == 0 else [r for r in _RANK_CARDS if counts[r] >= n]
        for r in ranks:
            for x in range(min(sj, most - 1 - n) + 1):
                for y in range(min(bj, most - 1 - n - x) + 1):
                    shape = Shape(r, n, x, y, 1)
                    if playable(shape, counts, rules) and shape_beats(shape, last, rules.kaopai):
                        out.append(shape)
    return out


def playable(shape: Sequence[int], counts: Sequence[int], rules: RuleSet) -> bool:
    """Whether a player holding ``counts`` may play ``shape`` at all
    (he holds the cards; 憋6 and 不可以用2配牌 respected)."""
    r, n, x, y = shape[0], shape[1], shape[2], shape[3]
    t = shape[4] if len(shape) > 4 else 0
    if (n and counts[r] < n) or counts[SJ] < x or counts[BJ] < y or not (n or x or y or t):
        return False
    if t and t > _tehua(counts):
        return False
    if (x or y or t) and not _jokers_ok(r, x + t, y, rules):
        return False
    return not (r == SIX and n and rules.hold_sixes and n + x + y + t != sum(counts))
