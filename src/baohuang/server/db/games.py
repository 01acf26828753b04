"""Tables and games as stored: a table's row and settings, its games, a finished
game's result with its players and what it adds to their users, and the history and
replay reads."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Sequence
from typing import Any

from sqlalchemy import Connection, bindparam, func, insert, select, update
from sqlalchemy.ext.asyncio import AsyncEngine

from .database import Database
from .models import actions, game_players, games, tables, users

__all__ = ["GameStore", "RateGame"]


RateGame = Callable[[list[tuple[float, float] | None]], list[tuple[float, float] | None]]
"""New ``(mu, sigma)`` per seat from the current ones (``None``: no rated user)."""

#: a user's totals that a finished game adds to, and the statements that add to them
#: (with ``user_id`` and ``add_<total>``; and the new rating, ``new_mu`` and ``new_sigma``)
_USER_TOTALS = ("points", "games", "wins", "leaves")
_ADD_TO_USER = update(users).where(users.c.id == bindparam("user_id")).values(
    {name: users.c[name] + bindparam(f"add_{name}") for name in _USER_TOTALS})
_ADD_TO_USER_RATED = _ADD_TO_USER.values(mu=bindparam("new_mu"), sigma=bindparam("new_sigma"))


class GameStore(Database):
    """Tables, games and their results."""

    def __init__(self, engine: AsyncEngine) -> None:
        super().__init__(engine)
        self._results_lock = asyncio.Lock()    # rating read → write, one game at a time

    # -- tables and games --------------------------------------------------------------
    async def insert_table(self, values: dict[str, Any]) -> None:
        await self._write(insert(tables), values)

    async def code_in_use(self, code: str) -> bool:
        return bool(await self._read(select(tables.c.id).where(tables.c.code == code)))

    async def unfinished_table(self, key: str) -> str | None:
        """The id of the open or playing table whose id or code is ``key`` (a code in
        any case), if there is one: a cluster's table that Redis has lost track of
        (restarted without its data) is still one, being taken over."""
        rows = await self._read(select(tables.c.id).where(
            (tables.c.id == key) | (tables.c.code == key.strip().upper()),
            tables.c.status.in_(("open", "playing"))).limit(1))
        return str(rows[0][0]) if rows else None

    async def update_table(self, table_id: str, **values: Any) -> None:
        await self._write(update(tables).where(tables.c.id == table_id).values(**values))

    async def open_tables_of(self, owner: int) -> int:
        """How many open or playing tables ``owner`` created (on every node)."""
        rows = await self._read(select(func.count()).select_from(tables).where(
            tables.c.owner == owner, tables.c.status.in_(("open", "playing"))))
        return int(rows[0][0])

    async def unfinished_tables(self) -> list[dict[str, Any]]:
        query = select(tables).where(tables.c.status.in_(("open", "playing"))).order_by(
            tables.c.created)
        return [dict(r._mapping) for r in await self._read(query)]

    async def table_games(self, table_id: str) -> list[dict[str, Any]]:
        """The games of a table in order, each with its ``actions`` (dicts, in order)."""
        async with self.engine.connect() as conn:
            rows = [dict(r._mapping) for r in await conn.execute(
                select(games).where(games.c.table_id == table_id).order_by(games.c.idx))]
            for row in rows:
                row["actions"] = [dict(r._mapping) for r in await conn.execute(
                    select(actions).where(actions.c.game_id == row["id"])
                    .order_by(actions.c.seq))]
        return rows

    async def insert_game(self, values: dict[str, Any]) -> int:
        rows = await self._write(insert(games).returning(games.c.id), values)
        return int(rows[0][0])

    async def game_of(self, table_id: str, idx: int) -> int | None:
        """The id of game ``idx`` of ``table_id``, if it is stored (a write of it whose
        answer was lost may have been committed)."""
        rows = await self._read(select(games.c.id).where(games.c.table_id == table_id,
                                                          games.c.idx == idx))
        return int(rows[0][0]) if rows else None

    async def finish_game(self, game_id: int, *, result: dict[str, Any], scored: bool,
                          hosted: Any, players: Sequence[dict[str, Any]],
                          user_updates: Sequence[dict[str, Any]], table_id: str,
                          totals: list[int], status: str,
                          rate: RateGame | None = None) -> None:
        """Record a finished game, its players, the users' new totals and ratings, the
        table's match totals and its status — in one transaction, so that a crash leaves
        either all of it or none; a game recorded already is not recorded again (a
        retry whose first try was committed, its answer lost).

        ``rate`` gets the current ``(mu, sigma)`` of every seat's user (``None`` for a
        seat without one), read inside the transaction, and returns the new ratings: two
        tables finishing at once with the same player both count, one after the other.
        """
        now = time.time()
        table_values: dict[str, Any] = {"totals": totals, "status": status}
        if status != "playing":
            table_values["finished"] = now
        lock_users = self.dialect == "postgresql"

        def record(conn: Connection) -> None:
            new_ratings: dict[int, tuple[float, float]] = {}
            if rate is not None:
                seat_users = [p["user_id"] for p in players]
                ids = [u for u in seat_users if u is not None]
                query = select(users.c.id, users.c.mu, users.c.sigma).where(users.c.id.in_(ids))
                if lock_users:
                    query = query.with_for_update()
                current = {r.id: (r.mu, r.sigma) for r in conn.execute(query)}
                rated = rate([None if u is None else current.get(u) for u in seat_users])
                new_ratings = {u: r for u, r in zip(seat_users, rated, strict=True)
                               if u is not None and r is not None}
            # (a game recorded already is left as it is: a retry whose first try was
            # committed, its answer lost, records nothing twice)
            if not conn.execute(update(games).where(games.c.id == game_id,
                                                   games.c.status != "over").values(
                    status="over", result=result, scored=scored, hosted=hosted,
                    finished=now)).rowcount:
                return
            conn.execute(insert(game_players), [
                {**p, "game_id": game_id, "finished": now} for p in players])
            # (one statement for all the users, executed with each user's numbers: a
            # table writes this at the end of every game)
            rerated: list[dict[str, Any]] = []
            unrated: list[dict[str, Any]] = []
            for change in user_updates:
                rating = new_ratings.get(change["id"])
                numbers = {f"add_{key}": change[key] for key in _USER_TOTALS}
                numbers["user_id"] = change["id"]
                if rating is None:
                    unrated.append(numbers)
                else:
                    rerated.append({**numbers, "new_mu": rating[0], "new_sigma": rating[1]})
            if rerated:
                conn.execute(_ADD_TO_USER_RATED, rerated)
            if unrated:
                conn.execute(_ADD_TO_USER, unrated)
            conn.execute(update(tables).where(tables.c.id == table_id).values(**table_values))

        async with self._results_lock:
            # (on an SQLite file, on the event loop unless another connection is writing:
            # through the async engine each of these statements is a hand-off to a thread)
            if self._on_loop is not None and self._sqlite is not None \
                    and self._on_loop.transaction(record):
                self._sqlite.committed()
                return
            async with self.engine.begin() as conn:
                await conn.run_sync(record)

    # -- history and replay ------------------------------------------------------------------
    async def history(self, user_id: int, limit: int = 50) -> list[dict[str, Any]]:
        mine = (select(game_players.c.game_id, game_players.c.seat, game_players.c.score,
                       game_players.c.place, games.c.table_id, games.c.idx.label("index"),
                       games.c.result,
                       games.c.scored, games.c.finished)
                .join(games, games.c.id == game_players.c.game_id)
                .where(game_players.c.user_id == user_id)
                .order_by(game_players.c.finished.desc(), game_players.c.game_id.desc())
                .limit(limit))
        async with self.engine.connect() as conn:
            rows = [dict(r._mapping) for r in await conn.execute(mine)]
            ids = [r["game_id"] for r in rows]
            players: dict[int, list[dict[str, Any]]] = {i: [] for i in ids}
            if ids:
                query = (select(game_players).where(game_players.c.game_id.in_(ids))
                         .order_by(game_players.c.game_id, game_players.c.seat))
                for r in await conn.execute(query):
                    players[r.game_id].append({"seat": r.seat, "name": r.name,
                                               "user_id": r.user_id, "bot": r.bot})
        return [{**row, "players": players[row["game_id"]]} for row in rows]

    async def game(self, game_id: int) -> dict[str, Any] | None:
        """One game with its ``actions``, ``players`` (if finished) and whether its table
        is a ``practice`` table and a ``private`` one."""
        async with self.engine.connect() as conn:
            row = (await conn.execute(
                select(games, tables.c.practice, tables.c.private)
                .join(tables, tables.c.id == games.c.table_id)
                .where(games.c.id == game_id))).first()
            if row is None:
                return None
            out = dict(row._mapping)
            out["actions"] = [dict(r._mapping) for r in await conn.execute(
                select(actions).where(actions.c.game_id == game_id).order_by(actions.c.seq))]
            out["players"] = [dict(r._mapping) for r in await conn.execute(
                select(game_players).where(game_players.c.game_id == game_id)
                .order_by(game_players.c.seat))]
        return out
