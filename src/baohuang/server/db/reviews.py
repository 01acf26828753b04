"""复盘 as stored: the review of a finished game's seat, written once computed
(:mod:`baohuang.server.reviews`) and read instead of computing it again."""

from __future__ import annotations

import time
from typing import Any

from sqlalchemy import select
from sqlalchemy.exc import IntegrityError

from .database import Database
from .models import reviews

__all__ = ["ReviewStore"]


class ReviewStore(Database):
    """Reviews of finished games, one per ``(game_id, seat)``."""

    async def review(self, game_id: int, seat: int) -> dict[str, Any] | None:
        """The stored review of ``seat`` in game ``game_id``, or ``None``."""
        async with self.engine.connect() as conn:
            row = (await conn.execute(
                select(reviews.c.review).where(reviews.c.game_id == game_id,
                                               reviews.c.seat == seat))).first()
        return None if row is None else dict(row.review)

    async def store_review(self, game_id: int, seat: int, review: dict[str, Any],
                           cpu_seconds: float) -> None:
        """Keep a computed review (a review stored meanwhile by another node stays)."""
        try:
            async with self.engine.begin() as conn:
                await conn.execute(reviews.insert().values(
                    game_id=game_id, seat=seat, review=review, cpu_seconds=cpu_seconds,
                    created=time.time()))
        except IntegrityError:
            pass        # (the same review, computed from the same record and seed)
