"""复盘 over HTTP (docs/protocol.md §2): start, poll and read the review of a finished
game's seat.

- ``POST /api/games/{game_id}/review/{seat}``: the stored review (200), or the job
  computing it, started if need be (202, ``{"status": "running", "done", "total"}``).
- ``GET /api/games/{game_id}/review/{seat}``: the stored review (200,
  ``{"status": "done", "review"}``), the running job's progress (200), a failed job
  (200, ``{"status": "failed", "message"}``), or 404 ``not_started``.

Both need a session (401 ``login_required``), a finished game (404 ``not_found``, 409
``not_finished``: never a game still being played), and either a public game (a table
that is not private) or a seat the asker played (403 ``not_your_seat``).  A deal of the
daily challenge (每日挑战) follows its replay's rule instead: any seat, to those who
have played the deal and to all once its day is published (403 ``challenge_unplayed``).
"""

from __future__ import annotations

from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from ..challenge.api import challenge_of
from ..db.storage import UserRecord
from ..reviews import ReviewJobs, TooManyReviews
from .api import _guard, _id, error
from .state import server_state, session_user

__all__ = ["review_routes"]


async def _target(request: Request
                  ) -> tuple[UserRecord, dict[str, Any], int] | JSONResponse:
    """The asker, the game row and the seat of a review request, or its refusal."""
    user = await session_user(request)
    if user is None:
        return error(401, "login_required", "a review needs a session")
    game_id = _id(request.path_params["game_id"])
    if game_id is None:
        return error(404, "not_found", "no such game")
    text = request.path_params["seat"]
    if text not in ("0", "1", "2", "3", "4"):
        return error(404, "not_found", "no such seat: seats are 0 to 4")
    seat = int(text)
    row = await server_state(request).storage.game(game_id)
    if row is None:
        return error(404, "not_found", f"no game {game_id}")
    if row["status"] != "over":
        what = "is still being played" if row["status"] == "playing" else \
            "was abandoned before its end"
        return error(409, "not_finished", f"game {game_id} {what}: only a finished game is "
                     "reviewed")
    challenge = challenge_of(request)
    if await challenge.store.attempts(table_id=row["table_id"]):
        # 每日挑战: a deal's review shows its cards, as its replay does — the same rule:
        # to those who have played the deal, and to all once its day is published
        if not await challenge.replay_allowed(row["table_id"], user):
            return error(403, "challenge_unplayed", "this is a deal of a daily challenge: "
                         "its review is shown to those who have played it, and to all "
                         "once the day is over")
        return user, row, seat
    played = any(p["seat"] == seat and p["user_id"] == user.id for p in row["players"])
    if row.get("private") and not played:
        return error(403, "not_your_seat", f"game {game_id} was played at a private table: "
                     "you may review only the seats you played in it")
    return user, row, seat


def _jobs(request: Request) -> ReviewJobs:
    jobs = server_state(request).reviews
    assert jobs is not None
    return jobs


async def start_review(request: Request) -> Response:
    found = await _target(request)
    if isinstance(found, JSONResponse):
        return found
    user, row, seat = found
    stored = await server_state(request).storage.review(row["id"], seat)
    if stored is not None:
        return JSONResponse({"status": "done", "game_id": row["id"], "seat": seat,
                             "review": stored})
    try:
        job = _jobs(request).start(row, seat, user.id)
    except TooManyReviews as exc:
        return error(429, "too_many_reviews", str(exc))
    return JSONResponse(job.to_json(), status_code=202)


async def review_status(request: Request) -> Response:
    found = await _target(request)
    if isinstance(found, JSONResponse):
        return found
    _, row, seat = found
    stored = await server_state(request).storage.review(row["id"], seat)
    if stored is not None:
        return JSONResponse({"status": "done", "game_id": row["id"], "seat": seat,
                             "review": stored})
    job = _jobs(request).job(row["id"], seat)
    if job is None:
        return error(404, "not_started", f"no review of seat {seat} of game {row['id']} has "
                     "been started (POST to start it)")
    return JSONResponse(job.to_json())


review_routes = [
    Route("/api/games/{game_id}/review/{seat}", _guard(start_review), methods=["POST"]),
    Route("/api/games/{game_id}/review/{seat}", _guard(review_status)),
]
