"""The 战绩 (ledger) of a club: figures derived from the stored rows of its scored games
(``ClubStore.club_games``), never kept in memory — the same on every node and after a
restart.

A period's rows give, per player: games, points, places (1 = 头科 … 5), roles played
(``emperor`` 皇帝, ``guard`` 保子, ``rebel`` 反贼 and ``solo`` 独 — the Emperor who
plays alone), and the games won in each role.

>>> rows = [
...     {"game_id": 1, "finished": 10.0, "result": {"emperor": 0, "guard": 1, "solo": None,
...      "royal_won": True}, "table_id": "t", "seat": s, "user_id": 100 + s, "bot": None,
...      "name": f"p{s}", "score": sc, "place": s + 1}
...     for s, sc in enumerate([4, 2, -2, -2, -2])]
>>> board = leaderboard(rows)
>>> [(r["user_id"], r["points"], r["roles"]["emperor"], r["won"]["emperor"]) for r in board][:2]
[(100, 4, 1, 1), (101, 2, 0, 0)]
>>> board[2]["roles"]["rebel"], board[2]["won"]["rebel"], board[2]["places"]
(1, 0, [0, 0, 1, 0, 0])
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable
from typing import Any

__all__ = ["PERIODS", "ROLES", "evening_window", "leaderboard", "period_start", "role_of"]

#: the ledger's periods: the day, the week (from Monday), the month, all time
PERIODS = ("day", "week", "month", "all")
#: the roles a seat plays in a game
ROLES = ("emperor", "guard", "rebel", "solo")
#: an evening's summary (今晚战绩) runs from this hour to the same hour the next day,
#: so that a game after midnight still counts in the evening it was played in
EVENING_STARTS = 6


def role_of(result: dict[str, Any], seat: int) -> str | None:
    """What ``seat`` played in the game whose stored result is ``result``: ``solo`` the
    Emperor alone, ``emperor``, ``guard``, else ``rebel``; None when the game had no
    Emperor (ended before the roles)."""
    emperor = result.get("emperor")
    if emperor is None:
        return None
    if seat == emperor:
        return "solo" if result.get("solo") else "emperor"
    if seat == result.get("guard") and not result.get("solo"):
        return "guard"
    return "rebel"


def _won(result: dict[str, Any], role: str, score: int) -> bool:
    royal_won = result.get("royal_won")
    if royal_won is None:
        return score > 0
    return bool(royal_won) == (role != "rebel")


def leaderboard(rows: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """Every person's figures over ``rows`` (one row a seat of a scored game; bots are
    left out), best points first (ties: fewer games first, then the name)."""
    people: dict[int, dict[str, Any]] = {}
    for row in rows:
        user = row["user_id"]
        if user is None:
            continue
        entry = people.get(user)
        if entry is None:
            entry = people[user] = {
                "user_id": user, "name": row["name"], "games": 0, "points": 0,
                "places": [0] * 5, "roles": dict.fromkeys(ROLES, 0),
                "won": dict.fromkeys(ROLES, 0), "last": 0.0}
        entry["games"] += 1
        entry["points"] += int(row["score"])
        place = row.get("place")
        if isinstance(place, int) and 1 <= place <= 5:
            entry["places"][place - 1] += 1
        result = row["result"] or {}
        role = role_of(result, int(row["seat"]))
        if role is not None:
            entry["roles"][role] += 1
            if _won(result, role, int(row["score"])):
                entry["won"][role] += 1
        if float(row["finished"] or 0) >= entry["last"]:
            entry["last"], entry["name"] = float(row["finished"] or 0), row["name"]
    board = sorted(people.values(), key=lambda e: (-e["points"], e["games"], e["name"]))
    for entry in board:
        entry["win_rate"] = {role: (entry["won"][role] / entry["roles"][role]
                                    if entry["roles"][role] else None) for role in ROLES}
        del entry["last"]
    return board


def period_start(period: str, now: float, offset_minutes: int) -> float | None:
    """When ``period`` began at ``now`` on the clocks of a player whose local time is
    UTC + ``offset_minutes`` (None: all time).

    >>> import datetime as dt
    >>> now = dt.datetime(2026, 12, 9, 15, 0, tzinfo=dt.timezone.utc).timestamp()  # Wed
    >>> [dt.datetime.fromtimestamp(period_start(p, now, 480), dt.timezone.utc).isoformat()
    ...  for p in ("day", "week", "month")]
    ['2026-12-08T16:00:00+00:00', '2026-12-06T16:00:00+00:00', '2026-11-30T16:00:00+00:00']
    """
    if period == "all":
        return None
    zone = dt.timezone(dt.timedelta(minutes=offset_minutes))
    local = dt.datetime.fromtimestamp(now, zone)
    day = local.replace(hour=0, minute=0, second=0, microsecond=0)
    if period == "week":
        day -= dt.timedelta(days=day.weekday())
    elif period == "month":
        day = day.replace(day=1)
    elif period != "day":
        raise ValueError(f"unknown period {period!r}")
    return day.timestamp()


def evening_window(date: dt.date, offset_minutes: int) -> tuple[float, float]:
    """The evening of ``date`` (今晚): from :data:`EVENING_STARTS` o'clock local time
    that day to the same hour the next day.

    >>> import datetime as dt
    >>> start, end = evening_window(dt.date(2026, 12, 9), 480)
    >>> dt.datetime.fromtimestamp(start, dt.timezone.utc).isoformat(), end - start
    ('2026-12-08T22:00:00+00:00', 86400.0)
    """
    zone = dt.timezone(dt.timedelta(minutes=offset_minutes))
    start = dt.datetime(date.year, date.month, date.day, EVENING_STARTS, tzinfo=zone)
    return start.timestamp(), (start + dt.timedelta(days=1)).timestamp()
