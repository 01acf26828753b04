"""Training a guided network: the hint reaches the samples and the recorded games, a
network without it widens into one with it unchanged, and a guided run warm-starts,
trains, keeps its margin in what it writes and resumes as a guided run."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")   # the train extra; without it these tests skip

from typer.testing import CliRunner  # noqa: E402

import baohuang as bh  # noqa: E402
from baohuang.cli import app  # noqa: E402
from baohuang.learn.actors import SelfPlay  # noqa: E402
from baohuang.learn.features import ACTION_SIZE, GUIDED_SIZE  # noqa: E402
from baohuang.learn.imitate import record  # noqa: E402
from baohuang.learn.model import QNetwork, load_weights, save_weights  # noqa: E402
from baohuang.learn.torchq import TorchQ, export, load_into  # noqa: E402
from baohuang.learn.train import Config, train  # noqa: E402
from baohuang.learn.warmstart import batch_inputs, warm_start  # noqa: E402


def guided_network(margin: float) -> QNetwork:
    torch.manual_seed(1)
    weights = export(TorchQ((16, 8), guided=True))
    weights["margin"] = np.array(margin, np.float32)
    return QNetwork(weights)


def test_self_play_samples_carry_the_hint() -> None:
    # a margin nothing overcomes and no exploration: every decision is the heuristic's
    play = SelfPlay(bh.RuleSet.preset("shandong"), tables=2, epsilon=0.0, mix=1.0, seed=2,
                    learn_heuristic=True)
    samples = play.play(guided_network(1e6), 60)
    assert samples.acts.shape[1] == GUIDED_SIZE
    assert (samples.acts[:, -1] == 1.0).all()
    # greedy without a margin, it sometimes takes another action than the heuristic's
    free = SelfPlay(bh.RuleSet.preset("shandong"), tables=2, epsilon=0.0, mix=0.0, seed=2)
    samples = free.play(guided_network(0.0), 60)
    assert set(np.unique(samples.acts[:, -1])) == {0.0, 1.0}


def test_recorded_games_mark_the_heuristic_choice() -> None:
    demos = record(2, seed=3, deviate_role=0.5, deviate_play=0.2)
    rows = np.arange(len(demos))
    _, acts, _, col, _ = batch_inputs(demos, rows, guided=True)
    assert acts.shape[1] == GUIDED_SIZE
    hinted = acts[:, -1].numpy() == 1.0
    assert hinted.sum() == len(demos)
    np.testing.assert_array_equal(col.numpy()[hinted], demos.chosen)
    plain = batch_inputs(demos, rows)[1]
    assert plain.shape[1] == ACTION_SIZE
    np.testing.assert_array_equal(plain.numpy(), acts.numpy()[:, :-1])


def test_an_unguided_network_widens_into_a_guided_one_unchanged() -> None:
    torch.manual_seed(0)
    plain = TorchQ((16, 8))
    guided = TorchQ((16, 8), guided=True)
    load_into(guided, export(plain))
    samples = SelfPlay(bh.RuleSet.preset("shandong"), tables=1, seed=4).play(
        QNetwork(export(plain)), 20)
    obs, acts = torch.from_numpy(samples.obs), torch.from_numpy(samples.acts)
    with torch.no_grad():
        expected = plain(obs, acts)
        for flag in (0.0, 1.0):
            hinted = torch.cat([acts, torch.full((len(acts), 1), flag)], dim=1)
            torch.testing.assert_close(guided(obs, hinted), expected)


def test_a_guided_run_warm_starts_trains_and_resumes(tmp_path: Path) -> None:
    run = tmp_path / "run"
    torch.manual_seed(0)
    plain = tmp_path / "plain.npz"
    save_weights(plain, export(TorchQ((16, 8))))
    warm = warm_start(run, games=2, steps=10, seed=1, guided=True, imitation=0.0, init=plain)
    assert load_weights(warm)["w0a"].shape == (GUIDED_SIZE, 16)

    def cfg(updates: int) -> Config:
        return Config(run_dir=run, tables=2, batch=16, eval_deals=1, max_updates=updates,
                      seed=3, init=warm, guided=True, margin=0.25, mix=1.0,
                      learn_heuristic=True, demos=run / "demos.npz", imitation=1.0,
                      demo_ce=0.0)

    first = train(cfg(2))
    assert first["updates"] == 2
    for path in [run / "best.npz", run / "last.npz", *(run / "snapshots").iterdir()]:
        network = QNetwork.load(path)
        assert network.guided and network.margin == 0.25
    config = json.loads((run / "config.json").read_text())
    assert config["guided"] and config["margin"] == 0.25
    # resumed without saying guided: the checkpoint's network is a guided one
    again = Config(run_dir=run, tables=2, batch=16, eval_deals=1, max_updates=4, seed=3)
    more = train(again)
    assert more["updates"] == 4 and again.guided
    assert QNetwork.load(run / "last.npz").guided
    # `baohuang train RUN --export FILE --margin M` writes the best network with margin M
    out = tmp_path / "exported.npz"
    result = CliRunner().invoke(app, ["train", str(run), "--export", str(out), "--margin", "2"])
    assert result.exit_code == 0, result.output
    exported, best = load_weights(out), load_weights(run / "best.npz")
    assert float(exported["margin"]) == 2.0 and QNetwork(exported).margin == 2.0
    for name in best:
        if name != "margin":
            np.testing.assert_array_equal(exported[name], best[name])
