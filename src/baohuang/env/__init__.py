"""Learning environments for 保皇: PettingZoo (``baohuang_v0``), Gymnasium
(:class:`BaohuangGymEnv`), RLCard (``rlcard.make("baohuang")``), OpenSpiel
(``pyspiel.load_game("python_baohuang")``), and the action and observation encodings
they share (``docs/rl.md``).  Needs the ``rl`` extra: ``pip install 'baohuang[rl]'``.
Importing it registers the RLCard environment (``rlcard_env``) and the OpenSpiel game
(``openspiel_game``)."""

from __future__ import annotations

try:
    import gymnasium  # noqa: F401
    import numpy  # noqa: F401
    import pettingzoo  # noqa: F401
    import pyspiel  # noqa: F401
    import rlcard  # noqa: F401
except ImportError as exc:                       # pragma: no cover - without the extra
    raise ImportError(f"baohuang.env needs numpy, gymnasium, pettingzoo, rlcard and open_spiel "
                      f"({exc.name} is missing): pip install 'baohuang[rl]'") from exc

from . import baohuang_v0, openspiel_game, rlcard_env
from .actions import N_ACTIONS, ActionEncoder, IllegalActionIndex, decode, encode, legal_mask
from .gym_env import BaohuangGymEnv
from .observation import OBS_LAYOUT, OBS_SIZE, ObservationEncoder, observe
from .vector import VectorEnv

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
