"""The Q network of :class:`~baohuang.learn.model.QNetwork` in PyTorch, for training:
its weights go to and come from the NumPy form that the ``learned`` bot reads (the bot
itself needs no PyTorch)."""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np
import torch
from torch import nn

from ..env.observation import OBS_SIZE
from .features import ACTION_SIZE, GUIDED_SIZE

__all__ = ["TorchQ", "export", "hidden_of", "load_into"]


class TorchQ(nn.Module):
    """The network of :class:`~baohuang.learn.model.QNetwork`, in PyTorch."""

    def __init__(self, hidden: tuple[int, ...] = (256, 128, 128), guided: bool = False) -> None:
        super().__init__()
        self.guided = guided
        self.first_obs = nn.Linear(OBS_SIZE, hidden[0])
        self.first_act = nn.Linear(GUIDED_SIZE if guided else ACTION_SIZE, hidden[0], bias=False)
        sizes = [*hidden, 1]
        self.rest = nn.ModuleList(nn.Linear(a, b) for a, b in itertools.pairwise(sizes))

    def forward(self, obs: torch.Tensor, acts: torch.Tensor,
                owner: torch.Tensor | None = None) -> torch.Tensor:
        """Values of the actions ``acts``; ``owner[j]``: the row of ``obs`` of action
        ``j`` (default: the rows correspond)."""
        first = self.first_obs(obs)
        if owner is not None:
            first = first[owner]
        h = torch.relu(first + self.first_act(acts))
        for i, layer in enumerate(self.rest):
            h = layer(h)
            if i < len(self.rest) - 1:
                h = torch.relu(h)
        return h[:, 0]


def export(model: TorchQ) -> dict[str, np.ndarray[Any, np.dtype[np.float32]]]:
    """The weights as :class:`QNetwork` reads them."""
    def arr(t: torch.Tensor) -> np.ndarray[Any, np.dtype[np.float32]]:
        return np.ascontiguousarray(t.detach().cpu().numpy().astype(np.float32))
    out = {"w0o": arr(model.first_obs.weight.T), "b0": arr(model.first_obs.bias),
           "w0a": arr(model.first_act.weight.T)}
    for i, layer in enumerate(model.rest, 1):
        assert isinstance(layer, nn.Linear)
        out[f"w{i}"] = arr(layer.weight.T)
        out[f"b{i}"] = arr(layer.bias)
    return out


def hidden_of(weights: dict[str, np.ndarray[Any, np.dtype[np.float32]]]) -> tuple[int, ...]:
    """The hidden layer sizes of ``weights`` (as :func:`export` writes them)."""
    sizes = []
    i = 1
    while f"w{i}" in weights:
        sizes.append(int(weights[f"w{i}"].shape[0]))
        i += 1
    return tuple(sizes)


def load_into(model: TorchQ, weights: dict[str, np.ndarray[Any, np.dtype[np.float32]]]) -> None:
    """Set ``model``'s parameters to ``weights`` (as :func:`export` writes them).  Weights
    of an unguided network go into a guided one as it: the hint's input weights are 0."""
    with torch.no_grad():
        model.first_obs.weight.copy_(torch.from_numpy(weights["w0o"].T))
        model.first_obs.bias.copy_(torch.from_numpy(weights["b0"]))
        w0a = torch.from_numpy(weights["w0a"].T)
        model.first_act.weight.zero_()
        model.first_act.weight[:, :w0a.shape[1]].copy_(w0a)
        for i, layer in enumerate(model.rest, 1):
            assert isinstance(layer, nn.Linear)
            layer.weight.copy_(torch.from_numpy(weights[f"w{i}"].T))
            layer.bias.copy_(torch.from_numpy(weights[f"b{i}"]))
