"""Hand evaluation (算牌): how many rounds a hand still loses, from rank counts.

A hand is played as rank groups (套牌: all cards of one rank together) plus
jokers kept for control.  :class:`Table` knows the cards this seat cannot see
(deck minus own hand minus cards played) and how many cards every other seat
holds; from that, :meth:`Table.beaten` estimates the chance that some other
seat *can* beat a play (each seat's holding is drawn from the unseen cards:
hypergeometric counts per rank and of jokers; a follow needs the same number
of cards, every card higher — so a higher rank group, topped up with jokers).

:meth:`Table.cost` sums that chance over the hand's rank groups and
subtracts a value per joker: the expected number of leads the hand still
loses.  Lower is better; bots compare the cost before and after a play.
:func:`hand_strength` evaluates a freshly dealt hand this way for the role
phase (accept the throne, 明保, 造反, 踢, 抢独 …).

>>> from baohuang import RuleSet, parse_cards
>>> rules = RuleSet()
>>> strong = parse_cards("BJ BJ SJ 2 2 2 A A A A K K K")
>>> weak = parse_cards("6 7 8 8 9 10 J J Q")
>>> hand_strength(strong, rules) > hand_strength(weak, rules)
True
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from functools import lru_cache

from ..engine.cards import RANK_OF, Card, Deck, Rank, make_deck
from ..engine.plays import BJ, SJ, TWO, Shape, beatable, whole_hand_rank
from ..engine.rules import RuleSet

__all__ = [
    "BJ_VALUE",
    "SJ_VALUE",
    "Table",
    "bot_shape",
    "deck_counts",
    "hand_strength",
    "rank_counts_of",
    "rank_of",
    "shape_of",
]

#: What a big / small joker is worth in :meth:`Table.cost`, in lost leads.
BJ_VALUE = 0.9
SJ_VALUE = 0.6


_TH = int(Rank.TEHUA)
_BJ = int(Rank.BIG_JOKER)


def rank_of(card: Card) -> int:
    """The rank value the bots' estimates count ``card`` at: its own, except
    the 特画 (``called_card_high``), which they count as a big joker — it beats
    all that a big joker beats.  (The legal actions always come from the
    engine, which knows the 特画 exactly.)"""
    r = RANK_OF[card]
    return _BJ if r == _TH else r


def bot_shape(shape: Shape) -> tuple[int, int, int, int]:
    """``(rank, n, sj, bj)`` of a play as the bots' estimates see it (the 特画
    as one more big joker, as in :func:`rank_of`)."""
    return (shape[0], shape[1], shape[2], shape[3] + shape[4])


def rank_counts_of(cards: Iterable[Card]) -> list[int]:
    """Counts by :func:`rank_of` (indices 3..17; 16 = SJ, 17 = BJ)."""
    counts = [0] * 18
    for c in cards:
        counts[rank_of(c)] += 1
    return counts


@lru_cache(maxsize=8)
def deck_counts(deck: Deck | str) -> tuple[int, ...]:
    """Rank counts (indices 0..17) of a whole deck.

    >>> deck_counts("shandong165")[6], deck_counts("full")[3], deck_counts("full")[17]
    (13, 16, 4)
    """
    counts = [0] * 18
    for c in make_deck(deck):
        counts[RANK_OF[c]] += 1
    return tuple(counts)


def shape_of(cards: Iterable[Card]) -> Shape:
    """The shape of a legal play's cards (no checks)."""
    rank = n = sj = bj = 0
    for c in cards:
        r = rank_of(c)
        if r == BJ:
            bj += 1
        elif r == SJ:
            sj += 1
        else:
            rank = r
            n += 1
    return Shape(rank, n, sj, bj)


@lru_cache(maxsize=1 << 16)
def _below(u: int, h: int, total: int) -> tuple[float, ...]:
    """``P(X < k)`` for k = 0..17, where X counts the cards of one kind among
    ``h`` drawn from ``total`` unseen cards holding ``u`` of that kind
    (hypergeometric)."""
    if total <= 0 or h <= 0 or u <= 0:
        return _NONE_BELOW
    h = min(h, total)
    low = max(0, h - (total - u))        # the fewest of that kind h cards can hold
    if low:
        p = math.comb(u, low) * math.comb(total - u, h - low) / math.comb(total, h)
    else:
        p = 1.0                          # P(X = 0) = C(total - u, h) / C(total, h)
        for i in range(u):
            p *= (total - h - i) / (total - i)
    out = [0.0]
    acc = 0.0
    top = min(u, h)
    for k in range(17):
        if low <= k <= top:
            acc += p
            denom = (k + 1) * (total - u - h + k + 1)     # P(X = k + 1) from P(X = k)
            p = p * (u - k) * (h - k) / denom if denom > 0 else 0.0
        out.append(min(acc, 1.0))
    return tuple(out)


_NONE_BELOW: tuple[float, ...] = (0.0,) + (1.0,) * 17


@lru_cache(maxsize=1 << 14)
def _jokers(ub: int, us: int, h: int, total: int) -> tuple[tuple[int, int, float], ...]:
    """The joint law of (big jokers, small jokers) in ``h`` cards drawn from
    ``total`` unseen ones holding ``ub`` and ``us`` of them (terms ≥ 1e-4)."""
    if total <= 0 or h <= 0:
        return ((0, 0, 1.0),)
    h = min(h, total)
    denom = math.comb(total, h)
    rest = total - ub - us
    out = []
    for b in range(min(ub, h) + 1):
        for s in range(min(us, h - b) + 1):
            p = math.comb(ub, b) * math.comb(us, s) * math.comb(rest, h - b - s) / denom
            if p >= 1e-4:
                out.append((b, s, p))
    return tuple(out)


class Table:
    """What one seat may reckon about the cards it cannot see.

    ``unseen``: rank counts (indices 0..17) of the cards neither in the own
    hand nor played; ``others``: ``(seat, cards in hand)`` of every other
    seat still in the game.
    """

    __slots__ = ("_below_all", "_cache", "_jok", "_jtot", "kaopai", "others", "rules",
                 "total", "unseen")

    def __init__(self, unseen: Sequence[int], others: Sequence[tuple[int, int]],
                 rules: RuleSet) -> None:
        self.unseen = tuple(unseen)
        self.others = tuple((s, h) for s, h in others if h > 0)
        self.rules = rules
        self.kaopai = rules.kaopai
        self.total = max(sum(self.unseen), 1)
        self._cache: dict[tuple[int, int, int, int, int], float] = {}
        # Per other seat: suffix products Q[r][k] = P(no rank above r has ≥ k cards).
        self._below_all: list[list[list[float]]] = []
        self._jok: list[tuple[tuple[int, int, float], ...]] = []
        self._jtot: list[tuple[float, ...]] = []     # P(jokers held = j)
        for _, h in self.others:
            width = min(18, h + 1)           # nobody needs more cards than he holds
            acc = [1.0] * width
            rows = [acc] * 17
            for r in range(TWO, 2, -1):
                rows[r] = acc                # ranks strictly above r
                cdf = _below(self.unseen[r], h, self.total)
                acc = [a * c for a, c in zip(acc, cdf)]  # noqa: B905 - cdf is longer
            rows[0] = acc
            self._below_all.append(rows)
            jok = _jokers(self.unseen[BJ], self.unseen[SJ], h, self.total)
            self._jok.append(jok)
            tot = [0.0] * (max(b + s for b, s, _ in jok) + 1)
            for b, s, q in jok:
                tot[b + s] += q
            self._jtot.append(tuple(tot))

    @classmethod
    def for_hand(cls, hand: Sequence[Card], rules: RuleSet, hand_size: int | None = None,
                 played: Iterable[Card] = ()) -> Table:
        """A table as at the deal: every card not in ``hand`` is unseen and
        spread over four other seats of ``hand_size`` cards each."""
        counts = list(deck_counts(rules.deck))
        for c in hand:
            counts[rank_of(c)] -= 1
        for c in played:
            counts[rank_of(c)] -= 1
        size = hand_size if hand_size is not None else sum(counts) // 4
        return cls(counts, [(s, size) for s in range(1, 5)], rules)

    def beaten_by(self, shape: Shape, index: int) -> float:
        """The chance that other seat number ``index`` (in ``others``) can
        beat ``shape``."""
        r, n, x, y = bot_shape(shape)
        key = (index, r, n, x, y)
        cached = self._cache.get(key)
        if cached is not None:
            return cached
        h = self.others[index][1]
        size = n + x + y
        p = 0.0
        if size > h:
            p = 0.0
        elif y or (self.kaopai and x):
            if self.kaopai:
                need = x + 2 * y + (1 if n else 0)
                p = sum(q for b, s, q in self._jok[index] if b >= y and b + s >= need)
        elif not x:
            rows = self._below_all[index][r]
            width = len(rows)
            for j, q in enumerate(self._jtot[index]):
                need = n - j
                if need <= 0:
                    p += q
                elif need < width:
                    p += q * (1.0 - rows[need])
        else:
            above = self._below_all[index][r] if n else []
            for b, s, q in self._jok[index]:
                if b < x:
                    continue
                need = n + x - b - s
                if need <= 0:
                    p += q
                elif need < len(above):
                    p += q * (1.0 - above[need])
        p = min(max(p, 0.0), 1.0)
        self._cache[key] = p
        return p

    def beaten(self, shape: Shape, weights: Sequence[float] | None = None) -> float:
        """The chance that some other seat can beat ``shape``; ``weights``
        (per seat 0..4) scales each seat's chance, e.g. by how likely that
        seat is an opponent."""
        if not beatable(shape, self.kaopai):
            return 0.0                       # e.g. 挂大王的牌为最大
        keep = 1.0
        for i, (seat, _) in enumerate(self.others):
            w = 1.0 if weights is None else weights[seat]
            if w > 0.0:
                keep *= 1.0 - w * self.beaten_by(shape, i)
        return 1.0 - keep

    def group_cost(self, rank: int, n: int) -> float:
        """The cost of holding ``n`` cards of ``rank`` as one group: the
        chance it loses the lead when led (6s under 憋6 always cost 1)."""
        if n <= 0:
            return 0.0
        if rank == whole_hand_rank(self.rules):
            return 1.0                       # 憋6: held back, led only as the last play
        return self.beaten(Shape(rank, n, 0, 0))

    def cost(self, counts: Sequence[int]) -> float:
        """Expected leads the hand with rank ``counts`` still loses: the sum
        of its groups' costs less :data:`BJ_VALUE` / :data:`SJ_VALUE` per joker."""
        total = 0.0
        for r in range(3, TWO + 1):
            if counts[r]:
                total += self.group_cost(r, counts[r])
        return total - BJ_VALUE * counts[BJ] - SJ_VALUE * counts[SJ]


def hand_strength(hand: Sequence[Card], rules: RuleSet, hand_size: int | None = None) -> float:
    """A dealt hand's strength: minus :meth:`Table.cost` at the deal, so
    higher is better (about −8 for a poor hand, above 0 for a very strong one)."""
    counts = rank_counts_of(hand)
    table = Table.for_hand(hand, rules, hand_size)
    return -table.cost(counts)
