"""The RLCard environment: ``rlcard.make("baohuang")`` after importing baohuang.env."""

from __future__ import annotations

import numpy as np
import pytest
import rlcard
from rlcard.agents import RandomAgent

import baohuang as bh
import baohuang.env  # (importing it registers the environment)
from baohuang.env.actions import N_ACTIONS
from baohuang.env.observation import OBS_SIZE


@pytest.mark.parametrize("preset", list(bh.PRESETS))
def test_random_agents_play_whole_games(preset: str) -> None:
    env = rlcard.make("baohuang", config={"seed": 4, "game_preset": preset})
    assert (env.num_players, env.num_actions) == (5, N_ACTIONS)
    assert env.state_shape == [[OBS_SIZE]] * 5
    env.set_agents([RandomAgent(num_actions=env.num_actions) for _ in range(5)])
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
        env.set_agents([RandomAgent(num_actions=env.num_actions) for _ in range(5)])
        np.random.seed(1)
        return list(env.run()[1])

    assert payoffs(5) == payoffs(5)
