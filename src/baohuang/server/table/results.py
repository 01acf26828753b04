"""What happens when a game at a table ends (docs/rules.md §8, §10): the result is
stored with its players; if not every seat was on 托管 the game is scored —
users' points, games, wins and ratings change and the match totals grow; if a
seat is still on 托管 the table is dissolved.

:func:`settle` works on the finished game's data alone; :func:`record_result`
stores what it settled."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any

from ...engine.state import Result
from ..accounts.rating import DEFAULT_MU, DEFAULT_SIGMA, rate_game
from ..db.storage import RateGame, Storage
from .seats import Seat

__all__ = ["Settlement", "record_result", "settle"]


@dataclass(frozen=True, slots=True)
class Settlement:
    """What a finished game changes: the table's match totals and status, and the
    rows and rating update to store."""

    result: Result
    scored: bool
    totals: list[int]
    status: str
    #: the seats of people still on 托管 when the game ended (they dissolve a match)
    hosted: list[int]
    players: list[dict[str, Any]]
    updates: list[dict[str, Any]]
    rate: RateGame | None


def settle(result: Result, seats: Sequence[Seat | None], *, grace: float, now: float,
           totals: Sequence[int], status: str, played: int, games: int,
           rated: bool = True) -> Settlement:
    """Settle the finished game ``result`` played by ``seats`` (``played`` games of the
    match's ``games`` are over, this one included) at a table whose match totals and
    status were ``totals`` and ``status``, at ``now`` (the table's clock).  Not
    ``rated`` (a practice table): the users' points, games, wins, leaves and ratings
    stay as they are."""
    scored = not all(s is not None and s.auto(grace, now) for s in seats)
    hosted = [i for i, s in enumerate(seats) if s is not None and not s.is_bot
              and s.auto(grace, now)]
    on_hosted = bool(hosted)
    players: list[dict[str, Any]] = []
    updates: list[dict[str, Any]] = []
    #: a game a leave ended (leave_ends_game): only the leaver's penalty counts, it has
    #: no winner and rates nobody (docs/rules.md §10)
    ended_by = result.left
    for index, seat in enumerate(seats):
        assert seat is not None
        score = result.scores[index]
        players.append({"seat": index, "user_id": seat.user_id, "bot": seat.bot,
                        "name": seat.name, "score": score, "place": result.places[index]})
        if seat.user_id is not None and rated:
            counted = scored and (ended_by is None or ended_by == index)
            updates.append({"id": seat.user_id, "points": score if scored else 0,
                            "games": 1 if counted else 0,
                            "wins": 1 if counted and score > 0 else 0,
                            "leaves": 1 if seat.left else 0})
    rate: RateGame | None = None
    if rated and scored and ended_by is None and result.emperor is not None \
            and result.guard is not None:
        royal = (result.emperor,) if result.solo is not None else (result.emperor, result.guard)
        rate = partial(_rate, royal=royal, royal_won=result.royal_won)
    new_totals = [t + s for t, s in zip(totals, result.scores, strict=True)] if scored \
        else list(totals)
    if played >= games:
        status = "finished"
    elif on_hosted:
        status = "dissolved"      # a game ended with a seat on 托管
    return Settlement(result, scored, new_totals, status, hosted, players, updates, rate)


async def record_result(storage: Storage, settled: Settlement, *, game_id: int,
                        table_id: str, hosted: list[dict[str, Any] | None]) -> None:
    """Store the settled game ``game_id`` of table ``table_id`` with its seats' 托管
    state ``hosted``."""
    await storage.finish_game(
        game_id, result=settled.result.to_dict(), scored=settled.scored, hosted=hosted,
        players=settled.players, user_updates=settled.updates, table_id=table_id,
        totals=settled.totals, status=settled.status, rate=settled.rate)


def _rate(current: list[tuple[float, float] | None], *, royal: tuple[int, ...],
          royal_won: bool | None) -> list[tuple[float, float] | None]:
    """New ratings from the seats' current ones; a seat without a user plays at the
    default rating and is not rated."""
    ratings = [r if r is not None else (DEFAULT_MU, DEFAULT_SIGMA) for r in current]
    return rate_game(ratings, royal=royal, royal_won=royal_won,
                     rated=[r is not None for r in current])
