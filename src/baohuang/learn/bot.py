"""The bot ``learned``: the Q network trained by self-play (:mod:`baohuang.learn.train`),
played with NumPy alone.  At each decision with a choice it takes the legal action
of the highest value; with one legal action it takes it without asking.  A guided
network (:mod:`.model`) also reads the ``heuristic`` bot's choice in the same view and
keeps it unless another action is worth more than its margin more.

>>> import baohuang as bh
>>> from baohuang.bots import make_bot
>>> game = bh.Game.new(seed=3)
>>> bots = [make_bot("learned", seed=s) for s in range(5)]
>>> while not game.is_over:
...     seat = game.to_act
...     game.apply(bots[seat].choose(game.view(seat), game.legal_actions()))
>>> game.result is not None
True
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from importlib import resources

import numpy as np

from ..bots.heuristic import HeuristicBot
from ..engine.actions import Action, ActionKind
from ..engine.events import Deal
from ..engine.state import Stage
from ..engine.views import View
from ..env.actions import ActionEncoder
from ..env.observation import observe
from .features import inputs, with_hint
from .model import QNetwork, pick

__all__ = ["WEIGHTS", "LearnedBot", "default_network", "make_learned"]

#: the weights shipped with the package (in ``baohuang/learn/weights/``)
WEIGHTS = "learned.npz"


@lru_cache(maxsize=1)
def default_network() -> QNetwork:
    """The shipped network (read once per process)."""
    with resources.as_file(resources.files(__package__) / "weights" / WEIGHTS) as path:
        return QNetwork.load(path)


class LearnedBot:
    """Greedy in the network's values; deterministic (the seed is not needed)."""

    name = "learned"

    def __init__(self, seed: int = 0, network: QNetwork | None = None) -> None:
        self.seed = seed
        self.network = network if network is not None else default_network()
        self._actions = ActionEncoder()
        self._heuristic = HeuristicBot(seed)

    def hint(self, view: View, legal: Sequence[Action]) -> int | None:
        """For a guided network, the position in ``legal`` of the heuristic's choice."""
        if not self.network.guided:
            return None
        return legal.index(self._heuristic.choose(view, legal))

    def values(self, view: View, legal: Sequence[Action], hint: int | None = None
               ) -> list[float]:
        """The network's value (expected final score) of each of ``legal``; a guided
        network's hint (:meth:`hint`) is computed unless given."""
        indexes = np.asarray(self._actions.indexes(view, legal), dtype=np.int64)
        obs, acts = inputs(observe(view), indexes)
        if self.network.guided:
            choice = self.hint(view, legal) if hint is None else hint
            assert choice is not None
            acts = with_hint(acts, choice)
        return [float(v) for v in self.network.q_values(obs, acts)]

    def choose(self, view: View, legal: Sequence[Action]) -> Action:
        if len(legal) == 1:
            return legal[0]
        hint = self.hint(view, legal)
        values = self.values(view, legal, hint)
        if view.stage is Stage.EMPEROR and _redealt(view):
            # Once a deal has been voided for want of an Emperor, take the Emperor card
            # when offered: five copies that always pass it on would redeal forever (the
            # presets that redeal were not in the training games).
            accept = [i for i, a in enumerate(legal) if a.kind is ActionKind.ACCEPT]
            if accept:
                return legal[max(accept, key=values.__getitem__)]
        return legal[pick(np.asarray(values), hint, self.network.margin)]


def _redealt(view: View) -> bool:
    """Whether the game's deal was voided and dealt again (its last deal is not the first)."""
    for event in reversed(view.seen()):
        if isinstance(event.data, Deal):
            return bool(event.data.deal)
    return False


def make_learned(seed: int) -> LearnedBot:
    """The registry's factory (entry point ``learned`` of ``baohuang.bots``)."""
    return LearnedBot(seed)
