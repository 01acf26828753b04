"""A table's rule options are checked together when it is created."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

import baohuang as bh
from baohuang.server.config import ServerConfig
from baohuang.server.db.storage import open_storage
from baohuang.server.table.lobby import Lobby, LobbyError, check_spec


def test_a_table_takes_its_options_at_once() -> None:
    """From 五人局 to card mode without 特画: one change, not two in a row (the
    first of which alone the rules refuse)."""
    spec = check_spec({"preset": "wurenju",
                       "options": {"guard_mode": "card", "called_card_high": False}})
    assert spec.rules.guard_mode is bh.GuardMode.CARD and not spec.rules.called_card_high
    with pytest.raises(LobbyError, match="called_card_high"):
        check_spec({"preset": "shandong", "options": {"called_card_high": "on"}})


def test_the_counter_is_a_table_option_on_by_default() -> None:
    assert check_spec({}).counter is True
    assert check_spec({"counter": False}).counter is False
    with pytest.raises(LobbyError, match="counter"):
        check_spec({"counter": "off"})


def test_a_table_without_counter_says_so_after_a_restart(tmp_path: Path) -> None:
    """The 记牌器 switch is in the TableState every client reads, and stored."""
    url = f"sqlite+aiosqlite:///{tmp_path / 'spec.db'}"

    async def run() -> tuple[bool, bool, bool]:
        storage = await open_storage(url)
        lobby = Lobby(storage, ServerConfig(db_url=url))
        off = await lobby.create(None, check_spec({"counter": False}))
        on = await lobby.create(None, check_spec({}))
        shown = off.table_json(None)["counter"], on.table_json(None)["counter"]
        await lobby.close()
        await storage.close()
        storage = await open_storage(url)
        again = Lobby(storage, ServerConfig(db_url=url))
        assert await again.restore() == 2
        table = again.get(off.id)
        assert table is not None
        kept = table.table_json(None)["counter"]
        await again.close()
        await storage.close()
        return shown[0], shown[1], kept

    assert asyncio.run(run()) == (False, True, False)
