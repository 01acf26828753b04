"""The belief model: probabilities that add up, deals that fit the view, and
beliefs that know more than the uniform spread."""

from __future__ import annotations

import random
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import baohuang as bh
from baohuang.bots import make_bot
from baohuang.bots.belief import Belief, PlayModel, uniform_expected
from baohuang.bots.inference import base_probabilities, guard_probabilities
from baohuang.engine.plays import rank_counts


def play_until(seed: int, decisions: int) -> bh.Game:
    game = bh.Game.new(seed=seed)
    bots = [make_bot("heuristic", seed=s) for s in range(5)]
    for _ in range(decisions):
        if game.is_over:
            break
        seat = game.to_act
        assert seat is not None
        game.apply(bots[seat].choose(game.view(seat), game.legal_actions()))
    return game


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 10_000), decisions=st.integers(0, 120), seat=st.integers(0, 4))
def test_beliefs_are_distributions_that_fit_the_view(seed: int, decisions: int,
                                                     seat: int) -> None:
    game = play_until(seed, decisions)
    view = game.view(seat)
    belief = Belief(view, samples=4, seed=1)
    assert sum(belief.guard) == pytest.approx(1.0)
    assert all(p >= 0.0 for p in belief.guard)
    # a seat the inference rules out stays ruled out
    for s, p in enumerate(guard_probabilities(view)):
        if p == 0.0 and view.emperor is not None:
            assert belief.guard[s] == pytest.approx(0.0, abs=1e-12)
    assert belief.expected[seat] == [float(k) for k in rank_counts(view.hand)]
    for s in range(5):
        assert sum(belief.expected[s]) == pytest.approx(view.hand_counts[s], abs=1e-6)
    world = belief.sample(random.Random(3))
    assert world.hands[seat] == view.hand
    assert [len(h) for h in world.hands] == list(view.hand_counts)
    everything = Counter(view.played)
    for hand in world.hands:
        everything.update(hand)
    if bh.TEHUA_CARD in everything and view.called is not None:
        everything[view.called] += everything.pop(bh.TEHUA_CARD)
    assert everything == Counter(bh.make_deck(game.rules.deck))


def test_beliefs_are_deterministic_given_the_seed() -> None:
    view = play_until(4, 60).view(2)
    a, b = Belief(view, samples=8, seed=5), Belief(view, samples=8, seed=5)
    assert a.guard == b.guard and a.expected == b.expected
    assert a.sample(random.Random(1)) == b.sample(random.Random(1))


def test_a_pass_on_an_opponent_with_a_cheap_beat_in_hand_is_unlikely() -> None:
    """The play model scores deals: a seat that passed on an opponent's low
    single is less likely to have held a middling single then."""
    rules = bh.RuleSet.preset("shandong")
    for seed in range(40):
        game = play_until(seed, 200)
        view = game.view(0)
        model = PlayModel(view, rules)
        for p in model.passes:
            if p.last[1] == 1 and p.last[0] <= 8 and not p.last[2] and not p.last[3]:
                cheap = [0] * 19
                cheap[p.last[0] + 1] = 1
                none = [0] * 19
                none[3] = 1
                assert model._pass_factor(cheap, p) < model._pass_factor(none, p)
                return
    pytest.fail("no pass on a low single in 40 games")


def test_the_belief_finds_the_guard_better_than_the_uniform_baseline() -> None:
    """Over fixed games, asked by the rebels while the Guard is hidden, the
    belief's Brier score is well below the uniform baseline's."""
    ours = base = 0.0
    questions = 0
    for seed in range(6):
        game = bh.Game.new(seed=seed)
        bots = [make_bot("heuristic", seed=s) for s in range(5)]
        step = 0
        while not game.is_over:
            seat = game.to_act
            assert seat is not None
            if game.stage is bh.Stage.PLAY and step % 6 == 0 and game.guard is not None:
                for s in range(5):
                    view = game.view(s)
                    uniform = base_probabilities(view)
                    if max(uniform) < 1.0:
                        truth = game.guard
                        probs = Belief(view, samples=8, seed=s).guard
                        ours += sum((p - (i == truth)) ** 2 for i, p in enumerate(probs))
                        base += sum((p - (i == truth)) ** 2 for i, p in enumerate(uniform))
                        questions += 1
            if game.stage is bh.Stage.PLAY:
                step += 1
            game.apply(bots[seat].choose(game.view(seat), game.legal_actions()))
    assert questions >= 20
    assert ours / questions < 0.8 * base / questions


def test_the_uniform_baseline_spreads_the_unseen_cards() -> None:
    view = play_until(2, 30).view(1)
    spread = uniform_expected(view)
    for s in range(5):
        assert sum(spread[s]) == pytest.approx(view.hand_counts[s])
