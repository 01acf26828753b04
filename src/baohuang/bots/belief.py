"""Beliefs of one seat: who is the Guard, and what the others hold.

:class:`Belief` reads one seat's :class:`~baohuang.engine.views.View` — its
own hand, the declarations and every play and pass so far, nothing else —
and answers:

- :attr:`Belief.guard`: for each seat, the probability that it is the Guard
  (侍卫); the Emperor's entry is the probability of a hidden solo (暗独保);
- :attr:`Belief.expected`: for each seat, the expected number of cards of
  each rank it holds now (indices as :func:`baohuang.engine.plays.rank_counts`:
  3..15, 16 = small joker, 17 = big joker, 18 = 特画);
- :meth:`Belief.sample`: a whole deal (:class:`~.search.sampler.World`)
  consistent with the view, drawn in proportion to how likely the others'
  observed passes are given its hands.

How.  The prior is :func:`~.inference.guard_probabilities` (declarations,
beating rates, 接风, cards played) and the hard constraints of
:class:`~.search.sampler.DealSampler` (cards seen in transit, the Guard card,
the called copies, tribute caps).  On top of them a *play model* scores each
deal: a pass by a seat that could have beaten an opponent's play cheaply —
with a whole plain group of the same size below the 2s, no jokers — has
likelihood :data:`PASS_CHEAP` against 1 for a pass that had no such beat; a
pass that could beat only otherwise (breaking a group, 2s, jokers)
:data:`PASS_DEAR`; a pass on a partner's play (partners in that deal's Guard
placement) is uninformative.  The ratios are mild on purpose: measured on
1,715 questions from rebels' views in 40 ``heuristic`` games, ratios of
0.8 / 0.95 brought the Guard's Brier score from the inference's 0.405 to
0.388, while 0.35 / 0.8 made it worse (0.431): players pass with beats in
hand for many reasons the model does not know.  The hand a
seat held at a pass is its hand in the deal plus the cards it has played
since.  Each Guard placement the view allows is sampled in its own stratum
(``samples`` deals each), so the Guard posterior is
``prior(g) × mean likelihood of the deals with Guard g``, normalized; the
expected counts are the likelihood-weighted means.  Deals for search are drawn
by sampling-importance-resampling: a placement from the posterior, then
``resample`` candidate deals of it, one kept in proportion to its likelihood.

Everything is deterministic given the ``seed``.

>>> import baohuang as bh
>>> from baohuang.bots import make_bot
>>> game = bh.Game.new(seed=3)
>>> bots = [make_bot("heuristic", seed=s) for s in range(5)]
>>> for _ in range(40):
...     game.apply(bots[game.to_act].choose(game.view(game.to_act), game.legal_actions()))
>>> view = game.view(1)
>>> belief = Belief(view, samples=8)
>>> round(sum(belief.guard), 6)
1.0
>>> [round(sum(belief.expected[s])) for s in range(5)] == list(view.hand_counts)
True
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from ..engine.cards import Card, make_deck, parse_card
from ..engine.events import EventKind as K
from ..engine.events import Play
from ..engine.plays import (
    BJ,
    SJ,
    TH,
    TWO,
    InvalidPlay,
    Shape,
    answer_shapes,
    classify,
    joker_follow_shapes,
    plain_follow_ranks,
    playable,
    rank_counts,
    whole_hand_rank,
)
from ..engine.rules import RuleSet
from ..engine.views import View
from .inference import base_probabilities, current_events
from .search.sampler import DealSampler, Hypothesis, SamplerError, World

__all__ = ["PASS_CHEAP", "PASS_DEAR", "Belief", "BeliefSampler", "PlayModel",
           "uniform_expected"]

#: Likelihood of passing on an opponent's play while holding a whole plain
#: group of its size below the 2s that beats it (against 1 when no beat exists).
PASS_CHEAP: Final = 0.8
#: The same when only 2s or jokers beat it (players save them).
PASS_DEAR: Final = 0.95


@dataclass(frozen=True, slots=True)
class _Pass:
    """One pass of another seat on a play it could follow."""

    seat: int
    last: Shape
    last_seat: int
    later: tuple[int, ...] | None     # rank counts the seat has played since (None: none)
    #: what beats ``last`` for a hand holding the cards (plays.answer_shapes), fewest
    #: jokers first; None where that table does not apply (特画, 烤牌 on jokers)
    answers: tuple[Shape, ...] | None
    group: int                  # passes of one seat with the same ``later`` share a number


class PlayModel:
    """The observed passes of a view and their likelihood under a deal."""

    def __init__(self, view: View, rules: RuleSet, *, cheap: float = PASS_CHEAP,
                 dear: float = PASS_DEAR) -> None:
        self.rules = rules
        self.cheap = cheap
        self.dear = dear
        self.emperor = view.emperor
        self._held_back = whole_hand_rank(rules)
        me = view.seat
        raw: list[tuple[int, Shape, int, int]] = []     # seat, last, last seat, event index
        plays: list[tuple[int, int, Sequence[str]]] = []
        last: tuple[int, Shape] | None = None
        in_play = False
        for i, ev in enumerate(current_events(view)):
            kind, seat = ev.kind, ev.seat
            if kind is K.PLAY_STARTS:
                in_play = True
            elif not in_play or seat is None:
                continue
            elif kind is K.PLAY:
                assert isinstance(ev.data, Play)
                cards = ev.data.cards
                plays.append((i, seat, cards))
                try:
                    last = (seat, classify([parse_card(c) for c in cards], rules))
                except InvalidPlay:
                    last = None
            elif kind is K.PASS and last is not None:
                if seat != me and seat != last[0]:
                    raw.append((seat, last[1], last[0], i))
            elif kind is K.LEAD:
                last = None
        passes: list[_Pass] = []
        groups: dict[tuple[int, tuple[int, ...] | None], int] = {}
        for seat, shape, last_seat, at in raw:
            later = rank_counts(parse_card(c) for i, s, cards in plays
                                if s == seat and i > at for c in cards)
            answers: tuple[Shape, ...] | None = None
            if not shape.th and not (rules.kaopai and (shape.sj or shape.bj)):
                answers = tuple(sorted(answer_shapes(shape[:4], rules),
                                       key=lambda a: a.sj + a.bj))
            since = tuple(later) if any(later) else None
            group = groups.setdefault((seat, since), len(groups))
            passes.append(_Pass(seat, shape, last_seat, since, answers, group))
        self.passes = passes
        #: the seats that passed, each once
        self._seats = sorted({p.seat for p in passes})
        self._groups = len(groups)

    def likelihood(self, world: World) -> float:
        """``P(observed passes | world)`` up to a constant (at most 1)."""
        if not self.passes:
            return 1.0
        e, g = self.emperor, world.guard
        hands = world.hands
        counts = {s: rank_counts(hands[s]) for s in self._seats}
        helds: list[list[int] | None] = [None] * self._groups
        out = 1.0
        for p in self.passes:
            if e is not None and g is not None:
                royal = (p.seat in (e, g))
                if royal == (p.last_seat in (e, g)):
                    continue                # a partner's play: passing says little
            held = helds[p.group]
            if held is None:
                held = counts[p.seat]
                if p.later is not None:
                    held = [a + b for a, b in zip(held, p.later, strict=True)]
                helds[p.group] = held
            out *= self._pass_factor(held, p)
        return out

    def _pass_factor(self, held: list[int], p: _Pass) -> float:
        last = p.last
        if last.th:
            return 1.0
        rules = self.rules
        ranks = plain_follow_ranks(held, last, rules)
        if ranks is not None:       # neither the play nor the hand holds a joker
            n1 = last.n
            if any(held[r] == n1 for r in ranks if r < TWO):
                return self.cheap
            return self.dear if ranks else 1.0
        if not (last.sj or last.bj):
            r1, n1 = last.rank, last.n
            for r in range(r1 + 1, TWO):
                if held[r] == n1 and playable((r, n1, 0, 0), held, rules):
                    return self.cheap
        if p.answers is None or held[TH]:
            return self.dear if joker_follow_shapes(held, last, rules) else 1.0
        sj, bj, six = held[SJ], held[BJ], self._held_back
        for a in p.answers:
            r, n, x, y = a[0], a[1], a[2], a[3]
            if sj >= x and bj >= y and (not n or held[r] >= n) and (
                    r != six or playable(a, held, rules)):
                return self.dear
        return 1.0


def uniform_expected(view: View) -> list[list[float]]:
    """The uniform baseline of :attr:`Belief.expected`: every unseen card is
    equally likely in each unseen place (own hand exact)."""
    assert view.seat is not None
    me = view.seat
    seen = rank_counts(list(view.hand) + list(view.played))
    deck = rank_counts(_deck(view))
    unseen = [max(0, d - s) for d, s in zip(deck, seen, strict=True)]
    total = sum(view.hand_counts[s] for s in range(5) if s != me)
    out: list[list[float]] = []
    for s in range(5):
        if s == me:
            out.append([float(k) for k in rank_counts(view.hand)])
        else:
            share = view.hand_counts[s] / total if total else 0.0
            out.append([u * share for u in unseen])
    return out


def _deck(view: View) -> list[Card]:
    return list(make_deck(RuleSet.from_dict(view.rules).deck))


class BeliefSampler:
    """Draws deals from a :class:`Belief` (what search needs of a sampler:
    ``rules`` and ``sample(rng)``)."""

    def __init__(self, belief: Belief) -> None:
        self.belief = belief
        self.rules = belief.rules

    def sample(self, rng: random.Random) -> World:
        return self.belief.sample(rng)


class Belief:
    """One seat's beliefs (see the module doc).  ``samples``: deals drawn per
    Guard placement to weigh it; ``resample``: candidates per deal drawn by
    :meth:`sample`; ``seed``: the seed of those draws."""

    def __init__(self, view: View, *, samples: int = 32, resample: int = 4, seed: int = 0,
                 cheap: float = PASS_CHEAP, dear: float = PASS_DEAR) -> None:
        if view.seat is None:
            raise SamplerError("a spectator has no beliefs of its own")
        self.view = view
        self.deals = DealSampler(view)
        self.rules = self.deals.rules
        self.model = PlayModel(view, self.rules, cheap=cheap, dear=dear)
        self.resample = max(1, resample)
        rng = random.Random(f"belief/{seed}/{view.seat}/{len(view.events)}")
        hyps = self.deals.hypotheses
        prior = [h.weight for h in hyps]
        total_prior = sum(prior)
        post: list[float] = []
        expected = [[0.0] * 19 for _ in range(5)]
        per_hyp: list[list[list[float]]] = []
        n = max(1, samples)
        for i, h in enumerate(hyps):
            weights: list[float] = []
            sums = [[0.0] * 19 for _ in range(5)]
            flat = [[0.0] * 19 for _ in range(5)]
            for _ in range(n):
                world = self.deals.sample_from(i, rng)
                w = self.model.likelihood(world)
                weights.append(w)
                for s in range(5):
                    for r, k in enumerate(rank_counts(world.hands[s])):
                        sums[s][r] += w * k
                        flat[s][r] += k
            mass = sum(weights)
            post.append(prior[i] / total_prior * mass / n)
            # Control variate: the placement's exact mean without the play
            # model, moved by how far the weights move the samples' mean (the
            # sampling noise common to both cancels).
            mean = self._mean(h)
            if mass <= 0.0:
                per_hyp.append(mean)
            else:
                per_hyp.append([[m + v / mass - f / n for m, v, f in zip(mrow, row, frow,
                                                                          strict=True)]
                                for mrow, row, frow in zip(mean, sums, flat, strict=True)])
        total = sum(post)
        if total <= 0.0:
            post = [p / total_prior for p in prior]
            total = 1.0
        self.weights = [p / total for p in post]
        for q, rows in zip(self.weights, per_hyp, strict=True):
            for s in range(5):
                for r in range(19):
                    expected[s][r] += q * rows[s][r]
        expected[view.seat] = [float(k) for k in rank_counts(view.hand)]
        #: Expected rank counts of each seat's hand now.
        self.expected = expected
        guard = [0.0] * 5
        unplaced = 0.0
        for q, h in zip(self.weights, hyps, strict=True):
            if h.guard is None:
                unplaced += q
            else:
                guard[h.guard] += q
        if unplaced > 0.0 or view.emperor is None:
            base = base_probabilities(view)
            guard = [g + unplaced * b for g, b in zip(guard, base, strict=True)]
        #: ``P(seat is the Guard)`` (the Emperor's entry: a hidden solo).
        self.guard: tuple[float, ...] = tuple(guard)
        self._cumulative: list[float] = []
        acc = 0.0
        for q in self.weights:
            acc += q
            self._cumulative.append(acc)

    def _mean(self, hyp: Hypothesis) -> list[list[float]]:
        """Expected rank counts of each seat under one Guard placement without
        the play model: its forced cards plus its share of the free pool."""
        pool = rank_counts(hyp.pool)
        free = sum(hyp.slots)
        out: list[list[float]] = []
        for s in range(5):
            if s == self.view.seat:
                out.append([float(k) for k in rank_counts(self.view.hand)])
                continue
            share = hyp.slots[s] / free if free else 0.0
            forced = rank_counts(hyp.need[s].elements())
            out.append([f + share * p for f, p in zip(forced, pool, strict=True)])
        return out

    def sample(self, rng: random.Random) -> World:
        """One deal: a Guard placement from the posterior, then the likeliest
        by weight of :attr:`resample` candidate deals (sampling-importance-
        resampling)."""
        u = rng.random() * self._cumulative[-1]
        index = next((i for i, c in enumerate(self._cumulative) if u < c),
                     len(self._cumulative) - 1)
        if self.resample == 1 or not self.model.passes:
            return self.deals.sample_from(index, rng)
        worlds = [self.deals.sample_from(index, rng) for _ in range(self.resample)]
        weights = [self.model.likelihood(w) for w in worlds]
        total = sum(weights)
        if total <= 0.0:
            return worlds[0]
        pick = rng.random() * total
        for world, w in zip(worlds, weights, strict=True):
            pick -= w
            if pick < 0.0:
                return world
        return worlds[-1]

    def sampler(self) -> BeliefSampler:
        return BeliefSampler(self)
