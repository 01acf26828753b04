"""A warm start for Deep Monte-Carlo: the heuristic bot's games as training data.

:func:`record` plays games of five ``heuristic`` seats and keeps every decision with
a choice: the observation, the legal action indexes, the heuristic's choice, the
action taken and the seat's final score.  With probability ``deviate_role`` (role
phase) or ``deviate_play`` (card play) the action taken is a random legal one
instead of the heuristic's, so that the final scores also say what the other
actions are worth (the data of Deep Monte-Carlo with the heuristic as the policy).

:func:`fit` (PyTorch) trains the Q network on them with two terms: the squared error
of the taken action's value against the final score (the Monte-Carlo target of
:mod:`.train`), and the cross-entropy of a softmax over the legal actions' values
(temperature ``tau`` points) against the heuristic's choice.  The network so starts
as the heuristic's policy with values in points; the greedy choice departs from the
heuristic where the scores of deviations say another action is worth more than the
margin the imitation term asks for.  :mod:`.train` then goes on from these weights
(``baohuang train --init``).
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import numpy.typing as npt

import baohuang as bh

from ..bots import make_bot
from ..env.actions import ActionEncoder
from ..env.observation import OBS_SIZE, ObservationEncoder

__all__ = ["Demos", "record"]

Ints = npt.NDArray[np.int64]


@dataclass
class Demos:
    """Decisions of recorded games.  ``obs[i]``: the raw observation (float16, exact
    for counts); the legal indexes of decision ``i`` are ``actions[start[i]:start[i + 1]]``;
    ``chosen[i]``/``taken[i]``: positions among them of the heuristic's choice and of
    the action played; ``score[i]``: the seat's final score; ``stage[i]``: 0 role
    phase, 1 play."""

    obs: npt.NDArray[np.float16]
    start: Ints
    actions: Ints
    chosen: Ints
    taken: Ints
    score: npt.NDArray[np.float32]
    stage: npt.NDArray[np.int8]

    def __len__(self) -> int:
        return len(self.score)

    def save(self, path: Path | str) -> None:
        np.savez(path, obs=self.obs, start=self.start, actions=self.actions,
                 chosen=self.chosen, taken=self.taken, score=self.score, stage=self.stage)

    @classmethod
    def load(cls, path: Path | str) -> Demos:
        with np.load(path) as d:
            return cls(d["obs"], d["start"], d["actions"], d["chosen"], d["taken"],
                       d["score"], d["stage"])

    @classmethod
    def concat(cls, parts: list[Demos]) -> Demos:
        offsets = np.cumsum([0] + [len(p.actions) for p in parts[:-1]])
        start = np.concatenate([p.start[:-1] + o for p, o in zip(parts, offsets, strict=True)]
                               + [np.array([sum(len(p.actions) for p in parts)])])
        return cls(np.concatenate([p.obs for p in parts]), start,
                   np.concatenate([p.actions for p in parts]),
                   np.concatenate([p.chosen for p in parts]),
                   np.concatenate([p.taken for p in parts]),
                   np.concatenate([p.score for p in parts]),
                   np.concatenate([p.stage for p in parts]))


def record(games: int, *, rules: bh.RuleSet | None = None, seed: int = 0,
           deviate_role: float = 0.2, deviate_play: float = 0.03) -> Demos:
    """``games`` games of five heuristic seats, their decisions with a choice."""
    rules = rules or bh.RuleSet.preset("shandong")
    rng = random.Random(seed)                     # the deals and the bots' seeds
    deviations = random.Random(~seed)            # apart, so the deals do not depend on them
    actions = ActionEncoder()
    obs: list[npt.NDArray[np.float32]] = []
    start: list[int] = [0]
    flat: list[int] = []
    chosen: list[int] = []
    taken: list[int] = []
    score: list[float] = []
    stage: list[int] = []
    for _ in range(games):
        game = bh.Game.new(rules, seed=rng.getrandbits(48), dealer=rng.randrange(5))
        bots = [make_bot("heuristic", seed=rng.getrandbits(32)) for _ in range(5)]
        encoder = ObservationEncoder()
        seats: list[int] = []
        while not game.is_over:
            seat = game.to_act
            assert seat is not None
            legal = game.legal_actions()
            view = game.view(seat)
            action = bots[seat].choose(view, legal)
            if len(legal) > 1:
                play = view.stage is bh.Stage.PLAY
                c = legal.index(action)
                t = c
                if deviations.random() < (deviate_play if play else deviate_role):
                    t = deviations.randrange(len(legal))
                    action = legal[t]
                obs.append(encoder.encode(view))
                flat.extend(actions.indexes(view, legal))
                start.append(len(flat))
                chosen.append(c)
                taken.append(t)
                stage.append(int(play))
                seats.append(seat)
            game.apply(action)
        result = game.result
        assert result is not None
        score.extend(float(result.scores[s]) for s in seats)
    return Demos(np.asarray(obs, dtype=np.float16).reshape(-1, OBS_SIZE),
                 np.asarray(start, dtype=np.int64), np.asarray(flat, dtype=np.int64),
                 np.asarray(chosen, dtype=np.int64), np.asarray(taken, dtype=np.int64),
                 np.asarray(score, dtype=np.float32), np.asarray(stage, dtype=np.int8))
