"""每日挑战 at the server: a day's deals (made when the day is first asked for, from a
seed drawn with :mod:`secrets`), a deal begun or resumed at a table of the lobby
(four bots of the day's level, the player in the deal's seat, started at once), and
what a player may see of the results.

What stays hidden until the day is over (``ServerConfig.challenge_reveal_after``
after its end): the day's seed and every deal's table seed.  What a player sees of a
deal — everyone's scores, their games' replays — he sees once he has played it; the
day's ranking (means over deals, no cards) anyone logged in sees.
"""

from __future__ import annotations

import secrets
import time
from collections.abc import Callable
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from ...bots import bot_names
from ...engine.rules import PRESETS, RuleSet
from ..config import ServerConfig
from ..db.storage import Storage, UserRecord
from ..table.lobby import Lobby, TableSpec
from ..table.seats import Seat
from .days import Deal, day_bounds, day_of, deal_of, differences, matchpoints, ranking, streak
from .store import Attempt, ChallengeStore, DayRow

__all__ = ["DETERMINISTIC_BOTS", "MAX_DEALS", "ChallengeError", "ChallengeService", "check_config"]

#: the bot levels a challenge may be played against: each answers a position always the
#: same way (no random choice, no search against a clock), so every player of a deal
#: faces the same opponents (``normal`` is ``heuristic``; ``hard`` is ``learned``)
DETERMINISTIC_BOTS = frozenset({"normal", "heuristic", "hard", "learned"})
#: the most deals a day may have
MAX_DEALS = 20
#: a claim that has had no table for this long (seconds) was left by a stopped node
STALE_CLAIM = 60.0
#: past days a player's streak and best are looked for in
HISTORY_DAYS = 400


class ChallengeError(Exception):
    """A challenge request refused: HTTP status, code and a message to show."""

    def __init__(self, status: int, code: str, message: str) -> None:
        self.status, self.code, self.message = status, code, message
        super().__init__(f"{code}: {message}")


class ChallengeService:
    """The daily challenge of one server (one per process; the database is shared)."""

    def __init__(self, storage: Storage, lobby: Lobby, config: ServerConfig,
                 now: Callable[[], float] = time.time) -> None:
        """``now``: the clock of the calendar (a test sets a hand-moved one)."""
        check_config(config)
        self.store = ChallengeStore(storage.engine)
        self.lobby = lobby
        self.config = config
        self.now = now

    # -- days -------------------------------------------------------------------------
    def today(self) -> str:
        return day_of(self.now(), self.config.challenge_tz)

    def revealed(self, day: str) -> bool:
        """Whether ``day``'s seed is published: its end plus the reveal delay has passed."""
        return self.now() >= day_bounds(day, self.config.challenge_tz)[1] + \
            self.config.challenge_reveal_after

    async def day(self, day: str) -> DayRow | None:
        """A stored day; today's is made (and stored) when first asked for."""
        row = await self.store.day(day)
        if row is None and day == self.today():
            cfg = self.config
            row = await self.store.make_day(DayRow(day, secrets.token_hex(32),
                                                   cfg.challenge_preset, cfg.challenge_deals,
                                                   cfg.challenge_bot), self.now())
        return row

    @staticmethod
    def deals(row: DayRow) -> list[Deal]:
        return [deal_of(row.seed, row.day, number) for number in range(1, row.deals + 1)]

    # -- playing ----------------------------------------------------------------------
    async def start(self, user: UserRecord, day: str, number: int) -> dict[str, Any]:
        """Begin deal ``number`` of ``day`` (today) for ``user``, or bring him back to it
        while it is being played; refused once he has played it."""
        if user.guest and not self.config.challenge_guests:
            raise ChallengeError(403, "guests_not_allowed", "this server's daily challenge "
                                 "is for registered players: register to play it")
        if day != self.today():
            raise ChallengeError(409, "day_over", f"the challenge of {day} is not open: "
                                 f"today's is {self.today()}")
        row = await self.day(day)
        assert row is not None
        if not 1 <= number <= row.deals:
            raise ChallengeError(404, "not_found", f"the challenge has deals 1 to {row.deals}")
        deal = deal_of(row.seed, day, number)
        now = self.now()
        if not await self.store.claim(day, number, user.id, deal.seat, now):
            mine = await self.store.attempts(day=day, user_id=user.id)
            attempt = next(a for a in mine if a.deal == number)
            if attempt.done:
                raise ChallengeError(409, "already_played", f"you have played deal {number} "
                                     "of today's challenge: each deal is played once")
            if attempt.table_id is not None:
                return self._seat_json(row, deal, attempt.table_id, resumed=True)
            made = await self.store.table_made(day, number, user.id)
            if made is not None:          # (its table was made: that one, never another)
                await self.store.set_table(day, number, user.id, made)
                return self._seat_json(row, deal, made, resumed=True)
            if not await self.store.reclaim(day, number, user.id, now - STALE_CLAIM, now):
                raise ChallengeError(409, "starting", "this deal is being set up: try again "
                                     "in a moment")
        try:
            table = await self.lobby.create(user, self._spec(row, deal), people={
                deal.seat: Seat(name=user.name, user_id=user.id)})
        except BaseException:
            if await self.store.table_made(day, number, user.id) is None:
                await self.store.release(day, number, user.id)    # nothing was dealt
            raise
        await self.store.set_table(day, number, user.id, table.id)
        return self._seat_json(row, deal, table.id, resumed=False)

    def _spec(self, row: DayRow, deal: Deal) -> TableSpec:
        rules = RuleSet.preset(row.preset).replace(leave_ends_game=False)
        bots = {seat: row.bot for seat in range(5) if seat != deal.seat}
        return TableSpec(row.preset, rules, self.config.challenge_timeout, 1, bots, True,
                         deal.table_seed, practice=True, counter=True, private=True,
                         challenge={"day": row.day, "deal": deal.number, "deals": row.deals})

    @staticmethod
    def _seat_json(row: DayRow, deal: Deal, table_id: str, resumed: bool) -> dict[str, Any]:
        return {"table_id": table_id, "seat": deal.seat, "day": row.day, "deal": deal.number,
                "deals": row.deals, "resumed": resumed}

    # -- what a player sees ------------------------------------------------------------
    async def overview(self, user: UserRecord) -> dict[str, Any]:
        """Today's challenge for ``user``: its deals and his progress, his rank, streak
        and best."""
        today = self.today()
        row = await self.day(today)
        assert row is not None
        body = await self.results(user, today)
        body.update(await self.record(user))
        return body

    async def results(self, user: UserRecord, day: str) -> dict[str, Any]:
        """A day's ranking; for each deal the player's own result, and — once he has
        played it, or the day is published — everyone's (scores, matchpoints, the
        difference from the mean, their games), with the distribution of scores."""
        row = await self.day(day)
        if row is None:
            raise ChallengeError(404, "not_found", f"no challenge on {day}")
        attempts = await self.store.attempts(day=day)
        published = self.revealed(day)
        by_deal: dict[int, list[Attempt]] = {}
        for attempt in attempts:
            if attempt.done and attempt.score is not None:
                by_deal.setdefault(attempt.deal, []).append(attempt)
        standings = ranking({number: [(a.user_id, a.name, a.score or 0) for a in rows]
                             for number, rows in by_deal.items()})
        mine = {a.deal: a for a in attempts if a.user_id == user.id}
        deals = []
        for deal in self.deals(row):
            own = mine.get(deal.number)
            entry: dict[str, Any] = {"deal": deal.number, "seat": deal.seat,
                                     "status": "new" if own is None else own.status,
                                     "players": len(by_deal.get(deal.number, []))}
            if own is not None and own.table_id is not None and not own.done:
                entry["table_id"] = own.table_id
            if published:
                entry["table_seed"] = deal.table_seed
            if published or (own is not None and own.done):
                played = by_deal.get(deal.number, [])
                scores = [a.score or 0 for a in played]
                entry["results"] = [
                    {"user_id": a.user_id, "name": a.name, "score": a.score,
                     "matchpoints": round(mp, 4), "difference": round(diff, 2),
                     "game_id": a.game_id}
                    for a, mp, diff in zip(played, matchpoints(scores) if scores else [],
                                           differences(scores) if scores else [],
                                           strict=True)]
                entry["distribution"] = _distribution(scores)
                if own is not None:
                    entry["score"] = own.score
                    entry["game_id"] = own.game_id
            deals.append(entry)
        start, end = day_bounds(day, self.config.challenge_tz)
        you = next((s.to_dict() for s in standings if s.user_id == user.id), None)
        return {"day": day, "today": day == self.today(), "tz": self.config.challenge_tz,
                "starts": start, "ends": end, "preset": row.preset, "bot": row.bot,
                "deals": deals, "count": row.deals,
                "played": sum(1 for a in mine.values() if a.done),
                "ranking": [s.to_dict() for s in standings], "you": you,
                "seed": row.seed if published else None,
                "published": end + self.config.challenge_reveal_after}

    async def record(self, user: UserRecord) -> dict[str, Any]:
        """A player's streak (days in a row with every deal played, to today or
        yesterday) and his best day (highest mean matchpoints over a finished day)."""
        attempts = await self.store.attempts(user_id=user.id)
        counts: dict[str, int] = {}
        for attempt in attempts:
            if attempt.done:
                counts[attempt.day] = counts.get(attempt.day, 0) + 1
        days = sorted(counts, reverse=True)[:HISTORY_DAYS]
        complete: list[str] = []
        best: dict[str, Any] | None = None
        for day in days:
            row = await self.store.day(day)
            if row is None or counts[day] < row.deals:
                continue
            complete.append(day)
            everyone = [a for a in await self.store.attempts(day=day)
                        if a.done and a.score is not None]
            grouped: dict[int, list[tuple[int, str, int]]] = {}
            for a in everyone:
                grouped.setdefault(a.deal, []).append((a.user_id, a.name, a.score or 0))
            standing = next((s for s in ranking(grouped) if s.user_id == user.id), None)
            if standing is not None and (best is None or
                                         standing.matchpoints > best["matchpoints"]):
                best = {"day": day, **standing.to_dict()}
        return {"streak": streak(complete, self.today()), "best": best}

    async def history(self, user: UserRecord, before: str | None, limit: int
                      ) -> dict[str, Any]:
        """The stored days, newest first, each with how many played it and the player's
        own mean and rank."""
        rows = await self.store.days(before, limit)
        out = []
        for row in rows:
            attempts = [a for a in await self.store.attempts(day=row.day)
                        if a.done and a.score is not None]
            grouped: dict[int, list[tuple[int, str, int]]] = {}
            for a in attempts:
                grouped.setdefault(a.deal, []).append((a.user_id, a.name, a.score or 0))
            standings = ranking(grouped)
            you = next((s.to_dict() for s in standings if s.user_id == user.id), None)
            out.append({"day": row.day, "deals": row.deals, "preset": row.preset,
                        "players": len(standings), "you": you,
                        "published": self.revealed(row.day)})
        return {"days": out, **await self.record(user)}

    async def replay_allowed(self, table_id: str, user: UserRecord | None) -> bool:
        """Whether ``user`` may see the replay of the game at ``table_id``: any game
        that is not a challenge deal; a challenge deal once he has played it himself, or
        once its day is published."""
        played = await self.store.attempts(table_id=table_id)
        if not played:
            return True
        attempt = played[0]
        if self.revealed(attempt.day):
            return True
        if user is None:
            return False
        mine = await self.store.attempts(day=attempt.day, user_id=user.id)
        return any(a.deal == attempt.deal and a.done for a in mine)


def _distribution(scores: list[int]) -> list[dict[str, int]]:
    """How many players scored each score, lowest first."""
    counts: dict[int, int] = {}
    for score in scores:
        counts[score] = counts.get(score, 0) + 1
    return [{"score": score, "count": count} for score, count in sorted(counts.items())]


def check_config(config: ServerConfig) -> None:
    """Refuse a challenge setting that cannot work (a clear message at start-up)."""
    try:
        ZoneInfo(config.challenge_tz)
    except (ZoneInfoNotFoundError, ValueError):
        raise ValueError(f"challenge time zone {config.challenge_tz!r} is not an IANA "
                         "time zone such as Asia/Shanghai") from None
    if not 1 <= config.challenge_deals <= MAX_DEALS:
        raise ValueError(f"a challenge day has 1 to {MAX_DEALS} deals")
    if config.challenge_preset not in PRESETS:
        raise ValueError(f"unknown challenge preset {config.challenge_preset!r}")
    if config.challenge_bot not in DETERMINISTIC_BOTS or config.challenge_bot not in bot_names():
        raise ValueError(f"the challenge's bots must answer a position always the same way "
                         f"and be installed: one of {', '.join(sorted(DETERMINISTIC_BOTS))}")
