"""Self-play for Deep Monte-Carlo: many games at once, one batched forward pass of
the NumPy network over every pending decision, epsilon-greedy choices, and each
decision of a learning seat kept with the seat's final score as its target.

A game's seats are all the network (self-play), or, with probability ``mix``, a
random half of them the ``heuristic`` bot (at least one seat stays the network's):
only the network's decisions become samples, unless ``learn_heuristic``: then the
heuristic seats' decisions do too (their actions' values under the same games, the
Monte-Carlo target of the heuristic's policy; cheap data once the network starts
from the heuristic's choices, :mod:`.imitate`).

With a guided network (:mod:`.model`) every decision's actions carry the hint of the
heuristic's choice, and the network's seats play as the ``learned`` bot does
(:func:`~.model.pick` with the network's margin), epsilon-greedy around that.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Final

import numpy as np
import numpy.typing as npt

import baohuang as bh

from ..bots import Bot, make_bot
from ..bots.heuristic import HeuristicBot
from ..env.actions import ActionEncoder
from ..env.observation import OBS_SIZE, ObservationEncoder
from .features import ACTION_SIZE, GUIDED_SIZE, inputs, with_hint
from .model import SCORE_SCALE, QNetwork, pick

__all__ = ["Samples", "SelfPlay"]

Array = npt.NDArray[np.float32]
_HEURISTIC: Final = "heuristic"


@dataclass
class Samples:
    """Decisions with their targets: scaled observations, the chosen action's
    features, and the final score divided by :data:`SCORE_SCALE`."""

    obs: Array = field(default_factory=lambda: np.zeros((0, OBS_SIZE), np.float32))
    acts: Array = field(default_factory=lambda: np.zeros((0, ACTION_SIZE), np.float32))
    targets: Array = field(default_factory=lambda: np.zeros(0, np.float32))

    @classmethod
    def empty(cls, guided: bool) -> Samples:
        return cls(acts=np.zeros((0, GUIDED_SIZE if guided else ACTION_SIZE), np.float32))

    def __len__(self) -> int:
        return len(self.targets)


@dataclass
class _Table:
    game: bh.Game
    encoder: ObservationEncoder
    bots: list[Bot | None]                    # None: the network's seat
    obs: list[list[Array]] = field(default_factory=lambda: [[] for _ in range(5)])
    acts: list[list[Array]] = field(default_factory=lambda: [[] for _ in range(5)])


class SelfPlay:
    """``tables`` games played side by side under ``rules``."""

    def __init__(self, rules: bh.RuleSet, *, tables: int = 32, epsilon: float = 0.03,
                 mix: float = 0.5, seed: int = 0, learn_heuristic: bool = False) -> None:
        self.rules = rules
        self.epsilon = epsilon
        self.mix = mix
        self.learn_heuristic = learn_heuristic
        self.rng = random.Random(seed)
        self.actions = ActionEncoder()
        self.heuristic = HeuristicBot()           # the hint of a guided network
        self.games = 0
        self.decisions = 0
        self.scores: list[float] = []             # the network's seats' final scores
        self._tables = [self._new_table() for _ in range(tables)]

    def _new_table(self) -> _Table:
        rng = self.rng
        game = bh.Game.new(self.rules, seed=rng.getrandbits(48), dealer=rng.randrange(5))
        bots: list[Bot | None] = [None] * 5
        if rng.random() < self.mix:
            keep = rng.randrange(5)
            for seat in range(5):
                if seat != keep and rng.random() < 0.5:
                    bots[seat] = make_bot(_HEURISTIC, seed=rng.getrandbits(32))
        return _Table(game, ObservationEncoder(), bots)

    def _finish(self, table: _Table, out: list[tuple[Array, Array, Array]]) -> None:
        result = table.game.result
        assert result is not None
        self.games += 1
        for seat in range(5):
            if table.bots[seat] is None:
                self.scores.append(float(result.scores[seat]))
            if table.obs[seat]:
                n = len(table.obs[seat])
                out.append((np.stack(table.obs[seat]), np.stack(table.acts[seat]),
                            np.full(n, result.scores[seat] / SCORE_SCALE, np.float32)))

    def play(self, network: QNetwork, samples: int) -> Samples:
        """Play on until at least ``samples`` decisions of finished games are kept."""
        done: list[tuple[Array, Array, Array]] = []
        kept = 0
        rng = self.rng
        while kept < samples:
            pending: list[tuple[int, int, Array, Array, list[bh.Action], int | None]] = []
            for t, table in enumerate(self._tables):
                while True:
                    game = table.game
                    if game.is_over:
                        before = len(done)
                        self._finish(table, done)
                        kept += sum(len(d[2]) for d in done[before:])
                        table = self._tables[t] = self._new_table()
                        continue
                    seat = game.to_act
                    assert seat is not None
                    legal = game.legal_actions()
                    bot = table.bots[seat]
                    if bot is not None:
                        view = game.view(seat)
                        action = bot.choose(view, legal)
                        if self.learn_heuristic and len(legal) > 1:
                            index = self.actions.indexes(view, [action])
                            obs, acts = inputs(table.encoder.encode(view),
                                               np.asarray(index, dtype=np.int64))
                            if network.guided:
                                acts = with_hint(acts, 0)
                            table.obs[seat].append(obs)
                            table.acts[seat].append(acts[0])
                        game.apply(action)
                        continue
                    if len(legal) == 1:
                        game.apply(legal[0])
                        continue
                    view = game.view(seat)
                    indexes = np.asarray(self.actions.indexes(view, legal), dtype=np.int64)
                    obs, acts = inputs(table.encoder.encode(view), indexes)
                    hint = None
                    if network.guided:
                        hint = legal.index(self.heuristic.choose(view, legal))
                        acts = with_hint(acts, hint)
                    pending.append((t, seat, obs, acts, legal, hint))
                    break
            owner = np.repeat(np.arange(len(pending)), [len(p[3]) for p in pending])
            values = network.q_values(np.stack([p[2] for p in pending]),
                                      np.concatenate([p[3] for p in pending]), owner)
            start = 0
            for t, seat, obs, acts, legal, hint in pending:
                n = len(acts)
                if rng.random() < self.epsilon:
                    j = rng.randrange(n)
                else:
                    j = pick(values[start:start + n], hint, network.margin)
                start += n
                table = self._tables[t]
                table.obs[seat].append(obs)
                table.acts[seat].append(acts[j])
                table.game.apply(legal[j])
                self.decisions += 1
        return Samples(np.concatenate([d[0] for d in done]), np.concatenate([d[1] for d in done]),
                       np.concatenate([d[2] for d in done]))
