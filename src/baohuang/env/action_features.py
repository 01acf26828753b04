"""Action features: a short vector per action index, for agents that score each legal
action by what it is rather than by its index (RLCard's DMC reads them from the RLCard
environment's ``legal_actions`` and ``get_action_feature``, as it reads the 54 card
counts of each action in RLCard's Dou Dizhu).

:data:`ACTION_FEATURE_SIZE` = 36 numbers (int8), the same for every rule set:

=========  ==========================================================================
``0–13``   the kind, one-hot: the ten role-phase kinds (``actions.ROLE_KINDS``
           order), pass, ask_lead (申请接风), call, play
``14–29``  cards per slot (slots of ``docs/rl.md``: 3 … A, 2, small joker, big
           joker, 特画): what a play plays; for a call, 1 at the called card's rank
``30–33``  the called card's suit, one-hot (s h d c; a call only)
``34``     ``k``: how many of the play's cards would show the hidden Guard (or hidden
           solo Emperor)
``35``     how many cards the play plays
=========  ==========================================================================

A feature is a function of the index alone (``actions.PLAY_KEYS``), so two actions
with the same cards and the same ``k`` have the same features in every state.

>>> from baohuang.env.actions import PASS_INDEX, PLAY_KEYS, PLAY_BASE, PlayKey
>>> features = action_features()
>>> features.shape == (29379, ACTION_FEATURE_SIZE), int(features[PASS_INDEX, 10])
(True, 1)
>>> row = features[PLAY_BASE + PLAY_KEYS.index(PlayKey(rank=9, n=2, sj=0, bj=1, th=0, k=0))]
>>> row[14:30].tolist(), int(row[35])
([0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 1, 0], 3)
"""

from __future__ import annotations

from functools import cache
from typing import Final

import numpy as np
import numpy.typing as npt

from .actions import (
    ASK_LEAD_INDEX,
    CALL_BASE,
    CALL_RANKS,
    N_ACTIONS,
    PASS_INDEX,
    PLAY_BASE,
    PLAY_KEYS,
    ROLE_KINDS,
)

__all__ = ["ACTION_FEATURE_SIZE", "action_feature", "action_features"]

_KIND: Final = 0
_CALL_KIND: Final = len(ROLE_KINDS) + 2
_PLAY_KIND: Final = _CALL_KIND + 1
_SLOTS: Final = _PLAY_KIND + 1
_SUIT: Final = _SLOTS + 16
_K: Final = _SUIT + 4
_COUNT: Final = _K + 1
ACTION_FEATURE_SIZE: Final = _COUNT + 1


@cache
def action_features() -> npt.NDArray[np.int8]:
    """The features of every index, one row each (read-only; made once, ~1 MB)."""
    table = np.zeros((N_ACTIONS, ACTION_FEATURE_SIZE), dtype=np.int8)
    for i in range(len(ROLE_KINDS)):
        table[i, _KIND + i] = 1
    table[PASS_INDEX, _KIND + len(ROLE_KINDS)] = 1
    table[ASK_LEAD_INDEX, _KIND + len(ROLE_KINDS) + 1] = 1
    for j, rank in enumerate(CALL_RANKS):
        for suit in range(4):
            row = table[CALL_BASE + 4 * j + suit]
            row[_CALL_KIND] = 1
            row[_SLOTS + rank - 3] = 1
            row[_SUIT + suit] = 1
    keys = np.array(PLAY_KEYS, dtype=np.int64)          # rank, n, sj, bj, th, k
    rows = PLAY_BASE + np.arange(len(PLAY_KEYS))
    table[rows, _PLAY_KIND] = 1
    ranked = keys[:, 0] > 0
    table[rows[ranked], _SLOTS + keys[ranked, 0] - 3] = keys[ranked, 1]
    table[rows, _SLOTS + 13] = keys[:, 2]
    table[rows, _SLOTS + 14] = keys[:, 3]
    table[rows, _SLOTS + 15] = keys[:, 4]
    table[rows, _K] = keys[:, 5]
    table[rows, _COUNT] = keys[:, 1] + keys[:, 2] + keys[:, 3] + keys[:, 4]
    table.flags.writeable = False
    return table


def action_feature(index: int) -> npt.NDArray[np.int8]:
    """The features of one index (a new array)."""
    if not 0 <= index < N_ACTIONS:
        raise ValueError(f"action index {index} is out of range (0..{N_ACTIONS - 1})")
    row: npt.NDArray[np.int8] = action_features()[index].copy()
    return row
