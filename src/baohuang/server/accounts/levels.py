"""Levels and titles from points (等级与称号).

The source texts rank players by points but give no table; this is ours
(docs/protocol.md §6).  ``points`` is the sum of a player's scores in scored
games, so it can be negative: everybody starts, and stays at least, 庶民.

>>> level_for(0)
Level(level=1, min_points=None, zh='庶民', en='Commoner')
>>> level_for(75).zh, level_for(75).level
('秀才', 3)
>>> next_level_at(75)
120
>>> next_level_at(10**6) is None
True
>>> next_level(75).zh
'举人'
"""

from __future__ import annotations

from typing import NamedTuple

__all__ = ["LEVELS", "Level", "level_for", "next_level", "next_level_at"]


class Level(NamedTuple):
    level: int
    min_points: int | None   # None: the floor, reached by everybody
    zh: str
    en: str


LEVELS: tuple[Level, ...] = (
    Level(1, None, "庶民", "Commoner"),
    Level(2, 20, "童生", "Pupil"),
    Level(3, 60, "秀才", "Scholar"),
    Level(4, 120, "举人", "Graduate"),
    Level(5, 200, "进士", "Laureate"),
    Level(6, 350, "翰林", "Academician"),
    Level(7, 600, "知县", "Magistrate"),
    Level(8, 1000, "知府", "Prefect"),
    Level(9, 1600, "巡抚", "Governor"),
    Level(10, 2500, "尚书", "Minister"),
    Level(11, 4000, "丞相", "Chancellor"),
    Level(12, 6000, "亲王", "Prince"),
)


def level_for(points: int) -> Level:
    """The highest level whose threshold ``points`` reaches."""
    best = LEVELS[0]
    for level in LEVELS[1:]:
        assert level.min_points is not None
        if points >= level.min_points:
            best = level
    return best


def next_level(points: int) -> Level | None:
    """The level after the one ``points`` reaches (``None`` at the top)."""
    current = level_for(points)
    if current.level == LEVELS[-1].level:
        return None
    return LEVELS[current.level]


def next_level_at(points: int) -> int | None:
    """Points needed for the next level (``None`` at the top)."""
    following = next_level(points)
    return None if following is None else following.min_points
