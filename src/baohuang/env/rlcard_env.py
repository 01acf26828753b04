"""保皇 for RLCard: ``rlcard.make("baohuang")`` once ``baohuang.env`` is imported.

The game is :class:`baohuang.Game`; a player's state is built from its own view
only: ``obs`` is the observation vector of ``docs/rl.md`` and ``legal_actions``
maps the indexes of the fixed action space (``baohuang.env.actions``) of its legal
actions.  Payoffs are the game's scores.  Config keys besides RLCard's ``seed`` and
``allow_step_back``: ``game_preset`` (a preset name, default ``shandong``) and
``game_options`` (rule options, as ``RuleSet.with_options`` takes them).

>>> import rlcard
>>> import baohuang.env
>>> from rlcard.agents import RandomAgent
>>> env = rlcard.make("baohuang", config={"seed": 1, "game_preset": "wurenju"})
>>> env.set_agents([RandomAgent(num_actions=env.num_actions) for _ in range(5)])
>>> trajectories, payoffs = env.run()
>>> len(payoffs), env.num_players
(5, 5)
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Any

import numpy as np
from rlcard.envs import Env
from rlcard.envs.registration import register, registry

import baohuang as bh

from .actions import N_ACTIONS, decode, legal_indexes
from .observation import OBS_SIZE, observe

__all__ = ["BaohuangEnv", "BaohuangGame"]


class BaohuangGame:
    """RLCard's game interface (``init_game``, ``step``, ``get_state`` …) over one
    :class:`baohuang.Game`, its deal seeds drawn from RLCard's ``np_random``."""

    def __init__(self, rules: bh.RuleSet) -> None:
        self.rules = rules
        self.allow_step_back = False
        self.np_random = np.random.RandomState()
        self.game = bh.Game.new(rules, 0)
        self._before: list[bh.Game] = []

    def init_game(self) -> tuple[dict[str, Any], int]:
        self.game = bh.Game.new(self.rules, int(self.np_random.randint(2**31 - 1)))
        self._before = []
        player = self.get_player_id()
        return self.get_state(player), player

    def step(self, action: bh.Action) -> tuple[dict[str, Any], int]:
        if self.allow_step_back:
            self._before.append(self.game.copy())
        self.game.apply(action)
        player = self.get_player_id()
        return self.get_state(player), player

    def step_back(self) -> bool:
        if not self._before:
            return False
        self.game = self._before.pop()
        return True

    def get_num_players(self) -> int:
        return 5

    def get_num_actions(self) -> int:
        return N_ACTIONS

    def get_player_id(self) -> int:
        """The seat to act (seat 0 once the game is over)."""
        seat = self.game.to_act
        return 0 if seat is None else seat

    def is_over(self) -> bool:
        return self.game.is_over

    def get_state(self, player: int) -> dict[str, Any]:
        """What ``player`` may know: its view, with its legal actions when it acts."""
        return {"view": self.game.view(player), "self": player}


class BaohuangEnv(Env):  # type: ignore[misc]  # (rlcard ships no types)
    """The RLCard environment ``baohuang``."""

    name = "baohuang"

    def __init__(self, config: dict[str, Any]) -> None:
        rules = bh.RuleSet.preset(config.get("game_preset", "shandong"))
        rules = rules.with_options(dict(config.get("game_options", {})))
        self.game = BaohuangGame(rules)
        self.state_shape = [[OBS_SIZE] for _ in range(5)]
        self.action_shape = [None for _ in range(5)]
        super().__init__(config)

    def _extract_state(self, state: dict[str, Any]) -> dict[str, Any]:
        view: bh.View = state["view"]
        legal = list(view.legal_actions)
        return {
            "obs": observe(view),
            "legal_actions": OrderedDict((i, None) for i in legal_indexes(view, legal)),
            "raw_obs": view,
            "raw_legal_actions": [str(a) for a in legal],
            "action_record": self.action_recorder,
        }

    def _decode_action(self, action_id: int) -> bh.Action:
        view = self.game.game.view(self.game.get_player_id())
        return decode(int(action_id), view, list(view.legal_actions))

    def step(self, action: Any, raw_action: bool = False) -> tuple[dict[str, Any], int]:
        """RLCard's ``step``; a raw action may also be given as its text (``"pass"``)."""
        if raw_action and isinstance(action, str):
            action = bh.Action.parse(action)
        return super().step(action, raw_action)  # type: ignore[no-any-return]

    def _get_legal_actions(self) -> OrderedDict[int, None]:
        view = self.game.game.view(self.game.get_player_id())
        return OrderedDict((i, None) for i in legal_indexes(view, list(view.legal_actions)))

    def get_payoffs(self) -> np.ndarray[Any, np.dtype[np.float64]]:
        """Each seat's score of the finished game."""
        result = self.game.game.result
        if result is None:
            raise ValueError("the game is not over")
        return np.array(result.scores, dtype=np.float64)

    def get_perfect_information(self) -> dict[str, Any]:
        """Every hand and the public state (for analysis, never for a player)."""
        game = self.game.game
        public = game.view(None)
        return {"hands": [[str(c) for c in game.hand(s)] for s in range(5)],
                "emperor": game.emperor, "guard": game.guard, "solo": game.solo,
                "stage": public.stage.value, "to_act": game.to_act,
                "played": [str(c) for c in public.played]}


if "baohuang" not in registry.env_specs:
    register(env_id="baohuang", entry_point="baohuang.env.rlcard_env:BaohuangEnv")
