"""The OpenSpiel game ``python_baohuang``: OpenSpiel's own random simulation test,
observers built from a player's view only, returns equal to the engine's scores."""

from __future__ import annotations

import json
import pickle
import random

import numpy as np
import pyspiel
import pytest

import baohuang as bh
import baohuang.env  # (importing it registers the game)
from baohuang.env.observation import OBS_SIZE, observe


@pytest.mark.parametrize("preset", ["shandong", "wurenju"])
def test_openspiel_random_simulation(preset: str) -> None:
    game = pyspiel.load_game("python_baohuang", {"preset": preset, "deals": 50})
    pyspiel.random_sim_test(game, num_sims=1, serialize=False, verbose=False)


@pytest.mark.parametrize("options", ["kaopai=on", "kaopai=on,hold_sixes=on"])
def test_openspiel_random_simulation_with_room_options(options: str) -> None:
    # (serialize: each state written out with its game's string and read back)
    game = pyspiel.load_game("python_baohuang",
                             {"preset": "shandong", "options": options, "deals": 50})
    pyspiel.random_sim_test(game, num_sims=1, serialize=True, verbose=False)


def test_the_game_string_loads_the_same_game() -> None:
    game = pyspiel.load_game("python_baohuang",
                             {"preset": "wurenju", "options": "kaopai=on,hold_sixes=on"})
    again = pyspiel.load_game(str(game))
    assert str(again) == str(game)
    assert again.rules == bh.RuleSet.preset("wurenju").replace(kaopai=True, hold_sixes=True)
    assert pickle.loads(pickle.dumps(game)).new_initial_state().child(9).game.rules \
        == again.rules
    # the string's own form of the options is a parameter too
    assert pyspiel.load_game("python_baohuang", {"options": "kaopai:on"}).rules.kaopai
    with pytest.raises(ValueError, match="NAME=VALUE"):
        pyspiel.load_game("python_baohuang", {"options": "kaopai"})


def test_an_mcts_step_with_room_options() -> None:
    from open_spiel.python.algorithms import mcts

    game = pyspiel.load_game("python_baohuang", {"preset": "shandong", "options": "kaopai=on"})
    state = game.new_initial_state()
    state.apply_action(21)
    rng = random.Random(0)
    while len(state.legal_actions()) < 2:
        state.apply_action(rng.choice(state.legal_actions()))
    evaluator = mcts.RandomRolloutEvaluator(1, np.random.RandomState(0))
    bot = mcts.MCTSBot(game, 2.0, 6, evaluator, random_state=np.random.RandomState(0))
    action = bot.step(state)                    # (each simulation clones the state)
    assert action in state.legal_actions()
    state.apply_action(action)


def test_the_state_before_the_deal_clones_and_has_children() -> None:
    game = pyspiel.load_game("python_baohuang", {"preset": "wurenju", "deals": 20})
    state = game.new_initial_state()
    twin = state.clone()
    assert twin.is_chance_node() and twin.chance_outcomes() == state.chance_outcomes()
    assert len(twin.chance_outcomes()) == 20
    child = state.child(7)
    assert state.is_chance_node() and not child.is_chance_node()
    state.apply_action(7)
    assert str(child) == str(state) and child.legal_actions() == state.legal_actions()
    assert child.clone().legal_actions() == state.legal_actions()


def test_no_information_state_tensor_is_pretended() -> None:
    game = pyspiel.load_game("python_baohuang")
    assert not game.get_type().provides_information_state_tensor
    state = game.new_initial_state()
    state.apply_action(3)
    with pytest.raises(pyspiel.SpielError, match="no information-state tensor"):
        state.information_state_tensor(state.current_player())
    with pytest.raises(pyspiel.SpielError, match="no information-state tensor"):
        game.information_state_tensor_shape()
    # the observation tensor and the information-state string are still there
    assert len(state.observation_tensor(0)) == OBS_SIZE
    assert "events" in state.information_state_string(0)


def test_a_played_game_scores_as_the_engine() -> None:
    game = pyspiel.load_game("python_baohuang",
                             {"preset": "lianzhong_classic", "options": "kaopai=on"})
    assert game.num_players() == 5 and game.get_type().short_name == "python_baohuang"
    state = game.new_initial_state()
    outcomes = state.chance_outcomes()
    assert len(outcomes) == 10_000 and abs(sum(p for _, p in outcomes) - 1) < 1e-9
    state.apply_action(1234)
    rng = random.Random(0)
    actions = []
    while not state.is_terminal():
        player = state.current_player()
        legal = state.legal_actions()
        assert legal == sorted(legal) and all(not state.legal_actions(p)
                                              for p in range(5) if p != player)
        action = rng.choice(legal)
        actions.append(state.action_to_string(player, action))
        state.apply_action(action)
    engine = bh.Game.new(bh.RuleSet.preset("lianzhong_classic").replace(kaopai=True), 1234)
    for text in actions:
        engine.apply(bh.Action.parse(text))
    assert engine.result is not None
    assert state.returns() == [float(s) for s in engine.result.scores]


def test_observers_show_a_player_only_its_view() -> None:
    game = pyspiel.load_game("python_baohuang", {"preset": "wurenju"})
    state = game.new_initial_state()
    state.apply_action(3)
    for _ in range(6):
        state.apply_action(state.legal_actions()[0])
    player = 2
    view = state.game.view(player)
    tensor = np.array(state.observation_tensor(player), dtype=np.float32)
    assert tensor.shape == (OBS_SIZE,) and np.array_equal(tensor, observe(view))
    shown = json.loads(state.observation_string(player).split(" ", 1)[1])
    assert shown["hand"] == [str(c) for c in view.hand] and "events" not in shown
    recalled = json.loads(state.information_state_string(player).split(" ", 1)[1])
    assert recalled["events"] == [dict(e) for e in view.events]
    assert shown == {k: v for k, v in view.to_dict().items() if k != "events"}
    assert shown["hands"] == {}                      # nobody's cards but the player's own


def _position(stage: bh.Stage, seed: int = 5) -> tuple[pyspiel.State, int]:
    """A state of the shandong game at ``stage`` where the player to act has a choice
    (the first deal from ``seed`` on whose random play gets there)."""
    game = pyspiel.load_game("python_baohuang")
    for deal in range(seed, seed + 50):
        state = game.new_initial_state()
        state.apply_action(deal)
        rng = random.Random(deal)
        while not state.is_terminal():
            if state.game.stage is stage and len(state.legal_actions()) > 1:
                return state, state.current_player()
            state.apply_action(rng.choice(state.legal_actions()))
    raise AssertionError(f"no deal reaches stage {stage.value}")


@pytest.mark.parametrize("stage", [bh.Stage.STEAL, bh.Stage.PLAY])
def test_resampled_states_look_the_same_to_the_player(stage: bh.Stage) -> None:
    from baohuang.env.openspiel_game import resample

    state, player = _position(stage)
    hidden = [state.game.hand(s) for s in range(5) if s != player]
    differs = 0
    for k in range(8):
        twin = resample(state, player, random.Random(k))
        assert twin.game is not None
        assert twin.observation_string(player) == state.observation_string(player)
        assert twin.legal_actions() == state.legal_actions()
        differs += [twin.game.hand(s) for s in range(5) if s != player] != hidden
    assert differs >= 6


def test_openspiel_ismcts_plays_baohuang() -> None:
    from baohuang.env.openspiel_game import ismcts_bot

    state, _ = _position(bh.Stage.PLAY, seed=8)
    bot = ismcts_bot(state.get_game(), simulations=12, seed=1)
    action = bot.step(state)
    assert action in state.legal_actions()
    state.apply_action(action)
