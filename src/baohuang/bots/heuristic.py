"""The ``heuristic`` bot: plays like a competent human, from its view only.

*Role phase.*  Every decision compares the strength of the hand
(:func:`~.hand_eval.hand_strength`: minus the expected number of lead-losing
groups of the dealt hand, scaled to a 33-card hand) with a threshold of
:class:`Params`: take the throne (当皇帝) or abdicate (让位, including
``skip_two_if_solo``, where accepting means a solo, and the ``with_two``
variants), which card to call (叫侍卫: the highest card held three times;
four copies — a solo — only with a strong hand), 明保/暗保, 明独/暗独, 造反
(a lone 造反 doubles only the own score, so saying it first needs a stronger
hand than joining), 踢 and 抢独 (very strong hands only).  The thresholds
come from self-play: the mean score of each role by strength at the deal.
Under ``placement`` scoring the stake does not count, so the Guard stays
hidden and rebels always say 造反.

*Play.*  The hand is a set of rank groups (套牌) plus jokers kept for
control.  :class:`~.hand_eval.Table` prices every group by the chance that
some other seat can beat it (from the unseen cards and the hand sizes); a
play is worth the cost it removes from the hand (jokers and winning groups
cost extra while scarce and early) plus the chance it wins the lead.
Leading sheds the group that is hardest to get rid of otherwise (low,
beatable groups first; once every group but one can keep the lead, the
winners first so that the last play goes out), avoids sizes an opponent
near the end can go out on and offers them to a partner near the end (who
then passes the lead on by 接风).  Following beats an opponent when the play
is worth enough — more readily when that denies the Emperor or a player
near the end the lead, or when winning the lead leaves one play to go out.
A probable partner is beaten reluctantly, a sure one (the Emperor, for his
Guard) only to go out or to take over a play the opponents after him would
beat anyway.  While hidden, the Guard keeps back the Guard card and the
called card unless it goes out with them.  Partners are judged from
:func:`~.inference.guard_probabilities`.  Under 憋6 the 6s stay for the last
play; 烤牌 follows come from the legal actions like any other.

>>> import baohuang as bh
>>> from baohuang.bots import make_bot
>>> game = bh.Game.new(seed=3)
>>> bots = [make_bot("heuristic", seed=s) for s in range(5)]
>>> while not game.is_over:
...     seat = game.to_act
...     game.apply(bots[seat].choose(game.view(seat), game.legal_actions()))
>>> sorted(p for p in game.result.places if p is not None)[0]
1
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ..engine.actions import Action, ActionKind
from ..engine.cards import GUARD_CARD, RANK_OF, Card
from ..engine.events import EventKind
from ..engine.plays import BJ, SJ, TWO, Shape
from ..engine.rules import RuleSet
from ..engine.views import View
from .base import register
from .hand_eval import (
    BJ_VALUE,
    SJ_VALUE,
    Table,
    bot_shape,
    deck_counts,
    hand_strength,
    rank_counts_of,
    rank_of,
    shape_of,
)
from .inference import current_events, guard_probabilities

#: events after which the Guard is known to everyone
_SHOWN = frozenset({EventKind.REVEAL, EventKind.REBELLION_STANDS})

__all__ = ["HeuristicBot", "Params", "partner_probabilities"]

A = ActionKind


@dataclass(frozen=True, slots=True)
class Params:
    """The heuristic's weights (hand strengths are minus lost leads)."""

    lead_keep: float = 0.6          # value of keeping the lead after a lead
    follow_keep: float = 0.6        # value of winning the lead with a follow
    follow_threshold: float = 0.3   # a follow must be worth this much
    partner_penalty: float = 0.5    # extra threshold per unit of partner chance …
    partner_near: float = 1.5       # … and more so when that partner is near out
    known_partner: float = 1.5      # extra threshold to beat a sure partner …
    rescue: float = 0.9             # … less this share when opponents would beat him
    joker_premium: float = 0.6      # jokers are worth more early (× hand size / 33)
    urgency: float = 0.8            # lower threshold when an opponent is near out
    control_cost: float = 0.25      # spending a winning group (2s, high groups)
    plenty: float = 0.4             # control costs × this when controls outnumber losers
    deny: float = 0.4               # value of taking the lead from an opponent
    feed: float = 0.4               # leading what a partner near the end can go out on
    finish: float = 1.0             # winning the lead when the rest is one play
    reveal_penalty: float = 0.6     # a hidden Guard showing himself
    # Role-phase thresholds on the hand strength (normalized to a 33-card
    # hand), set from self-play: the score of each role by strength at the deal.
    emperor: float = -9.6           # take the throne
    solo: float = -7.0              # play alone (accept holding both marked jokers, call 4)
    open_solo: float = -6.0         # 明独
    steal: float = -5.7             # 抢独
    open_guard: float = -8.0        # 明保
    rebel_first: float = -5.6       # say 造反 first (alone it doubles only the own score)
    rebel_join: float = -6.0        # join a 造反
    guard_bluff: float = -8.3       # the hidden Guard says 造反
    kick: float = -5.6              # a rebel kicks after 明保 / 明独
    royal_kick: float = -8.7        # the Emperor or Guard kicks after a standing 造反


_RULES: dict[tuple[tuple[str, Any], ...], RuleSet] = {}


def _rules(view: View) -> RuleSet:
    key = tuple(sorted(view.rules.items()))
    rules = _RULES.get(key)
    if rules is None:
        rules = _RULES[key] = RuleSet.from_dict(dict(view.rules))
    return rules


def partner_probabilities(view: View) -> tuple[float, ...]:
    """For each seat, the chance it is on the viewer's side (1 for itself),
    from the view's roles and :func:`guard_probabilities`."""
    me, e = view.seat, view.emperor
    if me is None or e is None:
        return (0.0,) * 5
    probs = guard_probabilities(view)
    out = [0.0] * 5
    if me == e:
        if probs[e] < 1.0:
            out = list(probs)
    elif probs[me] >= 1.0:
        out[e] = 1.0
    else:
        out = [1.0 - p for p in probs]
        out[e] = 0.0
    out[me] = 1.0
    return tuple(out)


@register("heuristic")
class HeuristicBot:
    """A competent player (see the module docstring).  Deterministic: the
    seed is accepted for the registry but not needed."""

    name = "heuristic"

    def __init__(self, seed: int = 0, params: Params | None = None) -> None:
        self.seed = seed
        self.params = params or Params()

    def choose(self, view: View, legal: Sequence[Action]) -> Action:
        if not legal:
            raise ValueError("no legal action to choose from")
        if len(legal) == 1:
            return legal[0]
        if view.stage.value == "play":
            return _Play(view, legal, self.params).choose()
        return role_action(view, legal, self.params)


# -- role phase ---------------------------------------------------------------

def _strength(view: View) -> float:
    """Hand strength scaled to a 33-card hand (so thresholds fit every deck)."""
    rules = _rules(view)
    others = [n for s, n in enumerate(view.hand_counts) if s != view.seat]
    size = round(sum(others) / max(len(others), 1))
    raw = hand_strength(view.hand, rules, size)
    return raw * 33.0 / max(len(view.hand), 1) if len(view.hand) > 40 else raw


def _said(view: View, kind: EventKind) -> int:
    """How many seats said ``kind`` (``REBEL``/``KICK``) in this deal."""
    return sum(1 for ev in current_events(view) if ev.kind is kind)


def role_action(view: View, legal: Sequence[Action], params: Params) -> Action:
    """A role-phase decision from the strength of the hand."""
    kinds = {a.kind: a for a in legal}
    s = _strength(view)
    p = params

    def pick(yes: ActionKind, no: ActionKind, threshold: float) -> Action:
        if yes in kinds and (s >= threshold or no not in kinds):
            return kinds[yes]
        return kinds.get(no, legal[0])

    stage = view.stage.value
    if (view.rules.get("scoring") == "placement" and stage in ("guard", "rebellion", "kick")
            and A.SOLO_OPEN not in kinds):
        # Placement scores ignore the stake: showing the Guard only helps the
        # rebels, so the Guard stays hidden and rebels always say 造反.
        rebel = stage == "rebellion" and view.role != "guard"
        for kind in (A.REBEL,) if rebel else (A.GUARD_HIDDEN, A.DECLINE):
            if kind in kinds:
                return kinds[kind]
    if stage == "emperor":
        solo = view.rules.get("abdication") == "skip_two_if_solo"
        if not solo and view.rules.get("guard_mode") == "call":
            counts = _card_counts(view.hand)
            if not any(n == 3 and RANK_OF[c] < TWO for c, n in counts.items()):
                solo = True      # only a four to call: accepting means a solo
        return pick(A.ACCEPT, A.ABDICATE, p.solo if solo else p.emperor)
    if stage == "emperor_solo":
        return pick(A.SOLO_OPEN, A.DECLINE, p.open_solo)
    if stage == "steal":
        return pick(A.STEAL, A.DECLINE, p.steal)
    if stage == "call":
        return _call(view, legal, s >= p.solo)
    if stage == "guard":
        if A.SOLO_OPEN in kinds:
            return pick(A.SOLO_OPEN, A.SOLO_HIDDEN, p.open_solo)
        return pick(A.GUARD_OPEN, A.GUARD_HIDDEN, p.open_guard)
    if stage == "rebellion":
        if view.role == "guard":
            return pick(A.REBEL, A.DECLINE, p.guard_bluff)
        first = _said(view, EventKind.REBEL) == 0
        return pick(A.REBEL, A.DECLINE, p.rebel_first if first else p.rebel_join)
    if stage == "kick":
        royal = view.seat is not None and view.seat in (view.emperor, view.guard)
        return pick(A.KICK, A.DECLINE, p.royal_kick if royal else p.kick)
    return kinds.get(A.DECLINE, legal[0])


def _card_counts(hand: Sequence[Card]) -> dict[Card, int]:
    counts: dict[Card, int] = {}
    for c in hand:
        counts[c] = counts.get(c, 0) + 1
    return counts


def _call(view: View, legal: Sequence[Action], strong: bool) -> Action:
    """叫侍卫: a card held three times, the highest rank (the Guard then holds
    a good card); four copies (a solo) only with a strong hand."""
    counts = _card_counts(view.hand)
    calls = [a for a in legal if a.kind is A.CALL]
    threes = [a for a in calls if counts.get(a.cards[0], 0) == 3]
    fours = [a for a in calls if counts.get(a.cards[0], 0) >= 4]
    pool = fours if (strong and fours) or not threes else threes
    return max(pool or calls, key=lambda a: a.cards[0])


# -- play phase ---------------------------------------------------------------

class _Play:
    """One play-phase decision."""

    def __init__(self, view: View, legal: Sequence[Action], params: Params) -> None:
        self.view, self.legal, self.p = view, legal, params
        self.rules = _rules(view)
        me = view.seat
        assert me is not None
        self.me = me
        counts = rank_counts_of(view.hand)
        self.counts = counts
        unseen = list(deck_counts(self.rules.deck))
        for c in view.hand:
            unseen[rank_of(c)] -= 1
        for c in view.played:
            unseen[rank_of(c)] -= 1
        out = set(view.out)
        self.in_play = [s for s in range(5) if s not in out]
        others = [(s, view.hand_counts[s]) for s in self.in_play if s != me]
        self.table = Table([max(u, 0) for u in unseen], others, self.rules)
        self.partner = partner_probabilities(view)
        # Chance that a seat taking the lead is bad for us.
        self.opp_weight = [1.0 - 0.7 * self.partner[s] for s in range(5)]
        self.special = self._special_cards()
        self.base_cost = {r: self.table.group_cost(r, counts[r]) for r in range(3, TWO + 1)
                          if counts[r]}
        # Control (jokers, winning groups) is cheap to spend when plentiful.
        controls = counts[SJ] + counts[BJ] + sum(1 for c in self.base_cost.values() if c < 0.35)
        scarce = 1.0 if controls <= self.losers() else params.plenty
        self.premium = params.joker_premium * min(1.0, len(view.hand) / 33.0) * scarce
        self.control_cost = params.control_cost * scarce

    def _special_cards(self) -> frozenset[Card]:
        """Cards that would show this seat as the hidden Guard."""
        v = self.view
        if v.role != "guard" or v.guard_open:
            return frozenset()
        if any(ev.kind in _SHOWN for ev in current_events(v)):
            return frozenset()
        if v.rules.get("guard_mode") == "card":
            return frozenset((GUARD_CARD,))
        return frozenset((v.called,)) if v.called is not None else frozenset()

    # -- evaluation -------------------------------------------------------
    def delta(self, shape: Shape) -> float:
        """How much cost the play of ``shape`` removes from the hand."""
        r, n, x, y = bot_shape(shape)
        d = -(BJ_VALUE + self.premium) * y - (SJ_VALUE + self.premium) * x
        if n:
            before = self.base_cost[r]
            left = self.counts[r] - n
            after = self.table.group_cost(r, left) if left else 0.0
            d += before - after
            if before < 0.35:                 # a winning group spent (2s, big groups)
                d -= self.control_cost
        return d

    def penalty(self, action: Action) -> float:
        if self.special and any(c in self.special for c in action.cards):
            return self.p.reveal_penalty
        return 0.0

    def losers(self) -> int:
        return sum(1 for c in self.base_cost.values() if c > 0.5)

    def finishes(self, shape: Shape) -> bool:
        """Whether the hand left after playing ``shape`` is one play (so the
        next lead goes out)."""
        counts = self.counts
        ranks = [r for r in range(3, TWO + 1) if counts[r] - (shape.n if r == shape.rank else 0)]
        if len(ranks) > 1:
            return False
        if not ranks:
            return True
        jokers = counts[SJ] + counts[BJ] - shape.sj - shape.bj
        return not (ranks[0] == TWO and jokers and not self.rules.jokers_with_twos)

    def bonus(self, shape: Shape, keep: float) -> float:
        """Winning the lead with a hand that then goes out in one play."""
        return self.p.finish * keep if self.finishes(shape) else 0.0

    def choose(self) -> Action:
        plays = [a for a in self.legal if a.kind is A.PLAY]
        size = len(self.view.hand)
        for a in plays:
            if len(a.cards) == size:
                return min((b for b in plays if len(b.cards) == size), key=self.penalty)
        if self.view.last_play is None:
            return self._lead(plays)
        return self._follow(plays)

    def _lead(self, plays: list[Action]) -> Action:
        p = self.p
        # Endgame: every group but one can keep the lead (big jokers make
        # any group a winner), so lead the winners and go out with the last.
        endgame = self.losers() - self.counts[BJ] <= 1
        keep_value = 2.0 if endgame else p.lead_keep
        near = [(s, self.view.hand_counts[s]) for s in self.in_play
                if s != self.me and self.view.hand_counts[s] <= 4]
        best: Action | None = None
        best_score = float("-inf")
        for a in plays:
            shape = shape_of(a.cards)
            keep = 1.0 - self.table.beaten(shape, self.opp_weight)
            score = (self.delta(shape) + keep_value * keep + self.bonus(shape, keep)
                     - self.penalty(a) - 0.01 * shape.rank)
            k = shape.size
            for s, h in near:
                # An opponent near the end must not go out on our lead; a
                # partner near the end may (then 接风 keeps the lead with us).
                w = 1.0 - self.partner[s]
                if k == h:
                    score += p.feed * self.partner[s] - 0.8 * w
                elif k < h:
                    score -= 0.25 * w
            if score > best_score:
                best, best_score = a, score
        assert best is not None
        return best

    def _lost(self, last_seat: int) -> float:
        """The chance that the seats after this one (before ``last_seat``)
        can beat the last play, weighted by how likely each is an opponent."""
        v = self.view
        assert v.last_play is not None
        weights = [0.0] * 5
        for k in range(1, 5):
            s = (self.me + k) % 5
            if s == last_seat:
                break
            if s in self.in_play:
                weights[s] = 1.0 - self.partner[s]
        if not any(weights):
            return 0.0
        return self.table.beaten(shape_of(v.last_play[1]), weights)

    def _beneficiary(self, out_seat: int) -> int:
        """Who leads after ``out_seat`` went out and everybody passes: under
        ``teammate`` a seat on the same side (the most likely one); else the
        next seat in."""
        after = [(out_seat + k) % 5 for k in range(1, 5) if (out_seat + k) % 5 in self.in_play]
        if not after:
            return out_seat
        if self.view.rules.get("lead_after_out") != "teammate":
            return after[0]
        same = self.partner[out_seat] if out_seat != self.me else 1.0
        for s in after:
            if s == self.me:
                return s if same >= 0.5 else after[0]
            if abs(self.partner[s] - same) < 0.5:
                return s
        return after[0]

    def _follow(self, plays: list[Action]) -> Action:
        p, v = self.p, self.view
        pass_action = next((a for a in self.legal if a.kind is A.ASK_LEAD), None) or next(
            (a for a in self.legal if a.kind is A.PASS), None)
        assert v.last_play is not None
        last_seat = v.last_play[0]
        # Who gets the lead if everybody passes (接风 when the player went out).
        owner = last_seat if last_seat not in v.out else self._beneficiary(last_seat)
        partner = self.partner[owner] if owner != self.me else 1.0
        near = max(0.0, (8 - v.hand_counts[owner]) / 8)
        threshold = p.follow_threshold + partner * (p.partner_penalty + p.partner_near * near)
        # Taking the lead from an opponent denies him a lead (the Emperor's counts double).
        deny = (1.0 - partner) * (p.deny + p.urgency * near)
        if owner == v.emperor and self.me != v.emperor:
            deny *= 1.5
        if partner >= 0.95:
            # A sure partner is beaten only to rescue a play that the
            # opponents still to act would likely beat anyway.
            threshold += p.known_partner * (1.0 - p.rescue * self._lost(last_seat))
        if self.losers() == 0:
            threshold += 0.3          # nothing left to lead: no need to win rounds
        best: Action | None = None
        best_score = float("-inf")
        for a in plays:
            shape = shape_of(a.cards)
            keep = 1.0 - self.table.beaten(shape, self.opp_weight)
            score = (self.delta(shape) + (p.follow_keep + deny) * keep
                     + self.bonus(shape, keep) - self.penalty(a))
            if score > best_score:
                best, best_score = a, score
        if best is not None and (best_score > threshold or pass_action is None):
            return best
        assert pass_action is not None
        return pass_action
