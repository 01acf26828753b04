"""Accounts and their sessions as stored: users (names, password hashes, totals and
ratings) and the session tokens that log them in."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import delete, func, insert, select, update
from sqlalchemy.exc import IntegrityError

from .database import Database
from .models import sessions, users

__all__ = ["NameTaken", "UserRecord", "UserStore", "barred"]


class NameTaken(ValueError):
    """A registered name that is already in use."""


@dataclass(frozen=True, slots=True)
class UserRecord:
    """One account as stored."""

    id: int
    name: str
    guest: bool
    points: int
    games: int
    wins: int
    leaves: int
    mu: float
    sigma: float
    #: ``player``, ``moderator`` or ``admin`` (:mod:`baohuang.server.moderation`)
    role: str = "player"
    #: until when (unix time) the user may not chat or send emotes, and may not log in
    muted_until: float | None = None
    suspended_until: float | None = None
    banned: bool = False


def _user(row: Any) -> UserRecord:
    return UserRecord(row["id"], row["name"], bool(row["guest"]), row["points"], row["games"],
                      row["wins"], row["leaves"], row["mu"], row["sigma"],
                      row.get("role") or "player", row.get("muted_until"),
                      row.get("suspended_until"), bool(row.get("banned") or False))


def barred(user: UserRecord, now: float) -> bool:
    """Whether ``user`` may not be logged in now: banned, or suspended until later."""
    return user.banned or (user.suspended_until is not None and user.suspended_until > now)


def record_use_after(idle: float) -> float:
    """How long after the last recorded use of a session a new use is written: a
    minute, or a tenth of the time after which an unused session ends."""
    return min(60.0, idle / 10)


class UserStore(Database):
    """Users and sessions."""

    async def create_user(self, name: str, *, name_key: str | None, password_hash: str | None,
                          guest: bool, mu: float, sigma: float) -> UserRecord:
        values = {"name": name, "name_key": name_key, "password_hash": password_hash,
                  "guest": guest, "created": time.time(), "points": 0, "games": 0, "wins": 0,
                  "leaves": 0, "mu": mu, "sigma": sigma}
        try:
            rows = await self._write(insert(users).returning(users.c.id), values)
        except IntegrityError:
            raise NameTaken(f"the name {name!r} is taken") from None
        return _user({**values, "id": int(rows[0][0])})

    async def user(self, user_id: int) -> UserRecord | None:
        rows = await self._read(select(users).where(users.c.id == user_id))
        return _user(rows[0]._mapping) if rows else None

    async def login_row(self, name_key: str) -> tuple[UserRecord, str | None] | None:
        rows = await self._read(select(users).where(users.c.name_key == name_key))
        return (_user(rows[0]._mapping), rows[0].password_hash) if rows else None

    async def password_hash(self, user_id: int) -> str | None:
        rows = await self._read(select(users.c.password_hash).where(users.c.id == user_id))
        return rows[0].password_hash if rows else None

    async def set_password_hash(self, user_id: int, password_hash: str) -> None:
        await self._write(update(users).where(users.c.id == user_id)
                          .values(password_hash=password_hash))

    async def add_session(self, token_hash: str, user_id: int) -> None:
        await self._write(insert(sessions), {"token_hash": token_hash, "user_id": user_id,
                                             "created": time.time()})

    async def session_user(self, token_hash: str, *, idle: float = float("inf"),
                           absolute: float = float("inf")) -> UserRecord | None:
        """The user of a session, unless it was not used for ``idle`` seconds or was made
        more than ``absolute`` seconds ago (then it is deleted).  Its use is recorded at
        most once a minute (or a tenth of ``idle``)."""
        query = select(users, sessions.c.created.label("session_created"),
                       sessions.c.last_used).join(
            sessions, sessions.c.user_id == users.c.id).where(
            sessions.c.token_hash == token_hash)
        rows = await self._read(query)
        if not rows:
            return None
        row = rows[0]._mapping
        now = time.time()
        used = row["last_used"] if row["last_used"] is not None else row["session_created"]
        if now - row["session_created"] > absolute or now - used > idle \
                or barred(_user(row), now):
            await self.delete_session(token_hash)
            return None
        if now - used > record_use_after(idle):
            await self._write(update(sessions).where(sessions.c.token_hash == token_hash)
                              .values(last_used=now))
        return _user(row)

    async def use_sessions(self, token_hashes: Sequence[str], *, idle: float = float("inf"),
                           absolute: float = float("inf")) -> None:
        """Record a use now of each of ``token_hashes``, as :meth:`session_user` does for
        one (written only if the last was recorded :func:`record_use_after` ago), but in
        one statement for up to 500 of them: the check of the sessions of every open
        socket makes it for thousands at once, on the event loop.  A session past its
        absolute age, or deleted, is left as it is (:meth:`ended_sessions` ends it)."""
        now = time.time()
        recorded = func.coalesce(sessions.c.last_used, sessions.c.created)
        for start in range(0, len(token_hashes), 500):   # (bound parameters per statement)
            if start:
                await asyncio.sleep(0)     # (the tables move between two statements)
            chunk = list(token_hashes[start:start + 500])
            statement = update(sessions).where(sessions.c.token_hash.in_(chunk),
                                               recorded < now - record_use_after(idle))
            if absolute != float("inf"):
                statement = statement.where(sessions.c.created >= now - absolute)
            await self._write(statement.values(last_used=now))

    async def delete_session(self, token_hash: str) -> None:
        await self._write(delete(sessions).where(sessions.c.token_hash == token_hash))

    async def ended_sessions(self, token_hashes: Sequence[str], *, idle: float = float("inf"),
                             absolute: float = float("inf")) -> list[str]:
        """Which of ``token_hashes`` are no session now: deleted, or ended by age (those
        are deleted now).  Nothing is recorded as a use."""
        now = time.time()
        alive: set[str] = set()
        for start in range(0, len(token_hashes), 500):   # (bound parameters per statement)
            if start:
                await asyncio.sleep(0)     # (the tables move between two statements)
            chunk = list(token_hashes[start:start + 500])
            query = select(sessions.c.token_hash, sessions.c.created, sessions.c.last_used
                           ).where(sessions.c.token_hash.in_(chunk))
            aged = []
            for row in await self._read(query):
                used = row.last_used if row.last_used is not None else row.created
                if now - row.created > absolute or now - used > idle:
                    aged.append(row.token_hash)
                else:
                    alive.add(row.token_hash)
            if aged:
                await self._write(delete(sessions).where(sessions.c.token_hash.in_(aged)))
        return [digest for digest in token_hashes if digest not in alive]

    async def delete_user_sessions(self, user_id: int, *, keep: str | None = None) -> None:
        """End every session of ``user_id`` but ``keep``."""
        statement = delete(sessions).where(sessions.c.user_id == user_id)
        if keep is not None:
            statement = statement.where(sessions.c.token_hash != keep)
        await self._write(statement)

    async def leaderboard(self, limit: int = 50) -> list[UserRecord]:
        query = (select(users).where(users.c.guest.is_(False), users.c.games > 0)
                 .order_by(users.c.points.desc(), users.c.id).limit(limit))
        return [_user(r._mapping) for r in await self._read(query)]
