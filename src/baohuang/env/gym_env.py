"""A Gymnasium environment: the learner in one seat, the other four seats bots.

>>> from baohuang.env import BaohuangGymEnv
>>> env = BaohuangGymEnv("shandong", seat=0, opponents=("random",) * 4)
>>> observation, info = env.reset(seed=3)
>>> done = False
>>> while not done:
...     action = int(env.action_space.sample(env.action_masks()))
...     observation, reward, done, truncated, info = env.step(action)
>>> reward == env.game.result.scores[0]
True

The observation is the vector of :mod:`baohuang.env.observation` for the learner's
seat; :meth:`BaohuangGymEnv.action_masks` (and ``info["action_mask"]``) the 0/1
mask of legal actions, for maskable PPO.  The reward is the learner's score when
the game ends (0 before).  An action index that is not legal is played as the
托管 answer, with ``info["illegal_action"] = True`` (``on_illegal="raise"``
raises :class:`~baohuang.env.actions.IllegalActionIndex` instead).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import gymnasium as gym
import numpy as np
import numpy.typing as npt
from gymnasium import spaces

import baohuang as bh
from baohuang.bots import Bot, hosted_action, make_bot

from .actions import N_ACTIONS, ActionEncoder, IllegalActionIndex
from .observation import OBS_HIGH, OBS_SIZE, ObservationEncoder
from .pettingzoo_env import describe_game, make_rules
from .spaces import ActionSpace

__all__ = ["ENV_ID", "BaohuangGymEnv", "register"]

Observation = npt.NDArray[np.float32]


class BaohuangGymEnv(gym.Env[Observation, np.int64]):
    """One seat learns (``seat``: 0–4, or ``None`` for a random seat each episode);
    ``opponents``: the names of the four bots (``baohuang.bots``: random, hosted,
    heuristic, search) in seat order after the learner's."""

    metadata: dict[str, Any] = {"render_modes": ["ansi", "human"],  # noqa: RUF012
                                "render_fps": 1}

    def __init__(self, preset: str | bh.RuleSet = "shandong", *, seat: int | None = None,
                 opponents: Sequence[str] = ("heuristic",) * 4, on_illegal: str = "hosted",
                 render_mode: str | None = None, **options: Any) -> None:
        if seat is not None and not 0 <= seat < 5:
            raise ValueError(f"seat must be 0..4 or None, not {seat}")
        if len(opponents) != 4:
            raise ValueError(f"four opponents are needed, not {len(opponents)}")
        if on_illegal not in ("hosted", "raise"):
            raise ValueError("on_illegal must be 'hosted' or 'raise'")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be one of {self.metadata['render_modes']}")
        for name in opponents:
            make_bot(name, seed=0)                # an unknown name fails here, not later
        self.rules = make_rules(preset, **options)
        self.fixed_seat = seat
        self.opponents = tuple(opponents)
        self.on_illegal = on_illegal
        self.render_mode = render_mode
        self.observation_space = spaces.Box(low=np.zeros(OBS_SIZE, dtype=np.float32),
                                            high=OBS_HIGH, dtype=np.float32)
        self.action_space = ActionSpace(N_ACTIONS)     # (a Discrete: baohuang.env.spaces)
        self._observations = ObservationEncoder()
        self._actions = ActionEncoder()
        self.seat = seat if seat is not None else 0
        self.game = bh.Game.new(self.rules, 0)
        self.bots: dict[int, Bot] = {}

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None
              ) -> tuple[Observation, dict[str, Any]]:
        super().reset(seed=seed)
        rng = self.np_random
        self.seat = (self.fixed_seat if self.fixed_seat is not None
                     else int(rng.integers(5)))
        others = [(self.seat + i) % 5 for i in range(1, 5)]
        self.bots = {s: make_bot(name, seed=int(rng.integers(2**31)))
                     for s, name in zip(others, self.opponents, strict=True)}
        self._observations.reset()
        self.game = bh.Game.new(self.rules, int(rng.integers(2**31)))
        self._play_bots()
        return self._observe()

    def _play_bots(self) -> None:
        game = self.game
        while not game.is_over and game.to_act != self.seat:
            seat = game.to_act
            assert seat is not None
            game.apply(self.bots[seat].choose(game.view(seat), game.legal_actions()))

    def _observe(self, **extra: Any) -> tuple[Observation, dict[str, Any]]:
        view = self.game.view(self.seat)
        mask = (self._actions.mask(view) if view.legal_actions
                else np.zeros(N_ACTIONS, dtype=np.int8))
        return self._observations.encode(view), {"action_mask": mask, "seat": self.seat,
                                                 **extra}

    def action_masks(self) -> npt.NDArray[np.int8]:
        """The legal actions now, a 0/1 vector (what maskable PPO asks for, and what
        ``action_space.sample`` takes)."""
        view = self.game.view(self.seat)
        if not view.legal_actions:
            return np.zeros(N_ACTIONS, dtype=np.int8)
        return self._actions.mask(view)

    def step(self, action: np.int64 | int
             ) -> tuple[Observation, float, bool, bool, dict[str, Any]]:
        game = self.game
        if game.is_over:
            raise RuntimeError("the game is over: call reset()")
        view = game.view(self.seat)
        illegal = False
        try:
            chosen = self._actions.decode(int(action), view)
        except IllegalActionIndex:
            if self.on_illegal == "raise":
                raise
            chosen, illegal = hosted_action(view, view.legal_actions), True
        game.apply(chosen)
        self._play_bots()
        reward = 0.0
        result = game.result
        if result is not None:
            reward = float(result.scores[self.seat])
        observation, info = self._observe(illegal_action=illegal)
        if self.render_mode == "human":
            self.render()
        return observation, reward, game.is_over, False, info

    def render(self) -> str | None:
        text = describe_game(self.game)
        if self.render_mode == "human":
            print(text)
            return None
        return text


#: the Gymnasium id (``namespace/Name-vN``): ``gymnasium.make(ENV_ID, **kwargs)`` once
#: ``baohuang.env`` is imported, or ``gymnasium.make("baohuang.env:" + ENV_ID)``
ENV_ID = "baohuang/Baohuang-v0"


def register() -> None:
    """Register :class:`BaohuangGymEnv` with Gymnasium as :data:`ENV_ID` (its keyword
    arguments are ``gymnasium.make``'s; once a process)."""
    if ENV_ID not in gym.registry:
        gym.register(id=ENV_ID, entry_point="baohuang.env.gym_env:BaohuangGymEnv")


register()
