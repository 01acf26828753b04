"""Deep Monte-Carlo training (as in DouZero) of the Q network, with PyTorch on the CPU.

One process: :class:`~baohuang.learn.actors.SelfPlay` plays many games at once with
the NumPy copy of the network (epsilon-greedy), every decision of a network seat
becomes a sample whose target is the seat's final score, and the learner fits
``Q(observation, action)`` to those targets by mean squared error (Adam).  After each
round of updates the NumPy copy is refreshed.

A run lives in one directory: ``checkpoint.pt`` (network, optimizer, counters; written
every ``checkpoint_minutes`` and at the end — running the same command again resumes
from it), ``train.csv`` (the learning curve), ``eval.jsonl`` (strength against the
heuristic bot over training time), ``snapshots/*.npz`` (the network at each
evaluation, in the format the ``learned`` bot reads) and ``best.npz``.

A *guided* run (``Config.guided``) trains a network that also reads the heuristic's
choice (:mod:`.features`) and plays by the margin rule of :func:`~.model.pick`; its
snapshots carry the margin, so the ``learned`` bot plays them as they were evaluated.

Needs the ``train`` extra (``pip install 'baohuang[train]'``, PyTorch's CPU build).
"""

from __future__ import annotations

import csv
import json
import os
import shutil
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch import nn

import baohuang as bh

from .actors import Samples, SelfPlay
from .evaluate import against_heuristic
from .model import QNetwork, load_weights, save_weights
from .torchq import TorchQ, export, hidden_of, load_into

__all__ = ["Config", "TorchQ", "export", "load_into", "train"]


@dataclass
class Config:
    """What a run does (stored in its checkpoint; a resumed run keeps its network shape)."""

    run_dir: Path
    minutes: float = 60.0             # stop after this much training time (all sessions)
    rules: str = "shandong"
    hidden: tuple[int, ...] = (256, 128, 128)
    tables: int = 32                  # games played side by side
    epsilon: float = 0.03
    mix: float = 0.5                  # share of games with heuristic seats
    batch: int = 256
    lr: float = 3e-4
    reuse: float = 2.0                # samples drawn per sample played
    buffer: int = 50_000
    eval_minutes: float = 15.0        # evaluate every this much training time
    eval_deals: int = 40
    checkpoint_minutes: float = 5.0
    seed: int = 0
    threads: int = 1
    max_updates: int | None = None    # stop after this many updates (tests)
    init: Path | None = None          # start from these weights (.npz), e.g. a warm start
    learn_heuristic: bool = False     # the heuristic seats' decisions are samples too
    demos: Path | None = None         # recorded heuristic games (.npz of imitate.Demos) ...
    imitation: float = 0.0            # ... whose loss (warmstart.fit's) is added with this weight
    demo_ce: float = 1.0              # the weight of the cross-entropy within that loss
    guided: bool = False              # the network reads the heuristic's choice ...
    margin: float = 0.0               # ... and keeps it unless another is worth this much more

    def to_dict(self) -> dict[str, Any]:
        out = asdict(self)
        out["run_dir"] = str(self.run_dir)
        out["hidden"] = list(self.hidden)
        out["init"] = None if self.init is None else str(self.init)
        out["demos"] = None if self.demos is None else str(self.demos)
        return out


@dataclass
class _State:
    elapsed: float = 0.0              # training time (seconds), evaluations not counted
    cpu: float = 0.0                  # this process's CPU time on training, likewise
    games: int = 0
    samples: int = 0
    updates: int = 0
    last_eval: float = 0.0
    best: float | None = None
    history: list[dict[str, Any]] = field(default_factory=list)


class _Buffer:
    """The most recent samples, drawn from at random."""

    def __init__(self, size: int, guided: bool) -> None:
        self.size = size
        self.data = Samples.empty(guided)

    def add(self, new: Samples) -> None:
        keep = max(0, self.size - len(new))
        self.data = Samples(np.concatenate([self.data.obs[-keep:] if keep else self.data.obs[:0],
                                            new.obs]),
                            np.concatenate([self.data.acts[-keep:] if keep else self.data.acts[:0],
                                            new.acts]),
                            np.concatenate([self.data.targets[-keep:] if keep
                                            else self.data.targets[:0], new.targets]))

    def draw(self, n: int, rng: np.random.Generator) -> tuple[torch.Tensor, ...]:
        i = rng.integers(0, len(self.data), n)
        return (torch.from_numpy(self.data.obs[i]), torch.from_numpy(self.data.acts[i]),
                torch.from_numpy(self.data.targets[i]))


def _save_checkpoint(path: Path, cfg: Config, model: TorchQ, opt: torch.optim.Optimizer,
                     state: _State) -> None:
    tmp = path.with_suffix(".tmp")
    torch.save({"config": cfg.to_dict(), "model": model.state_dict(),
                "optimizer": opt.state_dict(), "state": asdict(state)}, tmp)
    os.replace(tmp, path)


def _log_row(path: Path, row: dict[str, Any]) -> None:
    new = not path.exists()
    with path.open("a", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(row))
        if new:
            writer.writeheader()
        writer.writerow(row)


Report = Callable[[dict[str, Any]], None]


def train(cfg: Config, report: Report | None = None) -> dict[str, Any]:
    """Train (or resume) the run in ``cfg.run_dir`` until ``cfg.minutes`` of training
    time or ``cfg.max_updates`` updates; ``report`` is called after every round with
    the counters.  Returns the final counters."""
    torch.set_num_threads(cfg.threads)
    run = Path(cfg.run_dir)
    (run / "snapshots").mkdir(parents=True, exist_ok=True)
    ckpt_path = run / "checkpoint.pt"
    state = _State()
    saved: dict[str, Any] | None = None
    if ckpt_path.exists():
        saved = torch.load(ckpt_path, weights_only=False)
        cfg.hidden = tuple(saved["config"]["hidden"])
        cfg.guided = bool(saved["config"].get("guided", False))
        state = _State(**saved["state"])
    model = TorchQ(cfg.hidden, cfg.guided)
    opt = torch.optim.Adam(model.parameters(), lr=cfg.lr)
    if saved is not None:
        model.load_state_dict(saved["model"])
        opt.load_state_dict(saved["optimizer"])
    else:
        torch.manual_seed(cfg.seed)
        if cfg.init is not None:
            weights = load_weights(cfg.init)
            cfg.hidden = hidden_of(weights)
        model = TorchQ(cfg.hidden, cfg.guided)
        if cfg.init is not None:
            load_into(model, weights)
        opt = torch.optim.Adam(model.parameters(), lr=cfg.lr)

    def playing() -> dict[str, Any]:
        """The network's weights as the bot plays them (with the margin if guided)."""
        out: dict[str, Any] = export(model)
        if cfg.guided:
            out["margin"] = np.array(cfg.margin, np.float32)
        return out

    (run / "config.json").write_text(json.dumps(cfg.to_dict(), indent=1) + "\n")
    rules = bh.RuleSet.preset(cfg.rules)
    # a resumed run draws new games (and batches) from a seed that moved on
    actors = SelfPlay(rules, tables=cfg.tables, epsilon=cfg.epsilon, mix=cfg.mix,
                      seed=cfg.seed * 1_000_003 + state.updates,
                      learn_heuristic=cfg.learn_heuristic)
    rng = np.random.default_rng(cfg.seed * 1_000_003 + state.updates)
    buffer = _Buffer(cfg.buffer, cfg.guided)
    network = QNetwork(playing())
    loss_fn = nn.MSELoss()
    rehearse: Callable[[], torch.Tensor] | None = None
    if cfg.demos is not None and cfg.imitation > 0:
        from .imitate import Demos
        from .warmstart import demo_loss  # (warmstart builds on this module)

        demos = Demos.load(cfg.demos)

        def rehearse() -> torch.Tensor:
            return demo_loss(model, demos, rng.integers(0, len(demos), max(1, cfg.batch // 4)),
                             ce=cfg.demo_ce)
    last_ckpt = time.monotonic()
    round_samples = cfg.batch * 8

    def evaluate() -> None:
        weights = playing()
        snap = run / "snapshots" / f"updates-{state.updates:08d}.npz"
        save_weights(snap, weights)
        result = against_heuristic(QNetwork(weights), deals=cfg.eval_deals, seed=12345,
                                   rules=rules)
        row = {"elapsed_s": round(state.elapsed, 1), "cpu_s": round(state.cpu, 1),
               "games": state.games, "samples": state.samples, "updates": state.updates,
               "snapshot": snap.name, **result}
        with (run / "eval.jsonl").open("a") as f:
            f.write(json.dumps(row) + "\n")
        state.history.append(row)
        if state.best is None or result["mean"] > state.best:
            state.best = result["mean"]
            shutil.copyfile(snap, run / "best.npz")
        state.last_eval = state.elapsed

    if saved is None:
        evaluate()
    while state.elapsed < cfg.minutes * 60 and (cfg.max_updates is None
                                                or state.updates < cfg.max_updates):
        wall0, cpu0 = time.monotonic(), time.process_time()
        games0 = actors.games
        new = actors.play(network, round_samples)
        buffer.add(new)
        steps = max(1, round(len(new) * cfg.reuse / cfg.batch))
        if cfg.max_updates is not None:
            steps = min(steps, cfg.max_updates - state.updates)
        losses = []
        model.train()
        for _ in range(steps):
            obs, acts, target = buffer.draw(cfg.batch, rng)
            loss = loss_fn(model(obs, acts), target)
            if rehearse is not None:
                loss = loss + cfg.imitation * rehearse()
            opt.zero_grad()
            loss.backward()
            nn.utils.clip_grad_norm_(model.parameters(), 40.0)
            opt.step()
            losses.append(float(loss.detach()))
        network = QNetwork(playing())
        state.games += actors.games - games0
        state.samples += len(new)
        state.updates += steps
        state.elapsed += time.monotonic() - wall0
        state.cpu += time.process_time() - cpu0
        recent = actors.scores[-2000:]
        row = {"elapsed_s": round(state.elapsed, 1), "cpu_s": round(state.cpu, 1),
               "games": state.games, "samples": state.samples, "updates": state.updates,
               "loss": round(float(np.mean(losses)), 5),
               "target_mean": round(float(new.targets.mean()), 4),
               "score_mean": round(float(np.mean(recent)), 4) if recent else 0.0}
        _log_row(run / "train.csv", row)
        if report is not None:
            report(row | {"best": state.best})
        if state.elapsed - state.last_eval >= cfg.eval_minutes * 60:
            evaluate()
        if time.monotonic() - last_ckpt >= cfg.checkpoint_minutes * 60:
            _save_checkpoint(ckpt_path, cfg, model, opt, state)
            last_ckpt = time.monotonic()
    _save_checkpoint(ckpt_path, cfg, model, opt, state)
    save_weights(run / "last.npz", playing())
    return asdict(state) | {"history": state.history}
