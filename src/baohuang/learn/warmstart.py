"""Fitting the Q network to recorded heuristic games (:mod:`.imitate`), with PyTorch.

The loss of a batch of decisions is ``mse + imitation * ce``: ``mse`` the squared
error of the taken action's value (scaled by :data:`SCORE_SCALE`) against the final
score, ``ce`` the cross-entropy of ``softmax(Q / tau)`` over the decision's legal
actions (``Q`` in points) against the heuristic's choice.

A guided network (:mod:`.features`) reads the heuristic's choice as an input, so the
cross-entropy would only teach it to trust that input: it is fitted with ``imitation``
0, the squared error alone, which makes its values those of each action followed by the
heuristic's play (the recordings' deviations say what the other actions are worth).
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import torch

import baohuang as bh

from ..env.observation import SLOTS
from .features import _CARDS, _HAND, ACTION_STATIC, OBS_SCALE, action_table, with_hint
from .imitate import Demos, record
from .model import SCORE_SCALE, load_weights, save_weights
from .torchq import TorchQ, export, hidden_of, load_into

__all__ = ["batch_inputs", "demo_loss", "fit", "warm_start"]

Ints = npt.NDArray[np.int64]


def batch_inputs(demos: Demos, rows: Ints, guided: bool = False) -> tuple[torch.Tensor, ...]:
    """The network's inputs for the decisions ``rows``: scaled observations
    ``[B, OBS]``, action features ``[N, ACTION_SIZE]`` (``GUIDED_SIZE`` if ``guided``),
    each action's decision ``owner[N]`` and position ``col[N]`` among its decision's
    actions, and ``lens[B]``."""
    lo, hi = demos.start[rows], demos.start[rows + 1]
    lens = hi - lo
    owner = np.repeat(np.arange(len(rows)), lens)
    first = np.cumsum(lens) - lens
    col = np.arange(int(lens.sum())) - np.repeat(first, lens)
    idx = demos.actions[np.repeat(lo, lens) + col]
    raw = demos.obs[rows].astype(np.float32)
    static = action_table()[idx]
    after = raw[owner][:, _HAND] - static[:, _CARDS:_CARDS + SLOTS]
    acts = np.concatenate([static, after * (1.0 / 8.0)], axis=1)
    acts[:, _CARDS:_CARDS + SLOTS] *= 1.0 / 8.0
    assert acts.shape[1] == ACTION_STATIC + SLOTS
    if guided:
        acts = with_hint(acts, col == demos.chosen[rows][owner])
    return (torch.from_numpy(raw * OBS_SCALE), torch.from_numpy(acts),
            torch.from_numpy(owner), torch.from_numpy(col), torch.from_numpy(lens))


def _losses(model: TorchQ, demos: Demos, rows: Ints, tau: float
            ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    obs, acts, owner, col, lens = batch_inputs(demos, rows, model.guided)
    q = model(obs, acts, owner)
    b = len(rows)
    padded = torch.full((b, int(lens.max())), float("-inf"))
    padded[owner, col] = q * (SCORE_SCALE / tau)
    logp = torch.log_softmax(padded, dim=1)
    ar = torch.arange(b)
    chosen = torch.from_numpy(demos.chosen[rows])
    taken = torch.from_numpy(demos.taken[rows])
    ce = -logp[ar, chosen].mean()
    first = torch.cumsum(lens, 0) - lens
    q_taken = q[first + taken]
    target = torch.from_numpy(demos.score[rows] / SCORE_SCALE)
    mse = torch.mean((q_taken - target) ** 2)
    agree = (padded.argmax(dim=1) == chosen).float()
    return mse, ce, agree


def demo_loss(model: TorchQ, demos: Demos, rows: Ints, tau: float = 1.0, ce: float = 1.0
              ) -> torch.Tensor:
    """The warm start's loss (``mse + ce × cross-entropy``) on the decisions ``rows`` of
    ``demos``; Deep Monte-Carlo adds it to keep the heuristic's choices where its own
    games say little (``baohuang train --imitation``)."""
    mse, cross, _ = _losses(model, demos, rows, tau)
    out: torch.Tensor = mse + ce * cross
    return out


def _share(flags: torch.Tensor) -> float | None:
    """The share of ones among ``flags`` (None for none)."""
    return round(float(flags.mean()), 4) if len(flags) else None


def fit(model: TorchQ, demos: Demos, *, steps: int, batch: int = 128, lr: float = 1e-3,
        imitation: float = 3.0, tau: float = 1.0, seed: int = 0, held_out: int = 5000,
        report: Callable[[dict[str, Any]], None] | None = None, every: int = 500
        ) -> dict[str, Any]:
    """``steps`` Adam updates on random batches of ``demos`` (the last ``held_out``
    decisions kept out to measure agreement with the heuristic and the error)."""
    rng = np.random.default_rng(seed)
    n = len(demos) - held_out
    test = np.arange(n, len(demos))
    opt = torch.optim.Adam(model.parameters(), lr=lr)
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, steps)
    t0 = time.monotonic()
    row: dict[str, Any] = {}
    for step in range(1, steps + 1):
        model.train()
        mse, ce, _ = _losses(model, demos, rng.integers(0, n, batch), tau)
        loss = mse + imitation * ce
        opt.zero_grad()
        torch.autograd.backward(loss)
        torch.nn.utils.clip_grad_norm_(model.parameters(), 40.0)
        opt.step()
        sched.step()
        if step % every == 0 or step == steps:
            model.eval()
            with torch.no_grad():
                parts = [_losses(model, demos, test[i:i + 1000], tau)
                         for i in range(0, len(test), 1000)]
            agree = torch.cat([p[2] for p in parts])
            stage = demos.stage[test]
            row = {"step": step, "seconds": round(time.monotonic() - t0, 1),
                   "mse": round(float(np.mean([float(p[0]) for p in parts])), 4),
                   "ce": round(float(np.mean([float(p[1]) for p in parts])), 4),
                   "agree_role": _share(agree[torch.from_numpy(stage == 0)]),
                   "agree_play": _share(agree[torch.from_numpy(stage == 1)])}
            if report is not None:
                report(row)
    return row


def warm_start(run_dir: Path, *, games: int, steps: int, rules: str = "shandong",
               hidden: tuple[int, ...] = (256, 128, 128), seed: int = 0,
               guided: bool = False, imitation: float = 3.0, init: Path | None = None,
               lr: float = 1e-3,
               report: Callable[[dict[str, Any]], None] | None = None) -> Path:
    """Record ``games`` heuristic games into ``run_dir/demos.npz`` (kept: a second
    call reads them), fit a network (new, or starting from the weights ``init``) to
    them for ``steps`` updates and write it to ``run_dir/warm.npz``, whose path is
    returned; ``run_dir/warm.json`` has the final held-out numbers and the time each
    part took."""
    run_dir.mkdir(parents=True, exist_ok=True)
    demos_path = run_dir / "demos.npz"
    wall0, cpu0 = time.monotonic(), time.process_time()
    if demos_path.exists():
        demos = Demos.load(demos_path)
    else:
        demos = record(games, rules=bh.RuleSet.preset(rules), seed=seed)
        demos.save(demos_path)
    wall1, cpu1 = time.monotonic(), time.process_time()
    torch.manual_seed(seed)
    start = None if init is None else load_weights(init)
    model = TorchQ(hidden if start is None else hidden_of(start), guided)
    if start is not None:
        load_into(model, start)
    row = fit(model, demos, steps=steps, seed=seed, held_out=min(5000, len(demos) // 10),
              imitation=imitation, lr=lr, report=report)
    out = run_dir / "warm.npz"
    save_weights(out, export(model))
    info = row | {"games": games, "decisions": len(demos), "record_s": round(wall1 - wall0, 1),
                  "record_cpu_s": round(cpu1 - cpu0, 1),
                  "fit_s": round(time.monotonic() - wall1, 1),
                  "fit_cpu_s": round(time.process_time() - cpu1, 1)}
    (run_dir / "warm.json").write_text(json.dumps(info, indent=1) + "\n")
    return out
