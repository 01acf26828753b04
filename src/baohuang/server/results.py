"""What happens when a game at a table ends (RULES.md §6–7): the result is
stored with its players; if not every seat was on 托管 the game is scored —
users' points, games, wins and ratings change and the match totals grow; if a
seat is still on 托管 the table is dissolved."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

from .rating import rate_game

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
    if scored and result.emperor is not None and result.guard is not None:
        await _rate(table, updates, result.emperor, result.guard, result.solo is not None,
                    result.royal_won)
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
        user_updates=updates, table_id=table.id, totals=table.totals)
    if table.status != "playing":
        table.finished_at = time.monotonic()
        await table.storage.update_table(table.id, status=table.status, finished=time.time())


async def _rate(table: Table, updates: list[dict[str, Any]], emperor: int, guard: int,
                solo: bool, royal_won: bool | None) -> None:
    ratings: list[tuple[float, float]] = []
    rated: list[bool] = []
    users = {}
    for seat in table.seats:
        assert seat is not None
        user = await table.storage.user(seat.user_id) if seat.user_id is not None else None
        if user is not None:
            users[user.id] = user
        ratings.append((user.mu, user.sigma) if user is not None else (25.0, 25.0 / 3))
        rated.append(user is not None)
    royal = (emperor,) if solo else (emperor, guard)
    new = rate_game(ratings, royal=royal, royal_won=royal_won, rated=rated)
    by_user = {seat.user_id: new[i] for i, seat in enumerate(table.seats)
               if seat is not None and seat.user_id is not None}
    for change in updates:
        rating = by_user.get(change["id"])
        if rating is not None:
            change["mu"], change["sigma"] = rating
