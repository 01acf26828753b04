"""PettingZoo's naming: ``from baohuang.env import baohuang_v0; baohuang_v0.env()``."""

from __future__ import annotations

from .pettingzoo_env import env, raw_env

__all__ = ["env", "raw_env"]
