"""托管: the default policy of docs/rules.md §10.

In the role phase it takes every default answer: accept the Emperor card if
able, 暗保, no 造反, no 踢, no 抢独 (and 暗独保 as the solo Emperor; when it
must call, the lowest card it holds exactly three of).  In play a leader
leads his lowest single card (a 6 last under 憋6) and a follower passes.
"""

from __future__ import annotations

from collections.abc import Sequence
from operator import attrgetter

from ..engine.actions import Action, ActionKind
from ..engine.cards import GUARD_CARD, RANK_OF, Card
from ..engine.views import View
from .base import register

__all__ = ["HostedBot", "hosted_action"]

A = ActionKind
_DEFAULTS = (A.ACCEPT, A.GUARD_HIDDEN, A.SOLO_HIDDEN, A.DECLINE, A.PASS, A.ABDICATE)
_CALL, _PLAY = A.CALL, A.PLAY
_kind = attrgetter("kind")


def _revealing(card: Card, view: View) -> bool:
    return card == GUARD_CARD or (view.called is not None and card == view.called)


def hosted_action(view: View, legal: Sequence[Action]) -> Action:
    """The 托管 answer for ``view`` among ``legal``.

    >>> import baohuang as bh
    >>> game = bh.Game.new(seed=0)
    >>> hosted_action(game.view(game.to_act), game.legal_actions()).kind.value
    'accept'
    """
    if not legal:
        raise ValueError("no legal action to choose from")
    kinds = set(map(_kind, legal))            # (a lead has dozens of plays: read in C)
    for kind in _DEFAULTS:
        if kind in kinds:
            return next(a for a in legal if a.kind is kind)
    if _CALL in kinds:
        calls = [a for a in legal if a.kind is _CALL]
        counts = {c: view.hand.count(c) for c in {a.cards[0] for a in calls}}
        return min(calls, key=lambda a: (counts[a.cards[0]] != 3, a.cards[0]))
    if _PLAY in kinds:
        plays = [a for a in legal if a.kind is _PLAY]
        singles = [a for a in plays if len(a.cards) == 1]
        if singles:                           # (the key below, for one card)
            revealing = {GUARD_CARD, view.called}
            return min(singles, key=lambda a: (RANK_OF[a.cards[0]], a.cards[0] in revealing,
                                               a.cards[0]))
        return min(plays, key=lambda a: (len(a.cards), RANK_OF[a.cards[-1]] if a.cards else 0,
                                         sum(_revealing(c, view) for c in a.cards),
                                         max(a.cards)))
    return legal[0]


@register("hosted")
class HostedBot:
    """托管 as a bot."""

    name = "hosted"

    def __init__(self, seed: int = 0) -> None:
        self.seed = seed

    def choose(self, view: View, legal: Sequence[Action]) -> Action:
        return hosted_action(view, legal)
