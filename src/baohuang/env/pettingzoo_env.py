"""A PettingZoo AEC environment: five agents ``player_0`` … ``player_4`` (seats 0–4).

>>> from baohuang.env import baohuang_v0
>>> env = baohuang_v0.env(preset="shandong")
>>> env.reset(seed=1)
>>> for agent in env.agent_iter():
...     observation, reward, termination, truncation, info = env.last()
...     action = None if termination or truncation else \\
...         env.action_space(agent).sample(observation["action_mask"])
...     env.step(action)
>>> sorted(env.unwrapped.game.result.scores) == sorted(env.unwrapped.final_scores)
True

Each agent's observation is ``{"observation": …, "action_mask": …}``: the vector of
:mod:`baohuang.env.observation`, built from that seat's view only, and a 0/1 mask over
the fixed action space of :mod:`baohuang.env.actions` (all 0 when the agent is not the
one to act).  Rewards are the game's scores (``game.result.scores``) when it ends,
0 before.  With ``matches=True`` an episode is a :class:`baohuang.Match` of ``games``
games (tribute across games when the rules have it): each game's scores are rewarded
when it ends, and the episode ends with the match.

``agent_selection`` is the seat the engine asks.  At the ``guard`` stage that is the
Guard deciding 明保/暗保, which the other seats' observations do not show: a learner
must not feed ``agent_selection`` to a policy as if it were part of an observation.
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np
import numpy.typing as npt
from gymnasium import spaces
from gymnasium.utils import seeding
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers
from pettingzoo.utils.env_logger import EnvLogger

import baohuang as bh

from .actions import N_ACTIONS, ActionEncoder, IllegalActionIndex, decode, mask_of
from .observation import OBS_HIGH, OBS_SIZE, observe
from .spaces import ActionSpace
from .values import Decisions, ValuesEncoder

__all__ = ["env", "raw_env"]

AGENTS = tuple(f"player_{seat}" for seat in range(5))
from baohuang.engine.views import OWN_FIELDS as _OWN_FIELDS  # noqa: E402

#: where a seat's legal actions are among its own view values
_LEGAL = _OWN_FIELDS.index("legal_actions")


_NO_REWARDS = {a: 0.0 for a in AGENTS}


def make_rules(preset: str | bh.RuleSet = "shandong", **options: Any) -> bh.RuleSet:
    """A preset (or rule set) with rule options set on top (``kaopai=True``…)."""
    rules = preset if isinstance(preset, bh.RuleSet) else bh.RuleSet.preset(preset)
    return rules.replace(**options) if options else rules


class raw_env(AECEnv):  # type: ignore[misc]  # (pettingzoo ships no types)
    """保皇 for five agents.  ``preset``: a name of ``bh.PRESETS`` (or a
    ``bh.RuleSet``); ``**options``: rule options on top of it; ``matches``,
    ``games``: an episode is a match of ``games`` games."""

    metadata: ClassVar[dict[str, Any]] = {"render_modes": ["human", "ansi"], "name": "baohuang_v0",
                                "is_parallelizable": False, "render_fps": 1}

    def __init__(self, preset: str | bh.RuleSet = "shandong", *, render_mode: str | None = None,
                 matches: bool = False, games: int = 4, **options: Any) -> None:
        super().__init__()
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be one of {self.metadata['render_modes']}")
        if games < 1:
            raise ValueError("a match has at least one game")
        self.rules = make_rules(preset, **options)
        self.render_mode = render_mode
        self.matches = matches
        self.games = games if matches else 1
        self.possible_agents = list(AGENTS)
        self.agents = list(AGENTS)
        observation_space = spaces.Dict({
            "observation": spaces.Box(low=np.zeros(OBS_SIZE, dtype=np.float32),
                                      high=OBS_HIGH, dtype=np.float32),
            "action_mask": spaces.Box(low=0, high=1, shape=(N_ACTIONS,), dtype=np.int8),
        })
        self.observation_spaces = {a: observation_space for a in AGENTS}
        # (Discrete spaces whose sample(mask) reads the mask once: baohuang.env.spaces)
        self.action_spaces: dict[str, spaces.Discrete] = {a: ActionSpace(N_ACTIONS)
                                                           for a in AGENTS}
        # the observations, from the view's values and the actions this environment
        # applied (``_synced``: the game's version after the last of them)
        self._observations = ValuesEncoder()
        self._synced = -1
        self._actions = ActionEncoder()
        self.np_random, _ = seeding.np_random(None)
        self.match: bh.Match | None = None
        self.game = bh.Game.new(self.rules, 0)
        self.final_scores: tuple[int, ...] = ()
        self._decisions = Decisions()
        self._rewarded = False

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space[Any]:
        return self.action_spaces[agent]

    # -- episode -------------------------------------------------------------------
    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        if seed is not None:
            self.np_random, _ = seeding.np_random(seed)
        deal_seed = int(self.np_random.integers(2**31))
        if self.matches:
            self.match = bh.Match(self.rules, seed=deal_seed, games=self.games)
            self.game = self.match.game
        else:
            self.game = bh.Game.new(self.rules, deal_seed)
        self._observations.reset()
        self._synced = self.game.version
        self.agents = list(AGENTS)
        self.rewards = {a: 0.0 for a in AGENTS}
        self._cumulative_rewards = {a: 0.0 for a in AGENTS}
        self.terminations = {a: False for a in AGENTS}
        self.truncations = {a: False for a in AGENTS}
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in AGENTS}
        self.final_scores = ()
        self._rewarded = False
        self._select()

    def _select(self) -> None:
        seat = self.game.to_act
        if seat is not None:
            self.agent_selection = AGENTS[seat]

    def _decision(self, seat: int) -> tuple[tuple[Any, ...], tuple[Any, ...], list[int]]:
        """``seat``'s view's values (``Game.view_values``) and the indexes of its legal
        actions, made once per state."""
        return self._decisions.of(self._actions, self.game, seat)

    def observe(self, agent: str) -> dict[str, npt.NDArray[Any]]:
        seat = AGENTS.index(agent)
        public, own, indexes = self._decision(seat)
        if self._synced == self.game.version:
            data = self._observations.encode_values(public, own)
            vector = np.frombuffer(data, dtype=np.float32).copy()
        else:       # (the game was changed from outside: the view, from scratch)
            vector = observe(self.game.view(seat))
        mask = mask_of(indexes)
        space = self.action_spaces[agent]
        if type(space) is ActionSpace:
            space.remember(mask, indexes)
        return {"observation": vector, "action_mask": mask}

    def legal_indexes(self) -> list[int]:
        """The indexes of the legal actions of ``agent_selection`` (the 1s of its
        mask, as a list)."""
        seat = self.game.to_act
        return [] if seat is None else list(self._decision(seat)[2])

    def step(self, action: int | None) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        if action is None:
            raise IllegalActionIndex(-1, f"{agent} must act: an action index, not None")
        if self._rewarded:                         # (a game of the match ended last step)
            self.rewards = dict(_NO_REWARDS)
            self._rewarded = False
        game = self.game
        seat = game.to_act
        assert seat is not None and AGENTS[seat] == agent
        _, own, indexes = self._decision(seat)
        try:
            chosen = own[_LEGAL][indexes.index(action)]
        except ValueError:
            decode(int(action), game.view(seat))     # raises IllegalActionIndex, naming it
            raise
        synced = self._synced == game.version
        game.apply(chosen)
        if synced:
            self._observations.record(seat, chosen)
            self._synced = game.version
        self._cumulative_rewards[agent] = 0.0
        if game.is_over:
            result = game.result
            assert result is not None
            self.rewards = {a: float(s) for a, s in zip(AGENTS, result.scores, strict=True)}
            self.final_scores = tuple(result.scores)
            if self.match is not None and self.match.advance() and not self.match.is_over:
                self.game = self.match.game
                self._observations.reset()
                self._synced = self.game.version
            else:
                self.terminations = {a: True for a in AGENTS}
            self._rewarded = True
            self._select()
            self._accumulate_rewards()
        else:
            self.agent_selection = AGENTS[game.to_act]  # type: ignore[index]
        if self.render_mode == "human":
            self.render()

    # -- text ------------------------------------------------------------------------
    def render(self) -> str | None:
        """One line: stage, seat to act, roles, stake, cards held, the play to beat."""
        if self.render_mode is None:
            from gymnasium import logger
            logger.warn("render() called without a render_mode (human or ansi)")
            return None
        text = describe_game(self.game)
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        pass


def describe_game(game: bh.Game) -> str:
    """A one-line text of a game as the public sees it (a spectator's view)."""
    view = game.view(None)
    parts = [view.stage.value]
    if game.is_over and game.result is not None:
        parts.append("scores " + " ".join(f"{s:+d}" for s in game.result.scores))
    elif game.to_act is not None:
        parts.append(f"seat {game.to_act} to act")
    if view.emperor is not None:
        parts.append(f"emperor {view.emperor}")
    if view.called is not None:
        parts.append(f"called {view.called}")
    parts.append(f"stake {view.stake}")
    parts.append("cards " + " ".join(str(n) for n in view.hand_counts))
    if view.last_play is not None:
        seat, cards = view.last_play
        parts.append(f"to beat: seat {seat} {bh.format_cards(cards)}")
    return " · ".join(parts)


class BoundsChecked(wrappers.AssertOutOfBoundsWrapper):  # type: ignore[misc]
    """PettingZoo's ``AssertOutOfBoundsWrapper``, an integer index checked by its
    bounds directly (``Discrete.contains`` converts it to NumPy first); anything
    else is checked as the wrapper checks it."""

    def step(self, action: Any) -> None:
        if type(action) is int or type(action) is np.int64:
            if not 0 <= action < N_ACTIONS:
                raise AssertionError("action is not in action space")
            self.env.step(action)
        else:
            super().step(action)


class OrderEnforcing(wrappers.OrderEnforcingWrapper):  # type: ignore[misc]
    """PettingZoo's ``OrderEnforcingWrapper`` with the same checks, the attributes
    its agent loop reads every step (``agents``, ``agent_selection`` and what
    ``last()`` returns) read from the environment directly rather than through each
    wrapper's ``__getattr__`` in turn."""

    def __init__(self, env: AECEnv) -> None:
        super().__init__(env)
        self._raw: raw_env = env.unwrapped

    @property
    def agents(self) -> list[str]:
        if not self._has_reset:
            raise AttributeError("agents cannot be accessed before reset")
        return self._raw.agents

    @property
    def agent_selection(self) -> str:
        if not self._has_reset:
            raise AttributeError("agent_selection cannot be accessed before reset")
        return self._raw.agent_selection

    def last(self, observe: bool = True) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        if not self._has_reset:
            raise AttributeError("agent_selection cannot be accessed before reset")
        return self._raw.last(observe)  # type: ignore[no-any-return]

    def observe(self, agent: str) -> dict[str, npt.NDArray[Any]]:
        if not self._has_reset:
            EnvLogger.error_observe_before_reset()
        return self._raw.observe(agent)

    def step(self, action: Any) -> None:
        if not self._has_reset:
            EnvLogger.error_step_before_reset()
        elif not self._raw.agents:
            self._has_updated = True
            EnvLogger.warn_step_after_terminated_truncated()
        else:
            self._has_updated = True
            self.env.step(action)


def env(preset: str | bh.RuleSet = "shandong", **kwargs: Any) -> AECEnv:
    """:class:`raw_env` in PettingZoo's usual wrappers (action bounds, call order:
    subclasses of ``AssertOutOfBoundsWrapper`` and ``OrderEnforcingWrapper`` that do
    their checks with less work a step)."""
    return OrderEnforcing(BoundsChecked(raw_env(preset, **kwargs)))
