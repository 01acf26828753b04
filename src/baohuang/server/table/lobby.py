"""The lobby: creates tables (checking what the creator asked for), finds them
by id or short code, rebuilds unfinished ones after a restart, and forgets
finished ones after a while.

>>> spec = check_spec({"preset": "seed001_216", "games": 2, "bots": {"4": "hosted"}})
>>> spec.rules.tribute, spec.rules.leave_ends_game, spec.games, spec.bots
(True, False, 2, {4: 'hosted'})
>>> spec = check_spec({"options": {"leave_ends_game": True}, "ready_wait": 20,
...                    "fill_bots": "random"})
>>> spec.rules.leave_ends_game, spec.ready_wait, spec.fill_bots
(True, 20.0, 'random')
>>> check_spec({"options": {"kaopia": True}})
Traceback (most recent call last):
...
baohuang.server.table.lobby.LobbyError: bad_rules: unknown rule option 'kaopia'
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from sqlalchemy.exc import SQLAlchemyError

from ...bots import bot_names
from ...engine.actions import Action
from ...engine.rules import RuleError, RuleSet
from ..config import ServerConfig
from ..db.storage import FencedWrite, Storage, UserRecord
from ..metrics import Census, ServerMetrics
from . import seating
from .clock import ClockFactory, LoopClock
from .dealing import new_match, new_seed
from .effects import Disconnect
from .expiry import Sweep, sweep
from .inputs import Route
from .router import Elsewhere, Located, TableRouter, rematch_answer
from .seats import Seat, seats_from_json
from .settings import Settings
from .subscriber import Subscriber
from .tables import Table

__all__ = ["Lobby", "LobbyError", "LocalRouter", "TableSpec", "check_spec"]

log = logging.getLogger("baohuang.server")
CODE_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"
MAX_GAMES = 50
MIN_TIMEOUT, MAX_TIMEOUT = 0.1, 600.0
#: the shortest 准备 countdown between games (seconds)
MIN_READY_WAIT = 1.0
#: bounds of the whole-number rule options at a server table (checked at creation;
#: an option not named here has the default bounds)
INT_OPTION_BOUNDS: dict[str, tuple[int, int]] = {"leave_penalty": (0, 1000)}
DEFAULT_INT_BOUNDS = (0, 1000)


class LobbyError(ValueError):
    def __init__(self, code: str, message: str) -> None:
        self.code = code
        self.message = message
        super().__init__(f"{code}: {message}")


@dataclass(frozen=True, slots=True)
class TableSpec:
    """A checked ``CreateTable`` body (docs/protocol.md §2)."""

    preset: str | None
    rules: RuleSet
    timeout: float
    games: int
    bots: dict[int, str]
    autostart: bool
    #: the creator's seed (practice tables only); ``None``: drawn from :mod:`secrets`
    seed: int | None
    practice: bool = False
    #: the 记牌器 shown to the players
    counter: bool = True
    #: not listed in the lobby; its players may chat freely
    private: bool = False
    #: 准备's countdown between games (seconds; ``None``: wait for everyone)
    ready_wait: float | None = None
    #: the bot that fills the seats still empty when the owner starts
    fill_bots: str | None = None
    #: a challenge deal's table (``baohuang.server.challenge``; never from a request body)
    challenge: dict[str, Any] | None = None
    #: 亲友圈: the club the table is opened in (its members alone sit)
    club: int | None = None


def _number(body: dict[str, Any], name: str, default: float, low: float, high: float) -> float:
    value = body.get(name, default)
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise LobbyError("bad_request", f"{name!r} must be a number")
    if not low <= value <= high:
        raise LobbyError("bad_request", f"{name!r} must be between {low:g} and {high:g}")
    return float(value)


def check_spec(body: Any) -> TableSpec:
    """Check a ``CreateTable`` body; raise :class:`LobbyError` naming what is wrong."""
    if not isinstance(body, dict):
        raise LobbyError("bad_request", "the body must be a JSON object")
    known = {"preset", "options", "timeout", "games", "bots", "autostart", "seed", "practice",
             "counter", "private", "ready_wait", "fill_bots"}
    extra = sorted(set(body) - known)
    if extra:
        raise LobbyError("bad_request", f"unknown field {extra[0]!r}")
    preset = body.get("preset", "shandong")
    options = body.get("options", {})
    if not isinstance(preset, str):
        raise LobbyError("bad_rules", "'preset' must be a preset name")
    if not isinstance(options, dict):
        raise LobbyError("bad_rules", "'options' must be an object of option: value")
    try:
        # all options at once: some only make sense together (特画 and call mode)
        rules = RuleSet.preset(preset).with_options(options)
        if "leave_ends_game" not in options:
            # (a server table's own default: a player who leaves is played by 托管 to
            # the game's end, 000/001's "点击退出按钮将由系统自动托管"; 002's "游戏自动结束"
            # is the table's choice, docs/rules.md §10)
            rules = rules.replace(leave_ends_game=False)
    except RuleError as exc:
        raise LobbyError("bad_rules", str(exc)[:300]) from None
    except (TypeError, ValueError, OverflowError):
        raise LobbyError("bad_rules", "'options' must be an object of option: value "
                         "(names and values as in GET /api/rules)") from None
    check_int_options(rules)
    timeout = _number(body, "timeout", 30.0, MIN_TIMEOUT, MAX_TIMEOUT)
    games = _number(body, "games", 1, 1, MAX_GAMES)
    if games != int(games):
        raise LobbyError("bad_request", "'games' must be a whole number")
    bots = check_bots(body.get("bots", {}))
    autostart = body.get("autostart", True)
    if not isinstance(autostart, bool):
        raise LobbyError("bad_request", "'autostart' must be true or false")
    practice = body.get("practice", False)
    if not isinstance(practice, bool):
        raise LobbyError("bad_request", "'practice' must be true or false")
    counter = body.get("counter", True)
    if not isinstance(counter, bool):
        raise LobbyError("bad_request", "'counter' must be true or false")
    private = body.get("private", False)
    if not isinstance(private, bool):
        raise LobbyError("bad_request", "'private' must be true or false")
    seed = body.get("seed")
    if seed is not None:
        if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2**31:
            raise LobbyError("bad_request", "'seed' must be a whole number 0..2^31-1")
        if not practice:
            raise LobbyError("bad_request", "'seed' may be chosen only at a practice table "
                             "(\"practice\": true, unrated)")
    ready_wait: float | None = None
    if body.get("ready_wait") not in (None, 0):
        ready_wait = _number(body, "ready_wait", 0, MIN_READY_WAIT, MAX_TIMEOUT)
    fill_bots = body.get("fill_bots")
    if fill_bots is not None and (not isinstance(fill_bots, str)
                                  or fill_bots not in bot_names()):
        raise LobbyError("unknown_bot", f"unknown bot {str(fill_bots)[:40]!r} (one of: "
                                        f"{', '.join(bot_names())})")
    name = preset if not options else None
    return TableSpec(name, rules, timeout, int(games), bots, autostart, seed, practice,
                     counter, private, ready_wait, fill_bots)



def check_int_options(rules: RuleSet) -> None:
    """Every whole-number rule option within its bounds (they are stored and summed)."""
    for name, value in rules.to_dict().items():
        if isinstance(value, int) and not isinstance(value, bool):
            low, high = INT_OPTION_BOUNDS.get(name, DEFAULT_INT_BOUNDS)
            if not low <= value <= high:
                raise LobbyError("bad_rules", f"rule option {name!r} must be between {low} "
                                 f"and {high}")


def check_bots(raw: Any) -> dict[int, str]:
    if not isinstance(raw, dict):
        raise LobbyError("bad_request", "'bots' must be an object of seat: bot name")
    bots: dict[int, str] = {}
    for key, name in raw.items():
        try:
            seat = int(key)
        except (TypeError, ValueError):
            raise LobbyError("bad_request", f"bot seat {key!r} is not a number") from None
        if not 0 <= seat < 5:
            raise LobbyError("bad_request", f"bot seat {seat} is not 0..4")
        # (bot_names(): also the bots of installed extras, such as `learned`)
        if not isinstance(name, str) or name not in bot_names():
            raise LobbyError("unknown_bot", f"unknown bot {name!r} (one of: "
                                            f"{', '.join(bot_names())})")
        bots[seat] = name
    return bots


class Lobby:
    """All tables in memory."""

    def __init__(self, storage: Storage, config: ServerConfig,
                 clocks: ClockFactory | None = None,
                 metrics: ServerMetrics | None = None,
                 router: Callable[[Lobby], TableRouter] | None = None) -> None:
        """``clocks``: the clock of each new table, given its id (by default real time
        for all; a test gives each table a clock it moves by hand); ``metrics``: where
        the tables record their figures (by default figures nobody reads); ``router``:
        makes, given this lobby, where its tables are found — this process alone
        (:class:`LocalRouter`, the default) or a cluster's nodes
        (:class:`~baohuang.server.cluster.router.ClusterRouter`)."""
        self.storage = storage
        self.config = config
        self.metrics = metrics or ServerMetrics()
        real = LoopClock()
        self.clocks: ClockFactory = clocks or (lambda table_id: real)
        self.tables: dict[str, Table] = {}
        self.codes: dict[str, str] = {}
        self._sweeper: asyncio.Task[None] | None = None
        #: the new match being made for a table (by its id): a second request meanwhile
        #: waits for it instead of making another
        self._rematches: dict[str, asyncio.Future[Table]] = {}
        #: where tables are found, this lobby's and (in a cluster) the other nodes'
        self.router: TableRouter = (router or LocalRouter)(self)

    @property
    def live(self) -> dict[str, Table]:
        """The tables in memory by id."""
        return self.tables

    def census(self) -> Census:
        """The tables, seats and leases in memory now (read by each scrape of the
        figures)."""
        tables: dict[str, int] = {}
        seats = {"player": 0, "bot": 0}
        for table in self.tables.values():
            tables[table.status] = tables.get(table.status, 0) + 1
            if table.status in ("open", "playing"):
                for seat in table.seats:
                    if seat is not None and not seat.invited:
                        seats["bot" if seat.is_bot else "player"] += 1
        return Census(tables, seats, self.router.node, self.router.leases)

    def get(self, key: str) -> Table | None:
        """A table by id or by short code (any case)."""
        table = self.tables.get(key)
        if table is None:
            table_id = self.codes.get(key.strip().upper())
            table = self.tables.get(table_id) if table_id else None
        return table

    def listing(self) -> list[Table]:
        """The open and playing tables of the lobby list (a private table is not in it)."""
        tables = [t for t in self.tables.values()
                  if t.status in ("open", "playing") and not t.settings.private]
        return sorted(tables, key=lambda t: -t.settings.created)

    async def owned(self, user_id: int) -> int:
        """How many open or playing tables ``user_id`` created, as stored: one count
        for one process and for a cluster's nodes (each node keeps only its own tables
        in memory; the database has every node's)."""
        return await self.storage.open_tables_of(user_id)

    async def _new_code(self) -> str:
        while True:
            code = "".join(secrets.choice(CODE_ALPHABET) for _ in range(6))
            if code not in self.codes and not await self.storage.code_in_use(code):
                return code

    async def create(self, owner: UserRecord | None, spec: TableSpec,
                     sit_owner: bool = False, people: dict[int, Seat] | None = None) -> Table:
        """A new table (stored, its actor running), with ``people`` in their seats;
        refused (``too_many_tables``) when ``owner`` has as many open or playing tables
        as the configuration allows."""
        if owner is not None and await self.owned(owner.id) >= self.config.tables_per_user:
            raise LobbyError("too_many_tables", f"you may have at most "
                             f"{self.config.tables_per_user} open or playing tables")
        table_id = secrets.token_hex(5)
        # (a practice table deals its games from seed + index: a 31-bit seed leaves room)
        seed = spec.seed if spec.seed is not None else \
            secrets.randbelow(2**31) if spec.practice else new_seed()
        settings = Settings(table_id, await self._new_code(), owner.id if owner else None,
                            spec.preset, spec.rules, spec.timeout, spec.games, seed,
                            spec.autostart, time.time(), spec.practice, spec.counter,
                            spec.private, spec.ready_wait, spec.fill_bots, spec.challenge,
                            spec.club)
        seats: list[Seat | None] = [None] * 5
        for seat, bot in spec.bots.items():
            seats[seat] = Seat.for_bot(bot, seed + seat)
        if sit_owner and owner is not None:
            seats[0] = Seat(name=owner.name, user_id=owner.id)
        for seat, person in (people or {}).items():
            seats[seat] = person
        table = Table(settings, seats, self.storage, self.config,
                      clock=self.clocks(table_id), metrics=self.metrics,
                      seating=seating.handle)
        # a cluster node holds a new table's lease before any other node can see it
        fence = await self.router.hold_new(table_id)
        await self.storage.insert_table({
            "id": table_id, "code": settings.code, "owner": settings.owner,
            "preset": spec.preset, "rules": spec.rules.to_dict(), "timeout": spec.timeout,
            "games": spec.games, "seed": seed, "autostart": spec.autostart,
            "practice": spec.practice, "counter": spec.counter, "private": spec.private,
            "ready_wait": spec.ready_wait, "fill_bots": spec.fill_bots,
            "challenge": spec.challenge, "club_id": spec.club,
            "status": "open", "seats": table.seats_json(), "totals": [0] * 5,
            "created": settings.created, "finished": None, "fence": fence})
        self._add(table)
        table.start()
        await self.router.announce(table)
        return table

    async def rematch(self, table: Table, user: UserRecord) -> Table:
        """A new match for the same players once ``table``'s match is over (finished or
        dissolved): the same settings, everyone in the same seat, the bots too. Every
        player who asks gets the same new table; the old table tells its connections.
        Only the player who asks is seated: every other player's seat is kept for him
        (``invited``) until he joins it, and the new match starts only once all have —
        nobody else's request puts an absent player into a rated game."""
        if table.status not in ("finished", "dissolved"):
            raise LobbyError("not_over", "a new match starts once this one is over")
        if table.seat_of(user.id) is None:
            raise LobbyError("not_seated", "only the table's players start a new match")
        if table.settings.challenge is not None:
            raise LobbyError("challenge_played", "a challenge deal is played once: it has "
                             "no new match")
        if table.rematch is not None:
            existing = self.tables.get(table.rematch["id"])
            if existing is not None:
                return existing
        making = self._rematches.get(table.id)
        if making is not None:             # (asked at the same moment: the same table)
            return await asyncio.shield(making)
        making = self._rematches[table.id] = asyncio.get_running_loop().create_future()
        try:
            new = await self._make_rematch(table, user)
        except asyncio.CancelledError:
            making.cancel()
            raise
        except Exception as exc:
            making.set_exception(exc)
            making.exception()             # (retrieved: a lone asker gets it raised)
            raise
        finally:
            del self._rematches[table.id]
        making.set_result(new)
        return new

    async def _make_rematch(self, table: Table, user: UserRecord) -> Table:
        s = table.settings
        bots = {i: seat.bot for i, seat in enumerate(table.seats)
                if seat is not None and seat.bot is not None}
        people = {i: Seat(name=seat.name, user_id=seat.user_id,
                          invited=seat.user_id != user.id)
                  for i, seat in enumerate(table.seats)
                  if seat is not None and seat.bot is None}
        spec = TableSpec(s.preset, s.rules, s.timeout, s.games, bots, s.autostart, None,
                         s.practice, s.counter, s.private, s.ready_wait, s.fill_bots,
                         club=s.club)
        new = await self.create(user, spec, people=people)      # its owner: who asked
        table.rematch = {"id": new.id, "code": new.settings.code}
        table.broadcast_table()
        return new

    def _add(self, table: Table) -> None:
        table.on_lost = self._lost
        self.tables[table.id] = table
        self.codes[table.settings.code] = table.id
        self.router.adopt(table)

    async def restore(self) -> int:
        """Rebuild the unfinished tables this server runs, through its router (alone:
        every one; a cluster node: those it gets the leases of, and later those nobody
        holds); returns how many."""
        return await self.router.start()

    async def restore_all(self) -> int:
        """Rebuild every unfinished table in the database; returns how many."""
        count = 0
        for row in await self.storage.unfinished_tables():
            count += await self.restore_row(row)
        return count

    async def restore_row(self, row: dict[str, Any]) -> bool:
        """Rebuild one unfinished table from its stored row and actions and start its
        actor; False (and the table marked dissolved) if it cannot be rebuilt.  The
        database out of reach is raised instead: the table is not at fault (a cluster
        node tries it again at its next round)."""
        try:
            table = await self._rebuild(row)
        except (SQLAlchemyError, OSError):
            raise
        except Exception:
            log.exception("table %s cannot be rebuilt; marking it dissolved", row["id"])
            await self.storage.update_table(row["id"], status="dissolved",
                                            finished=time.time())
            return False
        self._add(table)
        table.start(recovering=True)
        return True

    async def drop(self, table_id: str) -> None:
        """Stop a table another node runs now: its actor stops and its connections are
        closed (1012: they reconnect, and reach it there)."""
        table = self.tables.get(table_id)
        if table is None:
            return
        await table.stop()
        table.moved_away()       # (its connections closed; it leaves: :meth:`_lost`)

    def _lost(self, table: Table) -> None:
        """``table`` ended here: another node holds it now (a write of its was fenced
        off, or its lease was lost: :meth:`drop`); it leaves this lobby."""
        if self.tables.get(table.id) is table:
            self._remove(table)

    async def _rebuild(self, row: dict[str, Any]) -> Table:
        rules = RuleSet.from_dict(row["rules"])
        settings = Settings(row["id"], row["code"], row["owner"], row["preset"], rules,
                            row["timeout"], row["games"], row["seed"], row["autostart"],
                            row["created"], bool(row.get("practice", False)),
                            bool(row.get("counter", True)), bool(row.get("private", False)),
                            row.get("ready_wait"), row.get("fill_bots"),
                            row.get("challenge"), row.get("club_id"))
        table = Table(settings, seats_from_json(row["seats"], row["seed"]), self.storage,
                      self.config, status=row["status"], totals=row["totals"],
                      clock=self.clocks(row["id"]), metrics=self.metrics,
                      seating=seating.handle)
        if row["status"] != "playing":
            return table
        games = await self.storage.table_games(row["id"])
        match = new_match(rules, row["seed"], row["games"], settings.practice,
                          [g["seed"] for g in games])
        for position, game_row in enumerate(games):
            if game_row["idx"] != position:
                raise ValueError(f"games of table {row['id']} are not numbered 0, 1, …")
            if position:
                table.base += match.game.version
                match.advance()
            for stored in game_row["actions"]:
                match.game.apply(Action.from_dict(stored["action"]))
            table.game_ids.append(game_row["id"])
            table.logged += len(game_row["actions"])
        table.match = match
        if games:
            last = games[-1]
            table.moves = len(last["actions"])
            table.recorded = last["status"] == "over"
            table.last_scored = last["scored"] if table.recorded else None
            for seat, state in zip(table.seats, last["hosted"], strict=True):
                if seat is not None and state:
                    seat.hosted, seat.hosted_count = state["hosted"], state["count"]
                    seat.left = state["left"]
        else:                              # crashed between the start and the first game
            table.status, table.match = "open", None
        return table

    def start_sweeper(self) -> None:
        self._sweeper = asyncio.get_running_loop().create_task(self._sweep())

    async def _sweep(self) -> None:
        cfg = self.config
        while True:
            await asyncio.sleep(min(60.0, max(0.05, min(cfg.keep_finished, cfg.table_idle) / 4)))
            for table in list(self.tables.values()):
                try:
                    await self._sweep_one(table)
                except Exception:           # (one table's fault stops no sweeping)
                    log.exception("table %s: the lobby could not sweep it", table.id)

    async def _sweep_one(self, table: Table) -> None:
        cfg = self.config
        what = sweep(status=table.status, finished_at=table.finished_at,
                     connected=bool(table.conns()), idle=table.idle_since(),
                     now=table.clock.now(), keep_finished=cfg.keep_finished,
                     table_idle=cfg.table_idle)
        if what is Sweep.FORGET:
            await table.stop()
            self._remove(table)
        elif what is Sweep.DISSOLVE:
            await self.expire(table)

    async def expire(self, table: Table) -> None:
        """Close a table nobody plays at (``ServerConfig.table_idle``): it is dissolved
        (reason ``idle``) and leaves the lobby; the games it finished stay stored. A game
        it was playing is abandoned (docs/rules.md §10): every seat away, all on 托管, it
        is not scored — stored as ``abandoned``, counted in no one's totals, history or
        rating, and not replayed.  Written under the table's fencing token: a table that
        another node holds now is only dropped here."""
        await table.stop()
        log.info("table %s: idle, dissolved", table.id)
        game, now = table.game, time.time()
        abandoned = table.game_ids[-1] if table.status == "playing" and game is not None \
            and not game.is_over and table.game_ids else None
        hosted = table.hosted_json()

        async def write() -> None:       # (again and again while the database is away)
            if abandoned is not None:
                await self.storage.save_game(table.id, abandoned, status="abandoned",
                                             scored=False, hosted=hosted, finished=now)
            await self.storage.save_table(table.id, status="dissolved", finished=now)

        try:
            await table.store.persist(write, "its dissolution", until_stopped=False)
        except FencedWrite:              # (fenced as the table's own writes)
            log.info("table %s: another node holds it now; it is not dissolved here",
                     table.id)
            await self.drop(table.id)
            return
        table.status, table.dissolved_reason, table.dissolved_by = "dissolved", "idle", []
        table.finished_at = table.clock.now()
        table.broadcast_table()           # (its watchers see why)
        self._remove(table)

    def _remove(self, table: Table) -> None:
        self.tables.pop(table.id, None)
        self.codes.pop(table.settings.code, None)

    async def close(self) -> None:
        if self._sweeper is not None:
            self._sweeper.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._sweeper
        await self.router.close(self._stop_tables)   # (what it holds given up after)

    async def _stop_tables(self) -> None:
        for table in list(self.tables.values()):
            await table.stop()


class LocalRouter:
    """A server alone (no ``ServerConfig.redis_url``): every table it knows of runs in
    this process's lobby, its tokens are 0, and nobody else is told of a table."""

    node: None = None
    leases = 0

    def __init__(self, lobby: Lobby) -> None:
        self.lobby = lobby

    def local(self, key: str) -> Table | None:
        return self.lobby.get(key)

    async def locate(self, key: str, *, wait: float) -> Located:
        return self.lobby.get(key)

    def attach(self, conn: Subscriber, current: Route | None,
               where: Table | Elsewhere) -> Route:
        if isinstance(where, Elsewhere):     # (never located by this router)
            raise ValueError(f"a server alone has no other node: {where!r}")
        return attach_here(conn, current, where)

    async def listing(self, offset: int, limit: int) -> tuple[list[dict[str, Any]], int]:
        tables = self.lobby.listing()
        return [t.table_json(None) for t in tables[offset:offset + limit]], len(tables)

    async def detail(self, key: str) -> dict[str, Any] | None:
        table = self.lobby.get(key)
        return None if table is None else table.table_json(None)

    async def rematch(self, key: str, user: UserRecord) -> dict[str, Any]:
        table = self.lobby.get(key)
        if table is None:
            raise LobbyError("not_found", f"no table {key[:40]!r}")
        return rematch_answer(await self.lobby.rematch(table, user), user.id)

    async def hold_new(self, table_id: str) -> int:
        return 0

    async def announce(self, table: Table) -> None:
        pass

    def adopt(self, table: Table) -> None:
        pass

    async def start(self) -> int:
        return await self.lobby.restore_all()

    async def close(self, stop_tables: Callable[[], Awaitable[None]]) -> None:
        await stop_tables()


def attach_here(conn: Subscriber, current: Route | None, table: Table) -> Table:
    """``conn``'s route to a table of this process: its former route, another table's
    actor or another node, is told the client left."""
    if current is not None and current is not table:
        current.post(Disconnect(conn))
    return table
