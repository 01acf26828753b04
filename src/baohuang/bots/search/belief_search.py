"""``belief``: the search bot drawing its deals from beliefs.

The same determinized search as :mod:`.search` (successive halving over the
legal moves, anchored on ``heuristic``, the fast rollouts of :mod:`.rollout`
at the leaves), but each deal it plays out is drawn from
:class:`~baohuang.bots.belief.Belief`: the Guard placement from the belief's
posterior (declarations, beating rates and the others' passes), then the
hidden hands by sampling-importance-resampling against the play model, so
deals in which a seat passed while holding a cheap beat are drawn less
often.  Its budget is playouts (``belief-N``: ``N`` playouts, reproducible)
or a think time in seconds (``time_limit``, read from ``clock``), as for
``search``; the expert level of :mod:`baohuang.bots.levels` is this bot
anchored on the ``learned`` bot, with a think time.

>>> import baohuang as bh
>>> from baohuang.bots import make_bot
>>> game = bh.Game.new(seed=5)
>>> bot = make_bot("belief-60", seed=1)
>>> legal = game.legal_actions()
>>> bot.choose(game.view(game.to_act), legal) in legal
True
"""

from __future__ import annotations

from typing import Any

from ...engine.views import View
from ..base import register, register_budget
from ..belief import Belief
from .search import DEFAULT_ITERATIONS, Deals, SearchBot

__all__ = ["BELIEF_SAMPLES", "BeliefSearchBot"]

#: Deals drawn per Guard placement to weigh the placements.
BELIEF_SAMPLES = 12
#: Candidate deals per deal played out (sampling-importance-resampling).
RESAMPLE = 4


@register("belief")
class BeliefSearchBot(SearchBot):
    """:class:`~.search.SearchBot` with deals from :class:`~baohuang.bots.belief.Belief`
    (``samples`` per Guard placement, ``resample`` candidates per deal); the other
    arguments are :class:`~.search.SearchBot`'s."""

    name = "belief"

    def __init__(self, seed: int = 0, *, samples: int = BELIEF_SAMPLES,
                 resample: int = RESAMPLE, iterations: int = DEFAULT_ITERATIONS,
                 **options: Any) -> None:
        super().__init__(seed, iterations=iterations, **options)
        self.samples = samples
        self.resample = resample

    def sampler(self, view: View) -> Deals:
        return Belief(view, samples=self.samples, resample=self.resample,
                      seed=self.seed).sampler()


@register_budget("belief")
def belief_with_budget(seed: int, iterations: int) -> BeliefSearchBot:
    """``belief-N``: the belief search with ``N`` playouts per decision.

    >>> from baohuang.bots import make_bot
    >>> make_bot("belief-250", seed=3)
    <BeliefSearchBot seed=3 iterations=250>
    """
    return BeliefSearchBot(seed, iterations=iterations)
