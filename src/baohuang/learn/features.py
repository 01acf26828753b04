"""The network's inputs: the observation (scaled) and the features of each action.

An action is described by what it is, not by its index, so that plays of the same
cards share what the network learns about them:

=============  ====  ==========================================================
``kind``       14    one-hot: the ten role-phase kinds, pass, ask_lead, call, play
``called``     48    the called card (rank+suit, as ``hand_suits``)
``cards``      16    the play's cards per slot (ranks 3 … 2, SJ, BJ, TH)
``reveal``     1     ``k``: cards of the play that would show a hidden Guard
``size``       1     how many cards the play has
``after``      16    the own hand per slot after the play (computed per decision)
``hint``       1     guided networks only: 1 for the ``heuristic`` bot's choice
=============  ====  ==========================================================

A *guided* network (:data:`GUIDED_SIZE` action features) also reads which action the
``heuristic`` bot would take in the same view, so it starts as informed as the
heuristic and learns what its choice is worth against the others.

>>> from baohuang.env.actions import PASS_INDEX, PLAY_BASE
>>> table = action_table()
>>> table.shape == (N_ACTION_INDEXES, ACTION_STATIC), int(table[PASS_INDEX, 10])
(True, 1)
"""

from __future__ import annotations

from functools import lru_cache
from typing import Final

import numpy as np
import numpy.typing as npt

from ..env.actions import CALL_BASE, N_ACTIONS, PLAY_BASE, PLAY_KEYS, ROLE_KINDS
from ..env.observation import OBS_HIGH, OBS_LAYOUT, OBS_SIZE, SLOTS

__all__ = ["ACTION_SIZE", "ACTION_STATIC", "GUIDED_SIZE", "N_ACTION_INDEXES", "OBS_SCALE",
           "action_table", "inputs", "with_hint"]

Matrix = npt.NDArray[np.float32]

N_ACTION_INDEXES: Final = N_ACTIONS
_KINDS: Final = len(ROLE_KINDS) + 4
_CALLED: Final = _KINDS
_CARDS: Final = _CALLED + 48
_REVEAL: Final = _CARDS + SLOTS
_SIZE: Final = _REVEAL + 1
#: the features read from the action index alone
ACTION_STATIC: Final = _SIZE + 1
#: all action features (with the hand after the play)
ACTION_SIZE: Final = ACTION_STATIC + SLOTS
#: the action features of a guided network: :data:`ACTION_SIZE` and the hint
GUIDED_SIZE: Final = ACTION_SIZE + 1
#: the observation is multiplied by this before it enters the network: counts of
#: up to 16 become at most 2, the 216 cards of a hand at most 27
OBS_SCALE: Final = (1.0 / np.clip(OBS_HIGH, 1.0, 8.0)).astype(np.float32)
_HAND: Final = OBS_LAYOUT["hand"]
assert OBS_SCALE.shape == (OBS_SIZE,)


@lru_cache(maxsize=1)
def action_table() -> Matrix:
    """``float32[N_ACTIONS, ACTION_STATIC]``: the static features of every index."""
    table = np.zeros((N_ACTIONS, ACTION_STATIC), dtype=np.float32)
    for i in range(len(ROLE_KINDS) + 2):          # role kinds, pass, ask_lead
        table[i, i] = 1
    for i in range(CALL_BASE, PLAY_BASE):
        table[i, _KINDS - 2] = 1
        table[i, _CALLED + i - CALL_BASE] = 1
    for j, key in enumerate(PLAY_KEYS):
        row = table[PLAY_BASE + j]
        row[_KINDS - 1] = 1
        if key.n:
            row[_CARDS + key.rank - 3] = key.n
        row[_CARDS + 13] = key.sj
        row[_CARDS + 14] = key.bj
        row[_CARDS + 15] = key.th
        row[_REVEAL] = key.k
        row[_SIZE] = key.n + key.sj + key.bj + key.th
    table.setflags(write=False)
    return table


def inputs(obs: npt.NDArray[np.float32], indexes: npt.NDArray[np.int64]
           ) -> tuple[Matrix, Matrix]:
    """The scaled observation (``float32[OBS_SIZE]``) and the features of the
    actions ``indexes`` (``float32[len(indexes), ACTION_SIZE]``) of one decision."""
    static = action_table()[indexes]
    after = obs[_HAND] - static[:, _CARDS:_CARDS + SLOTS]
    acts = np.concatenate([static, after * (1.0 / 8.0)], axis=1)
    acts[:, _CARDS:_CARDS + SLOTS] *= 1.0 / 8.0
    return (obs * OBS_SCALE).astype(np.float32, copy=False), acts


def with_hint(acts: Matrix, hint: npt.NDArray[np.bool_] | int) -> Matrix:
    """``acts`` with the hint column of a guided network: 1 where ``hint`` (a mask over
    the rows, or the row of the one decision's heuristic choice)."""
    column = np.zeros((len(acts), 1), dtype=np.float32)
    column[hint, 0] = 1.0
    return np.concatenate([acts, column], axis=1)
