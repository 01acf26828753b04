"""Deep Monte-Carlo training: a few updates run, a run resumes from its checkpoint,
and the NumPy network the bot plays with computes what the PyTorch one does."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")   # the train extra; without it these tests skip

import baohuang as bh  # noqa: E402
from baohuang.learn.actors import SelfPlay  # noqa: E402
from baohuang.learn.model import SCORE_SCALE, QNetwork, load_weights  # noqa: E402
from baohuang.learn.torchq import TorchQ, export  # noqa: E402
from baohuang.learn.train import Config, train  # noqa: E402


def tiny(run: Path, updates: int) -> Config:
    return Config(run_dir=run, tables=2, batch=16, hidden=(16, 8), eval_deals=1,
                  max_updates=updates, seed=3)


def test_numpy_network_matches_torch_on_real_decisions() -> None:
    torch.manual_seed(0)
    model = TorchQ((32, 16, 8))
    network = QNetwork(export(model))
    samples = SelfPlay(bh.RuleSet.preset("shandong"), tables=2, seed=1).play(network, 50)
    assert len(samples) >= 50
    with torch.no_grad():
        expected = model(torch.from_numpy(samples.obs), torch.from_numpy(samples.acts)).numpy()
    got = network.q_values(samples.obs, samples.acts, np.arange(len(samples)))
    np.testing.assert_allclose(got, expected * SCORE_SCALE, rtol=1e-4, atol=1e-4)
    # one decision, its observation computed once for all its actions
    one = network.q_values(samples.obs[0], samples.acts[:5])
    np.testing.assert_allclose(one[0], got[0], rtol=1e-5, atol=1e-5)


def test_samples_carry_the_final_score_of_their_seat() -> None:
    network = QNetwork(export(TorchQ((8,))))
    play = SelfPlay(bh.RuleSet.preset("shandong"), tables=1, mix=0.0, seed=5)
    samples = play.play(network, 1)
    assert play.games >= 1
    assert set(np.unique(samples.targets * SCORE_SCALE)) <= {float(s) for s in play.scores}


def test_a_few_updates_then_resume_from_the_checkpoint(tmp_path: Path) -> None:
    run = tmp_path / "run"
    first = train(tiny(run, 2))
    assert first["updates"] == 2 and first["games"] >= 1
    assert (run / "checkpoint.pt").exists() and (run / "best.npz").exists()
    weights = load_weights(run / "last.npz")
    evals = [json.loads(line) for line in (run / "eval.jsonl").read_text().splitlines()]
    assert len(evals) == 1 and evals[0]["eval_games"] == 10
    # the same budget again: the network comes back from the checkpoint unchanged
    again = train(tiny(run, 2))
    assert again["updates"] == 2 and again["games"] == first["games"]
    for name, value in load_weights(run / "last.npz").items():
        np.testing.assert_array_equal(value, weights[name])
    # a larger budget goes on from there
    more = train(tiny(run, 4))
    assert more["updates"] == 4 and more["games"] > first["games"]
    with (run / "train.csv").open() as f:
        rows = list(csv.DictReader(f))
    assert [int(r["updates"]) for r in rows][-1] == 4
    assert int(rows[0]["updates"]) == 2
    assert any(load_weights(run / "last.npz")[k].tolist() != weights[k].tolist()
               for k in weights)
