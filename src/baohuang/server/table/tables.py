"""One actor per table: every input — a client's message, a timer, a bot's
move, a disconnect — goes through the table's queue and is handled by its one
task, in order.  No locks, and a timer racing a move cannot move twice: each
timer and bot move carries the turn it was meant for and is dropped if the
turn has passed.

Each accepted action is written to the database before it is broadcast.  The
engine decides legality; :mod:`.render` is the only way game state reaches a
client.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from typing import Any

from ...bots import Bot, hosted_action
from ...engine.actions import Action
from ...engine.game import Game
from ...engine.match import Match
from ...engine.state import IllegalAction, Stage
from ...engine.views import View
from ..config import ServerConfig
from ..db.storage import Storage
from ..wire import render
from ..wire.protocol import encode
from . import seating
from .dealing import new_match
from .inbox import Inbox
from .inputs import BotMove, ClientInput, Disconnect, Input, NextGame, Stop, TimerFired, Token
from .outage import store_action
from .results import record_result, settle
from .seats import Seat
from .settings import Settings
from .subscriber import Subscriber

__all__ = ["HOSTED_FIELDS", "Table"]

#: the fields of a seat's TableState entry that tell its 托管 state
HOSTED_FIELDS = ("hosted", "hosted_count", "locked")

log = logging.getLogger("baohuang.server")


class Table:
    """A table: five seats, watchers, and (once started) a match."""

    def __init__(self, settings: Settings, seats: list[Seat | None], storage: Storage,
                 config: ServerConfig, *, status: str = "open",
                 totals: list[int] | None = None) -> None:
        self.settings = settings
        self.seats = seats
        self.storage = storage
        self.config = config
        self.status = status
        self.totals = list(totals or [0] * 5)
        self.match: Match | None = None
        self.base = 0                     # versions of the games before the current one
        self.game_ids: list[int] = []
        self.moves = 0
        #: the table's actions stored so far, over all its games: the last version of
        #: its log (the next action is stored as ``logged + 1``, fenced)
        self.logged = 0
        self.recorded = False             # the current game's result is stored
        self.finished_at: float | None = None
        self.watchers: set[Subscriber] = set()
        self._inbox: Inbox[Input] = Inbox()
        self._task: asyncio.Task[None] | None = None
        # (the kept handle and when it rings: uvloop hands out a plain Handle, without
        # ``when()``, for a time already past)
        self._timer: asyncio.Handle | None = None
        self._timer_due = 0.0
        #: when the timer is due (loop time) and the turn it times; None: nothing is timed
        self._timed: tuple[float, Token] | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._turn: Token | None = None
        self.turn_started = 0.0
        #: the same instant by the wall clock, from which the deadline shown is counted
        self.turn_started_at = 0.0
        self._bot_turn: Token | None = None
        self._bot_tasks: set[asyncio.Task[None]] = set()
        self._public: list[dict[str, Any] | None] = [None] * 5
        #: the view each seat's connection (index 5: the watchers) holds now, as sent at
        #: the current version; ``None``: unknown, the next event message sends it whole
        self._shown: list[render.Parts | None] = [None] * 6
        self._hidden_pending = False      # 托管 changes are hidden until the Guard decided
        self._recovering = False
        #: why the match ended early: the seats still on 托管 when a game ended
        self.dissolved_by: list[int] = []
        #: why the table was dissolved: ``hosted`` (a game ended with a seat on 托管) or
        #: ``idle`` (nobody played or was connected for ``ServerConfig.table_idle``)
        self.dissolved_reason = "hosted"
        #: when a move was last made (monotonic seconds; at first: when the table was made)
        self.moved_at = time.monotonic()
        #: whether the last finished game was scored (``None``: none finished yet)
        self.last_scored: bool | None = None
        #: the table the same players moved on to (``{"id", "code"}``) after the match
        self.rematch: dict[str, str] | None = None

    # -- the actor ------------------------------------------------------------------------
    @property
    def id(self) -> str:
        return self.settings.id

    @property
    def game(self) -> Game | None:
        return None if self.match is None else self.match.game

    @property
    def index(self) -> int:
        return 0 if self.match is None else self.match.index

    @property
    def version(self) -> int:
        game = self.game
        return self.base + (game.version if game is not None else 0)

    def post(self, item: Input) -> None:
        self._inbox.put(item)

    def start(self, *, recovering: bool = False) -> None:
        self._recovering = recovering
        self._loop = asyncio.get_running_loop()
        self._task = self._loop.create_task(self._run(), name=f"table-{self.id}")

    #: set by :meth:`stop`: a write waiting for the database gives up (``outage.py``)
    stopping = False

    async def stop(self) -> None:
        self.stopping = True
        self.post(Stop())
        if self._task is not None:
            with contextlib.suppress(asyncio.CancelledError):
                await self._task

    async def _run(self) -> None:
        if self._recovering:
            await self.recover()
        if self.status == "open" and self.five_seated() and self.settings.autostart:
            await self.start_match()
        while True:
            item = await self._inbox.get()
            if isinstance(item, Stop):
                break
            try:
                await self._handle(item)
            except Exception:
                log.exception("table %s: error handling %r", self.id, item)
                if isinstance(item, ClientInput):
                    item.conn.error("server_error", "the server failed to handle this message")
        self.cancel_timer(drop=True)
        for task in list(self._bot_tasks):
            task.cancel()

    async def _handle(self, item: Input) -> None:
        if isinstance(item, ClientInput):
            await seating.client(self, item.conn, item.msg)
        elif isinstance(item, Disconnect):
            await seating.disconnect(self, item.conn)
        elif isinstance(item, TimerFired):
            await self.timer_fired(item.token)
        elif isinstance(item, BotMove):
            await self.bot_move(item)
        elif isinstance(item, NextGame):
            await self.next_game(item.index)

    # -- the game -------------------------------------------------------------------------
    async def start_match(self) -> None:
        self.status = "playing"
        s = self.settings
        self.match = new_match(s.rules, s.seed, s.games, s.practice)
        await self.storage.update_table(self.id, status="playing",
                                        seats=self.seats_json())
        await self.begin_game()

    async def begin_game(self) -> None:
        game = self.game
        assert game is not None
        for seat in self.seats:
            if seat is not None:
                seat.new_game()
        record = game.record()
        self.game_ids.append(await self.storage.insert_game({
            "table_id": self.id, "idx": self.index, "seed": record["seed"],
            "dealer": record["dealer"], "tribute": record["tribute"], "rules": record["rules"],
            "seats": self.seats_json(), "status": "playing", "result": None, "scored": None,
            "hosted": self.hosted_json(), "started": time.time(), "finished": None}))
        self.moves = 0
        self.recorded = False
        self._shown = [None] * 6
        self._deadline_after_move()      # the first decision's clock starts with the deal
        for conn in self.conns():
            conn.send_json(render.snapshot(game, conn.seat, base=self.base, index=self.index,
                                           hints=conn.hints))
        self.broadcast_table()
        self.schedule()

    async def apply(self, seat: int, action: Action, source: str) -> None:
        """Apply, store, then broadcast one action (raises IllegalAction, nothing changed)."""
        game = self.game
        assert game is not None and self.match is not None
        before = self.version
        try:
            game.apply(action)
        except IllegalAction:
            raise
        except Exception:
            # an engine failure must not leave a half-changed game behind: rebuild it
            # from its record (which does not hold the failed action)
            log.exception("table %s: the engine failed on %s; rebuilding the game", self.id,
                          action)
            self.match.game = Game.from_record(game.record())
            raise IllegalAction(f"the server could not apply {action}") from None
        try:
            # (the database out of reach: the table pauses here until it is back)
            await store_action(self, seat, action.to_dict(), source)
        except Exception:
            log.exception("table %s: storing an action failed; taking it back", self.id)
            record = game.record()
            record["actions"].pop()
            self.match.game = Game.from_record(record)
            raise IllegalAction("the server could not store this action; try again") from None
        self.moves += 1
        self.logged += 1
        self.moved_at = time.monotonic()
        self.broadcast_events(before)
        if self._hidden_pending and game.stage is not Stage.GUARD:
            self._hidden_pending = False
            self.broadcast_table()          # now everybody may see what was hidden
        if game.is_over:
            await self.game_over()
        else:
            self.schedule()

    async def game_over(self) -> None:
        self.cancel_timer()
        game = self.game
        assert game is not None and game.result is not None
        settled = settle(game.result, self.seats, grace=self.config.away_grace,
                         totals=self.totals, status=self.status, played=self.index + 1,
                         games=self.settings.games, rated=not self.settings.practice)
        self.totals, self.status = settled.totals, settled.status
        self.last_scored = settled.scored
        self.dissolved_by = settled.hosted if self.status == "dissolved" else []
        await record_result(self.storage, settled, game_id=self.game_ids[-1], table_id=self.id,
                            hosted=self.hosted_json())
        if self.status != "playing":
            self.finished_at = time.monotonic()
        self.recorded = True
        played = self.index + 1
        if self.status == "playing" and played < self.settings.games:
            delay = self.config.next_game_delay
            asyncio.get_running_loop().call_later(delay, self.post, NextGame(played))
        text = encode(self.game_over_message())
        for conn in self.conns():
            conn.send(text)
        self.broadcast_table()

    def game_over_message(self) -> dict[str, Any]:
        game = self.game
        assert game is not None
        return render.game_over(game, base=self.base, index=self.index,
                                scored=self.scored(), totals=self.totals,
                                games=self.settings.games, played=self.index + 1,
                                over=self.status != "playing", status=self.status,
                                hosted=self.dissolved_by)

    def scored(self) -> bool:
        return not all(s is not None and s.auto(self.config.away_grace) for s in self.seats)

    async def next_game(self, index: int) -> None:
        game = self.game
        if self.status != "playing" or self.match is None or game is None \
                or not game.is_over or index != self.index + 1:
            return
        self.base += game.version
        self.match.advance()
        await self.begin_game()

    async def recover(self) -> None:
        """After a restart: finish what the crash interrupted, then play on."""
        game = self.game
        if game is None:
            return
        if game.is_over and not self.recorded:
            await self.game_over()
        elif game.is_over and self.status == "playing":
            # the result and the table's status are stored together: a table still
            # playing after a stored result has games to go
            self.post(NextGame(self.index + 1))
        self.schedule()

    # -- timers, 托管 and bots --------------------------------------------------------------
    def cancel_timer(self, *, drop: bool = False) -> None:
        """Time nothing: a timer handle that is kept finds nothing to post (``drop``:
        cancel the handle too, for a table that stops)."""
        self._timed = None
        if drop and self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def _set_timer(self, loop: asyncio.AbstractEventLoop, wait: float, token: Token) -> None:
        """Post ``TimerFired(token)`` after ``wait`` seconds, instead of what was timed.

        One timer handle is kept and moved only when it would ring too late: a move
        made milliseconds after the one before neither cancels nor makes a handle
        (a handle that rings early is set again for the time now wanted)."""
        due = loop.time() + wait
        self._timed = (due, token)
        handle = self._timer
        if handle is None or self._timer_due > due:
            if handle is not None:
                handle.cancel()
            self._timer = loop.call_at(due, self._ring, loop)
            self._timer_due = due

    def _ring(self, loop: asyncio.AbstractEventLoop) -> None:
        self._timer = None
        timed = self._timed
        if timed is None:
            return
        if loop.time() < timed[0] - 0.001:
            self._timer = loop.call_at(timed[0], self._ring, loop)
            self._timer_due = timed[0]
            return
        self._timed = None
        self.post(TimerFired(timed[1]))

    def deadline(self) -> float | None:
        """When the decision awaited now times out (``None``: nobody is waited for)."""
        game = self.game
        if game is None or game.is_over or game.to_act is None or self.status != "playing":
            return None
        seat = self.seats[game.to_act]
        if game.stage is not Stage.GUARD and (seat is None or seat.is_bot
                                              or seat.auto(self.config.away_grace)):
            return None
        # (the same instant however late it is asked for, to the last digit: a decision
        # overdue — its timer not yet handled on a busy server — shows a deadline past,
        # not a new one)
        return self.turn_started_at + self.settings.timeout

    def schedule(self) -> None:
        """Arrange what happens next: a bot thinks, 托管 moves, or a timer runs."""
        self.cancel_timer()
        game = self.game
        if self.status != "playing" or game is None or game.is_over or game.to_act is None:
            return
        token = (self.index, self.moves)
        if token != self._turn:
            self._turn, self.turn_started = token, time.monotonic()
            self.turn_started_at = time.time()
        seat_index = game.to_act
        seat = self.seats[seat_index]
        assert seat is not None
        loop = self._loop or asyncio.get_running_loop()
        if seat.is_bot:
            if self._bot_turn != token and seat.player is not None:
                self._bot_turn = token
                task = loop.create_task(self.bot_think(token, seat_index, seat.player,
                                                        game.view(seat_index),
                                                        game.legal_actions()))
                self._bot_tasks.add(task)
                task.add_done_callback(self._bot_tasks.discard)
            return
        grace = self.config.away_grace
        if seat.auto(grace):
            self._set_timer(loop, self.config.hosted_delay, token)
            return
        wait = max(0.0, self.settings.timeout - (time.monotonic() - self.turn_started))
        if seat.away_since is not None:
            wait = min(wait, max(0.0, grace - seat.away_for()))
        self._set_timer(loop, wait, token)

    async def timer_fired(self, token: Token) -> None:
        game = self.game
        if game is None or game.is_over or token != (self.index, self.moves) \
                or game.to_act is None:
            return
        seat_index = game.to_act
        seat = self.seats[seat_index]
        if seat is None or seat.is_bot:
            return
        if seat.auto(self.config.away_grace):
            await self.auto_move(seat_index, "hosted")
        elif time.monotonic() - self.turn_started >= self.settings.timeout - 1e-3:
            seat.put_on_hosted()       # timeout: 托管 from now on
            await self.save_hosted()
            self.broadcast_table()
            await self.auto_move(seat_index, "timeout")
        else:                          # the away grace ran out: 托管 takes over
            self.broadcast_table()
            self.schedule()

    async def auto_move(self, seat: int, source: str) -> None:
        game = self.game
        assert game is not None
        await self.apply(seat, hosted_action(game.view(seat), game.legal_actions()), source)

    async def bot_think(self, token: Token, seat: int, player: Bot, view: View,
                         legal: list[Action]) -> None:
        await asyncio.sleep(self.config.bot_delay)
        try:
            action = await asyncio.to_thread(player.choose, view, legal)
        except Exception:
            log.exception("table %s: bot %s failed; 托管 moves instead", self.id, player.name)
            action = hosted_action(view, legal)
        self.post(BotMove(token, seat, action))

    async def bot_move(self, move: BotMove) -> None:
        game = self.game
        if game is None or game.is_over or move.token != (self.index, self.moves):
            return
        try:
            await self.apply(move.seat, move.action, "bot")
        except IllegalAction as exc:
            log.warning("table %s: bot move %s refused (%s); 托管 moves", self.id,
                        move.action, exc.reason)
            await self.auto_move(move.seat, "hosted")

    # -- sending --------------------------------------------------------------------------
    def conns(self) -> list[Subscriber]:
        seated = [s.conn for s in self.seats if s is not None and s.conn is not None]
        return seated + list(self.watchers)

    def broadcast_events(self, before: int) -> None:
        """Send each seat (and the watchers) one ``update``: the events after version
        ``before`` with what changed in its view since the view it was sent last."""
        game = self.game
        assert game is not None
        deadline = None if game.is_over else self._deadline_after_move()
        shown = self._shown
        receivers: list[int | None] = []       # seats with a connection, None: watchers
        conns = []
        for index, seat in enumerate(self.seats):
            if seat is not None and seat.conn is not None:
                receivers.append(index)
                conns.append(seat.conn)
            else:
                shown[index] = None       # nobody has this seat's view: the next one is whole
        if self.watchers:
            receivers.append(None)
        else:
            shown[5] = None
        views = [shown[5 if r is None else r] for r in receivers]
        hints = [conn.hints for conn in conns] + ([False] if self.watchers else [])
        texts = render.broadcast(game, receivers, views, base=self.base, index=self.index,
                                 since=before, deadline=deadline, hints=hints)
        for conn, text in zip(conns, texts, strict=False):
            conn.send(text)
        if self.watchers and texts:
            for conn in self.watchers:
                conn.send(texts[-1])
        for r, view in zip(receivers, views, strict=True):
            shown[5 if r is None else r] = view

    def _deadline_after_move(self) -> float | None:
        self._turn, self.turn_started = (self.index, self.moves), time.monotonic()
        self.turn_started_at = time.time()
        return self.deadline()

    def table_json(self, viewer: int | None) -> dict[str, Any]:
        """The TableState for a connection at ``viewer``'s seat (docs/protocol.md §3)."""
        game, grace = self.game, self.config.away_grace
        # While the Guard decides, the others see every seat's 托管 state as it was when
        # the decision began — the deciding Guard's and everyone else's alike, so that
        # which change is held back tells nothing; the changes show once the decision is
        # made.  (After a restart in the decision nothing was shown yet: the state now.)
        deciding = game is not None and game.stage is Stage.GUARD
        seats: list[dict[str, Any] | None] = []
        for index, seat in enumerate(self.seats):
            actual = None if seat is None else seat.public(index, grace)
            held = self._public[index]
            if not deciding or held is None:
                self._public[index] = held = actual
            shown = actual
            if deciding and index != viewer and actual is not None and held is not None:
                shown = dict(actual, **{key: held[key] for key in HOSTED_FIELDS})
                if shown != actual:
                    self._hidden_pending = True
            seats.append(shown)
        s = self.settings
        return {"id": s.id, "code": s.code, "preset": s.preset, "rules": s.rules.to_dict(),
                "timeout": s.timeout, "games": s.games, "practice": s.practice,
                "counter": s.counter, "private": s.private,
                "status": self.status, "owner": s.owner,
                "autostart": s.autostart, "seats": seats, "watchers": len(self.watchers),
                "game": None if self.match is None else self.index,
                "games_played": self.index + (1 if game is not None and game.is_over else 0)
                if self.match is not None else 0,
                "totals": list(self.totals), "deadline": self.deadline(),
                "created": s.created,
                "dissolved": {"reason": self.dissolved_reason,
                              "seats": list(self.dissolved_by)}
                if self.status == "dissolved" else None,
                "last_scored": self.last_scored, "rematch": self.rematch}

    def send_table(self, conn: Subscriber) -> None:
        conn.send_json({"type": "table", "table": self.table_json(conn.seat),
                        "you": {"seat": conn.seat, "watcher": conn.seat is None}})

    def broadcast_table(self) -> None:
        for conn in self.conns():
            self.send_table(conn)

    # -- storing seats --------------------------------------------------------------------
    def seat_of(self, user_id: int) -> int | None:
        for index, seat in enumerate(self.seats):
            if seat is not None and seat.user_id == user_id:
                return index
        return None

    def idle_since(self) -> float | None:
        """Since when (monotonic seconds) no player has been connected and no move made;
        ``None`` while a player is connected."""
        since = self.moved_at
        for seat in self.seats:
            if seat is None or seat.is_bot:
                continue
            if seat.conn is not None:
                return None
            if seat.away_since is not None:
                since = max(since, seat.away_since)
        return since

    def five_seated(self) -> bool:
        return all(seat is not None for seat in self.seats)

    def seats_json(self) -> list[dict[str, Any] | None]:
        return [None if s is None else s.to_json() for s in self.seats]

    def hosted_json(self) -> list[dict[str, Any] | None]:
        return [None if s is None else s.hosted_json() for s in self.seats]

    async def save_seats(self) -> None:
        await self.storage.update_table(self.id, seats=self.seats_json())

    async def save_hosted(self) -> None:
        if self.game_ids and self.status == "playing":
            await self.storage.update_game(self.game_ids[-1], hosted=self.hosted_json())
