"""What happens when a game at a table ends (RULES.md §6–7): the result is
stored with its players; if not every seat was on 托管 the game is scored —
users' points, games, wins and ratings change and the match totals grow; if a
seat is still on 托管 the table is dissolved."""

from __future__ import annotations

import time
from functools import partial
from typing import TYPE_CHECKING, Any

from ..accounts.rating import DEFAULT_MU, DEFAULT_SIGMA, rate_game
from ..db.storage import RateGame

if TYPE_CHECKING:
    from .tables import Table

__all__ = ["record_result"]


async def record_result(table: Table) -> None:
    """Store the finished current game of ``table`` and settle the match state."""
    game = table.game
    assert game is not None and game.result is not None
    result = game.result
    grace = table.config.away_grace
    seats = table.seats
    scored = not all(s is not None and s.auto(grace) for s in seats)
    on_hosted = any(s is not None and not s.is_bot and s.auto(grace) for s in seats)
    players: list[dict[str, Any]] = []
    updates: list[dict[str, Any]] = []
    for index, seat in enumerate(seats):
        assert seat is not None
        score = result.scores[index]
        players.append({"seat": index, "user_id": seat.user_id, "bot": seat.bot,
                        "name": seat.name, "score": score, "place": result.places[index]})
        if seat.user_id is not None:
            updates.append({"id": seat.user_id, "points": score if scored else 0,
                            "games": 1 if scored else 0,
                            "wins": 1 if scored and score > 0 else 0,
                            "leaves": 1 if seat.left else 0})
    rate: RateGame | None = None
    if scored and result.emperor is not None and result.guard is not None:
        royal = (result.emperor,) if result.solo is not None else (result.emperor, result.guard)
        rate = partial(_rate, royal=royal, royal_won=result.royal_won)
    if scored:
        table.totals = [t + s for t, s in zip(table.totals, result.scores, strict=True)]
    played = table.index + 1
    if played >= table.settings.games:
        table.status = "finished"
    elif on_hosted:
        table.status = "dissolved"      # a game ended with a seat on 托管
    await table.storage.finish_game(
        table.game_ids[-1], result=result.to_dict(), scored=scored,
        hosted=[None if s is None else s.hosted_json() for s in seats], players=players,
        user_updates=updates, table_id=table.id, totals=table.totals, status=table.status,
        rate=rate)
    if table.status != "playing":
        table.finished_at = time.monotonic()


def _rate(current: list[tuple[float, float] | None], *, royal: tuple[int, ...],
          royal_won: bool | None) -> list[tuple[float, float] | None]:
    """New ratings from the seats' current ones; a seat without a user plays at the
    default rating and is not rated."""
    ratings = [r if r is not None else (DEFAULT_MU, DEFAULT_SIGMA) for r in current]
    return rate_game(ratings, royal=royal, royal_won=royal_won,
                     rated=[r is not None for r in current])
