"""亲友圈 (clubs) as stored: a club's row, its members and their roles, its chat, its
tables, and the rows its ledger (战绩) is derived from — the scored games of its tables,
read from ``games`` and ``game_players`` each time (never kept in memory: the same on
every node and after a restart)."""

from __future__ import annotations

from typing import Any

from sqlalchemy import delete, func, insert, select, update

from .database import Database
from .models import (
    club_members,
    club_messages,
    clubs,
    game_players,
    games,
    tables,
    users,
)

__all__ = ["ClubStore"]


class ClubStore(Database):
    """Clubs, their members, chat and ledger rows."""

    async def insert_club(self, values: dict[str, Any], owner: int, now: float) -> int:
        """A new club with ``owner`` its first member (role ``owner``): its id."""
        async with self.engine.begin() as conn:
            club_id = int((await conn.execute(insert(clubs).returning(clubs.c.id),
                                              values)).scalar_one())
            await conn.execute(insert(club_members), {"club_id": club_id, "user_id": owner,
                                                      "role": "owner", "joined": now})
        return club_id

    async def club(self, club_id: int) -> dict[str, Any] | None:
        rows = await self._read(select(clubs).where(clubs.c.id == club_id))
        return dict(rows[0]._mapping) if rows else None

    async def club_by_code(self, code: str) -> dict[str, Any] | None:
        rows = await self._read(select(clubs).where(clubs.c.code == code))
        return dict(rows[0]._mapping) if rows else None

    async def club_code_in_use(self, code: str) -> bool:
        return bool(await self._read(select(clubs.c.id).where(clubs.c.code == code)))

    async def update_club(self, club_id: int, **values: Any) -> None:
        await self._write(update(clubs).where(clubs.c.id == club_id).values(**values))

    async def clubs_owned(self, user_id: int) -> int:
        rows = await self._read(select(func.count()).select_from(clubs).where(
            clubs.c.owner == user_id))
        return int(rows[0][0])

    async def clubs_of(self, user_id: int) -> list[dict[str, Any]]:
        """The clubs ``user_id`` is in (or asked to join: role ``pending``), with his
        role and their member counts."""
        others = club_members.alias("others")
        count = (select(func.count()).select_from(others)
                 .where(others.c.club_id == clubs.c.id, others.c.role != "pending")
                 .correlate(clubs).scalar_subquery())
        query = (select(clubs.c.id, clubs.c.name, clubs.c.description, club_members.c.role,
                        count.label("members"))
                 .join(club_members, club_members.c.club_id == clubs.c.id)
                 .where(club_members.c.user_id == user_id).order_by(clubs.c.id))
        return [dict(r._mapping) for r in await self._read(query)]

    async def club_role(self, club_id: int, user_id: int) -> str | None:
        """``user_id``'s role in the club (``owner``, ``admin``, ``member``,
        ``pending``), or None."""
        rows = await self._read(select(club_members.c.role).where(
            club_members.c.club_id == club_id, club_members.c.user_id == user_id))
        return str(rows[0][0]) if rows else None

    async def club_members(self, club_id: int) -> list[dict[str, Any]]:
        query = (select(club_members.c.user_id, club_members.c.role, club_members.c.joined,
                        users.c.name)
                 .join(users, users.c.id == club_members.c.user_id)
                 .where(club_members.c.club_id == club_id)
                 .order_by(club_members.c.joined, club_members.c.user_id))
        return [dict(r._mapping) for r in await self._read(query)]

    async def count_members(self, club_id: int) -> int:
        rows = await self._read(select(func.count()).select_from(club_members).where(
            club_members.c.club_id == club_id))
        return int(rows[0][0])

    async def count_memberships(self, user_id: int) -> int:
        rows = await self._read(select(func.count()).select_from(club_members).where(
            club_members.c.user_id == user_id))
        return int(rows[0][0])

    async def add_member(self, club_id: int, user_id: int, role: str, now: float) -> None:
        await self._write(insert(club_members), {"club_id": club_id, "user_id": user_id,
                                                 "role": role, "joined": now})

    async def set_role(self, club_id: int, user_id: int, role: str) -> None:
        await self._write(update(club_members).where(
            club_members.c.club_id == club_id, club_members.c.user_id == user_id)
            .values(role=role))

    async def transfer_club(self, club_id: int, old: int, new: int) -> None:
        """``new`` becomes the club's owner, ``old`` an admin (one transaction)."""
        async with self.engine.begin() as conn:
            await conn.execute(update(clubs).where(clubs.c.id == club_id).values(owner=new))
            await conn.execute(update(club_members).where(
                club_members.c.club_id == club_id, club_members.c.user_id == new)
                .values(role="owner"))
            await conn.execute(update(club_members).where(
                club_members.c.club_id == club_id, club_members.c.user_id == old)
                .values(role="admin"))

    async def remove_member(self, club_id: int, user_id: int) -> None:
        await self._write(delete(club_members).where(
            club_members.c.club_id == club_id, club_members.c.user_id == user_id))

    # -- chat ----------------------------------------------------------------------------
    async def add_club_message(self, values: dict[str, Any]) -> int:
        rows = await self._write(insert(club_messages).returning(club_messages.c.id), values)
        return int(rows[0][0])

    async def club_messages(self, club_id: int, after: int, limit: int) -> list[dict[str, Any]]:
        """The club's newest ``limit`` messages after id ``after``, oldest first."""
        query = (select(club_messages.c.id, club_messages.c.user_id, club_messages.c.name,
                        club_messages.c.text, club_messages.c.at)
                 .where(club_messages.c.club_id == club_id, club_messages.c.id > after)
                 .order_by(club_messages.c.id.desc()).limit(limit))
        return [dict(r._mapping) for r in reversed(await self._read(query))]

    async def club_message(self, message_id: int) -> dict[str, Any] | None:
        """One line of a club's chat (``id``, ``club_id``, ``user_id``, ``name``,
        ``text``, ``at``), or None."""
        rows = await self._read(select(club_messages).where(club_messages.c.id == message_id))
        return dict(rows[0]._mapping) if rows else None

    async def remove_club_message(self, message_id: int) -> None:
        """A moderator removes a line (its text stays in the audit log)."""
        await self._write(delete(club_messages).where(club_messages.c.id == message_id))

    async def club_lines_of(self, user_id: int) -> list[dict[str, Any]]:
        """Every line ``user_id`` wrote in a club's chat (his data's export), oldest
        first, with its club's name."""
        query = (select(club_messages.c.id, club_messages.c.club_id,
                        clubs.c.name.label("club_name"), club_messages.c.text,
                        club_messages.c.at)
                 .join(clubs, clubs.c.id == club_messages.c.club_id)
                 .where(club_messages.c.user_id == user_id).order_by(club_messages.c.id))
        return [dict(r._mapping) for r in await self._read(query)]

    async def last_club_message(self, club_id: int, user_id: int) -> float | None:
        """When ``user_id`` last wrote in the club's chat."""
        rows = await self._read(select(func.max(club_messages.c.at)).where(
            club_messages.c.club_id == club_id, club_messages.c.user_id == user_id))
        return None if rows[0][0] is None else float(rows[0][0])

    # -- tables and ledger ---------------------------------------------------------------
    async def club_tables(self, club_id: int) -> list[dict[str, Any]]:
        """The club's open and playing tables, newest first."""
        query = (select(tables.c.id, tables.c.code, tables.c.owner, tables.c.status,
                        tables.c.seats, tables.c.preset, tables.c.games, tables.c.created,
                        tables.c.fill_bots)
                 .where(tables.c.club_id == club_id,
                        tables.c.status.in_(("open", "playing")))
                 .order_by(tables.c.created.desc()))
        return [dict(r._mapping) for r in await self._read(query)]

    async def open_club_tables(self, user_id: int) -> list[dict[str, Any]]:
        """The open tables of every club ``user_id`` is a member of (his notices)."""
        mine = (select(club_members.c.club_id).where(club_members.c.user_id == user_id,
                                                     club_members.c.role != "pending"))
        query = (select(tables.c.id, tables.c.club_id, tables.c.owner, tables.c.created,
                        clubs.c.name.label("club_name"))
                 .join(clubs, clubs.c.id == tables.c.club_id)
                 .where(tables.c.club_id.in_(mine), tables.c.status == "open")
                 .order_by(tables.c.created.desc()).limit(50))
        return [dict(r._mapping) for r in await self._read(query)]

    async def club_games(self, club_id: int, since: float | None = None,
                         until: float | None = None) -> list[dict[str, Any]]:
        """Every scored game of the club's tables finished in ``[since, until)``: one row
        a seat (``game_id``, ``finished``, ``result``, ``table_id``, ``seat``,
        ``user_id``, ``bot``, ``name``, ``score``, ``place``), by game then seat."""
        query = (select(games.c.id.label("game_id"), games.c.finished, games.c.result,
                        games.c.table_id, game_players.c.seat, game_players.c.user_id,
                        game_players.c.bot, game_players.c.name, game_players.c.score,
                        game_players.c.place)
                 .join(tables, tables.c.id == games.c.table_id)
                 .join(game_players, game_players.c.game_id == games.c.id)
                 .where(tables.c.club_id == club_id, games.c.status == "over",
                        games.c.scored.is_(True)))
        if since is not None:
            query = query.where(games.c.finished >= since)
        if until is not None:
            query = query.where(games.c.finished < until)
        query = query.order_by(games.c.finished, games.c.id, game_players.c.seat)
        return [dict(r._mapping) for r in await self._read(query)]
