"""The HTTP routes of 每日挑战 (docs/protocol.md §2 "Daily challenge"); each needs a
session.  Refusals are :class:`~.service.ChallengeError` (the API's error shape)."""

from __future__ import annotations

import datetime as dt

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from ..db.storage import UserRecord
from ..transport.state import session_user
from .service import ChallengeError, ChallengeService

__all__ = ["challenge_day", "challenge_days", "challenge_of", "challenge_start",
           "challenge_today"]

#: days one page of ``GET /api/challenge/days`` lists at most
MAX_DAYS_PAGE = 60


def challenge_of(request: Request) -> ChallengeService:
    service: ChallengeService = request.app.state.challenge
    return service


async def _user(request: Request) -> UserRecord:
    user = await session_user(request)
    if user is None:
        raise ChallengeError(401, "login_required", "the daily challenge needs a session: "
                             "log in or play as a guest")
    return user


def _day(text: str) -> str:
    """A path's day (``YYYY-MM-DD``), checked."""
    try:
        if len(text) != 10:
            raise ValueError
        return dt.date.fromisoformat(text).isoformat()
    except ValueError:
        raise ChallengeError(404, "not_found", "a day is written YYYY-MM-DD") from None


async def challenge_today(request: Request) -> Response:
    """Today's deals, the player's progress and rank, his streak and best."""
    return JSONResponse(await challenge_of(request).overview(await _user(request)))


async def challenge_start(request: Request) -> Response:
    """Begin (or come back to) a deal of today's challenge: the table to join."""
    user = await _user(request)
    text = request.path_params["number"]
    if not text.isdigit() or len(text) > 3:
        raise ChallengeError(404, "not_found", "a deal is numbered 1, 2, …")
    answer = await challenge_of(request).start(user, _day(request.path_params["day"]),
                                               int(text))
    return JSONResponse(answer, status_code=200 if answer["resumed"] else 201)


async def challenge_day(request: Request) -> Response:
    """A day's ranking and, for the deals the player has played, everyone's results."""
    user = await _user(request)
    return JSONResponse(await challenge_of(request).results(
        user, _day(request.path_params["day"])))


async def challenge_days(request: Request) -> Response:
    """Past days, newest first (``?before=YYYY-MM-DD&limit=N``)."""
    user = await _user(request)
    before = request.query_params.get("before")
    text = request.query_params.get("limit", "30")
    if not text.isdigit():
        raise ChallengeError(400, "bad_request", "'limit' must be a number")
    limit = max(1, min(MAX_DAYS_PAGE, int(text)))
    return JSONResponse(await challenge_of(request).history(
        user, None if before is None else _day(before), limit))
