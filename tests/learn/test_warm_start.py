"""The warm start: recorded heuristic games hold the heuristic's choices and the
final scores; a network fitted to them starts a Deep Monte-Carlo run."""

from __future__ import annotations

import json
import random
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")   # the train extra; without it these tests skip

import baohuang as bh  # noqa: E402
from baohuang.bots import make_bot  # noqa: E402
from baohuang.env.actions import ActionEncoder  # noqa: E402
from baohuang.learn.imitate import Demos, record  # noqa: E402
from baohuang.learn.model import load_weights  # noqa: E402
from baohuang.learn.train import Config, train  # noqa: E402
from baohuang.learn.warmstart import warm_start  # noqa: E402


def test_recorded_decisions_are_the_heuristic_choices_and_final_scores() -> None:
    demos = record(2, seed=7, deviate_role=0.0, deviate_play=0.0)
    assert len(demos) > 20
    assert (demos.taken == demos.chosen).all()
    lens = np.diff(demos.start)
    assert (lens >= 2).all() and (demos.chosen < lens).all()
    # the same two games again, by the same seeds: each decision's chosen action is
    # the heuristic's choice in that view, its score the seat's final score
    rng = random.Random(7)
    encoder = ActionEncoder()
    i = 0
    for _ in range(2):
        game = bh.Game.new(bh.RuleSet.preset("shandong"), seed=rng.getrandbits(48),
                           dealer=rng.randrange(5))
        bots = [make_bot("heuristic", seed=rng.getrandbits(32)) for _ in range(5)]
        seats = []
        while not game.is_over:
            seat = game.to_act
            assert seat is not None
            view, legal = game.view(seat), game.legal_actions()
            action = bots[seat].choose(view, legal)
            if len(legal) > 1:
                index = encoder.indexes(view, [action])[0]
                assert demos.actions[demos.start[i] + demos.chosen[i]] == index
                seats.append(seat)
                i += 1
            game.apply(action)
        assert game.result is not None
        got = demos.score[i - len(seats):i]
        assert got.tolist() == [float(game.result.scores[s]) for s in seats]
    assert i == len(demos)


def test_deviations_take_other_actions_and_demos_round_trip(tmp_path: Path) -> None:
    demos = record(2, seed=1, deviate_role=1.0, deviate_play=1.0)
    assert (demos.taken != demos.chosen).any()
    demos.save(tmp_path / "d.npz")
    again = Demos.concat([Demos.load(tmp_path / "d.npz"), demos])
    assert len(again) == 2 * len(demos)
    n = len(demos)
    i = n + 3
    np.testing.assert_array_equal(again.actions[again.start[i]:again.start[i + 1]],
                                  demos.actions[demos.start[3]:demos.start[4]])


def test_warm_start_then_deep_monte_carlo_goes_on_from_it(tmp_path: Path) -> None:
    run = tmp_path / "run"
    rows: list[dict[str, float]] = []
    path = warm_start(run, games=3, steps=20, hidden=(16, 8), seed=2, report=rows.append)
    info = json.loads((run / "warm.json").read_text())
    assert info["games"] == 3 and info["step"] == 20 and rows[-1]["step"] == 20
    assert 0.0 <= info["agree_play"] <= 1.0
    assert info["agree_role"] is None or 0.0 <= info["agree_role"] <= 1.0
    warm = load_weights(path)
    train(Config(run_dir=run, tables=2, batch=16, eval_deals=1, max_updates=0, seed=3,
                 init=path, mix=1.0, learn_heuristic=True))
    # no update yet: the network evaluated first is the warm start's
    first = sorted((run / "snapshots").iterdir())[0]
    for name, value in load_weights(first).items():
        np.testing.assert_array_equal(value, warm[name])
    # updates that also rehearse the recorded games move the network
    more = train(Config(run_dir=run, tables=2, batch=16, eval_deals=1, max_updates=3, seed=3,
                        demos=run / "demos.npz", imitation=1.0))
    assert more["updates"] == 3
    moved = load_weights(run / "last.npz")
    assert any(not np.array_equal(moved[k], warm[k]) for k in warm)
