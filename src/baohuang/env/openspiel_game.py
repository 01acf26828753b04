"""保皇 as an OpenSpiel game: ``pyspiel.load_game("python_baohuang")`` once
``baohuang.env`` is imported.

A sequential, imperfect-information, general-sum game of five players.  The deal
is one chance node: one of ``deals`` equally likely seeded shuffles (default
10,000; the engine deals from the seed).  Actions are the fixed action space of
``baohuang.env.actions``; returns are the game's scores.  Observers give, from a
player's view only: the observation vector of ``docs/rl.md`` as tensor and a text
of the view as string (with ``perfect_recall``: the events the player saw since
the deal); a public observer is the spectator's view.  Parameters: ``preset``
(default ``shandong``), ``options`` (``"kaopai=on,hold_sixes=on"``), ``deals``.

>>> import pyspiel
>>> import baohuang.env
>>> game = pyspiel.load_game("python_baohuang", {"preset": "wurenju"})
>>> state = game.new_initial_state()
>>> state.is_chance_node()
True
>>> state.apply_action(7)
>>> state.current_player() in range(5)
True
"""

from __future__ import annotations

import json
import random
import re
from typing import Any

import numpy as np
import numpy.typing as npt
import pyspiel

import baohuang as bh
from baohuang.bots.search.sampler import DealSampler
from baohuang.bots.search.worlds import determinized_game

from .actions import N_ACTIONS, decode, describe, legal_indexes
from .observation import OBS_SIZE, observe

__all__ = ["BaohuangSpielGame", "BaohuangSpielState", "ismcts_bot", "resample"]

_DEFAULTS: dict[str, Any] = {"preset": "shandong", "options": "", "deals": 10_000}
#: (a bound on any score: open solo 24, ×2 a standing 造反, ×2 a 踢, ×2 a lone
#: rebel's own doubling, and some room)
_UTILITY = 400.0
#: (a bound on decisions: a role phase, 216 plays with four passes each, void deals)
_MAX_LENGTH = 3000

_NO_INFORMATION_STATE_TENSOR = (
    "python_baohuang provides no information-state tensor (the observation tensor holds "
    "no history): use observation_tensor, or information_state_string")

_GAME_TYPE = pyspiel.GameType(
    short_name="python_baohuang",
    long_name="Python Baohuang (保皇)",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
    information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.GENERAL_SUM,
    reward_model=pyspiel.GameType.RewardModel.TERMINAL,
    max_num_players=5,
    min_num_players=5,
    provides_information_state_string=True,
    provides_information_state_tensor=False,
    provides_observation_string=True,
    provides_observation_tensor=True,
    parameter_specification=_DEFAULTS)


def _assignments(text: str) -> list[tuple[str, str]]:
    """The rule options of an ``options`` parameter: ``NAME=VALUE`` or ``NAME:VALUE``,
    separated by commas, semicolons or spaces."""
    out = []
    for part in re.split(r"[,;\s]+", text.strip()):
        if part:
            name, sep, value = part.partition("=") if "=" in part else part.partition(":")
            if not sep or not name or not value:
                raise ValueError(f"a rule option looks like NAME=VALUE, not {part!r}")
            out.append((name, value))
    return out


def _options_text(text: str) -> str:
    """The ``options`` parameter as the game's string writes it: ``NAME:VALUE`` joined
    by spaces.  (OpenSpiel reads a game string's parameters up to each ``,`` and its
    value after the last ``=``: written with either, the string would not load back.)"""
    return " ".join(f"{name}:{value}" for name, value in _assignments(text))


def _rules(params: dict[str, Any]) -> bh.RuleSet:
    rules = bh.RuleSet.preset(str(params.get("preset", "shandong")))
    return rules.with_options(dict(_assignments(str(params.get("options", "")))))


def _settings(params: dict[str, Any]) -> tuple[bh.RuleSet, int]:
    """The rule set and the number of deals of the game's parameters."""
    deals = int(params["deals"])
    if not 1 <= deals <= 1_000_000:
        raise ValueError(f"deals must be 1..1000000, not {deals}")
    return _rules(params), deals


class BaohuangSpielGame(pyspiel.Game):  # type: ignore[misc]  # (pyspiel ships no types)
    """The OpenSpiel game ``python_baohuang``."""

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        params = {**_DEFAULTS, **(params or {})}
        params["options"] = _options_text(str(params["options"]))
        self.rules, self.deals = _settings(params)
        info = pyspiel.GameInfo(num_distinct_actions=N_ACTIONS,
                                max_chance_outcomes=self.deals, num_players=5,
                                min_utility=-_UTILITY, max_utility=_UTILITY,
                                utility_sum=None, max_game_length=_MAX_LENGTH)
        super().__init__(_GAME_TYPE, info, params)

    def __getattr__(self, name: str) -> Any:
        """``rules`` and ``deals`` of a game that OpenSpiel restored from its string
        (a copy made without ``__init__``), read from its parameters."""
        if name in ("rules", "deals"):
            self.rules, self.deals = _settings({**_DEFAULTS, **self.get_parameters()})
            return self.__dict__[name]
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    def new_initial_state(self) -> BaohuangSpielState:
        return BaohuangSpielState(self)

    def make_py_observer(self, iig_obs_type: Any = None,
                         params: dict[str, Any] | None = None) -> BaohuangObserver:
        return BaohuangObserver(
            iig_obs_type or pyspiel.IIGObservationType(perfect_recall=False), params)


class BaohuangSpielState(pyspiel.State):  # type: ignore[misc]
    """A game before the deal (a chance node) or a :class:`baohuang.Game`."""

    def __init__(self, game: BaohuangSpielGame) -> None:
        super().__init__(game)
        self.game: bh.Game | None = None

    @property
    def _spiel(self) -> BaohuangSpielGame:
        # (asked of OpenSpiel each time, not kept: a clone copies the state's attributes,
        # and a copy of the game would be one restored from its string)
        game: BaohuangSpielGame = self.get_game()
        return game

    def current_player(self) -> int:
        if self.game is None:
            return int(pyspiel.PlayerId.CHANCE)
        if self.game.is_over:
            return int(pyspiel.PlayerId.TERMINAL)
        seat = self.game.to_act
        assert seat is not None
        return seat

    def view(self, player: int | None) -> bh.View:
        assert self.game is not None
        return self.game.view(player)

    def _legal_actions(self, player: int) -> list[int]:
        if self.game is None or self.game.to_act != player:
            return []
        return sorted(legal_indexes(self.view(player)))

    def chance_outcomes(self) -> list[tuple[int, float]]:
        p = 1.0 / self._spiel.deals
        return [(seed, p) for seed in range(self._spiel.deals)]

    def _apply_action(self, action: int) -> None:
        if self.game is None:
            self.game = bh.Game.new(self._spiel.rules, seed=int(action))
            return
        seat = self.game.to_act
        view = self.view(seat)
        self.game.apply(decode(int(action), view, list(view.legal_actions)))

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            return f"deal {action}"
        if self.game is not None and self.game.to_act == player:
            view = self.view(player)
            try:
                return str(decode(int(action), view, list(view.legal_actions)))
            except ValueError:
                pass
        return describe(int(action))

    def is_terminal(self) -> bool:
        return self.game is not None and self.game.is_over

    def returns(self) -> list[float]:
        if self.game is None or self.game.result is None:
            return [0.0] * 5
        return [float(s) for s in self.game.result.scores]

    def __str__(self) -> str:
        if self.game is None:
            return "(not dealt)"
        view = self.game.view(None)
        return (f"deal {self.game.seed} stage {view.stage.value} to_act {view.to_act} "
                f"hands {list(view.hand_counts)} out {list(view.out)}")


class BaohuangObserver:
    """OpenSpiel's observer (``PyObserver``): a player's view as tensor and text."""

    def __init__(self, iig_obs_type: Any, params: dict[str, Any] | None) -> None:
        if params:
            raise ValueError(f"observation parameters are not supported: {params}")
        self.perfect_recall = bool(iig_obs_type.perfect_recall)
        private = iig_obs_type.private_info
        self.private = private == pyspiel.PrivateInfoType.SINGLE_PLAYER
        self.everything = private == pyspiel.PrivateInfoType.ALL_PLAYERS
        # (no information-state tensor: the observation vector does not recall the
        # player's history, so a perfect-recall observer has no tensor)
        self.tensor: npt.NDArray[np.float32] | None = None
        self.dict: dict[str, npt.NDArray[np.float32]] = {}
        if not self.perfect_recall:
            self.tensor = np.zeros(OBS_SIZE, np.float32)
            self.dict["observation"] = self.tensor

    def _view(self, state: BaohuangSpielState, player: int) -> bh.View | None:
        if state.game is None:
            return None
        return state.view(player if self.private or self.everything else None)

    def set_from(self, state: BaohuangSpielState, player: int) -> None:
        if self.tensor is None:
            raise pyspiel.SpielError(_NO_INFORMATION_STATE_TENSOR)
        view = self._view(state, player)
        self.tensor[:] = 0 if view is None else observe(view)

    def string_from(self, state: BaohuangSpielState, player: int) -> str:
        view = self._view(state, player)
        if view is None:
            return f"p{player} (not dealt)"
        data = view.to_dict()
        if not self.perfect_recall:
            data.pop("events")
        if self.everything and state.game is not None:
            data["hands"] = {str(s): [str(c) for c in state.game.hand(s)] for s in range(5)}
        return f"p{player} " + json.dumps(data, ensure_ascii=False, sort_keys=True)


def resample(state: BaohuangSpielState, player: int,
             rng: random.Random | None = None) -> BaohuangSpielState:
    """A state that ``player`` cannot tell from ``state`` (the same observation),
    its hidden cards drawn from what the player's view allows
    (:class:`~baohuang.bots.search.sampler.DealSampler`): what OpenSpiel's ISMCTS asks
    of an imperfect-information game.  Tries a few deals; raises ``ValueError`` when
    the position cannot be rebuilt."""
    if state.game is None:
        raise ValueError("nothing to resample before the deal")
    rng = rng or random.Random()
    view = state.view(player)
    sampler = DealSampler(view)
    rules = state._spiel.rules
    for _ in range(20):
        game = determinized_game(view, sampler.sample(rng), rules, state.game.seed)
        if game is not None:
            twin = BaohuangSpielState(state._spiel)
            twin.game = game
            return twin
    raise ValueError("no deal drawn from the view rebuilds this position")


def ismcts_bot(game: BaohuangSpielGame, *, simulations: int = 100, uct_c: float = 2.0,
               seed: int = 0) -> Any:
    """OpenSpiel's (Python) ISMCTS bot on 保皇, with random rollouts and
    :func:`resample` for its determinizations (keyed by observation strings)."""
    from open_spiel.python.algorithms import ismcts, mcts

    rng = random.Random(seed)
    evaluator = mcts.RandomRolloutEvaluator(1, np.random.RandomState(seed))
    bot = ismcts.ISMCTSBot(game, evaluator, uct_c, simulations,
                           random_state=np.random.RandomState(seed),
                           use_observation_string=True,
                           allow_inconsistent_action_sets=True)
    bot.set_resampler(lambda state, player: resample(state, player, rng))
    return bot


pyspiel.register_game(_GAME_TYPE, BaohuangSpielGame)
