"""The action space of every environment here: Gymnasium's ``Discrete(29379)`` whose
``sample(mask)`` costs what the legal actions cost, not what 29,379 entries do.

Gymnasium's :meth:`gymnasium.spaces.Discrete.sample` reads a mask of all 29,379
entries four times over (``mask == 1``, ``mask == 0``, ``np.any``, ``np.where``) and
then draws with ``Generator.choice``; in the loop PettingZoo documents
(``env.action_space(agent).sample(observation["action_mask"])``) that was about a
quarter of a step.  :class:`ActionSpace` is a ``Discrete`` all the same (``n``,
``contains``, ``seed``, ``sample()`` without a mask, equality, pickling), and its
``sample(mask)`` draws the same action as ``Discrete.sample(mask)`` would with the
same random state:

- a mask the environment handed out with the indexes it was made from
  (:meth:`ActionSpace.remember`) is checked to hold exactly those 1s (two passes in
  C: the count of non-zero entries and the entries at the indexes), and the action
  is drawn among the indexes;
- any other int8 mask of the right shape is read once for its 1s and checked to hold
  nothing but 0s and 1s;
- anything else (another dtype or shape, a value other than 0 or 1, a ``probability``
  argument) goes to ``Discrete.sample``, which raises or samples as it always does.

>>> import numpy as np
>>> from gymnasium.spaces import Discrete
>>> space, plain = ActionSpace(10, seed=3), Discrete(10, seed=3)
>>> mask = np.array([0, 1, 0, 0, 1, 1, 0, 0, 0, 1], dtype=np.int8)
>>> [int(space.sample(mask)) for _ in range(6)] == [int(plain.sample(mask)) for _ in range(6)]
True
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt
from gymnasium import spaces

__all__ = ["ActionSpace"]


class ActionSpace(spaces.Discrete):
    """``Discrete(n)`` with a ``sample(mask)`` that reads a mask once (see the module's
    docstring); the same draws as ``Discrete`` for the same seed."""

    def __init__(self, n: int, seed: int | np.random.Generator | None = None) -> None:
        super().__init__(n, seed=seed)
        # the last mask handed out with this space's agent's observation, and its 1s
        self._known: tuple[npt.NDArray[np.int8], Sequence[int]] | None = None

    def remember(self, mask: npt.NDArray[np.int8], indexes: Sequence[int]) -> None:
        """``mask`` is the 0/1 mask of ``indexes`` (distinct, increasing or not), as the
        environment made it: a later ``sample(mask)`` of this very array checks that it
        still is, and draws among them."""
        self._known = (mask, indexes)

    def sample(self, mask: Any = None, probability: Any = None) -> np.int64:
        if mask is None or probability is not None or type(mask) is not np.ndarray:
            return super().sample(mask, probability)
        if mask.dtype != np.int8 or mask.shape != (self.n,):
            return super().sample(mask)
        known = self._known
        count = int(np.count_nonzero(mask))
        if known is not None and known[0] is mask and count == len(known[1]) and count <= 64:
            # (a few entries: read one at a time, cheaper than NumPy's fancy indexing)
            indexes = sorted(known[1])                # (as np.where orders them)
            if all(mask[i] == 1 for i in indexes):
                if count == 0:
                    return self.start
                return self.start + np.int64(indexes[self.np_random.integers(count)])
        ones = np.flatnonzero(mask.view(np.bool_))
        if len(ones) != count or not (mask[ones] == 1).all():
            return super().sample(mask)  # (raises: not 0/1)
        if count == 0:
            return self.start                     # (as Discrete: no legal action)
        # (Generator.choice(ones) draws integers(0, len(ones)): the same action)
        return self.start + np.int64(ones[self.np_random.integers(count)])
