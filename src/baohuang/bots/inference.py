"""Guard inference (猜保): who is the hidden Guard (侍卫), from one seat's view.

The main function is::

    guard_probabilities(view: View) -> tuple[float, float, float, float, float]

Entry ``s`` is the probability that seat ``s`` is the Guard.  The entries sum
to 1.  The Emperor's entry is the probability of a *hidden solo* (暗独保: the
Emperor is his own guard); it is 0 whenever the view rules solo out.  When the
view knows the Guard (明保, a standing 造反, a played Guard card or called
card, an open solo, the viewer's own role) the answer is exact: 1.0 on that
seat.  Before the Emperor is fixed there is no Guard yet and the answer is
uniform.  The function reads only public information and the viewer's own
hand, so it is as fair as the view; it is fast (one pass over the events).

The model is a small Bayesian update with hand-set likelihood ratios:

*Prior.*  Every seat other than the Emperor weighs 1; the Emperor weighs
:data:`SOLO_PRIOR_CARD` (``card`` mode: he may hold the Guard card too) or
:data:`SOLO_PRIOR_CALL` (``call`` mode: he may hold all four called copies).
Each weight is damped by ``((left + 1) / (dealt + 1)) ** 0.5``: a seat that
has played most of its cards without showing the Guard card is less likely to
still hold it.

*Hard evidence (likelihood 0 or 1).*  The viewer's own hand (holding the
Guard card or the fourth called copy makes it the Guard; otherwise it is
not).  A player who went out without a reveal is not the Guard (he played
every card).  In ``call`` mode a player other than the Emperor who played a
copy of the called card without a reveal is not the Guard.  Under
``skip_two_if_solo`` an abdication shows the abdicator holds the Guard card.
Every 接风 (``lead`` event with reason ``lead_after_out`` under
``lead_after_out=teammate``) is replayed under each hypothesis: a hypothesis
under which the lead would have gone to another seat is dropped.  A game
that went on when it would have ended under a hypothesis drops it too.

*Soft evidence (hand-set likelihood ratios, ``P(obs | guard) / P(obs | not)``).*
Saying 造反 :data:`LR_REBEL`, not saying it :data:`LR_NO_REBEL` (the hidden
Guard is asked too; a lone 造反 doubles only the sayer's own score, which pays
a Guard with a good hand, while rebels — the side that usually loses the
stake — say it only with strong hands; so in bot play a 造反 points *to*
the Guard.  Players who follow the human convention that rebels say it
would call for a ratio below 1).  How often a seat beats the play it could
follow, counted separately on the Emperor's plays and on other seats':
a Guard beats his Emperor seldom and the others more often than a rebel
does, and both differ further once the Emperor is near the end
(:data:`BEAT_RATE_EMPEROR`, :data:`BEAT_RATE_OTHER`, :data:`NEAR`).  Each count is
scored as beta-binomial (concentration :data:`CONCENTRATION`): a seat's
hand sets much of its beating rate, so the evidence of many follows by one
seat saturates instead of multiplying without bound.  Leading a low play
while the Emperor is next and near the end (feeding him) :data:`LR_FEED`;
asking 接风 (``lead_after_out=apply``) after a player goes out
:data:`LR_ASK_LEAD_SAME` when that player would be on the same side, else
:data:`LR_ASK_LEAD_OTHER`.  Finally :data:`MIX` of the base rate is mixed in
(never on seats the hard evidence ruled out) as a hedge against players who
behave unlike the model.

Accuracy helpers (used by tournaments to report accuracy by round against
the base rate): :func:`base_probabilities` (the prior without behaviour,
i.e. the base rate), :func:`log_loss` and :func:`brier` given the true Guard
seat, which is ``game.result.guard`` of the finished game (the Emperor's
seat for a solo), and :func:`rounds_played` to bin decisions by round.

>>> import baohuang as bh
>>> game = bh.Game.new(seed=1)
>>> while game.stage is not bh.Stage.PLAY:
...     game.apply(game.legal_actions()[0])
>>> probs = guard_probabilities(game.view(game.to_act))
>>> round(sum(probs), 9), len(probs)
(1.0, 5)
>>> truth = game.guard if game.guard is not None else 0
>>> log_loss(probs, truth) >= 0.0 and 0.0 <= brier(probs, truth) <= 2.0
True
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from functools import partial
from typing import Final

from ..engine.cards import GUARD_CARD, RANK_OF, parse_card
from ..engine.events import EventKind, Lead, Play, Seen
from ..engine.playphase import round_leader
from ..engine.rules import LeadAfterOut
from ..engine.views import View

K = EventKind
_HANDED_ON: Final = Lead("lead_after_out")     # the lead of 接风

__all__ = [
    "BEAT_RATE_EMPEROR",
    "BEAT_RATE_OTHER",
    "CONCENTRATION",
    "LR_ASK_LEAD_OTHER",
    "LR_ASK_LEAD_SAME",
    "LR_FEED",
    "LR_NO_REBEL",
    "LR_REBEL",
    "MIX",
    "NEAR",
    "SOLO_PRIOR_CALL",
    "SOLO_PRIOR_CARD",
    "base_probabilities",
    "brier",
    "current_events",
    "guard_probabilities",
    "log_loss",
    "rounds_played",
]

#: Prior weight of a hidden solo (``card`` mode), against 1 for each other seat.
SOLO_PRIOR_CARD: Final = 0.7
#: Prior weight of a hidden solo (``call`` mode), against 1 for each other seat.
SOLO_PRIOR_CALL: Final = 0.05
LR_REBEL: Final = 2.0
LR_NO_REBEL: Final = 0.9
#: How often (Guard, rebel) beat the Emperor's play when it is their turn
#: to follow, while the Emperor holds more than :data:`NEAR` cards / at most
#: that many (measured in bot play; a Guard seldom beats his Emperor, least
#: of all near the end).
BEAT_RATE_EMPEROR: Final = ((0.20, 0.30), (0.055, 0.165))
#: The same on another seat's play (a Guard sees only opponents among them,
#: a rebel mostly partners).
BEAT_RATE_OTHER: Final = ((0.28, 0.23), (0.24, 0.155))
#: The Emperor is near the end with at most this many cards.
NEAR: Final = 8
#: Concentration of the Beta law of each seat's own beating rate: how much a
#: seat's hand, not its role, sets how often it beats (lower: evidence from
#: many follows of one seat counts for less).
CONCENTRATION: Final = 8.0
LR_FEED: Final = 1.3
LR_ASK_LEAD_SAME: Final = 2.0
LR_ASK_LEAD_OTHER: Final = 0.5
#: Weight of the base rate mixed into the posterior (a hedge against
#: players who behave unlike the likelihood ratios assume).
MIX: Final = 0.05
_EPS: Final = 1e-9


def _one_hot(seat: int) -> tuple[float, ...]:
    return tuple(1.0 if s == seat else 0.0 for s in range(5))


def _normalized(weights: Sequence[float]) -> tuple[float, ...]:
    total = sum(weights)
    if total <= 0.0:
        return (0.2,) * 5
    return tuple(w / total for w in weights)


def _known(view: View) -> int | None:
    """The Guard's seat when the view knows it (the Emperor's for a solo)."""
    e = view.emperor
    if e is None:
        return None
    if view.guard is not None:
        return view.guard
    if view.solo is not None:
        return e
    if view.role == "guard" and view.seat is not None:
        return view.seat
    if (view.seat == e and view.rules.get("guard_mode") == "card"
            and GUARD_CARD in view.hand):
        return e
    return None


def _abdicated_guard(view: View) -> int | None:
    """Under ``skip_two_if_solo`` (``card`` mode) the abdicator keeps the
    Guard card: his abdication is public."""
    rules = view.rules
    if rules.get("abdication") != "skip_two_if_solo" or rules.get("guard_mode") != "card":
        return None
    for ev in current_events(view):
        if ev.kind is K.ABDICATE and ev.seat is not None:
            return ev.seat
        if ev.kind is K.EMPEROR:
            break
    return None


def _hard_prior(view: View) -> list[float]:
    """The base rate: 1 on each seat that may be the Guard by what the view
    knows of the roles alone (the Emperor weighs the solo prior)."""
    e = view.emperor
    assert e is not None
    card_mode = view.rules.get("guard_mode") == "card"
    weights = [1.0] * 5
    weights[e] = SOLO_PRIOR_CARD if card_mode else SOLO_PRIOR_CALL
    me = view.seat
    if me is not None:
        if me == e:
            if card_mode or view.stage.value != "call":
                # The Emperor knows whether he plays alone (a solo shows in
                # his view as ``solo``, or as the Guard card in his hand).
                weights[e] = 0.0
        elif me != e and view.role == "rebel":
            weights[me] = 0.0
        elif me != e and view.role is None:
            # Before the Guard is fixed: the own hand still tells.
            if card_mode:
                weights[me] = 0.0 if GUARD_CARD not in view.hand else weights[me]
            elif view.called is not None and view.called not in view.hand:
                weights[me] = 0.0
    return weights


def base_probabilities(view: View) -> tuple[float, ...]:
    """The base rate to compare :func:`guard_probabilities` with: the same
    prior and role knowledge, without any evidence from behaviour or cards
    played (uniform over the seats that may be the Guard)."""
    if view.emperor is None:
        return (0.2,) * 5
    known = _known(view) or _abdicated_guard(view)
    if known is not None:
        return _one_hot(known)
    return _normalized(_hard_prior(view))


def guard_probabilities(view: View) -> tuple[float, ...]:
    """Each seat's probability of being the Guard (see the module docstring).

    >>> import baohuang as bh
    >>> game = bh.Game.new(seed=4)
    >>> guard_probabilities(game.view(0))          # nobody is Emperor yet
    (0.2, 0.2, 0.2, 0.2, 0.2)
    """
    e = view.emperor
    if e is None:
        return (0.2,) * 5
    known = _known(view)
    if known is None:
        known = _abdicated_guard(view)
    if known is not None:
        return _one_hot(known)
    weights = _hard_prior(view)
    card_mode = view.rules.get("guard_mode") == "card"
    called_text = str(view.called) if view.called is not None and not card_mode else ""
    events = current_events(view)
    played_by = [0] * 5
    for ev in events:
        if ev.kind is K.PLAY:
            assert isinstance(ev.data, Play) and ev.seat is not None
            played_by[ev.seat] += len(ev.data.cards)
    dealt = [view.hand_counts[s] + played_by[s] for s in range(5)]
    left = list(dealt)            # cards in hand as the events are replayed
    called_by = [0] * 5
    out: list[int] = []
    teammate_rule = view.rules.get("lead_after_out") == "teammate"
    last_seat: int | None = None
    in_play = False
    # Per seat, [beats, chances to follow] on others' plays (far, near the
    # Emperor's end) and on the Emperor's plays (far, near).
    tally = [[[0, 0] for _ in range(4)] for _ in range(5)]
    for ev in events:
        kind = ev.kind
        seat: int = -1 if ev.seat is None else ev.seat
        if not in_play:
            if kind is K.PLAY_STARTS:
                in_play = True
            elif kind is K.REBEL and seat >= 0 and seat != e:
                weights[seat] *= LR_REBEL
            elif kind is K.NO_REBEL and seat >= 0 and seat != e:
                weights[seat] *= LR_NO_REBEL
            continue
        if kind is K.PLAY:
            assert isinstance(ev.data, Play)
            cards = ev.data.cards
            if seat != e:
                if last_seat is not None and last_seat != seat:
                    bin_ = 2 * (last_seat == e) + (left[e] <= NEAR)
                    tally[seat][bin_][0] += 1
                    tally[seat][bin_][1] += 1
                elif (last_seat is None and left[e] <= 6 and e not in out
                      and _next_in(seat, out) == e and _low(cards)):
                    weights[seat] *= LR_FEED
            if called_text and seat != e:
                called_by[seat] += cards.count(called_text)
            left[seat] -= len(cards)
            last_seat = seat
        elif kind is K.PASS and seat != e and last_seat is not None and last_seat != seat:
            tally[seat][2 * (last_seat == e) + (left[e] <= NEAR)][1] += 1
        elif kind is K.OUT:
            out.append(seat)
        elif kind is K.LEAD:
            if ev.data == _HANDED_ON and teammate_rule:
                _teammate_lead(weights, e, out, last_seat, seat)
            last_seat = None
        elif kind is K.ASK_LEAD and seat >= 0 and last_seat is not None:
            for g in range(5):
                same = _royal(last_seat, e, g) == _royal(seat, e, g)
                weights[g] *= LR_ASK_LEAD_SAME if same else LR_ASK_LEAD_OTHER
    for s in range(5):
        if s != e:
            for bin_, (beats, chances) in enumerate(tally[s]):
                if chances:
                    rates = (BEAT_RATE_EMPEROR if bin_ >= 2 else BEAT_RATE_OTHER)[bin_ % 2]
                    weights[s] *= _follow_ratio(beats, chances, rates)
        if s in out or called_by[s]:
            weights[s] = 0.0      # out, or played a called copy, without a reveal
        else:
            weights[s] *= math.sqrt((view.hand_counts[s] + 1) / (dealt[s] + 1))
    if view.stage.value != "over":
        # A hidden solo ends once two others are out; 2 against 3 once the
        # three rebels are out (both royals out would have shown the Guard).
        if len(out) >= 2:
            weights[e] = 0.0
        for g in range(5):
            if g != e and all(s in out for s in range(5) if s not in (e, g)):
                weights[g] = 0.0
    base = _normalized(_hard_prior(view))
    if sum(weights) <= _EPS:
        return base
    # Hedge against players who behave unlike the model: mix in the base
    # rate, except on seats the hard evidence ruled out.
    post = _normalized(weights)
    mixed = [(1.0 - MIX) * q + MIX * b if q > 0.0 else 0.0
             for q, b in zip(post, base, strict=True)]
    return _normalized(mixed)


def _log_beta_binomial(k: int, n: int, mean: float) -> float:
    """``log P(k beats in n chances)`` (without the binomial coefficient)
    when each seat's beating rate is drawn from a Beta law with ``mean`` and
    concentration :data:`CONCENTRATION`."""
    a = CONCENTRATION * mean
    b = CONCENTRATION - a
    return (math.lgamma(k + a) + math.lgamma(n - k + b) - math.lgamma(n + a + b)
            - math.lgamma(a) - math.lgamma(b) + math.lgamma(a + b))


def _follow_ratio(beats: int, chances: int, rates: tuple[float, float]) -> float:
    """How much more likely a seat's follows are if it is the Guard, given
    the (Guard, rebel) beating ``rates``."""
    guard, rebel = rates
    return math.exp(_log_beta_binomial(beats, chances, guard)
                    - _log_beta_binomial(beats, chances, rebel))


def current_events(view: View) -> list[Seen]:
    """The view's events since the last deal (a redeal starts afresh), typed."""
    events = view.seen()
    for i in range(len(events) - 1, -1, -1):
        if events[i].kind is K.DEAL:
            return events[i:]
    return events


def _low(cards: list[str]) -> bool:
    """A play of one low rank without jokers (a feeding lead)."""
    return len(cards) <= 2 and all(RANK_OF[parse_card(c)] <= 10 for c in cards)


def _next_in(seat: int, out: list[int]) -> int:
    for step in range(1, 5):
        s = (seat + step) % 5
        if s not in out:
            return s
    return seat


def _royal(seat: int, e: int, g: int) -> bool:
    """Whether ``seat`` is royal when ``g`` is the Guard (``g == e``: solo)."""
    return seat in (e, g)


def _teammate_lead(weights: list[float], e: int, out: list[int], out_seat: int | None,
                   leader: int) -> None:
    """Drop every hypothesis under which 接风 would have gone elsewhere."""
    if out_seat is None or out_seat not in out:
        return
    holding = [s not in out for s in range(5)]
    for g in range(5):
        if weights[g] == 0.0:
            continue
        expected, _ = round_leader(out_seat, True, None, LeadAfterOut.TEAMMATE, holding,
                                   partial(_royal, e=e, g=g))     # (the engine's 接风)
        if expected != leader:
            weights[g] = 0.0


def rounds_played(view: View) -> int:
    """How many rounds of play are complete (the number of leads after the
    first), for binning accuracy by round."""
    return sum(1 for ev in current_events(view) if ev.kind is K.LEAD)


def log_loss(probs: Sequence[float], guard: int) -> float:
    """``-ln p(guard)`` (clipped at 1e-6): lower is better; uniform over 4
    seats scores ln 4 ≈ 1.386.

    >>> round(log_loss((0.0, 0.25, 0.25, 0.25, 0.25), 2), 3)
    1.386
    """
    return -math.log(max(probs[guard], 1e-6))


def brier(probs: Sequence[float], guard: int) -> float:
    """Brier score ``Σ (p_s - [s == guard])²``: 0 is perfect, 2 the worst.

    >>> brier((0.0, 0.25, 0.25, 0.25, 0.25), 2)
    0.75
    """
    return sum((p - (1.0 if s == guard else 0.0)) ** 2 for s, p in enumerate(probs))
