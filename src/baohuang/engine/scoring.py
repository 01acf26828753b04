"""Scores (docs/rules.md §8) and tribute between the games of a match (进贡, §9).

>>> import baohuang as bh
>>> bh.settle([1, 3, 2, None, None], emperor=0, guard=2)   # Emperor 1st, Guard 2nd
(6, -3, 3, -3, -3)
>>> bh.settle([2, 1, None, None, None], emperor=0, guard=0, solo="open")
(-24, 6, 6, 6, 6)
>>> bh.settle([1, 3, 2, None, None], emperor=0, guard=2, guard_open=True, rebels=(1,))
(12, -12, 6, -6, -6)
>>> bh.settle([1, 3, 2, None, None], emperor=0, guard=2, rules=bh.RuleSet.preset("wurenju"))
(2, -1, 1, -1, -1)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, fields
from typing import Any, Literal

from .cards import RANK_OF, Card
from .rules import RuleSet, Scoring

__all__ = ["PLACEMENT_POINTS", "ScoreParts", "SoloKind", "StakeFactor", "TributeBasis", "decided",
           "game_ends", "score_parts", "settle", "stake_factors", "stake_of",
           "tribute_transfers", "wurenju_outcome"]

SoloKind = Literal["open", "hidden"]

#: 头科 +4, 二科 +2, 三科 0, 二落 −2, 大落 −4 (``scoring: placement``).
PLACEMENT_POINTS = (4, 2, 0, -2, -4)


def _check(places: Sequence[int | None], emperor: int, guard: int) -> None:
    if len(places) != 5:
        raise ValueError(f"places needs 5 entries, got {len(places)}")
    seen = [p for p in places if p is not None]
    if any(not isinstance(p, int) or not 1 <= p <= 5 for p in seen) or len(set(seen)) != len(seen):
        raise ValueError(f"places must be distinct numbers 1..5 or None: {list(places)}")
    for name, seat in (("emperor", emperor), ("guard", guard)):
        if not 0 <= seat < 5:
            raise ValueError(f"{name} must be a seat 0..4, not {seat}")


def fill_places(places: Sequence[int | None], royal: Sequence[int],
                royal_first: bool = False) -> list[int]:
    """Complete places: players not out take the remaining places in the
    order worst for their side (royal players take the worst ones; with
    ``royal_first`` the best ones)."""
    free = sorted({1, 2, 3, 4, 5} - {p for p in places if p is not None},
                  reverse=not royal_first)
    out = list(places)
    order = [s for s in royal if out[s] is None] + [s for s in range(5)
                                                    if out[s] is None and s not in royal]
    for seat in order:
        out[seat] = free.pop(0) if seat in royal else free.pop()
    return [p for p in out if p is not None]


def wurenju_outcome(places: Sequence[int], emperor: int, guard: int,
                    solo: bool = False) -> int:
    """五人局 (``scoring: wurenju``, seed 000: "皇帝或者小保必须有跑第一的，剩下一个跑前三名
    为胜，如果皇帝小保跑了2、3名为平，剩下情况为皇帝小保负"): 1 the royal side wins, 0 a
    draw, -1 it loses.  A solo Emperor wins 1st, draws 2nd or 3rd (reading).

    >>> wurenju_outcome([1, 4, 3, 2, 5], emperor=0, guard=2)
    1
    >>> wurenju_outcome([2, 1, 3, 4, 5], emperor=0, guard=2), wurenju_outcome(
    ...     [1, 2, 4, 3, 5], emperor=0, guard=2)
    (0, -1)
    """
    if solo:
        place = places[emperor]
        return 1 if place == 1 else 0 if place <= 3 else -1
    pair = sorted((places[emperor], places[guard]))
    return 1 if pair in ([1, 2], [1, 3]) else 0 if pair == [2, 3] else -1


def decided(out: Sequence[int], emperor: int, guard: int, solo: bool) -> bool:
    """Whether the 五人局 result is fixed once the seats ``out`` went out in
    this order (the game then ends at once: "the game ending as soon as the
    result is fixed")."""
    places: list[int | None] = [None] * 5
    for i, seat in enumerate(out):
        places[seat] = i + 1
    royal = (emperor,) if solo else (emperor, guard)
    return (wurenju_outcome(fill_places(places, royal), emperor, guard, solo)
            == wurenju_outcome(fill_places(places, royal, royal_first=True),
                               emperor, guard, solo))


def game_ends(out: Sequence[int], emperor: int, guard: int, solo: SoloKind | None,
              scoring: Scoring) -> bool:
    """Whether the game ends once the seats ``out`` went out, in this order
    (docs/rules.md §7.4: as soon as its result is fixed).  The engine and the
    bots' playouts both ask here.

    >>> game_ends([0, 2], emperor=0, guard=2, solo=None, scoring=Scoring.SHANDONG)
    True
    >>> game_ends([1], emperor=0, guard=0, solo="open", scoring=Scoring.SHANDONG)
    True
    >>> game_ends([1, 3], emperor=0, guard=0, solo="hidden", scoring=Scoring.PLACEMENT)
    False
    """
    if scoring is Scoring.PLACEMENT:
        return len(out) >= 4
    if scoring is Scoring.WURENJU:
        return decided(out, emperor, guard, solo is not None)
    if solo == "open":
        return len(out) >= 1
    if solo == "hidden":
        return emperor in out or len(out) >= 2
    royal_out = (emperor in out) + (guard in out)
    return royal_out == 2 or len(out) - royal_out == 3


#: What doubles the stake (倍数), by name: 明保, 明独保, a standing 造反, each standing 踢.
StakeFactor = Literal["guard_open", "solo_open", "rebellion", "kick"]


def stake_factors(*, guard_open: bool, solo: SoloKind | None, rebels: Sequence[int],
                  kicks: int, scoring: Scoring = Scoring.SHANDONG) -> tuple[StakeFactor, ...]:
    """The doublings of the stake (倍数, docs/rules.md §8.1), in the order they came:
    明保 (not in a solo game), 明独保 (``shandong`` scoring: the hidden solo's table
    doubled), a standing 造反 (two or more rebels), each standing 踢.  A failed 造反
    doubles one player's score, not the stake.  ``placement`` scoring counts an open
    solo only (§8.2); ``wurenju`` counts no solo.  Every screen's 倍数 is made of these.

    >>> stake_factors(guard_open=True, solo=None, rebels=(1, 3), kicks=1)
    ('guard_open', 'rebellion', 'kick')
    >>> stake_factors(guard_open=False, solo="open", rebels=(), kicks=2)
    ('solo_open', 'kick', 'kick')
    """
    if scoring is Scoring.PLACEMENT:
        return ("solo_open",) if solo == "open" else ()
    out: list[StakeFactor] = []
    if solo == "open" and scoring is Scoring.SHANDONG:
        out.append("solo_open")
    elif guard_open and solo is None:
        out.append("guard_open")
    if len(rebels) >= 2:
        out.append("rebellion")
    out.extend(["kick"] * kicks)
    return tuple(out)


def stake_of(*, guard_open: bool, solo: SoloKind | None, rebels: Sequence[int],
             kicks: int, scoring: Scoring = Scoring.SHANDONG) -> int:
    """The stake multiplier (倍数): 2 to the number of :func:`stake_factors`.

    >>> stake_of(guard_open=True, solo=None, rebels=(1, 3), kicks=1)
    8
    >>> stake_of(guard_open=False, solo="open", rebels=(), kicks=0)
    2
    """
    return 1 << len(stake_factors(guard_open=guard_open, solo=solo, rebels=rebels,
                                  kicks=kicks, scoring=scoring))


@dataclass(frozen=True, slots=True)
class ScoreParts:
    """How one game's scores come about (before any leaving penalty): seat ``s``
    scores ``unit × shares[s] × stake``.

    ``unit``: the points of one share, from the places (``shandong``: the Guard's
    6 − (Emperor's place + Guard's place), a solo Emperor's 3 / 0 / −3; ``wurenju``:
    1 win, 0 draw, −1 loss; ``placement``: the royal side's sum).  ``shares``: the
    Emperor 2 (4 alone), the Guard 1, each rebel −1 (a lone 造反 −2).  ``factors``:
    :func:`stake_factors`, whose product is ``stake``."""

    unit: int
    shares: tuple[int, ...]
    factors: tuple[StakeFactor, ...]
    stake: int

    @property
    def scores(self) -> tuple[int, ...]:
        return tuple(self.unit * share * self.stake for share in self.shares)


def score_parts(places: Sequence[int | None], emperor: int, guard: int, *,
                rules: RuleSet | None = None, solo: SoloKind | None = None,
                guard_open: bool = False, rebels: Sequence[int] = (),
                kicks: int = 0) -> ScoreParts:
    """The parts of :func:`settle`'s scores (same arguments).

    >>> score_parts([1, 3, 2, None, None], 0, 2, guard_open=True, rebels=(1,))
    ScoreParts(unit=3, shares=(2, -2, 1, -1, -1), factors=('guard_open',), stake=2)
    >>> score_parts([2, 1, None, None, None], 0, 0, solo="open")
    ScoreParts(unit=-3, shares=(4, -1, -1, -1, -1), factors=('solo_open',), stake=2)
    """
    rules = rules or RuleSet()
    _check(places, emperor, guard)
    if solo is not None and guard != emperor:
        raise ValueError("a solo game has guard == emperor")
    if solo is None and guard == emperor:
        raise ValueError("emperor and guard are the same seat: pass solo='open' or 'hidden'")
    royal = (emperor,) if solo else (emperor, guard)
    full = fill_places(places, royal)
    factors = stake_factors(guard_open=guard_open, solo=solo, rebels=rebels, kicks=kicks,
                            scoring=rules.scoring)
    stake = 1 << len(factors)
    if rules.scoring is Scoring.PLACEMENT:
        unit = sum(PLACEMENT_POINTS[full[s] - 1] for s in royal)
        return ScoreParts(unit, tuple(1 if s in royal else -1 for s in range(5)), factors,
                          stake)
    e_place = full[emperor]
    if rules.scoring is Scoring.WURENJU:
        unit = wurenju_outcome(full, emperor, guard, solo is not None)
    elif solo == "open":
        unit = 3 if e_place == 1 else -3          # (×2 in the stake: 24 / 6)
    elif solo == "hidden":
        unit = 3 if e_place == 1 else 0 if e_place == 2 else -3
    else:
        unit = 6 - (e_place + full[guard])
    shares = [-1] * 5
    shares[emperor] = 4 if solo else 2
    if not solo:
        shares[guard] = 1
    if len(rebels) == 1:
        shares[rebels[0]] *= 2
    return ScoreParts(unit, tuple(shares), factors, stake)


def settle(places: Sequence[int | None], emperor: int, guard: int, *,
           rules: RuleSet | None = None, solo: SoloKind | None = None,
           guard_open: bool = False, rebels: Sequence[int] = (),
           kicks: int = 0) -> tuple[int, ...]:
    """Each seat's score for one game (:func:`score_parts` tells how it came about).

    ``places``: finishing place 1..5 of each seat, ``None`` for a player not
    out when the game ended.  ``solo``: ``"open"`` (明独保) or ``"hidden"``
    (暗独保) when the Emperor plays alone (then ``guard == emperor``).
    ``guard_open``: 明保.  ``rebels``: seats that said 造反 (two or more: the
    rebellion stands and doubles the stake; exactly one: only that player's
    score doubles).  ``kicks``: standing 踢, each doubling the stake.
    """
    return score_parts(places, emperor, guard, rules=rules, solo=solo,
                       guard_open=guard_open, rebels=rebels, kicks=kicks).scores


@dataclass(frozen=True, slots=True)
class TributeBasis:
    """What the tribute of the next game depends on: last game's sides, who
    won, and the full finishing order (best first)."""

    emperor: int
    guard: int
    solo: SoloKind | None
    royal_won: bool | None          # None: a draw, no tribute
    order: tuple[int, ...]

    def __reduce__(self) -> tuple[type[TributeBasis], tuple[Any, ...]]:
        """For ``copy.deepcopy`` and ``pickle``: made again through the constructor
        (the only way a compiled build's TributeBasis can be made)."""
        return TributeBasis, tuple(getattr(self, f.name) for f in fields(self))

    def to_dict(self) -> dict[str, Any]:
        return {"emperor": self.emperor, "guard": self.guard, "solo": self.solo,
                "royal_won": self.royal_won, "order": list(self.order)}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> TributeBasis:
        """The inverse of :meth:`to_dict`; ``ValueError`` names a bad field."""
        basis = cls(int(data["emperor"]), int(data["guard"]), data.get("solo"),
                    data.get("royal_won"), tuple(int(s) for s in data["order"]))
        for name in ("emperor", "guard"):
            if not 0 <= getattr(basis, name) < 5:
                raise ValueError(f"tribute {name} must be a seat 0..4")
        if basis.solo not in (None, "open", "hidden"):
            raise ValueError(f"tribute solo must be null, 'open' or 'hidden', not {basis.solo!r}")
        if basis.royal_won not in (None, True, False):
            raise ValueError(f"tribute royal_won must be true, false or null, "
                             f"not {basis.royal_won!r}")
        if sorted(basis.order) != [0, 1, 2, 3, 4]:
            raise ValueError(f"tribute order must list seats 0..4 once each: {list(basis.order)}")
        return basis


def _highest(hand: dict[Card, int], k: int) -> list[Card]:
    """The ``k`` highest cards; unmarked before marked at equal rank."""
    cards = sorted((c for c, n in hand.items() for _ in range(n)),
                   key=lambda c: (RANK_OF[c], -c.marked, c), reverse=True)
    return cards[:k]


def tribute_transfers(basis: TributeBasis,
                      hands: Sequence[dict[Card, int]]) -> list[tuple[int, int, Card]]:
    """``(giver, receiver, card)`` for every tribute card (no return tribute).

    The losers give their highest cards.  Royal side won: the Guard takes the
    middle one of the three rebels' cards and the Emperor the other two.
    Rebels won: they take the Emperor's two and the Guard's one, highest
    first in finishing order.  Solo: one card to or from each of the four,
    two with an open solo.
    """
    if basis.royal_won is None:
        return []
    e, g = basis.emperor, basis.guard
    others = [s for s in basis.order if s not in (e, g)]
    out: list[tuple[int, int, Card]] = []
    if basis.solo:
        k = 2 if basis.solo == "open" else 1
        if basis.royal_won:
            for s in others:
                out.extend((s, e, c) for c in _highest(hands[s], k))
        else:
            cards = _highest(hands[e], k * len(others))
            for i, s in enumerate(others):
                out.extend((e, s, c) for c in cards[i * k:(i + 1) * k])
        return out
    if basis.royal_won:
        given = [(s, _highest(hands[s], 1)[0]) for s in others if hands[s]]
        given.sort(key=lambda sc: (RANK_OF[sc[1]], -sc[1].marked), reverse=True)
        for i, (s, c) in enumerate(given):
            out.append((s, g if i == 1 else e, c))
        return out
    pool = [(e, c) for c in _highest(hands[e], 2)] + [(g, c) for c in _highest(hands[g], 1)]
    pool.sort(key=lambda sc: (RANK_OF[sc[1]], -sc[1].marked), reverse=True)
    for (giver, card), receiver in zip(pool, others, strict=False):
        out.append((giver, receiver, card))
    return out
