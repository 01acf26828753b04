"""The arithmetic of 每日挑战: which day a moment belongs to, the deals a day's secret
seed makes, and duplicate scoring (matchpoints, the difference from a deal's mean, a
day's ranking, a player's streak).  Pure: no clock, no database.

A day is a calendar date in the server's time zone; its deals are made from its seed
(64 hexadecimal digits from :mod:`secrets`) by HMAC-SHA256, so that anyone given the
seed once it is published can make them again:

>>> seed = "00" * 32
>>> deal = deal_of(seed, "2026-12-07", 1)
>>> deal
Deal(number=1, table_seed=1633828543, seat=3)
>>> deal_of(seed, "2026-12-07", 1) == deal, deal_of(seed, "2026-12-08", 1) == deal
(True, False)

A deal's game is ``Game.new(RuleSet.preset(preset), table_seed * 1000, dealer=0)``
(the first game of a practice table of that seed), the player at ``seat``.

Matchpoints: the share of the others on the same deal and seat one beat, a tie half
(alone on a deal: one half).

>>> matchpoints([4, 2, 2, -6])
[1.0, 0.5, 0.5, 0.0]
>>> matchpoints([3])
[0.5]
>>> differences([4, 2, 2, -8])
[4.0, 2.0, 2.0, -8.0]
"""

from __future__ import annotations

import datetime as dt
import hashlib
import hmac
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from zoneinfo import ZoneInfo

__all__ = ["Deal", "Standing", "day_bounds", "day_of", "deal_of", "differences",
           "matchpoints", "ranking", "streak"]


@dataclass(frozen=True, slots=True)
class Deal:
    """One deal of a day: its number (from 1), the seed of its table (the game's seed is
    this times 1000) and the seat its players play."""

    number: int
    table_seed: int
    seat: int


def deal_of(seed: str, day: str, number: int) -> Deal:
    """Deal ``number`` of ``day`` made from the day's secret ``seed`` (hexadecimal)."""
    digest = hmac.new(bytes.fromhex(seed), f"{day}/{number}".encode(),
                      hashlib.sha256).digest()
    return Deal(number, int.from_bytes(digest[:4], "big") & 0x7FFF_FFFF, digest[4] % 5)


def day_of(now: float, zone: str) -> str:
    """The date (``YYYY-MM-DD``) of the moment ``now`` (Unix seconds) in ``zone``.

    >>> day_of(1796590800.0, "Asia/Shanghai"), day_of(1796590800.0, "UTC")
    ('2026-12-07', '2026-12-06')
    """
    return dt.datetime.fromtimestamp(now, ZoneInfo(zone)).date().isoformat()


def day_bounds(day: str, zone: str) -> tuple[float, float]:
    """When ``day`` begins and ends in ``zone`` (Unix seconds).

    >>> day_bounds("2026-12-07", "Asia/Shanghai")
    (1796572800.0, 1796659200.0)
    """
    date = dt.date.fromisoformat(day)
    tz = ZoneInfo(zone)
    start = dt.datetime.combine(date, dt.time(), tz)
    end = dt.datetime.combine(date + dt.timedelta(days=1), dt.time(), tz)
    return start.timestamp(), end.timestamp()


def matchpoints(scores: Sequence[int]) -> list[float]:
    """Each score's share of the other scores it beats, a tie counting half."""
    return [float(mp) for mp in _exact_matchpoints(scores)]


def differences(scores: Sequence[int]) -> list[float]:
    """Each score less the mean of all the scores on the deal."""
    return [float(diff) for diff in _exact_differences(scores)]


def _exact_matchpoints(scores: Sequence[int]) -> list[Fraction]:
    if len(scores) == 1:
        return [Fraction(1, 2)]
    others = len(scores) - 1
    return [Fraction(2 * sum(1 for o in scores if o < s) + sum(1 for o in scores if o == s) - 1,
                     2 * others) for s in scores]


def _exact_differences(scores: Sequence[int]) -> list[Fraction]:
    mean = Fraction(sum(scores), len(scores))
    return [s - mean for s in scores]


@dataclass(frozen=True, slots=True)
class Standing:
    """A player's place in a day's ranking: the mean of his matchpoints and of his
    differences over the deals he finished, and how many those are."""

    user_id: int
    name: str
    played: int
    matchpoints: float
    difference: float
    rank: int = 0

    def to_dict(self) -> dict[str, object]:
        return {"user_id": self.user_id, "name": self.name, "played": self.played,
                "matchpoints": round(self.matchpoints, 4),
                "difference": round(self.difference, 2), "rank": self.rank}


def ranking(results: Mapping[int, Sequence[tuple[int, str, int]]]) -> list[Standing]:
    """The day's ranking from each deal's ``(user_id, name, score)`` results: by the
    mean matchpoints over the deals each player finished (higher first), then the mean
    difference; players equal in both share a rank.

    >>> [s.to_dict() for s in ranking({1: [(7, "a", 4), (8, "b", -2)],
    ...                               2: [(7, "a", 0), (8, "b", 0)]})]
    ... # doctest: +NORMALIZE_WHITESPACE
    [{'user_id': 7, 'name': 'a', 'played': 2, 'matchpoints': 0.75, 'difference': 1.5,
      'rank': 1},
     {'user_id': 8, 'name': 'b', 'played': 2, 'matchpoints': 0.25, 'difference': -1.5,
      'rank': 2}]
    """
    # (summed as fractions: two players equal in both share a rank, however the sums'
    # floats would have rounded)
    points: dict[int, list[Fraction]] = {}
    diffs: dict[int, list[Fraction]] = {}
    names: dict[int, str] = {}
    for rows in results.values():
        scores = [score for _, _, score in rows]
        for (user, name, _), mp, diff in zip(rows, _exact_matchpoints(scores),
                                             _exact_differences(scores), strict=True):
            points.setdefault(user, []).append(mp)
            diffs.setdefault(user, []).append(diff)
            names[user] = name
    means = {user: (sum(mps, Fraction(0)) / len(mps), sum(diffs[user], Fraction(0)) / len(mps))
             for user, mps in points.items()}
    order = sorted(means, key=lambda user: (-means[user][0], -means[user][1], user))
    ranked: list[Standing] = []
    for index, user in enumerate(order):
        before = ranked[-1] if ranked else None
        same = before is not None and means[before.user_id] == means[user]
        rank = before.rank if same and before is not None else index + 1
        mp, diff = means[user]
        ranked.append(Standing(user, names[user], len(points[user]), float(mp), float(diff),
                               rank))
    return ranked


def streak(days: Iterable[str], today: str) -> int:
    """How many days in a row, ending today (or yesterday, today not yet played), are
    among ``days`` (the days a player finished every deal of).

    >>> streak(["2026-12-05", "2026-12-06", "2026-12-07"], "2026-12-07")
    3
    >>> streak(["2026-12-04", "2026-12-05", "2026-12-06"], "2026-12-07")
    3
    >>> streak(["2026-12-04", "2026-12-06"], "2026-12-07")
    1
    >>> streak(["2026-12-05"], "2026-12-07")
    0
    """
    done = set(days)
    date = dt.date.fromisoformat(today)
    if today not in done:
        date -= dt.timedelta(days=1)
    count = 0
    while date.isoformat() in done:
        count += 1
        date -= dt.timedelta(days=1)
    return count
