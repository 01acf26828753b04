"""The ``learned`` bot and its training: a Q network fitted by Deep Monte-Carlo
self-play (as in DouZero) on the observation and action encodings of
:mod:`baohuang.env`, after a warm start that imitates the heuristic bot
(:mod:`.imitate` records its games, :mod:`.warmstart` fits the network to them).

Playing needs NumPy only (a dependency of the package): :mod:`.model` is the network's forward
pass, :mod:`.bot` the bot, with the weights shipped in ``weights/learned.npz``.
Training needs PyTorch (the ``train`` extra): :mod:`.train`, and ``baohuang train``
on the command line; ``docs/rl.md`` says how to reproduce it.
"""

from __future__ import annotations
