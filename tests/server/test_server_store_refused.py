"""A table's writes that fail (a real SQLite file, a server in this process): a seat
change or a 托管 toggle whose write the database refuses is taken back and its client
told why, and a write fenced off by another holder of the table ends the table on
this server at once (its connections closed with 1012, as when its lease is lost)."""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path
from typing import Any

import httpx
import pytest
import websockets
from server_support import LOOSE_CONFIG, Raw, guests

from baohuang.bots import hosted_action
from baohuang.client import Client, view_from_dict
from baohuang.server.config import ServerConfig
from baohuang.server.db.storage import open_storage
from baohuang.server.harness import ServerThread


def _refuse(path: Path, name: str, when: str) -> None:
    """Make the database refuse a write (``when``: a trigger's event, such as ``UPDATE
    OF seats ON tables``), as a broken constraint would."""
    db = sqlite3.connect(path)
    db.execute(f"CREATE TRIGGER {name} BEFORE {when} "
               "BEGIN SELECT RAISE(ABORT, 'refused by the test'); END")
    db.commit()
    db.close()


def _allow(path: Path, name: str) -> None:
    db = sqlite3.connect(path)
    db.execute(f"DROP TRIGGER {name}")
    db.commit()
    db.close()


async def _state(url: str, table_id: str) -> dict[str, Any]:
    async with httpx.AsyncClient(base_url=url) as http:
        response = await http.get(f"/api/tables/{table_id}")
        assert response.status_code == 200, response.text
        state: dict[str, Any] = response.json()
        return state


def _config(path: Path) -> ServerConfig:
    return ServerConfig(db_url=f"sqlite+aiosqlite:///{path}", bot_delay=0.0,
                        hosted_delay=0.0, guard_pause=0.0, next_game_delay=0.0,
                        **LOOSE_CONFIG)


def test_a_seat_whose_write_is_refused_is_not_taken(tmp_path: Path) -> None:
    path = tmp_path / "bh.db"

    async def main(url: str) -> None:
        owner, sitter = await guests(url, 2, "seat")
        table = await owner.create_table(practice=True, seed=3)
        _refuse(path, "no_seats", "UPDATE OF seats ON tables")
        raw = await Raw.connect(url, sitter.token)
        try:
            await raw.send({"type": "join", "table": table["id"]})
            error = await raw.recv_type("error")
            state = await _state(url, table["id"])
            assert state["seats"] == [None] * 5      # not seated, in memory either
            assert (error["code"], error["ref"]) == ("not_stored", "join"), error
            # once the database takes it, the same join seats him
            _allow(path, "no_seats")
            await raw.send({"type": "join", "table": table["id"]})
            joined = await raw.recv_type("table")
            assert joined["you"]["seat"] == 0
            assert (await _state(url, table["id"]))["seats"][0]["name"] == "seat1"
        finally:
            await raw.close()

    with ServerThread(_config(path)) as server:
        asyncio.run(main(server.url))


async def _my_turn(raw: Raw) -> dict[str, Any]:
    """The next message that asks ``raw``'s seat to decide."""
    while True:
        msg = await raw.recv(30)
        if msg["type"] in ("update", "snapshot") and raw.view["legal_actions"] \
                and raw.view["to_act"] == raw.view["seat"]:
            return msg


def test_a_hosted_toggle_whose_write_is_refused_changes_nothing(tmp_path: Path) -> None:
    path = tmp_path / "bh.db"

    async def main(url: str) -> None:
        client = Client(url)
        await client.guest("toggler")
        table = await client.quickplay(bots="hosted", practice=True, seed=8, timeout=600)
        raw = await Raw.connect(url, client.token)
        try:
            await raw.send({"type": "join", "table": table["id"]})
            await _my_turn(raw)
            _refuse(path, "no_hosted", "UPDATE OF hosted ON games")
            await raw.send({"type": "hosted", "on": True})
            error = await raw.recv_type("error")
            state = await _state(url, table["id"])
            mine = state["seats"][raw.view["seat"]]
            assert (mine["hosted"], mine["hosted_count"]) == (False, 0)
            assert (error["code"], error["ref"]) == ("not_stored", "hosted"), error
        finally:
            await raw.close()

    with ServerThread(_config(path)) as server:
        asyncio.run(main(server.url))


def test_a_fenced_write_ends_the_table_here_at_once(tmp_path: Path) -> None:
    """Another server claimed the table (its lease passed on): the first write this
    server makes for it is fenced off, and the table stops here then — its player's
    connection is closed with 1012 (reconnect: the table runs elsewhere), his move is
    not refused as if the table went on, and nobody can join it here any more."""
    path = tmp_path / "bh.db"
    url_db = f"sqlite+aiosqlite:///{path}"

    async def main(url: str) -> None:
        client = Client(url)
        await client.guest("fenced")
        table = await client.quickplay(bots="hosted", practice=True, seed=5, timeout=600)
        raw = await Raw.connect(url, client.token)
        other = await open_storage(url_db)
        try:
            await raw.send({"type": "join", "table": table["id"]})
            msg = await _my_turn(raw)
            assert await other.claim_table(table["id"], 5)      # the lease passed on
            view = view_from_dict(raw.view)
            action = hosted_action(view, list(view.legal_actions))
            await raw.send({"type": "act", "action": action.to_dict(),
                            "version": msg["version"]})
            with pytest.raises(websockets.ConnectionClosed) as closed:
                while True:
                    got = await raw.recv(10)
                    assert got["type"] != "error", got      # not refused: gone
            assert closed.value.rcvd is not None and closed.value.rcvd.code == 1012
            again = await Raw.connect(url, client.token)
            try:
                await again.send({"type": "join", "table": table["id"]})
                refused = await again.recv_type("error")
                assert refused["code"] in ("no_table", "table_moving"), refused
            finally:
                await again.close()
        finally:
            await raw.close()
            await other.close()

    with ServerThread(_config(path)) as server:
        asyncio.run(main(server.url))
