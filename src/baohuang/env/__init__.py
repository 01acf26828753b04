"""Learning environments for 保皇: PettingZoo (``baohuang_v0``), Gymnasium
(:class:`BaohuangGymEnv`), RLCard (``rlcard.make("baohuang")``), OpenSpiel
(``pyspiel.load_game("python_baohuang")``), and the action and observation encodings
they share (``docs/rl.md``).  The environments need the ``rl`` extra: ``pip install
'baohuang[rl]'``; importing this package with it installed registers the RLCard
environment (``rlcard_env``) and the OpenSpiel game (``openspiel_game``).  The
encodings (:mod:`.actions`, :mod:`.observation`) need NumPy alone: the ``learned`` bot
reads its views through them at any server's tables.
"""

from __future__ import annotations

from typing import Any

try:
    import numpy  # noqa: F401
except ImportError as exc:                       # pragma: no cover - without numpy
    raise ImportError("baohuang.env needs numpy: pip install 'baohuang[rl]'") from exc

from .actions import N_ACTIONS, ActionEncoder, IllegalActionIndex, decode, encode, legal_mask
from .observation import OBS_LAYOUT, OBS_SIZE, ObservationEncoder, observe

#: what needs the frameworks (the ``rl`` extra)
_ENVIRONMENTS = ("BaohuangGymEnv", "VectorEnv", "baohuang_v0", "openspiel_game", "rlcard_env")

try:
    import gymnasium  # noqa: F401
    import pettingzoo  # noqa: F401
    import pyspiel  # noqa: F401
    import rlcard  # noqa: F401
except ImportError as exc:                       # pragma: no cover - without the extra
    _missing: str | None = exc.name
else:
    _missing = None
    from . import baohuang_v0, openspiel_game, rlcard_env
    from .gym_env import BaohuangGymEnv
    from .vector import VectorEnv


def __getattr__(name: str) -> Any:
    """The environments, asked for without the ``rl`` extra: say what is missing."""
    if name in _ENVIRONMENTS and _missing is not None:
        raise ImportError(f"baohuang.env.{name} needs numpy, gymnasium, pettingzoo, rlcard and "
                          f"open_spiel ({_missing} is missing): pip install 'baohuang[rl]'")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

__all__ = [
    "N_ACTIONS",
    "OBS_LAYOUT",
    "OBS_SIZE",
    "ActionEncoder",
    "BaohuangGymEnv",
    "IllegalActionIndex",
    "ObservationEncoder",
    "VectorEnv",
    "baohuang_v0",
    "decode",
    "encode",
    "legal_mask",
    "observe",
    "openspiel_game",
    "rlcard_env",
]
