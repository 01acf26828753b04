"""Many games stepped as one batch: :class:`VectorEnv` (``n`` games, one decision each
per step, observations and masks stacked as ``[n, OBS_SIZE]`` and ``[n, 29379]`` arrays).

>>> import numpy as np
>>> from baohuang.env import VectorEnv
>>> envs = VectorEnv(4, preset="shandong")
>>> obs, info = envs.reset(seed=0)
>>> from baohuang.env import OBS_SIZE
>>> obs["observation"].shape == (4, OBS_SIZE), obs["action_mask"].shape
(True, (4, 29379))
>>> rng = np.random.default_rng(0)
>>> for _ in range(100):
...     actions = [rng.choice(legal) for legal in envs.legal_indexes()]
...     obs, rewards, terminations, truncations, info = envs.step(actions)
>>> rewards.shape, int(info["to_act"][0]) in range(5)
((4, 5), True)

Each game's observation and mask are those of its seat to act (``info["to_act"]``),
exactly what the PettingZoo environment's ``observe`` gives that seat (the same
numbers, the same layout: ``docs/rl.md``), and a game reset with ``seed + i`` is the
PettingZoo environment reset with that seed.  One step is one decision in each game.

A step makes no ``View``: :class:`ValuesEncoder` reads the view's values
(``Game.view_values``: the public fields and the seat's own) and the plays and passes
from the actions it applies (every seat sees each of them), and the mask is changed
only where the legal actions were and are.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt
from gymnasium import spaces
from gymnasium.utils import seeding
from gymnasium.vector.utils import batch_space

import baohuang as bh

from .actions import N_ACTIONS, ActionEncoder, IllegalActionIndex, decode
from .observation import _NBYTES, OBS_HIGH, OBS_SIZE
from .pettingzoo_env import make_rules
from .values import ValuesEncoder, legal_indexes_of

__all__ = ["ValuesEncoder", "VectorEnv"]


from baohuang.engine.views import OWN_FIELDS as _OWN_FIELDS

#: where a seat's legal actions are among its own view values
_LEGAL = _OWN_FIELDS.index("legal_actions")


class VectorEnv:
    """``n`` games of 保皇 stepped together, each at its seat to act.

    ``preset`` (or a ``bh.RuleSet``) and ``**options``: the rules, as for
    ``baohuang_v0.env``.  :meth:`reset` and :meth:`step` return the observations as
    ``{"observation": float32[n, OBS_SIZE], "action_mask": int8[n, 29379]}``: row ``i``
    is game ``i``'s seat to act (``info["to_act"][i]``).  These two arrays are the
    environment's own and are written over by the next step: copy what you keep.

    A game that ends is dealt again at once (its next deal seed drawn as the PettingZoo
    environment's ``reset()`` draws it): that step's row is the new game's first
    decision, ``rewards[i]`` holds the scores of the game that ended (per seat, 0
    while it goes on) and ``terminations[i]`` is True.

    ``num_envs``, ``single_observation_space``, ``single_action_space``,
    ``observation_space`` and ``action_space`` follow Gymnasium's vector conventions
    (a turn-based game of five seats is not one of its single-agent vector
    environments, so it is not a ``gymnasium.vector.VectorEnv``)."""

    def __init__(self, n: int, preset: str | bh.RuleSet = "shandong", **options: Any) -> None:
        if n < 1:
            raise ValueError("a batch has at least one game")
        self.n = n
        self.rules = make_rules(preset, **options)
        self.num_envs = n
        # the spaces, by Gymnasium's vector conventions (one game's, and the batch's)
        self.single_observation_space = spaces.Dict({
            "observation": spaces.Box(low=np.zeros(OBS_SIZE, dtype=np.float32),
                                      high=OBS_HIGH, dtype=np.float32),
            "action_mask": spaces.Box(low=0, high=1, shape=(N_ACTIONS,), dtype=np.int8)})
        self.single_action_space = spaces.Discrete(N_ACTIONS)
        self.observation_space = batch_space(self.single_observation_space, n)
        self.action_space = batch_space(self.single_action_space, n)
        self.observations = np.zeros((n, OBS_SIZE), dtype=np.float32)
        self.masks = np.zeros((n, N_ACTIONS), dtype=np.int8)
        self.to_act = np.zeros(n, dtype=np.int64)
        self._obs_bytes = self.observations.data.cast("B")
        self._mask_bytes = self.masks.data.cast("B")
        self._actions = ActionEncoder()
        self._encoders = [ValuesEncoder() for _ in range(n)]
        self._rngs = [seeding.np_random(None)[0] for _ in range(n)]
        self.games: list[bh.Game] = [bh.Game.new(self.rules, 0) for _ in range(n)]
        # per game: the legal actions of its seat to act and their indexes
        self._legal: list[tuple[bh.Action, ...]] = [() for _ in range(n)]
        self._indexes: list[list[int]] = [[] for _ in range(n)]

    # -- episodes ------------------------------------------------------------------
    def reset(self, seed: int | None = None) -> tuple[dict[str, npt.NDArray[Any]],
                                                       dict[str, Any]]:
        """Deal every game anew; with ``seed``, game ``i`` as the PettingZoo
        environment's ``reset(seed=seed + i)``."""
        for i in range(self.n):
            if seed is not None:
                self._rngs[i] = seeding.np_random(seed + i)[0]
            self._deal(i)
        self._decide()
        return self._observed(), {"to_act": self.to_act}

    def _deal(self, i: int) -> None:
        """Game ``i`` dealt anew (its first decision is made by :meth:`_decide`)."""
        self.games[i] = bh.Game.new(self.rules, int(self._rngs[i].integers(2**31)))
        self._encoders[i].reset()

    def _decide(self) -> None:
        """Every game's next decision: its seat's observation row, mask and legal
        actions."""
        obs, mask, masks = self._obs_bytes, self._mask_bytes, self.masks
        actions = self._actions
        all_legal, all_indexes = self._legal, self._indexes
        seats = []
        for i, (game, encoder) in enumerate(zip(self.games, self._encoders, strict=True)):
            seat = game.to_act
            assert seat is not None
            public, own = game.view_values(seat)
            start = i * _NBYTES
            obs[start:start + _NBYTES] = encoder.encode_values(public, own)
            legal = own[_LEGAL]
            indexes = legal_indexes_of(actions, public, own)
            base = i * N_ACTIONS
            for index in all_indexes[i]:
                mask[base + index] = 0
            if len(indexes) <= 32:
                for index in indexes:
                    mask[base + index] = 1
            else:
                masks[i, indexes] = 1
            all_legal[i] = legal
            all_indexes[i] = indexes
            seats.append(seat)
        self.to_act[:] = seats

    def _observed(self) -> dict[str, npt.NDArray[Any]]:
        return {"observation": self.observations, "action_mask": self.masks}

    def legal_indexes(self) -> list[list[int]]:
        """Per game, the indexes of its seat's legal actions (the 1s of its mask)."""
        return [list(indexes) for indexes in self._indexes]

    def step(self, actions: Sequence[int] | npt.NDArray[np.integer[Any]]
             ) -> tuple[dict[str, npt.NDArray[Any]], npt.NDArray[np.float32],
                        npt.NDArray[np.bool_], npt.NDArray[np.bool_], dict[str, Any]]:
        """Each game's seat to act takes its action (an index of its mask).  An index
        outside its game's mask raises ``IllegalActionIndex`` naming the game, and no
        game moves."""
        chosen = actions.tolist() if isinstance(actions, np.ndarray) else list(actions)
        if len(chosen) != self.n:
            raise ValueError(f"{self.n} actions wanted (one per game), not {len(chosen)}")
        moves = []
        for i, index in enumerate(chosen):
            try:
                moves.append(self._legal[i][self._indexes[i].index(index)])
            except ValueError:
                game = self.games[i]
                try:
                    decode(int(index), game.view(game.to_act))
                except IllegalActionIndex as exc:
                    raise IllegalActionIndex(exc.index, f"game {i}: {exc}") from None
                raise
        rewards = np.zeros((self.n, 5), dtype=np.float32)
        terminations = np.zeros(self.n, dtype=np.bool_)
        for i, (game, action) in enumerate(zip(self.games, moves, strict=True)):
            seat = game.to_act
            assert seat is not None
            game.apply(action)
            if game.is_over:
                result = game.result
                assert result is not None
                rewards[i] = result.scores
                terminations[i] = True
                self._deal(i)
            else:
                self._encoders[i].record(seat, action)
        self._decide()
        return (self._observed(), rewards, terminations, np.zeros(self.n, dtype=np.bool_),
                {"to_act": self.to_act})

    def close(self) -> None:
        pass

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        """For ``copy.deepcopy`` and ``pickle`` (a trainer shipping environments to
        its workers): the games, their encoders, deal generators, arrays and spaces; the
        copy goes on as the original would.  (A compiled build's ``VectorEnv`` can be
        made only through its constructor, and the arrays' byte views do not pickle.)"""
        return _restore, (self.n, self.rules, self.games, self._encoders, self._rngs,
                          self._legal, self._indexes, self.observations, self.masks,
                          self.to_act, self.observation_space, self.action_space,
                          self.single_observation_space, self.single_action_space)


def _restore(n: int, rules: bh.RuleSet, games: list[bh.Game], encoders: list[ValuesEncoder],
             rngs: list[np.random.Generator], legal: list[tuple[bh.Action, ...]],
             indexes: list[list[int]], observations: npt.NDArray[np.float32],
             masks: npt.NDArray[np.int8], to_act: npt.NDArray[np.int64],
             observation_space: spaces.Space[Any], action_space: spaces.Space[Any],
             single_observation_space: spaces.Dict, single_action_space: spaces.Discrete
             ) -> VectorEnv:
    """The batch of :meth:`VectorEnv.__reduce__`."""
    envs = VectorEnv(n, rules)
    envs.games, envs._encoders, envs._rngs = games, encoders, rngs
    envs._legal, envs._indexes = legal, indexes
    envs.observations[:] = observations
    envs.masks[:] = masks
    envs.to_act[:] = to_act
    envs.observation_space, envs.action_space = observation_space, action_space
    envs.single_observation_space = single_observation_space
    envs.single_action_space = single_action_space
    return envs
