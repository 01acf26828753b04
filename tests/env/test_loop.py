"""The loop PettingZoo documents (``env()``, ``agent_iter``, ``last``,
``action_space(agent).sample(mask)``): the action space is Gymnasium's ``Discrete``
and draws what it draws, and the wrappers check what PettingZoo's check."""

from __future__ import annotations

import copy
import pickle

import numpy as np
import pytest
from gymnasium.spaces import Discrete
from helpers import examples
from hypothesis import given, settings
from hypothesis import strategies as st
from pettingzoo.utils.wrappers import AssertOutOfBoundsWrapper, OrderEnforcingWrapper

from baohuang.env import IllegalActionIndex, baohuang_v0
from baohuang.env.actions import N_ACTIONS, PASS_INDEX, mask_of
from baohuang.env.spaces import ActionSpace


@settings(max_examples=examples(100), deadline=None)
@given(st.lists(st.integers(0, N_ACTIONS - 1), max_size=40, unique=True),
       st.integers(0, 2**32 - 1), st.booleans())
def test_sample_draws_what_discrete_draws(indexes: list[int], seed: int,
                                          remembered: bool) -> None:
    mask = mask_of(indexes)
    ours, theirs = ActionSpace(N_ACTIONS, seed=seed), Discrete(N_ACTIONS, seed=seed)
    if remembered:                        # (as the environment hands its masks out)
        ours.remember(mask, indexes)
    drawn = [ours.sample(mask) for _ in range(5)]
    assert drawn == [theirs.sample(mask) for _ in range(5)]
    assert all(int(a) in indexes for a in drawn) if indexes else drawn == [0] * 5
    assert all(type(a) is np.int64 for a in drawn)


def test_a_mask_changed_after_it_was_handed_out_is_read_as_it_is() -> None:
    env = baohuang_v0.env("shandong")
    env.reset(seed=3)
    rng = np.random.default_rng(0)
    checked = 0
    for agent in env.agent_iter():
        observation, _, termination, truncation, _ = env.last()
        if termination or truncation:
            env.step(None)
            continue
        mask = observation["action_mask"]
        legal = np.flatnonzero(mask)
        space = env.action_space(agent)
        if len(legal) >= 2:
            # the learner forbids one legal action; then swaps it for an illegal one
            mask[legal[0]] = 0
            assert all(space.sample(mask) in legal[1:] for _ in range(10))
            other = next(i for i in range(N_ACTIONS) if mask[i] == 0 and i != legal[0])
            mask[other] = 1
            assert all(space.sample(mask) in {*legal[1:], other} for _ in range(10))
            mask[other] = 0
            checked += 1
        env.step(int(legal[1:][rng.integers(len(legal) - 1)]) if len(legal) >= 2
                 else int(legal[0]))
    assert checked > 20


def test_a_bad_mask_is_refused_as_discrete_refuses_it() -> None:
    space = ActionSpace(N_ACTIONS, seed=1)
    mask = mask_of([3, 7])
    space.remember(mask, [3, 7])
    mask[7] = 2
    with pytest.raises(AssertionError, match="0 or 1"):
        space.sample(mask)
    with pytest.raises(AssertionError, match="dtype"):
        space.sample(mask_of([3]).astype(np.float32))
    with pytest.raises(AssertionError, match="shape"):
        space.sample(np.ones(5, dtype=np.int8))
    assert space.sample(np.zeros(N_ACTIONS, dtype=np.int8)) == 0
    assert space.sample() in space and space.sample(probability=None) in space


def test_the_spaces_are_discrete_and_copy() -> None:
    env = baohuang_v0.env()
    env.reset(seed=0)
    space = env.action_space("player_0")
    assert isinstance(space, Discrete) and space == Discrete(N_ACTIONS)
    assert space.contains(PASS_INDEX) and not space.contains(N_ACTIONS)
    space.seed(5)
    mask = env.observe(env.agent_selection)["action_mask"]
    twins = [copy.deepcopy(space), pickle.loads(pickle.dumps(space))]
    drawn = [space.sample(), space.sample(), space.sample(mask)]
    for twin in twins:
        assert isinstance(twin, ActionSpace)
        assert [twin.sample(), twin.sample(), twin.sample(mask)] == drawn


def test_the_wrappers_check_what_pettingzoos_check() -> None:
    env = baohuang_v0.env()
    assert isinstance(env, OrderEnforcingWrapper)
    assert isinstance(env.env, AssertOutOfBoundsWrapper)
    with pytest.raises(AttributeError, match="before reset"):
        env.last()
    with pytest.raises(AttributeError, match="before reset"):
        _ = env.agents
    with pytest.raises(AttributeError, match="before reset"):
        _ = env.agent_selection
    with pytest.raises(AssertionError, match="reset"):
        env.step(0)
    with pytest.raises(AssertionError, match="reset"):
        env.observe("player_0")
    env.reset(seed=1)
    with pytest.raises(AssertionError, match="not in action space"):
        env.step(N_ACTIONS)
    with pytest.raises(AssertionError, match="not in action space"):
        env.step(np.int64(-1))
    with pytest.raises(IllegalActionIndex):
        env.step(PASS_INDEX + 2)               # (in the space, not legal now)
    legal = env.unwrapped.legal_indexes()
    env.step(np.int64(legal[0]))                # (a NumPy index, as sample gives it)
    assert env.unwrapped.game.version > 0
    with pytest.raises(AssertionError, match="agent_iter"):
        for _ in env.agent_iter():              # (a loop that does not step)
            pass


def test_the_documented_loop_plays_whole_games() -> None:
    env = baohuang_v0.env("wurenju")
    for seed in range(3):
        env.reset(seed=seed)
        env.action_space("player_0").seed(seed)
        rewards = dict.fromkeys(env.possible_agents, 0.0)
        for agent in env.agent_iter():
            observation, reward, termination, truncation, _ = env.last()
            rewards[agent] += reward
            action = None if termination or truncation else \
                env.action_space(agent).sample(observation["action_mask"])
            env.step(action)
        result = env.unwrapped.game.result
        assert result is not None
        assert list(rewards.values()) == [float(s) for s in result.scores]
