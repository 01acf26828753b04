"""The RLCard environment: ``rlcard.make("baohuang")`` after importing baohuang.env."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import rlcard

import baohuang as bh
import baohuang.env  # (importing it registers the environment)
from baohuang.env.action_features import ACTION_FEATURE_SIZE, action_features
from baohuang.env.actions import N_ACTIONS, PLAY_BASE, PLAY_KEYS, describe, legal_indexes
from baohuang.env.observation import OBS_SIZE, observe


def random_agents(env: Any) -> list[Any]:
    """RLCard's random agents, one per seat.  (``rlcard.agents`` imports PyTorch, for
    its DQN agent: imported here, only the worker that runs these tests pays for it,
    not every worker's collection.)"""
    from rlcard.agents import RandomAgent
    return [RandomAgent(num_actions=env.num_actions) for _ in range(5)]


@pytest.mark.parametrize("preset", list(bh.PRESETS))
def test_random_agents_play_whole_games(preset: str) -> None:
    env = rlcard.make("baohuang", config={"seed": 4, "game_preset": preset})
    assert (env.num_players, env.num_actions) == (5, N_ACTIONS)
    assert env.state_shape == [[OBS_SIZE]] * 5
    env.set_agents(random_agents(env))
    np.random.seed(0)              # (RLCard's random agent draws from numpy's global state)
    for _ in range(2):
        trajectories, payoffs = env.run(is_training=False)
        game = env.game.game
        assert game.is_over and game.result is not None
        assert list(payoffs) == list(game.result.scores)
        assert bh.Game.from_record(game.record()).result == game.result
        assert all(len(t) >= 2 for t in trajectories)


def test_a_state_is_the_seat_view_only() -> None:
    env = rlcard.make("baohuang", config={"seed": 9, "game_preset": "wurenju"})
    state, player = env.reset()
    view = env.game.game.view(player)
    assert state["raw_obs"] == view
    assert state["obs"].shape == (OBS_SIZE,)
    assert [str(a) for a in view.legal_actions] == state["raw_legal_actions"]
    assert len(state["legal_actions"]) == len(view.legal_actions)
    other = env.get_state((player + 1) % 5)
    assert other["legal_actions"] == {} and other["raw_obs"].hand != view.hand


def test_steps_by_index_and_by_text_and_back() -> None:
    env = rlcard.make("baohuang", config={"seed": 2, "allow_step_back": True})
    state, player = env.reset()
    first = next(iter(state["legal_actions"]))
    _, after = env.step(first)
    version = env.game.game.version
    assert env.step_back() is not False
    assert env.game.game.version < version and env.get_player_id() == player
    text = state["raw_legal_actions"][0]
    _, again = env.step(text, raw_action=True)
    assert again == after
    with pytest.raises(ValueError):
        env.step(N_ACTIONS + 7)


def test_the_same_seed_deals_the_same_games() -> None:
    def payoffs(seed: int) -> list[float]:
        env = rlcard.make("baohuang", config={"seed": seed})
        env.set_agents(random_agents(env))
        np.random.seed(1)
        return list(env.run()[1])

    assert payoffs(5) == payoffs(5)


def test_actions_have_features_as_in_rlcards_dou_dizhu() -> None:
    env = rlcard.make("baohuang", config={"seed": 3})
    assert env.action_shape == [[ACTION_FEATURE_SIZE]] * 5
    table = action_features()
    # every index has features of its own: a network reading them can tell every
    # action apart
    assert len(np.unique(table, axis=0)) == N_ACTIONS
    state, _ = env.reset()
    np.random.seed(3)
    plays = 0
    while not env.is_over():
        assert type(state["legal_actions"]) is dict
        for index, feature in state["legal_actions"].items():
            assert np.array_equal(feature, table[index])
            assert np.array_equal(env.get_action_feature(index), feature)
            if describe(index).startswith("play"):
                plays += 1
                # the cards per slot and their count are those of the play
                key = PLAY_KEYS[index - PLAY_BASE]
                assert int(feature[35]) == key.n + key.sj + key.bj + key.th
                assert int(feature[14:30].sum()) == int(feature[35])
        state, _ = env.step(int(np.random.choice(list(state["legal_actions"]))))
    assert plays > 100


@pytest.mark.parametrize("preset", list(bh.PRESETS))
def test_observations_are_those_of_the_view_after_steps_and_steps_back(preset: str) -> None:
    env = rlcard.make("baohuang", config={"seed": 6, "game_preset": preset,
                                          "allow_step_back": True})
    state, player = env.reset()
    rng = np.random.default_rng(6)
    steps = 0
    while not env.is_over():
        view = env.game.game.view(player)
        assert np.array_equal(state["obs"], observe(view))
        assert list(state["legal_actions"]) == legal_indexes(view)
        if steps % 10 == 0:                      # (every seat's, now and then)
            for seat in range(5):
                other = env.get_state(seat)
                assert np.array_equal(other["obs"], observe(env.game.game.view(seat)))
        legal = list(state["legal_actions"])
        state, player = env.step(legal[rng.integers(len(legal))])
        steps += 1
        if steps % 25 == 0:                      # back one step, then on again
            state, player = env.step_back()
    assert steps > 50
