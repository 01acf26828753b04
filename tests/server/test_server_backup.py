"""``baohuang backup`` and ``baohuang restore``: a server's database, backed up while a
game is being played, restored into an empty database, serves the same history,
replays and ratings; a restore never overwrites a database that has data."""

from __future__ import annotations

import asyncio
import os
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from server_support import DATABASES, FAST, LOOSE, PG_ENV, AtVersion, database, running_server

from baohuang.client import Client
from baohuang.server.harness import ServerProcess


def baohuang(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "baohuang.cli", *args], capture_output=True,
                          text=True, timeout=120, check=False)


async def what_is_served(client: Client) -> dict[str, Any]:
    """What a player sees of his past: his history, each game's replay, his rating and
    the leaderboard."""
    history = await client.history()
    return {"history": history,
            "replays": [await client.replay(game["game_id"]) for game in history],
            "me": await client.request("GET", "/api/me"),
            "leaderboard": await client.request("GET", "/api/leaderboard")}


@pytest.mark.parametrize("kind", DATABASES)
def test_a_backup_taken_while_playing_restores_the_same_history(kind: str,
                                                                tmp_path: Path) -> None:
    if kind == "postgres" and shutil.which("pg_dump") is None:
        pytest.skip("pg_dump is not on PATH")
    dump = tmp_path / "baohuang.backup"
    with running_server(kind, tmp_path, *FAST) as server:
        url = server.db_url

        async def play() -> tuple[dict[str, Any], str, str]:
            player = Client(server.url)
            await player.register("backer", "a long pass phrase")
            # a rated game against server bots, finished: history, replay and rating
            first = await player.quickplay(bots="heuristic")
            await asyncio.wait_for(player.play(first["id"], "hosted"), 120)
            served = await what_is_served(player)
            assert len(served["history"]) == 1 and served["me"]["games"] == 1
            # a second game, backed up while it is being played: the server's bots and
            # the player's moves are written meanwhile
            second = await player.quickplay(bots="heuristic")
            taken = AtVersion(12, lambda: backed_up.append(
                baohuang("backup", str(dump), "--db", url)))
            backed_up: list[subprocess.CompletedProcess[str]] = []
            await asyncio.wait_for(player.play(second["id"], "hosted", on_message=taken), 120)
            assert taken.done
            done = backed_up[0]
            assert done.returncode == 0, done.stderr
            assert "backed up to" in done.stdout and "1 users" in done.stdout
            return served, second["id"], player.token or ""

        served, playing, token = asyncio.run(play())

    assert dump.stat().st_size > 0
    with database(kind, tmp_path / "restored") as empty:
        (tmp_path / "restored").mkdir(exist_ok=True)
        done = baohuang("restore", str(dump), "--db", empty)
        assert done.returncode == 0, done.stderr
        assert "restored into" in done.stdout
        # a second restore into what is now full is refused, and changes nothing
        again = baohuang("restore", str(dump), "--db", empty)
        assert again.returncode == 1 and "not empty" in again.stderr
        restored = ServerProcess(empty, None, *LOOSE, *FAST,
                                 log=tmp_path / "restored" / "server.log")
        restored.start()
        try:
            async def look() -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]]:
                again = Client(restored.url)
                await again.login("backer", "a long pass phrase")
                kept = Client(restored.url, token)          # (his session, backed up too)
                return (await what_is_served(again), await kept.request("GET", "/api/me"),
                        await again.request("GET", f"/api/tables/{playing}"))
            now, me, table = asyncio.run(look())
        finally:
            restored.stop()
    assert now == served
    assert me["name"] == "backer"
    # the game being played at the backup is there, unfinished, to be played on
    assert table["status"] == "playing"


def test_restore_refuses_what_is_not_a_backup_and_a_missing_file(tmp_path: Path) -> None:
    target = f"sqlite+aiosqlite:///{tmp_path / 'new.db'}"
    junk = tmp_path / "junk.backup"
    junk.write_bytes(b"not a database at all")
    done = baohuang("restore", str(junk), "--db", target)
    assert done.returncode == 1 and "not an SQLite backup" in done.stderr
    done = baohuang("restore", str(tmp_path / "absent"), "--db", target)
    assert done.returncode == 1 and "no backup file" in done.stderr
    done = baohuang("backup", str(tmp_path / "out"), "--db",
                    f"sqlite+aiosqlite:///{tmp_path / 'absent.db'}")
    assert done.returncode == 1 and "no SQLite database" in done.stderr
    assert not (tmp_path / "absent.db").exists() and not (tmp_path / "out").exists()
    # a backup onto the database itself is refused, the database left whole
    own = tmp_path / "own.db"
    with sqlite3.connect(own) as db:
        db.execute("CREATE TABLE alembic_version (version_num TEXT)")
    done = baohuang("backup", str(own), "--db", f"sqlite+aiosqlite:///{own}")
    assert done.returncode == 1 and "the database itself" in done.stderr
    with sqlite3.connect(own) as db:
        assert db.execute("SELECT count(*) FROM alembic_version").fetchone() == (0,)


@pytest.mark.skipif(not os.environ.get(PG_ENV), reason="PostgreSQL not configured")
def test_a_sqlite_backup_is_not_restored_into_postgres(tmp_path: Path) -> None:
    source = tmp_path / "a.db"
    sqlite3.connect(source).close()
    with database("postgres", tmp_path) as empty:
        done = baohuang("restore", str(source), "--db", empty)
    assert done.returncode == 1 and "not a PostgreSQL dump" in done.stderr
