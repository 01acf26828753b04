"""A table's rule options are checked together when it is created."""

from __future__ import annotations

import pytest

import baohuang as bh
from baohuang.server.table.lobby import LobbyError, check_spec


def test_a_table_takes_its_options_at_once() -> None:
    """From 五人局 to card mode without 特画: one change, not two in a row (the
    first of which alone the rules refuse)."""
    spec = check_spec({"preset": "wurenju",
                       "options": {"guard_mode": "card", "called_card_high": False}})
    assert spec.rules.guard_mode is bh.GuardMode.CARD and not spec.rules.called_card_high
    with pytest.raises(LobbyError, match="called_card_high"):
        check_spec({"preset": "shandong", "options": {"called_card_high": "on"}})
