"""Moderation and privacy as stored: roles and the mute, suspension and ban of an
account; reports (举报) and the audit log of moderator actions; the connection log and
its purge; a player's data (export) and the deletion of his account."""

from __future__ import annotations

import time
from typing import Any

from sqlalchemy import Connection, delete, func, insert, select, update

from .database import Database
from .models import (
    audit_log,
    club_messages,
    connection_log,
    game_players,
    games,
    reports,
    sessions,
    tables,
    users,
)

__all__ = ["ModerationStore", "deleted_name", "muted_text"]


def deleted_name(user_id: int) -> str:
    """The name a deleted account's games show instead of his (at most 24 characters).

    >>> deleted_name(12)
    '已注销/deleted #12'
    """
    return f"已注销/deleted #{user_id}"


def _renamed(seats: Any, user_id: int, name: str) -> tuple[Any, bool]:
    """``seats`` (a stored list of seats) with ``user_id``'s name replaced."""
    if not isinstance(seats, list):
        return seats, False
    changed = False
    out = []
    for seat in seats:
        if isinstance(seat, dict) and seat.get("user_id") == user_id:
            seat = {**seat, "name": name}
            changed = True
        out.append(seat)
    return out, changed


class ModerationStore(Database):
    """Roles, sanctions, reports, the audit log, the connection log, export and
    deletion."""

    # -- roles and sanctions ------------------------------------------------------------
    async def user_by_name(self, name: str) -> int | None:
        """The id of the registered user called ``name`` (any case)."""
        rows = await self._read(select(users.c.id).where(
            users.c.name_key == name.strip().casefold()))
        return int(rows[0][0]) if rows else None

    async def set_user(self, user_id: int, **values: Any) -> None:
        """Set moderation fields of a user (``role``, ``muted_until``,
        ``suspended_until``, ``banned``, ``password_hash``)."""
        await self._write(update(users).where(users.c.id == user_id).values(**values))

    async def muted_until(self, user_id: int) -> float | None:
        rows = await self._read(select(users.c.muted_until).where(users.c.id == user_id))
        return rows[0].muted_until if rows else None

    # -- reports ------------------------------------------------------------------------
    async def add_report(self, *, reporter: int, reported: int, place: str,
                         table_id: str | None, game_id: int | None, reason: str,
                         club_id: int | None = None, message_id: int | None = None) -> int:
        rows = await self._write(insert(reports).returning(reports.c.id), {
            "reporter": reporter, "reported": reported, "place": place,
            "table_id": table_id, "game_id": game_id, "reason": reason,
            "created": time.time(), "status": "open", "handled_by": None,
            "club_id": club_id, "message_id": message_id})
        return int(rows[0][0])

    async def report_list(self, status: str | None, limit: int) -> list[dict[str, Any]]:
        """The latest reports (of ``status``, if given) with the names of both users."""
        reporter = users.alias("reporter_user")
        reported = users.alias("reported_user")
        query = (select(reports, reporter.c.name.label("reporter_name"),
                        reported.c.name.label("reported_name"))
                 .join(reporter, reporter.c.id == reports.c.reporter)
                 .join(reported, reported.c.id == reports.c.reported)
                 .order_by(reports.c.created.desc(), reports.c.id.desc()).limit(limit))
        if status is not None:
            query = query.where(reports.c.status == status)
        return [dict(r._mapping) for r in await self._read(query)]

    async def report(self, report_id: int) -> dict[str, Any] | None:
        rows = await self._read(select(reports).where(reports.c.id == report_id))
        return dict(rows[0]._mapping) if rows else None

    async def close_report(self, report_id: int, handled_by: int | None) -> None:
        await self._write(update(reports).where(reports.c.id == report_id)
                          .values(status="closed", handled_by=handled_by))

    async def game_table(self, game_id: int) -> str | None:
        rows = await self._read(select(games.c.table_id).where(games.c.id == game_id))
        return str(rows[0][0]) if rows else None

    async def latest_game(self, table_id: str) -> int | None:
        """The id of the last game dealt at a table (``None``: none yet)."""
        rows = await self._read(select(games.c.id).where(games.c.table_id == table_id)
                                .order_by(games.c.idx.desc()).limit(1))
        return int(rows[0][0]) if rows else None

    # -- the audit log ------------------------------------------------------------------
    async def audit(self, *, moderator: int | None, via: str, action: str, reason: str,
                    target_user: int | None = None, target_table: str | None = None,
                    detail: dict[str, Any] | None = None) -> None:
        await self._write(insert(audit_log), {
            "at": time.time(), "moderator": moderator, "via": via, "action": action,
            "target_user": target_user, "target_table": target_table, "reason": reason,
            "detail": detail})

    async def audit_list(self, limit: int) -> list[dict[str, Any]]:
        mod = users.alias("moderator_user")
        target = users.alias("target_user_row")
        query = (select(audit_log, mod.c.name.label("moderator_name"),
                        target.c.name.label("target_name"))
                 .outerjoin(mod, mod.c.id == audit_log.c.moderator)
                 .outerjoin(target, target.c.id == audit_log.c.target_user)
                 .order_by(audit_log.c.at.desc(), audit_log.c.id.desc()).limit(limit))
        return [dict(r._mapping) for r in await self._read(query)]

    # -- the connection log -------------------------------------------------------------
    async def log_connection(self, user_id: int, kind: str, address: str | None,
                             at: float | None = None) -> None:
        await self._write(insert(connection_log), {
            "user_id": user_id, "kind": kind, "address": (address or "")[:64] or None,
            "at": time.time() if at is None else at})

    async def purge_connections(self, before: float) -> int:
        """Delete the connection log older than ``before`` (unix time); how many rows."""
        rows = await self._write(delete(connection_log).where(connection_log.c.at < before)
                                 .returning(connection_log.c.id))
        return len(rows)

    # -- a player's data ----------------------------------------------------------------
    async def export_rows(self, user_id: int) -> dict[str, Any]:
        """Everything stored of ``user_id`` besides his password hash and session
        digests: his account row, the games he played, the reports he made and his
        connection log."""
        account = await self._read(select(users).where(users.c.id == user_id))
        played = await self._read(
            select(game_players.c.game_id, game_players.c.seat, game_players.c.name,
                   game_players.c.score, game_players.c.place, game_players.c.finished,
                   games.c.table_id, games.c.idx, games.c.scored, games.c.status)
            .join(games, games.c.id == game_players.c.game_id)
            .where(game_players.c.user_id == user_id)
            .order_by(game_players.c.finished, game_players.c.game_id))
        made = await self._read(
            select(reports.c.id, reports.c.reported, reports.c.place, reports.c.table_id,
                   reports.c.game_id, reports.c.reason, reports.c.created, reports.c.status)
            .where(reports.c.reporter == user_id).order_by(reports.c.id))
        log = await self._read(
            select(connection_log.c.kind, connection_log.c.address, connection_log.c.at)
            .where(connection_log.c.user_id == user_id).order_by(connection_log.c.at))
        row = dict(account[0]._mapping) if account else {}
        row.pop("password_hash", None)
        row.pop("name_key", None)
        return {"account": row, "games": [dict(r._mapping) for r in played],
                "reports": [dict(r._mapping) for r in made],
                "connections": [dict(r._mapping) for r in log]}

    async def delete_account(self, user_id: int) -> str:
        """Delete ``user_id``'s account: his name becomes :func:`deleted_name` here and
        in every stored seat and game (his games stay, scored as they were) and on his
        lines of club chat (his club memberships stay, shown under it), his name is
        free again, password, sessions and connection log are gone.  Returns the new
        name."""
        name = deleted_name(user_id)

        def work(conn: Connection) -> None:
            conn.execute(update(users).where(users.c.id == user_id).values(
                name=name, name_key=None, password_hash=None, deleted=True,
                role="player"))
            conn.execute(delete(sessions).where(sessions.c.user_id == user_id))
            conn.execute(delete(connection_log).where(connection_log.c.user_id == user_id))
            conn.execute(update(game_players).where(game_players.c.user_id == user_id)
                         .values(name=name))
            conn.execute(update(club_messages).where(club_messages.c.user_id == user_id)
                         .values(name=name))
            ids = [r.game_id for r in conn.execute(
                select(game_players.c.game_id).where(game_players.c.user_id == user_id))]
            table_ids: set[str] = set()
            game_rows = conn.execute(select(games.c.id, games.c.table_id, games.c.seats)
                                     .where(games.c.id.in_(ids))).all() if ids else []
            for game in game_rows:
                table_ids.add(game.table_id)
                seats, changed = _renamed(game.seats, user_id, name)
                if changed:
                    conn.execute(update(games).where(games.c.id == game.id).values(seats=seats))
            table_ids.update(r.id for r in conn.execute(
                select(tables.c.id).where(tables.c.owner == user_id)))
            table_rows = conn.execute(select(tables.c.id, tables.c.seats).where(
                tables.c.id.in_(sorted(table_ids)))).all() if table_ids else []
            for table in table_rows:
                seats, changed = _renamed(table.seats, user_id, name)
                if changed:
                    conn.execute(update(tables).where(tables.c.id == table.id)
                                 .values(seats=seats))

        async with self.engine.begin() as conn:
            await conn.run_sync(work)
        return name

    async def count_reports(self) -> int:
        rows = await self._read(select(func.count()).select_from(reports)
                                .where(reports.c.status == "open"))
        return int(rows[0][0])


def muted_text(until: float | None, now: float) -> str | None:
    """What a muted (禁言) player is told when he chats — at a table or in a club — or
    None if he is not muted at ``now``.

    >>> muted_text(None, 0.0), muted_text(60.0, 60.0)
    (None, None)
    >>> muted_text(86400.0, 0.0)
    'a moderator has muted you: no chat or quick phrases until 1970-01-02 00:00 UTC'
    """
    if until is None or until <= now:
        return None
    return "a moderator has muted you: no chat or quick phrases until " + \
        time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(until))
