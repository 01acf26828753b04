"""Sampling hidden deals from one seat's view (for information-set search).

A :class:`DealSampler` reads a :class:`~baohuang.engine.views.View` once and then
draws full deals (:class:`World`) that agree with everything the view knows:

- the deck of the rules, minus the seat's own hand and every card played
  (with suits and marks);
- each other seat holds exactly ``view.hand_counts[seat]`` cards;
- cards seen in transit (进贡 tribute and 让位 abdication cards this seat gave
  or received, the Emperor card 皇牌 and the cards travelling with it) stay
  with the seat that got them, less the copies it has played since;
- the Guard card 侍卫牌 ``SJ*`` is held by the Guard (``card`` mode); when
  the Guard is not known to this seat, the Guard seat is drawn first (from
  Guard inference when it is available, else in proportion to each
  possible seat's unknown cards), the Emperor included as a hidden solo
  (暗独保) where that is still possible;
- in ``call`` mode (叫侍卫) the Emperor held three copies of the called card
  at call time (four for a solo), less those he has played, and the fourth
  copy is with the Guard unless played;
- a player who gave this seat tribute (进贡) kept nothing higher than the
  card it gave (it gives its highest cards), until unseen cards reach it;
- a 抢独 claimant under ``three_jokers_and_four_identical`` held three jokers
  and four identical cards when he claimed, and in ``call`` mode an Emperor
  who has not called yet holds a card he can call (checked by drawing again).

What the view's events show (cards in transit, tribute caps, the Guard or
solo when known, the called card's copies) is read by :mod:`.evidence`;
this module places the Guard and deals the rest.

Knowledge this module does not use (so samples are slightly too wide, never
wrong): which cards were the unseen extra cards passed with the Emperor
card, and what declining the throne a second time round says under
``to_prev`` (no callable card, or four identical ones).

>>> import random
>>> import baohuang as bh
>>> game = bh.Game.new(seed=4)
>>> view = game.view(game.to_act)
>>> world = DealSampler(view).sample(random.Random(1))
>>> [len(h) for h in world.hands] == list(view.hand_counts)
True
>>> world.hands[view.seat] == view.hand
True
"""

from __future__ import annotations

import bisect
import importlib
import random
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from itertools import accumulate

from ...engine.cards import (
    GUARD_CARD,
    RANK_OF,
    TEHUA_CARD,
    Card,
    make_deck,
)
from ...engine.plays import BJ, SJ
from ...engine.rules import GuardMode, RuleSet
from ...engine.scoring import SoloKind
from ...engine.state import callable_kinds, four_identical
from ...engine.views import View
from ..hand_eval import rank_counts_of
from .evidence import read_evidence

__all__ = ["DealSampler", "Hypothesis", "SamplerError", "World"]

SEATS = range(5)
_REJECTION_TRIES = 64


class SamplerError(ValueError):
    """A view that no deal can match; the message names the contradiction."""


@dataclass(frozen=True, slots=True)
class World:
    """One full deal consistent with a view.

    ``hands[s]`` are seat ``s``'s cards now (the viewer's own hand as in the
    view).  ``guard`` is the Guard seat in this deal (``emperor`` for a
    solo), or ``None`` while it is not yet fixed (before the call in ``call``
    mode).  In ``card`` mode before the Emperor is known, ``guard`` is the
    holder of the Guard card.  ``solo`` is the solo kind when
    ``guard == emperor`` (``"hidden"`` until declared otherwise).
    """

    hands: tuple[tuple[Card, ...], ...]
    emperor: int | None
    guard: int | None
    solo: SoloKind | None

    def counts(self, seat: int) -> list[int]:
        """Rank counts of ``seat``'s hand (indices 3..17)."""
        return rank_counts_of(self.hands[seat])


@dataclass(slots=True)
class _Hypothesis:
    """One way the Guard question can stand, with the cards it forces."""

    guard: int | None
    solo: SoloKind | None
    weight: float
    need: list[Counter[Card]]
    pool: list[Card]
    slots: list[int]


#: One Guard placement of a :class:`DealSampler` (``sampler.hypotheses``):
#: ``guard``, ``solo``, ``weight``, the cards each seat must hold (``need``),
#: the free cards (``pool``) and each seat's free places (``slots``).
Hypothesis = _Hypothesis


def _shuffled(cards: Sequence[Card], rng: random.Random) -> list[Card]:
    """``cards`` in a random order: sorted by a random number each (every
    order equally likely; faster than ``rng.shuffle``, whose every step asks
    for a random index)."""
    rand = rng.random
    keys = [rand() for _ in cards]
    return [cards[i] for i in sorted(range(len(cards)), key=keys.__getitem__)]


def _guard_inference() -> Callable[[View], Sequence[float]] | None:
    """``bots.inference.guard_probabilities`` when that module is present."""
    try:
        module = importlib.import_module("baohuang.bots.inference")
    except ImportError:
        return None
    fn = getattr(module, "guard_probabilities", None)
    return fn if callable(fn) else None


class DealSampler:
    """Draws :class:`World` deals consistent with ``view``.

    ``use_inference``: weight the unknown Guard seat by
    ``guard_probabilities(view)`` when that function exists.
    """

    def __init__(self, view: View, *, use_inference: bool = True) -> None:
        if view.seat is None:
            raise SamplerError("a spectator's view has no hand to sample around")
        self.view = view
        self.rules = RuleSet.from_dict(view.rules)
        self.me = view.seat
        facts = self.facts = read_evidence(view, self.rules)
        self.emperor = facts.emperor
        self.held = facts.held
        self.guard_known = facts.guard_known
        self.sj_holder = facts.sj_holder
        self.solo = facts.solo
        self.early_open_solo = facts.early_open_solo
        self.called_by_emperor = facts.called_by_emperor
        self.called_by_others = facts.called_by_others
        self.steal_check = facts.steal_check
        self.called = facts.called
        #: seat -> highest rank its unknown cards may have (from tribute received)
        self.caps = facts.caps
        # The 特画 is the Guard's copy of the called card: sampled as that copy,
        # and made 特画 again in the Guard's hand of each deal (_deal).
        self.hand = self.facts.plain(view.hand)
        played = self.facts.plain(view.played)
        deck = Counter(make_deck(self.rules.deck))
        self.unknown = deck - Counter(self.hand) - Counter(played)
        missing = (Counter(self.hand) + Counter(played)) - deck
        if missing:
            raise SamplerError(f"the view shows cards the deck does not have: "
                               f"{' '.join(str(c) for c in missing.elements())}")
        total = sum(view.hand_counts[s] for s in SEATS if s != self.me)
        if total != sum(self.unknown.values()):
            raise SamplerError(f"other seats hold {total} cards but "
                               f"{sum(self.unknown.values())} cards are unaccounted for")
        inference = _guard_inference() if use_inference else None
        self.hypotheses = self._hypotheses(inference)
        if not self.hypotheses:
            raise SamplerError("no placement of the Guard agrees with the view")
        self._cumulative = list(accumulate(h.weight for h in self.hypotheses))

    # -- the Guard question -------------------------------------------------------
    def _guard_options(self) -> list[tuple[int | None, SoloKind | None]]:
        """Every (Guard seat, solo kind) this seat cannot rule out."""
        view, me, e = self.view, self.me, self.emperor
        if self.early_open_solo:
            return [(e, "open")]
        if self.rules.guard_mode is GuardMode.CARD:
            if GUARD_CARD in view.hand:
                return [(me, self._solo_for(me))]
            if self.guard_known is not None:
                return [(self.guard_known, self._solo_for(self.guard_known))]
            if self.sj_holder is not None:
                return [(self.sj_holder, self._solo_for(self.sj_holder))]
            seats = [s for s in SEATS if s != me]
            return [(s, self._solo_for(s)) for s in seats]
        called = self.called
        if called is None:
            return [(None, None)]
        if self.guard_known is not None:
            return [(self.guard_known, self._solo_for(self.guard_known))]
        if e == me:
            if self.hand.count(called) + self.called_by_emperor >= self._copies(called):
                return [(me, self._solo_for(me))]
            return [(s, None) for s in SEATS if s != me]
        if called in self.hand:
            return [(me, None)]
        return [(s, self._solo_for(s)) for s in SEATS if s != me]

    def _solo_for(self, guard: int) -> SoloKind | None:
        if self.emperor is None or guard != self.emperor:
            return None
        return self.solo or "hidden"

    def _copies(self, card: Card) -> int:
        return sum(1 for c in make_deck(self.rules.deck) if c == card)

    def _hypotheses(self, inference: Callable[[View], Sequence[float]] | None
                    ) -> list[_Hypothesis]:
        options = self._guard_options()
        probs: Sequence[float] | None = None
        if inference is not None and len(options) > 1:
            try:
                probs = inference(self.view)
            except (ValueError, KeyError, IndexError):
                probs = None
        out: list[_Hypothesis] = []
        for guard, solo in options:
            hyp = self._build(guard, solo)
            if hyp is None:
                continue
            if probs is not None and guard is not None:
                hyp.weight = float(probs[guard])
            if hyp.weight > 0:
                out.append(hyp)
        if not out and probs is not None:
            return self._hypotheses(None)
        return out

    def _build(self, guard: int | None, solo: SoloKind | None) -> _Hypothesis | None:
        """The forced cards of one Guard option, or None when it is impossible."""
        view, me, e = self.view, self.me, self.emperor
        need = [Counter(h) for h in self.held]
        exact: dict[int, int] = {}
        weight_seat: int | None = None
        card_mode = self.rules.guard_mode is GuardMode.CARD
        if (card_mode and guard is not None and not self.early_open_solo
                and GUARD_CARD not in view.hand and GUARD_CARD not in view.played):
            if guard == me:
                return None
            need[guard][GUARD_CARD] = 1
            weight_seat = guard
        called = self.called
        if (not card_mode and called is not None and guard is not None
                and not self.early_open_solo):
            assert e is not None
            copies = self._copies(called)
            if guard == e:
                exact[e] = copies - self.called_by_emperor
            else:
                exact[e] = 3 - self.called_by_emperor
                exact[guard] = copies - 3 - self.called_by_others
                weight_seat = guard
            for seat, k in list(exact.items()):
                if seat == me:
                    if self.hand.count(called) != k:
                        return None
                    del exact[seat]
                elif k < 0:
                    return None
            for s in SEATS:
                if s == me:
                    continue
                k = exact.get(s, 0)
                if need[s][called] > k:
                    return None
                if k:
                    need[s][called] = k
                elif called in need[s]:
                    del need[s][called]
            if sum(exact.values()) != self.unknown[called]:
                return None
        used: Counter[Card] = Counter()
        slots = [0] * 5
        for s in SEATS:
            if s == me:
                continue
            n = sum(need[s].values())
            slots[s] = view.hand_counts[s] - n
            if slots[s] < 0:
                return None
            used += need[s]
        if used - self.unknown:
            return None
        pool = sorted((self.unknown - used).elements())
        if called is not None and not card_mode and exact and called in pool:
            return None
        weight = 1.0 if weight_seat is None else float(slots[weight_seat] + 1)
        return _Hypothesis(guard, solo, weight, need, pool, slots)

    def guard_weights(self) -> dict[int | None, float]:
        """Relative weight of each possible Guard seat (``None``: not fixed yet)."""
        out: dict[int | None, float] = {}
        for h in self.hypotheses:
            out[h.guard] = out.get(h.guard, 0.0) + h.weight
        return out

    # -- drawing -------------------------------------------------------------
    def sample(self, rng: random.Random) -> World:
        """One deal consistent with the view."""
        total = self._cumulative[-1]
        for _ in range(_REJECTION_TRIES):
            i = bisect.bisect_right(self._cumulative, rng.random() * total)
            hyp = self.hypotheses[min(i, len(self.hypotheses) - 1)]
            world = self._deal(hyp, rng)
            if self._accepted(world):
                return world
        return world

    def sample_from(self, index: int, rng: random.Random) -> World:
        """One deal consistent with the view in which the Guard question
        stands as ``self.hypotheses[index]`` (for stratified sampling)."""
        hyp = self.hypotheses[index]
        for _ in range(_REJECTION_TRIES):
            world = self._deal(hyp, rng)
            if self._accepted(world):
                return world
        return world

    def _deal(self, hyp: _Hypothesis, rng: random.Random) -> World:
        pool = _shuffled(hyp.pool, rng)
        dealt: list[list[Card]] = [[] for _ in SEATS]
        slots = hyp.slots[:]
        if self.caps:
            pool = self._deal_capped(pool, dealt, slots, rng)
        at = 0
        hands: list[tuple[Card, ...]] = []
        for s in SEATS:
            if s == self.me:
                hands.append(self.view.hand)
                continue
            k = slots[s]
            hand = dealt[s] + pool[at:at + k]
            at += k
            hand.extend(hyp.need[s].elements())
            if s == hyp.guard and s != self.emperor and self.called in hand and \
                    self.rules.called_card_high:
                hand.remove(self.called)
                hand.append(TEHUA_CARD)
            hand.sort()
            hands.append(tuple(hand))
        return World(tuple(hands), self.emperor, hyp.guard, hyp.solo)

    def _deal_capped(self, pool: list[Card], dealt: list[list[Card]], slots: list[int],
                     rng: random.Random) -> list[Card]:
        """Deal the cards some seats cannot hold (above their cap) first, each
        to a seat that may hold it, chosen in proportion to its free places;
        returns the rest of the pool."""
        caps = self.caps
        low = min(caps.values())
        high = sorted((c for c in pool if RANK_OF[c] > low), reverse=True)
        rest = [c for c in pool if RANK_OF[c] <= low]
        for card in high:
            rank = RANK_OF[card]
            seats = [s for s in SEATS if s != self.me and slots[s] > 0
                     and caps.get(s, BJ) >= rank]
            if not seats:
                raise SamplerError(f"no seat may hold {card} (tribute shows the givers' "
                                   f"highest cards)")
            pick = rng.random() * sum(slots[s] for s in seats)
            for s in seats:
                pick -= slots[s]
                if pick < 0:
                    break
            dealt[s].append(card)
            slots[s] -= 1
        return rest

    def _accepted(self, world: World) -> bool:
        """Rules that can only be checked on a whole deal (rejection sampling)."""
        return self._steal_ok(world) and self._can_call(world)

    def _steal_ok(self, world: World) -> bool:
        """A 抢独 claimant under the strict rule held 3 jokers and 4 identical cards."""
        if self.steal_check is None:
            return True
        seat, played = self.steal_check
        if seat == self.me:
            return True
        hand = Counter(world.hands[seat]) + played
        jokers = sum(n for c, n in hand.items() if RANK_OF[c] >= SJ)
        return jokers >= 3 and four_identical(hand)

    def _can_call(self, world: World) -> bool:
        """In ``call`` mode an Emperor who has not called yet can call (叫得起)."""
        e = self.emperor
        if (self.rules.guard_mode is not GuardMode.CALL or e is None or e == self.me
                or self.called is not None or self.early_open_solo):
            return True
        return bool(callable_kinds(Counter(world.hands[e])))
