"""The Q network in NumPy: ``Q(observation, action)``, the expected final score
of the acting seat if it takes the action (and then plays on as the network does).

A multilayer perceptron with ReLUs.  Its first layer is split in two, the
observation's part (computed once per decision) and the action's part (once per
legal action), which is the same as one layer over their concatenation; the
training code (:mod:`baohuang.learn.train`, PyTorch) builds the same function and
exports its weights with :func:`save_weights`.

Weights are kept as ``float32`` arrays in an ``.npz`` file: ``w0o``, ``w0a``, ``b0``
(first layer), then ``w1``, ``b1``, … up to the output layer of one unit.  Beside
them the file keeps the observation they were trained on (``obs_layout``: JSON of
:data:`~baohuang.env.observation.OBS_VERSION` and the rule block's entries,
:data:`~baohuang.env.observation.RULE_ENTRIES`).  :func:`load_weights` hands out the
weights for today's observation: the rows of ``w0o`` are moved to where today's
rule block has their entry, and an entry the network never saw (a rule option added
since) gets a row of zeros, so that adding an option does not break loading them.

A *guided* network (``w0a`` has :data:`~.features.GUIDED_SIZE` rows) also reads the
``heuristic`` bot's choice as an input, and plays by :func:`pick`: the heuristic's
choice unless another action is worth more than ``margin`` points more (the scalar
``margin`` of the file, 0 without it).  So where the network cannot tell the actions
apart the bot plays as the heuristic does, and it departs from it only where its
values say so clearly.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Final

import numpy as np
import numpy.typing as npt

from ..env.observation import OBS_LAYOUT, OBS_SIZE, OBS_VERSION, RULE_ENTRIES
from .features import ACTION_SIZE, GUIDED_SIZE

__all__ = ["SCORE_SCALE", "QNetwork", "for_today", "load_weights", "pick", "save_weights"]

Array = npt.NDArray[np.float32]
#: the network predicts the final score divided by this
SCORE_SCALE: Final = 8.0


#: the key of the observation's layout in a weights file
LAYOUT_KEY: Final = "obs_layout"


def save_weights(path: Path | str, weights: Mapping[str, Array]) -> None:
    """Write ``weights`` (as :class:`QNetwork` reads them, for today's observation)
    to an ``.npz`` file, with the observation's layout."""
    arrays: dict[str, Any] = {k: np.asarray(v, dtype=np.float32) for k, v in weights.items()
                              if k != LAYOUT_KEY}
    arrays[LAYOUT_KEY] = np.array(json.dumps({"version": OBS_VERSION,
                                              "rules": list(RULE_ENTRIES)}))
    np.savez_compressed(path, **arrays)


def load_weights(path: Path | str) -> dict[str, Array]:
    """The weights of an ``.npz`` file, for today's observation (:func:`for_today`;
    a file without a layout is taken to be for today's)."""
    with np.load(path) as data:
        weights = {k: data[k].astype(np.float32) for k in data.files if k != LAYOUT_KEY}
        if LAYOUT_KEY not in data.files:
            return weights
        layout = json.loads(str(data[LAYOUT_KEY]))
    if layout.get("version") != OBS_VERSION:
        raise ValueError(f"{path}: weights for observation version {layout.get('version')}, "
                         f"not {OBS_VERSION}")
    return for_today(weights, layout["rules"])


def for_today(weights: Mapping[str, Array], rules: Sequence[str]) -> dict[str, Array]:
    """``weights`` of a network whose observation's rule block held the entries
    ``rules``, made into the same function of today's observation: each row of ``w0o``
    for a rule entry goes to that entry's place today; an entry new since gets zeros
    (the network never saw it), one gone is dropped."""
    w0o = weights["w0o"]
    start = OBS_LAYOUT["rules"].start
    if w0o.shape[0] != start + len(rules):
        raise ValueError(f"weights for {w0o.shape[0]} observation entries, but their "
                         f"layout has {start} + {len(rules)}")
    if tuple(rules) == RULE_ENTRIES:
        return dict(weights)
    rows = np.zeros((OBS_SIZE, w0o.shape[1]), dtype=np.float32)
    rows[:start] = w0o[:start]
    place = {entry: start + i for i, entry in enumerate(RULE_ENTRIES)}
    for i, entry in enumerate(rules):
        if entry in place:
            rows[place[entry]] = w0o[start + i]
    return dict(weights) | {"w0o": rows}


class QNetwork:
    """The network's forward pass over the legal actions of a batch of decisions."""

    __slots__ = ("_layers", "b0", "guided", "margin", "w0a", "w0o")

    def __init__(self, weights: Mapping[str, Array]) -> None:
        self.w0o = np.ascontiguousarray(weights["w0o"], dtype=np.float32)
        self.w0a = np.ascontiguousarray(weights["w0a"], dtype=np.float32)
        self.b0 = np.asarray(weights["b0"], dtype=np.float32)
        if self.w0o.shape[0] != OBS_SIZE or self.w0a.shape[0] not in (ACTION_SIZE, GUIDED_SIZE):
            raise ValueError(f"weights for inputs of {self.w0o.shape[0]} + {self.w0a.shape[0]}, "
                             f"not {OBS_SIZE} + {ACTION_SIZE} (or {GUIDED_SIZE})")
        #: whether the action features end with the heuristic's choice (features.with_hint)
        self.guided = self.w0a.shape[0] == GUIDED_SIZE
        self.margin = float(weights["margin"]) if "margin" in weights else 0.0
        self._layers: list[tuple[Array, Array]] = []
        i = 1
        while f"w{i}" in weights:
            self._layers.append((np.ascontiguousarray(weights[f"w{i}"], dtype=np.float32),
                                 np.asarray(weights[f"b{i}"], dtype=np.float32)))
            i += 1
        if not self._layers or self._layers[-1][0].shape[1] != 1:
            raise ValueError("the last layer must have one output")

    @classmethod
    def load(cls, path: Path | str) -> QNetwork:
        return cls(load_weights(path))

    def q_values(self, obs: Array, acts: Array, owner: npt.NDArray[np.intp] | None = None
                 ) -> Array:
        """The values (in scores) of the actions ``acts`` (``[N, ACTION_SIZE]``) of the
        decisions whose scaled observations are ``obs`` (``[D, OBS_SIZE]``, or one
        ``[OBS_SIZE]``); ``owner[j]``: the decision of action ``j`` (default: all of
        the one decision)."""
        first = obs @ self.w0o
        if owner is not None:
            first = first[owner]
        h = first + acts @ self.w0a + self.b0
        np.maximum(h, 0.0, out=h)
        last = len(self._layers) - 1
        for i, (w, b) in enumerate(self._layers):
            h = h @ w + b
            if i < last:
                np.maximum(h, 0.0, out=h)
        out: Array = h[:, 0] * np.float32(SCORE_SCALE)
        return out


def pick(values: Array, hint: int | None, margin: float) -> int:
    """The action a network plays among ``values``: the best one, except that the
    heuristic's choice ``hint`` (if any) stays unless the best is worth more than
    ``margin`` points more."""
    best = int(np.argmax(values))
    if hint is not None and values[best] <= values[hint] + margin:
        return hint
    return best
