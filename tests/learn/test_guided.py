"""Guided networks: they read the heuristic bot's choice and keep it unless another
action is worth more than their margin more — so with a margin no value can overcome
the `learned` bot plays exactly as the heuristic bot, and with none it is greedy."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import baohuang as bh
from baohuang.bots import make_bot
from baohuang.env.observation import OBS_SIZE
from baohuang.learn.bot import LearnedBot
from baohuang.learn.features import ACTION_SIZE, GUIDED_SIZE
from baohuang.learn.model import QNetwork, pick


def random_network(guided: bool, margin: float | None, seed: int = 0) -> QNetwork:
    rng = np.random.default_rng(seed)
    weights = {"w0o": rng.normal(0, 0.1, (OBS_SIZE, 16)),
               "w0a": rng.normal(0, 0.3, (GUIDED_SIZE if guided else ACTION_SIZE, 16)),
               "b0": np.zeros(16), "w1": rng.normal(0, 0.3, (16, 1)), "b1": np.zeros(1)}
    if margin is not None:
        weights["margin"] = np.array(margin)
    return QNetwork({k: np.asarray(v, np.float32) for k, v in weights.items()})


@settings(max_examples=200, deadline=None)
@given(st.lists(st.floats(-30, 30), min_size=1, max_size=12), st.data(),
       st.floats(0, 10))
def test_pick_keeps_the_hint_unless_another_is_worth_more_than_the_margin(
        values: list[float], data: st.DataObject, margin: float) -> None:
    arr = np.asarray(values, np.float32)
    hint = data.draw(st.integers(0, len(values) - 1))
    j = pick(arr, hint, margin)
    if j == hint:
        assert arr.max() <= arr[hint] + margin
    else:
        assert arr[j] == arr.max() and arr[j] > arr[hint] + margin
    assert arr[pick(arr, None, margin)] == arr.max()


def play_and_compare(network: QNetwork, seed: int) -> tuple[int, int]:
    """Play a game of four heuristic seats and one `learned` seat on ``network``;
    count the learned seat's decisions with a choice and those where it took the
    heuristic bot's action."""
    game = bh.Game.new(seed=seed, dealer=seed % 5)
    learned = LearnedBot(0, network)
    heuristic = make_bot("heuristic")
    bots = [learned if s == seed % 5 else make_bot("heuristic", seed=s) for s in range(5)]
    decisions = same = 0
    while not game.is_over:
        seat = game.to_act
        assert seat is not None
        view, legal = game.view(seat), game.legal_actions()
        action = bots[seat].choose(view, legal)
        if bots[seat] is learned and len(legal) > 1:
            decisions += 1
            same += action == heuristic.choose(view, legal)
        game.apply(action)
    return decisions, same


def test_a_guided_network_with_a_wide_margin_plays_as_the_heuristic_bot() -> None:
    network = random_network(guided=True, margin=1e6)
    assert network.guided and network.margin == 1e6
    for seed in range(3):
        decisions, same = play_and_compare(network, seed)
        assert decisions > 5 and same == decisions


def test_without_a_margin_a_guided_network_goes_its_own_way() -> None:
    network = random_network(guided=True, margin=None, seed=4)
    assert network.guided and network.margin == 0.0
    counts = [play_and_compare(network, seed) for seed in range(3)]
    assert sum(d for d, _ in counts) > sum(s for _, s in counts)


def test_the_hint_is_an_input_of_a_guided_network() -> None:
    network = random_network(guided=True, margin=0.0, seed=2)
    game = bh.Game.new(seed=5)
    bot = LearnedBot(0, network)
    while len(game.legal_actions()) < 3:
        seat = game.to_act
        assert seat is not None
        game.apply(bot.choose(game.view(seat), game.legal_actions()))
    seat = game.to_act
    assert seat is not None
    view, legal = game.view(seat), game.legal_actions()
    hint = bot.hint(view, legal)
    assert hint is not None and legal[hint] == make_bot("heuristic").choose(view, legal)
    other = (hint + 1) % len(legal)
    assert bot.values(view, legal, hint) != bot.values(view, legal, other)
    assert bot.values(view, legal) == bot.values(view, legal, hint)
    assert LearnedBot(0, random_network(guided=False, margin=None)).hint(view, legal) is None
