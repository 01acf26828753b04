"""The five seats of a table: who sits there and their 托管 state (docs/rules.md §10).

A seat is played by 托管 when its player timed out or pressed 托管 (``hosted``),
left the game (``left``), or has been away — disconnected — for longer than the
grace time.  Put on 托管 more than three times in one game, it is ``locked``.

>>> seat = Seat(name="Li", user_id=7)
>>> for _ in range(4):
...     seat.put_on_hosted()      # 托管 on (a timeout, say) ...
...     seat.hosted = False       # ... and off again
>>> seat.hosted_count, seat.locked
(4, True)
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from ...bots import Bot, make_bot
from .subscriber import Subscriber

__all__ = ["HOSTED_LIMIT", "Seat", "seats_from_json"]

#: 托管 more often than this in one game cannot be taken off
HOSTED_LIMIT = 3


@dataclass
class Seat:
    """One seat: a person (``user_id``) or a bot (``bot``)."""

    name: str
    user_id: int | None = None
    bot: str | None = None
    conn: Subscriber | None = None
    hosted: bool = False
    hosted_count: int = 0
    left: bool = False
    #: since when its player is away (the table's clock: a table made with this seat
    #: counts it from then; ``None``: connected, or a bot)
    away_since: float | None = field(default_factory=time.monotonic)
    player: Bot | None = None
    #: when this seat last sent a quick phrase or emote (the table's clock)
    emote_at: float = -1e9
    #: when this seat last sent a free chat message (the table's clock)
    chat_at: float = -1e9
    #: kept for a player of the last match who has not said yes to this one (by joining
    #: as a player): the seat is not taken, and the table does not start, until he does
    invited: bool = False
    #: the ``away_since`` of the absence everyone has been shown as 托管 (when its grace
    #: ran out); another absence is shown again
    away_told: float | None = None
    #: 托管 has played this seat since its player went away (he is counted once an
    #: absence among the take-overs of the server's figures)
    away_hosted: bool = False

    @classmethod
    def for_bot(cls, bot: str, seed: int) -> Seat:
        player = make_bot(bot, seed)
        return cls(name=bot, bot=bot, player=player, away_since=None)

    @property
    def is_bot(self) -> bool:
        return self.bot is not None

    @property
    def locked(self) -> bool:
        return self.left or self.hosted_count > HOSTED_LIMIT

    def put_on_hosted(self) -> None:
        """托管 on (timeout, toggle or leaving); counts toward the lock."""
        if not self.hosted:
            self.hosted = True
            self.hosted_count += 1

    def away_for(self, now: float) -> float:
        """How long (by the table's clock, ``now``) its player has been away."""
        if self.is_bot or self.away_since is None:
            return 0.0
        return now - self.away_since

    def away_over(self, grace: float, now: float) -> bool:
        """Has its player been away for the whole ``grace`` at ``now`` (the very instant a
        table's timer is set for counts: ``now - away_since`` may round below ``grace``
        then)?"""
        return not self.is_bot and self.away_since is not None \
            and now >= self.away_since + grace

    def auto(self, grace: float, now: float) -> bool:
        """Is this seat played by 托管 at ``now`` (a bot seat is played by its bot
        instead)?"""
        if self.is_bot:
            return False
        return self.hosted or self.left or self.away_over(grace, now)

    def new_game(self) -> None:
        self.hosted = False
        self.hosted_count = 0
        self.left = False

    def to_json(self) -> dict[str, Any]:
        """How a seat is stored in ``tables.seats``."""
        stored: dict[str, Any] = {"name": self.name, "user_id": self.user_id, "bot": self.bot}
        if self.invited:
            stored["invited"] = True
        return stored

    def hosted_json(self) -> dict[str, Any]:
        """How a seat's 托管 state is stored in ``games.hosted``."""
        return {"hosted": self.hosted, "count": self.hosted_count, "left": self.left}

    def public(self, index: int, grace: float, now: float) -> dict[str, Any]:
        """The seat in a TableState (docs/protocol.md §3)."""
        return {"seat": index, "name": self.name, "user_id": self.user_id, "bot": self.bot,
                "connected": self.is_bot or self.conn is not None,
                "hosted": self.auto(grace, now), "hosted_count": self.hosted_count,
                "locked": self.locked, "left": self.left, "invited": self.invited}


def seats_from_json(data: list[Any], seed: int) -> list[Seat | None]:
    """The inverse of :meth:`Seat.to_json` for all five seats."""
    seats: list[Seat | None] = []
    for index, item in enumerate(data):
        if not item:
            seats.append(None)
        elif item.get("bot"):
            seats.append(Seat.for_bot(item["bot"], seed + index))
        else:
            seats.append(Seat(name=item["name"], user_id=item["user_id"],
                              invited=bool(item.get("invited", False))))
    return seats
