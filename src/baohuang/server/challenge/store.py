"""每日挑战 as stored: the days (``challenge_days``) and the attempts
(``challenge_plays``).  An attempt's score is never stored here: it is read from the
stored result of its table's game (``games.result``), written only by the table that
played it.  One attempt per user, day and deal is the database's unique constraint, so
it holds on every node of a cluster."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlalchemy import and_, delete, insert, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncEngine

from ..db.models import challenge_days, challenge_plays, games, tables, users

__all__ = ["Attempt", "ChallengeStore", "DayRow"]


@dataclass(frozen=True, slots=True)
class DayRow:
    """A challenge day as stored: its secret seed and what its deals are played with."""

    day: str
    seed: str
    preset: str
    deals: int
    bot: str


@dataclass(frozen=True, slots=True)
class Attempt:
    """One user's attempt at one deal, with its game as stored: ``status`` is
    ``starting`` (no table yet), ``playing``, ``over`` or ``abandoned``; ``score`` the
    stored result's score of the seat (``None`` until the game is over)."""

    day: str
    deal: int
    user_id: int
    name: str
    seat: int
    table_id: str | None
    started: float
    status: str
    score: int | None
    game_id: int | None

    @property
    def done(self) -> bool:
        """Whether the deal counts as played (its game finished or was abandoned)."""
        return self.status in ("over", "abandoned")


class ChallengeStore:
    """The challenge's reads and writes, on the server's database engine."""

    def __init__(self, engine: AsyncEngine) -> None:
        self.engine = engine

    async def day(self, day: str) -> DayRow | None:
        async with self.engine.connect() as conn:
            row = (await conn.execute(select(challenge_days).where(
                challenge_days.c.day == day))).first()
        return None if row is None else DayRow(row.day, row.seed, row.preset, row.deals,
                                               row.bot)

    async def make_day(self, values: DayRow, created: float) -> DayRow:
        """The day, stored now with ``values`` unless a node stored it first (then the
        stored one: every node deals the same day)."""
        try:
            async with self.engine.begin() as conn:
                await conn.execute(insert(challenge_days).values(
                    day=values.day, seed=values.seed, preset=values.preset,
                    deals=values.deals, bot=values.bot, created=created))
        except IntegrityError:
            pass
        stored = await self.day(values.day)
        assert stored is not None
        return stored

    async def days(self, before: str | None, limit: int) -> list[DayRow]:
        """Stored days, newest first, before ``before`` (if given)."""
        query = select(challenge_days).order_by(challenge_days.c.day.desc()).limit(limit)
        if before is not None:
            query = query.where(challenge_days.c.day < before)
        async with self.engine.connect() as conn:
            rows = (await conn.execute(query)).all()
        return [DayRow(r.day, r.seed, r.preset, r.deals, r.bot) for r in rows]

    async def claim(self, day: str, deal: int, user_id: int, seat: int, now: float) -> bool:
        """Record that ``user_id`` begins ``deal`` of ``day``: False when he already
        has (the unique constraint, whichever node wrote first)."""
        try:
            async with self.engine.begin() as conn:
                await conn.execute(insert(challenge_plays).values(
                    day=day, deal=deal, user_id=user_id, seat=seat, table_id=None,
                    started=now))
        except IntegrityError:
            return False
        return True

    async def reclaim(self, day: str, deal: int, user_id: int, older_than: float,
                      now: float) -> bool:
        """Take over an attempt that never got its table (a node stopped between the
        claim and the table), if it began before ``older_than``: no cards were dealt
        to anyone for it, so it may begin again."""
        async with self.engine.begin() as conn:
            done = await conn.execute(update(challenge_plays).where(
                challenge_plays.c.day == day, challenge_plays.c.deal == deal,
                challenge_plays.c.user_id == user_id, challenge_plays.c.table_id.is_(None),
                challenge_plays.c.started < older_than).values(started=now))
        return bool(done.rowcount)

    async def table_made(self, day: str, deal: int, user_id: int) -> str | None:
        """The table made for this attempt, if one was stored although the attempt never
        learnt it (its node stopped, or the database failed, in between)."""
        async with self.engine.connect() as conn:
            rows = (await conn.execute(select(tables.c.id, tables.c.challenge).where(
                tables.c.owner == user_id, tables.c.challenge.is_not(None)))).all()
        for row in rows:
            info = row.challenge
            if isinstance(info, dict) and info.get("day") == day and info.get("deal") == deal:
                return str(row.id)
        return None

    async def set_table(self, day: str, deal: int, user_id: int, table_id: str) -> None:
        async with self.engine.begin() as conn:
            await conn.execute(update(challenge_plays).where(
                challenge_plays.c.day == day, challenge_plays.c.deal == deal,
                challenge_plays.c.user_id == user_id).values(table_id=table_id))

    async def release(self, day: str, deal: int, user_id: int) -> None:
        """Forget a claim whose table could not be made (nothing was dealt)."""
        async with self.engine.begin() as conn:
            await conn.execute(delete(challenge_plays).where(
                challenge_plays.c.day == day, challenge_plays.c.deal == deal,
                challenge_plays.c.user_id == user_id, challenge_plays.c.table_id.is_(None)))

    async def attempts(self, *, day: str | None = None, user_id: int | None = None,
                       table_id: str | None = None) -> list[Attempt]:
        """The attempts of a day, of a user, or at a table, each with its game."""
        query = (select(challenge_plays, users.c.name, games.c.id.label("game_id"),
                        games.c.status.label("game_status"), games.c.result)
                 .join(users, users.c.id == challenge_plays.c.user_id)
                 .outerjoin(games, and_(games.c.table_id == challenge_plays.c.table_id,
                                        games.c.idx == 0))
                 .order_by(challenge_plays.c.day, challenge_plays.c.deal,
                           challenge_plays.c.id))
        if day is not None:
            query = query.where(challenge_plays.c.day == day)
        if user_id is not None:
            query = query.where(challenge_plays.c.user_id == user_id)
        if table_id is not None:
            query = query.where(challenge_plays.c.table_id == table_id)
        async with self.engine.connect() as conn:
            rows = (await conn.execute(query)).all()
        return [_attempt(r._mapping) for r in rows]


def _attempt(row: Any) -> Attempt:
    status = "starting" if row["table_id"] is None else row["game_status"] or "playing"
    score: int | None = None
    result = row["result"]
    if status == "over" and isinstance(result, dict):
        score = int(result["scores"][row["seat"]])
    return Attempt(row["day"], row["deal"], row["user_id"], row["name"], row["seat"],
                   row["table_id"], row["started"], status, score, row["game_id"])
