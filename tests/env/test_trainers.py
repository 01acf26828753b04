"""The field's own trainers on the environments, as a researcher runs them (docs/rl.md):
RLCard's Deep Monte-Carlo (``DMCTrainer``) on the RLCard environment, with its action
features, and on the PettingZoo environment; sb3-contrib's maskable PPO on the
Gymnasium environment.  They need the ``rl-train`` extra (PyTorch on the CPU,
GitPython, sb3-contrib), which the development venv has."""

from __future__ import annotations

import multiprocessing
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import rlcard

from baohuang.env import BaohuangGymEnv, baohuang_v0  # (registers rlcard.make("baohuang"))
from baohuang.env.action_features import ACTION_FEATURE_SIZE
from baohuang.env.actions import N_ACTIONS
from baohuang.env.observation import OBS_SIZE

pytestmark = pytest.mark.slow

#: rollout buffers a seat (see :func:`train_dmc`), and how long a short training may take
DMC_BUFFERS, DMC_SECONDS = 32, 600


@pytest.fixture(scope="module")
def torch() -> Any:
    """PyTorch, imported when a test here runs (skipped without it), not when the
    module is collected: every worker of ``pytest -n`` collects it, and ``make check``
    runs none of these tests."""
    return pytest.importorskip("torch")


@pytest.fixture
def one_thread(monkeypatch: pytest.MonkeyPatch, torch: Any) -> Iterator[None]:
    """Torch on one thread here and in the trainer's actor processes (spawned: they
    read the environment), and every actor ended afterwards (RLCard's DMC leaves its
    actors running when it returns)."""
    monkeypatch.setenv("OMP_NUM_THREADS", "1")
    monkeypatch.setenv("MKL_NUM_THREADS", "1")
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        yield
    finally:
        torch.set_num_threads(threads)
        for child in multiprocessing.active_children():
            child.terminate()
            child.join(30)


def train_dmc(env: Any, savedir: Path, *, pettingzoo: bool, frames: int) -> dict[str, Any]:
    """RLCard's DMC for about ``frames`` frames on the CPU with one actor; its last
    checkpoint."""
    import torch
    from rlcard.agents.dmc_agent import DMCTrainer

    # RLCard's learners (one a seat) stop once ``frames`` are learnt, each when it has
    # its next batch; its actor fills the rollout buffers of every seat in turn and
    # waits for a free one of the seat it plays next.  With few buffers a seat whose
    # learner has stopped fills them all while another learner still waits for its
    # batch, and training never returns: enough buffers that every seat's last batch
    # comes first (and a bound, so that such a wait fails here instead of hanging)
    trainer = DMCTrainer(env, cuda="", is_pettingzoo_env=pettingzoo, xpid="baohuang",
                         savedir=str(savedir), save_interval=60, num_actors=1,
                         training_device="cpu", total_frames=frames, batch_size=2,
                         unroll_length=8, num_buffers=DMC_BUFFERS, num_threads=1)
    training = threading.Thread(target=trainer.start, daemon=True)
    training.start()
    training.join(DMC_SECONDS)
    assert not training.is_alive(), f"RLCard's DMC did not end within {DMC_SECONDS} s"
    checkpoint: dict[str, Any] = torch.load(savedir / "baohuang" / "model.tar",
                                            map_location="cpu", weights_only=False)
    return checkpoint


def first_layer(state_dict: dict[str, Any]) -> tuple[int, ...]:
    return tuple(state_dict["fc_layers.0.weight"].shape)


def test_rlcard_dmc_trains_on_the_action_features(tmp_path: Path, one_thread: None) -> None:
    env = rlcard.make("baohuang", config={"seed": 0})
    checkpoint = train_dmc(env, tmp_path, pettingzoo=False, frames=200)
    assert checkpoint["frames"] >= 200
    # each seat's network reads the observation and the action's 36 features (not a
    # 29,379-wide one-hot), and has learnt (its losses are numbers)
    states = checkpoint["model_state_dict"]
    assert len(states) == 5
    assert {first_layer(s) for s in states} == {(512, OBS_SIZE + ACTION_FEATURE_SIZE)}
    losses = [checkpoint["stats"][f"loss_{p}"] for p in range(5)]
    assert all(np.isfinite(loss) for loss in losses) and any(loss > 0 for loss in losses)


def test_rlcard_dmc_trains_on_the_pettingzoo_env(tmp_path: Path, one_thread: None) -> None:
    env = baohuang_v0.env()
    env.reset(seed=0)
    checkpoint = train_dmc(env, tmp_path, pettingzoo=True, frames=100)
    assert checkpoint["frames"] >= 100
    # (with the PettingZoo environment RLCard's DMC one-hot encodes the action index)
    states = checkpoint["model_state_dict"]
    assert {first_layer(s) for s in states} == {(512, OBS_SIZE + N_ACTIONS)}


def test_maskable_ppo_learns_to_play_legal_games(tmp_path: Path, torch: Any) -> None:
    sb3_contrib = pytest.importorskip("sb3_contrib")
    torch.manual_seed(0)
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        env = BaohuangGymEnv("shandong", seat=None, opponents=("random",) * 4)
        model = sb3_contrib.MaskablePPO("MlpPolicy", env, n_steps=512, batch_size=128,
                                        n_epochs=2, seed=0, device="cpu", verbose=0)
        model.learn(total_timesteps=2048)
        assert model.num_timesteps >= 2048
        model.save(tmp_path / "ppo")
        loaded = sb3_contrib.MaskablePPO.load(tmp_path / "ppo", device="cpu")
        # the trained policy, asked with the masks, plays whole games and never an
        # illegal action
        for seed in range(3):
            observation, info = env.reset(seed=seed)
            done = False
            while not done:
                action, _ = loaded.predict(observation, action_masks=env.action_masks(),
                                           deterministic=True)
                observation, _, done, _, info = env.step(int(action))
                assert not info.get("illegal_action")
            assert env.game.is_over
    finally:
        torch.set_num_threads(threads)
