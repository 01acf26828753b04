"""保皇 for RLCard: ``rlcard.make("baohuang")`` once ``baohuang.env`` is imported.

The game is :class:`baohuang.Game`; a player's state is built from its own view
only: ``obs`` is the observation vector of ``docs/rl.md`` and ``legal_actions``
maps the indexes of the fixed action space (``baohuang.env.actions``) of its legal
actions (a dict in the engine's order, as RLCard's Dou Dizhu makes it) to their
features (``baohuang.env.action_features``: what RLCard's DMC reads, as in its Dou
Dizhu).  Payoffs are the game's scores.  Config keys besides RLCard's ``seed`` and
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

from typing import Any

import numpy as np
import numpy.typing as npt
from rlcard.envs import Env
from rlcard.envs.registration import register, registry

import baohuang as bh

from .action_features import ACTION_FEATURE_SIZE, action_feature, action_features
from .actions import N_ACTIONS, ActionEncoder, decode
from .observation import OBS_SIZE, observe
from .values import Decisions, ValuesEncoder

__all__ = ["BaohuangEnv", "BaohuangGame"]

#: per action: its text (``raw_legal_actions``), shared by every environment
from baohuang.engine.views import OWN_FIELDS as _OWN_FIELDS

#: where a seat's legal actions are among its own view values
_LEGAL = _OWN_FIELDS.index("legal_actions")


_TEXTS: dict[bh.Action, str] = {}


def _text(action: bh.Action) -> str:
    text = _TEXTS.get(action)
    if text is None:
        if len(_TEXTS) > 100_000:
            _TEXTS.clear()
        text = _TEXTS[action] = str(action)
    return text


class BaohuangGame:
    """RLCard's game interface (``init_game``, ``step``, ``get_state`` …) over one
    :class:`baohuang.Game`, its deal seeds drawn from RLCard's ``np_random``.

    A state is made from the seat's view's values (``Game.view_values``): the
    observation by a :class:`~baohuang.env.values.ValuesEncoder` told of each action
    this game applies, the legal actions' indexes by an
    :class:`~baohuang.env.actions.ActionEncoder`, each once per state.  After
    ``step_back`` (the game replaced by an earlier copy) the rest of the game's
    observations are made from the seat's view afresh (the same numbers)."""

    def __init__(self, rules: bh.RuleSet) -> None:
        self.rules = rules
        self.allow_step_back = False
        self.np_random = np.random.RandomState()
        self.game = bh.Game.new(rules, 0)
        self._before: list[bh.Game] = []
        self._observations = ValuesEncoder()
        self._actions = ActionEncoder()
        self._synced = -1
        self._decisions = Decisions()

    def init_game(self) -> tuple[dict[str, Any], int]:
        self.game = bh.Game.new(self.rules, int(self.np_random.randint(2**31 - 1)))
        self._before = []
        self._observations.reset()
        self._synced = self.game.version
        player = self.get_player_id()
        return self.get_state(player), player

    def step(self, action: bh.Action) -> tuple[dict[str, Any], int]:
        game = self.game
        if self.allow_step_back:
            self._before.append(game.copy())
        seat = game.to_act
        synced = self._synced == game.version
        game.apply(action)
        if synced and seat is not None:
            self._observations.record(seat, action)
            self._synced = game.version
        player = self.get_player_id()
        return self.get_state(player), player

    def step_back(self) -> bool:
        if not self._before:
            return False
        self.game = self._before.pop()
        self._synced = -1
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

    def decision(self, seat: int) -> tuple[tuple[Any, ...], tuple[Any, ...], list[int]]:
        """``seat``'s view's values (``Game.view_values``) and the indexes of its legal
        actions (none unless it is to act), made once per state."""
        return self._decisions.of(self._actions, self.game, seat)

    def observation(self, seat: int) -> npt.NDArray[np.float32]:
        """``seat``'s observation vector (a new array)."""
        if self._synced == self.game.version:
            public, own, _ = self.decision(seat)
            data = self._observations.encode_values(public, own)
            return np.frombuffer(data, dtype=np.float32).copy()
        return observe(self.game.view(seat))

    def get_state(self, player: int) -> dict[str, Any]:
        """What ``player`` may know: its view, with its legal actions when it acts."""
        return {"view": self.game.view(player), "self": player}


class BaohuangEnv(Env):  # type: ignore[misc]  # (rlcard ships no types)
    """The RLCard environment ``baohuang``: ``state_shape`` the observation's
    ``OBS_SIZE`` numbers, ``action_shape`` the 36 action features of
    :mod:`baohuang.env.action_features` (the values of ``legal_actions``, and
    :meth:`get_action_feature`), which RLCard's DMC feeds its network with each
    observation."""

    name = "baohuang"
    game: BaohuangGame

    def __init__(self, config: dict[str, Any]) -> None:
        rules = bh.RuleSet.preset(config.get("game_preset", "shandong"))
        rules = rules.with_options(dict(config.get("game_options", {})))
        self.game = BaohuangGame(rules)
        self.state_shape = [[OBS_SIZE] for _ in range(5)]
        self.action_shape = [[ACTION_FEATURE_SIZE] for _ in range(5)]
        super().__init__(config)

    def _extract_state(self, state: dict[str, Any]) -> dict[str, Any]:
        view: bh.View = state["view"]
        seat: int = state["self"]
        _, own, indexes = self.game.decision(seat)
        legal = own[_LEGAL]
        features = action_features()
        return {
            "obs": self.game.observation(seat),
            "legal_actions": {i: features[i] for i in indexes},
            "raw_obs": view,
            "raw_legal_actions": [_text(a) for a in legal],
            "action_record": self.action_recorder,
        }

    def _decode_action(self, action_id: int) -> bh.Action:
        seat = self.game.get_player_id()
        _, own, indexes = self.game.decision(seat)
        try:
            return own[_LEGAL][indexes.index(action_id)]  # type: ignore[no-any-return]
        except ValueError:
            view = self.game.game.view(seat)
            return decode(int(action_id), view, list(view.legal_actions))   # (raises)

    def step(self, action: Any, raw_action: bool = False) -> tuple[dict[str, Any], int]:
        """RLCard's ``step``; a raw action may also be given as its text (``"pass"``)."""
        if raw_action and isinstance(action, str):
            action = bh.Action.parse(action)
        return super().step(action, raw_action)  # type: ignore[no-any-return]

    def _get_legal_actions(self) -> dict[int, npt.NDArray[np.int8]]:
        """The legal actions' indexes and their features, in the engine's order (a
        dict, as RLCard's Dou Dizhu makes it: ``list(keys())``, which RLCard's agents
        call, is several times quicker than an ``OrderedDict``'s)."""
        features = action_features()
        _, _, indexes = self.game.decision(self.game.get_player_id())
        return {i: features[i] for i in indexes}

    def get_action_feature(self, action: int) -> npt.NDArray[np.int8]:
        """The features of an action index (RLCard's DMC stores them with each
        decision): :func:`baohuang.env.action_features.action_feature`."""
        return action_feature(int(action))

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
