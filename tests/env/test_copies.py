"""Every environment can be pickled and deep-copied in the middle of a game (what a
trainer does to ship environments to worker processes), and the copy goes on exactly
as the original: the same observations, masks and rewards after the same actions."""

from __future__ import annotations

import copy
import pickle
import random
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
import rlcard

from baohuang.env import BaohuangGymEnv, VectorEnv, baohuang_v0

COPIES: dict[str, Callable[[Any], Any]] = {
    "pickle": lambda env: pickle.loads(pickle.dumps(env)),
    "deepcopy": copy.deepcopy,
}


def _aec_run(env: Any, rng: random.Random, steps: int) -> list[Any]:
    """``steps`` steps of a PettingZoo environment by the documented loop's calls
    (``last()``, the mask), each step's observation, mask and rewards."""
    seen: list[Any] = []
    for _ in range(steps):
        if not env.agents:                            # (an episode over: the next one)
            env.reset()
            continue
        agent = env.agent_selection
        observation, reward, termination, truncation, _ = env.last()
        seen.append((agent, observation["observation"].tolist(),
                     np.flatnonzero(observation["action_mask"]).tolist(), reward,
                     termination, dict(env.rewards)))
        if termination or truncation:
            env.step(None)
            continue
        legal = np.flatnonzero(observation["action_mask"])
        env.step(int(legal[rng.randrange(len(legal))]))
    return seen


@pytest.mark.parametrize("how", COPIES)
@pytest.mark.parametrize("make", [
    lambda: baohuang_v0.env(preset="shandong", kaopai=True),
    lambda: baohuang_v0.raw_env("wurenju"),
    lambda: baohuang_v0.env(preset="seed001_216", matches=True, games=2),
], ids=["env", "raw_env", "match"])
def test_a_pettingzoo_copy_goes_on_as_the_original(make: Callable[[], Any], how: str) -> None:
    env = make()
    env.reset(seed=11)
    _aec_run(env, random.Random(0), 60)               # into the game
    twin = COPIES[how](env)
    assert twin is not env and twin.unwrapped.game is not env.unwrapped.game
    # the same actions from here on: the same observations, masks, rewards (and deals
    # drawn after the game ends)
    assert _aec_run(twin, random.Random(1), 400) == _aec_run(env, random.Random(1), 400)


@pytest.mark.parametrize("how", COPIES)
def test_a_vector_env_copy_goes_on_as_the_original(how: str) -> None:
    envs = VectorEnv(3, preset="shandong", kaopai=True)
    envs.reset(seed=5)
    rng = random.Random(0)
    for _ in range(80):
        envs.step([rng.choice(legal) for legal in envs.legal_indexes()])
    twin = COPIES[how](envs)
    assert twin.games[0] is not envs.games[0]
    runs = []
    for batch in (envs, twin):
        rng = random.Random(1)
        seen = []
        for _ in range(300):                          # (games end and are dealt again)
            obs, rewards, terminations, _, info = batch.step(
                [rng.choice(legal) for legal in batch.legal_indexes()])
            seen.append((obs["observation"].tolist(),
                         [np.flatnonzero(row).tolist() for row in obs["action_mask"]],
                         rewards.tolist(), terminations.tolist(), info["to_act"].tolist()))
        runs.append(seen)
    assert runs[0] == runs[1]
    assert any(any(step[3]) for step in runs[0])


@pytest.mark.parametrize("how", COPIES)
def test_the_gymnasium_and_rlcard_copies_go_on_as_the_originals(how: str) -> None:
    gym_env = BaohuangGymEnv(seat=1, opponents=("random",) * 4)
    gym_env.reset(seed=3)
    for _ in range(5):
        gym_env.step(int(np.flatnonzero(gym_env.action_masks())[0]))
    twin = COPIES[how](gym_env)
    runs = []
    for env in (gym_env, twin):
        rng = random.Random(2)
        seen = []
        done = False
        while not done:
            legal = np.flatnonzero(env.action_masks())
            obs, reward, done, _, info = env.step(int(legal[rng.randrange(len(legal))]))
            seen.append((obs.tolist(), reward, np.flatnonzero(info["action_mask"]).tolist()))
        runs.append(seen)
    assert runs[0] == runs[1]

    rl_env = rlcard.make("baohuang", config={"seed": 4, "game_preset": "wurenju"})
    state, _ = rl_env.reset()
    for _ in range(30):
        state, _ = rl_env.step(min(state["legal_actions"]))
    rl_twin = COPIES[how](rl_env)
    runs = []
    for env in (rl_env, rl_twin):
        rng = random.Random(3)
        seen = []
        now = state
        while not env.is_over():
            now, player = env.step(rng.choice(sorted(now["legal_actions"])))
            seen.append((player, now["obs"].tolist(), sorted(now["legal_actions"])))
        seen.append(env.get_payoffs().tolist())
        runs.append(seen)
    assert runs[0] == runs[1]
