"""One actor per table: every input — a client's message, a timer, a bot's
move, a disconnect — goes through the table's queue and is handled by its one
task, in order.  No locks, and a timer racing a move cannot move twice: each
timer and bot move carries the turn it was meant for and is dropped if the
turn has passed.

Each accepted action is written to the database before it is broadcast, by
construction: a move (:meth:`Table.move`), a change of seats or of 托管 and a game's
end (:meth:`Table.finish`) are decided at once, without waiting, and answered as a
list of effects (:mod:`.effects`) whose :class:`~.effects.Persist` comes before the
sends; :meth:`Table.carry_out` does them in order and stops at a write that fails,
the change then taken back (:meth:`Table.store_failed`) — or, a write fenced off by
another server, the table ends here (:meth:`Table.moved_away`).  The
engine decides legality; :mod:`.render` is the only way game state reaches a
client.  Time is the table's :class:`~.clock.Clock`; when each decision began,
its timer, the Guard's pause, 托管's answer times and a server bot's are
:class:`~.turns.Turns`: pure logic, told the time (:meth:`Table.instant`), that answers
with effects (:mod:`.effects`) the table carries out on its clock (:mod:`.shell`).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, replace
from typing import Any, TypeAlias, assert_never

from ...bots import hosted_action
from ...engine.actions import Action, ActionKind
from ...engine.game import Game
from ...engine.match import Match
from ...engine.state import IllegalAction, Stage
from ..config import ServerConfig
from ..db.storage import Storage
from ..logs import fields, table_context
from ..metrics import ServerMetrics
from ..wire import render
from ..wire.protocol import GameOver, Pause, TableMsg, You, encode
from .clock import Clock, LoopClock
from .dealing import new_match
from .effects import (
    AppendAction,
    AskBot,
    AwayOver,
    BotMove,
    CancelTimer,
    ClientInput,
    CloseTable,
    Disconnect,
    Effect,
    FinishGame,
    HostedMove,
    Input,
    Instant,
    Persist,
    Refuse,
    SaveHosted,
    SaveSeats,
    Send,
    SendEach,
    SendTable,
    SetTimer,
    ShowHeld,
    Stop,
    StoreFailed,
    TimedOut,
    TimerFired,
    TimerName,
    TimingEffect,
    Token,
)
from .expiry import idle_since
from .outage import Store
from .readiness import Readiness
from .results import settle
from .seats import Seat
from .seatstate import SeatsShown
from .settings import Settings
from .shell import BotAnswer, Inbox, TimerSlot
from .subscriber import Subscriber
from .turns import AwayWatch, Timing, Turns, TurnsMark

__all__ = ["NOT_STORED", "SeatsBefore", "Table", "TableLost"]

log = logging.getLogger("baohuang.server")


#: what a table does with a connection's message or its end: :func:`.seating.handle`,
#: given where tables are built (the lobby); seating works on a :class:`Table`, so this
#: module does not import it and the imports run one way
SeatingHandler: TypeAlias = Callable[["Table", "ClientInput | Disconnect"], Awaitable[None]]

#: what a client is told when a change it asked for could not be stored (taken back)
NOT_STORED = "the server could not store this change; nothing changed, try again"


class TableLost(Exception):
    """Another server holds the table now (a write was fenced off): it ends here."""


@dataclass(frozen=True, slots=True)
class SeatsBefore:
    """The seats as they were before ``conn``'s message ``ref`` changed them: what a
    failed write of the change restores (and whom it tells)."""

    conn: Subscriber | None
    ref: str | None
    seats: list[Seat | None]
    #: each seat's connection, away time and invitation then
    held: list[tuple[Subscriber | None, float | None, bool] | None]
    #: where ``conn`` was: its table, its seat, whether it watched
    where: tuple[object | None, int | None, bool]


@dataclass(frozen=True, slots=True)
class HostedBefore:
    """The seats' 托管 (on, count, left) before ``conn``'s message ``ref`` changed it."""

    conn: Subscriber | None
    ref: str | None
    hosted: list[tuple[bool, int, bool] | None]


#: a move's state before it, restored if its write fails: when the last move was made,
#: the decision clock, whether seats shown in the Guard's decision were pending
MoveBefore: TypeAlias = tuple[float, TurnsMark, bool]
#: a game's end state before it: totals, status, last scored, dissolved by, finished
#: at, recorded, whether 准备 was asked
FinishBefore: TypeAlias = tuple[list[int], str, bool | None, list[int], float | None, bool,
                                bool]


class Table:
    """A table: five seats, watchers, and (once started) a match.

    ``seating``: what it does with its connections' messages (:data:`SeatingHandler`)."""

    def __init__(self, settings: Settings, seats: list[Seat | None], storage: Storage,
                 config: ServerConfig, *, seating: SeatingHandler, status: str = "open",
                 totals: list[int] | None = None, clock: Clock | None = None,
                 metrics: ServerMetrics | None = None) -> None:
        self.settings = settings
        self.seating = seating
        #: where the table records its moves, their handling time, 托管's take-overs
        self.metrics = metrics or ServerMetrics()
        self.seats = seats
        self.storage = storage
        self.config = config
        self.clock: Clock = clock or LoopClock()
        #: the table's writes, paused while the database is out of reach (:mod:`.outage`)
        self.store = Store(settings.id, storage, self.clock, self.metrics, self.tell_paused)
        for seat in seats:             # (an absent player is away from the table's start)
            if seat is not None and seat.away_since is not None:
                seat.away_since = self.clock.now()
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
        self.turns = Turns(Timing(
            pause=min(config.guard_pause, settings.timeout), timeout=settings.timeout,
            grace=config.away_grace, hosted_delay=config.hosted_delay,
            bot_delay=config.bot_delay, seed=settings.seed))
        #: the table's timers, on its clock: a ring posts the input it means
        self.timers = {
            name: TimerSlot(self.clock, self._ring_for(name)) for name in TimerName}
        #: the ends of away graces still to come (:class:`~.turns.AwayWatch`)
        self.away_watch = AwayWatch()
        self._loop: asyncio.AbstractEventLoop | None = None
        #: the server bots thinking, their answers to come
        self.bot_answers: set[BotAnswer] = set()
        #: the view each seat's connection (index 5: the watchers) holds now, as sent at
        #: the current version; ``None``: unknown, the next event message sends it whole
        self._shown: list[render.Parts | None] = [None] * 6
        self._seats_shown = SeatsShown()
        self._recovering = False
        #: why the match ended early: the seats still on 托管 when a game ended
        self.dissolved_by: list[int] = []
        #: why the table was dissolved: ``hosted`` (a game ended with a seat on 托管),
        #: ``idle`` (nobody played or was connected for ``ServerConfig.table_idle``) or
        #: ``closed`` (by a moderator, who said why: ``closed_note``)
        self.dissolved_reason = "hosted"
        self.closed_note: str | None = None
        #: when a move was last made (the clock; at first: when the table was made)
        self.moved_at = self.clock.now()
        #: whether the last finished game was scored, as its result was stored
        #: (``None``: none finished yet)
        self.last_scored: bool | None = None
        #: the table the same players moved on to (``{"id", "code"}``) after the match
        self.rematch: dict[str, str] | None = None
        #: 准备 between the games of a match (:mod:`.readiness`)
        self.readiness = Readiness(config.next_game_delay, settings.ready_wait)
        #: what a write that fails takes back (the batch of effects in flight)
        self._move_before: MoveBefore | None = None
        self._finish_before: FinishBefore | None = None
        self._seats_before: SeatsBefore | None = None
        self._hosted_before: HostedBefore | None = None
        #: another server holds the table now: it takes no more inputs here
        self.lost = False
        #: told once, when the table ends here because another server holds it (the
        #: lobby forgets it, as when its lease is lost)
        self.on_lost: Callable[[Table], None] | None = None
        #: told whenever the table's state is sent to everyone at it (its seats, who is
        #: connected, watchers, status, ...): a cluster node's directory writes the
        #: table's entry then, for the lobby of every node (docs/cluster.md)
        self.on_change: Callable[[Table], None] | None = None

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
        self._task = self._loop.create_task(self._run(), name=f"table-{self.id}",
                                            context=table_context(self.id))

    async def stop(self) -> None:
        self.store.stopping = True       # (a write waiting for the database gives up)
        self.post(Stop())
        if self._task is not None:
            with contextlib.suppress(asyncio.CancelledError):
                await self._task

    async def _run(self) -> None:
        try:
            if self._recovering:
                await self.recover()
            if self.status == "open" and self.five_seated() and self.settings.autostart:
                await self.start_match()
        except TableLost:
            self.lost = True
        while not self.lost:
            item = await self._inbox.get()
            if isinstance(item, Stop):
                break
            try:
                await self._handle(item)
            except TableLost:
                break
            except Exception:
                log.exception("table %s: error handling %r", self.id, item)
                self.metrics.errors.labels("table", "server_error").inc()
                if isinstance(item, ClientInput):
                    item.conn.error("server_error", "the server failed to handle this message")
        for timer in self.timers.values():
            timer.cancel(drop=True)
        for answer in list(self.bot_answers):
            answer.cancel()
        self.bot_answers.clear()

    async def _handle(self, item: Input) -> None:
        if isinstance(item, ClientInput | Disconnect):
            await self.seating(self, item)
        elif isinstance(item, TimerFired):
            await self.rang(item.name, item.token)
        elif isinstance(item, BotMove):
            await self.bot_move(item)
        elif isinstance(item, CloseTable):
            try:
                closed = await self.close(item.note)
            except Exception as exc:
                if not item.done.done():
                    item.done.set_exception(exc)
                raise
            if not item.done.done():
                item.done.set_result(closed)

    # -- the game -------------------------------------------------------------------------
    async def start_match(self) -> None:
        self.status = "playing"
        s = self.settings
        self.match = new_match(s.rules, s.seed, s.games, s.practice)
        seats = self.seats_json()
        await self.store.persist(
            lambda: self.storage.save_table(self.id, status="playing", seats=seats),
            "the start of the match")
        await self.begin_game()

    async def begin_game(self, hosted: frozenset[int] = frozenset()) -> None:
        """Deal the match's current game; the seats ``hosted`` (people who were not
        ready when the countdown ran out) are dealt in on 托管, as everyone sees."""
        game = self.game
        assert game is not None
        for index, seat in enumerate(self.seats):
            if seat is not None:
                seat.new_game()
                if index in hosted and not seat.is_bot:
                    seat.put_on_hosted()
        record = game.record()
        self.game_ids.append(await self.store.insert_game({
            "table_id": self.id, "idx": self.index, "seed": record["seed"],
            "dealer": record["dealer"], "tribute": record["tribute"], "rules": record["rules"],
            "seats": self.seats_json(), "status": "playing", "result": None, "scored": None,
            "hosted": self.hosted_json(), "started": time.time(), "finished": None}))
        self.moves = 0
        self.recorded = False
        self._shown = [None] * 6
        # (the first decision's clock starts with the deal)
        self.turns.begin_game(game, (self.index, self.moves), self.instant(), fresh=True)
        deadline = self.deadline()
        for conn in self.conns():
            conn.send_message(render.snapshot(game, conn.seat, base=self.base, index=self.index,
                                           deadline=deadline, hints=conn.hints))
        self.broadcast_table()
        self.schedule()

    async def decide(self, seat: int, action: Action, source: str) -> None:
        """A decision for ``seat`` by its player, bot, 托管 or timeout: applied now, or —
        an answer to the Guard's decision made before the Guard's pause ended — checked
        and held until then (:mod:`.turns`; raises IllegalAction)."""
        if self.turns.hold(self.game, seat, action, source, self.clock.now()):
            self.schedule()
        else:
            await self.apply(seat, action, source)

    async def apply(self, seat: int, action: Action, source: str) -> None:
        """Apply, store, then broadcast one action (raises IllegalAction, nothing changed:
        the engine refused it, or its write failed and it was taken back)."""
        began, at = time.perf_counter(), self.instant()
        await self.carry_out(self.move(seat, action, source, at), decided=at.mono)
        self.metrics.moved(source, time.perf_counter() - began)
        if log.isEnabledFor(logging.DEBUG):     # (not the seat: it would tell the Guard)
            log.debug("move", extra=fields(version=self.version, source=source))

    def move(self, seat: int, action: Action, source: str, at: Instant) -> list[Effect]:
        """One action at ``at``, decided without waiting: applied to the game in place
        (raises IllegalAction, nothing changed), and answered as the effects that
        follow — its :class:`~.effects.Persist` (the action appended to the log), the
        ``update`` each seat and the watchers are sent, the ``table`` if seats hidden
        meanwhile may be shown now, then the game's end (:meth:`finish`) or what is
        timed next.  Taken back by :meth:`store_failed` if its write fails."""
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
        self._move_before = (self.moved_at, self.turns.mark(), self._seats_shown.pending)
        self._finish_before = None
        effects: list[Effect] = [Persist(AppendAction(
            self.game_ids[-1], self.moves, seat, action.to_dict(), source, self.logged + 1))]
        self.moves += 1
        self.logged += 1
        self.moved_at = at.mono
        # (a seat leaving does not concern the decision awaited: its clock runs on)
        self.event_sends(before, at, effects, same=action.kind is ActionKind.LEAVE)
        if self._seats_shown.pending and game.stage is not Stage.GUARD:
            self._seats_shown.pending = False
            if not game.is_over:        # (the game's end sends the table anyway)
                effects.append(SendTable())  # now everybody may see what was hidden
        if game.is_over:
            effects += self.finish(at)
        else:
            effects += self.plan(at)
        return effects

    async def game_over(self) -> None:
        at = self.instant()
        await self.carry_out(self.finish(at), decided=at.mono)

    def finish(self, at: Instant) -> list[Effect]:
        """The game is over: settled at ``at``, its result stored (a
        :class:`~.effects.Persist`) before everyone is sent ``game_over`` and the
        table; then 准备 for the next game, or the match's end."""
        game = self.game
        assert game is not None and game.result is not None
        settled = settle(game.result, self.seats, grace=self.config.away_grace,
                         now=at.mono, totals=self.totals, status=self.status,
                         played=self.index + 1,
                         games=self.settings.games, rated=not self.settings.practice)
        played = self.index + 1
        ask = settled.status == "playing" and played < self.settings.games
        self._finish_before = (self.totals, self.status, self.last_scored, self.dissolved_by,
                               self.finished_at, self.recorded, ask)
        self.totals, self.status = settled.totals, settled.status
        self.last_scored = settled.scored
        self.dissolved_by = settled.hosted if self.status == "dissolved" else []
        effects: list[Effect] = [
            CancelTimer(TimerName.TURN),
            Persist(FinishGame(settled, self.game_ids[-1], self.hosted_json()))]
        if self.status != "playing":
            self.finished_at = at.mono
        self.recorded = True
        if ask:
            effects += self.readiness.ask(self.seats, played, at.mono)
        effects.append(Send(tuple(self.conns()), encode(self.game_over_message())))
        effects.append(SendTable())
        return effects

    def game_over_message(self) -> GameOver:
        game = self.game
        assert game is not None
        return render.game_over(game, base=self.base, index=self.index,
                                scored=bool(self.last_scored), totals=self.totals,
                                games=self.settings.games, played=self.index + 1,
                                over=self.status != "playing", status=self.status,
                                hosted=self.dissolved_by)

    # -- 准备 between games (:mod:`.readiness`) -------------------------------------------
    @property
    def ready(self) -> set[int] | None:
        """The seats ready for the next deal; ``None``: nobody is asked."""
        return self.readiness.ready

    def ask_ready(self, index: int) -> None:
        """Game ``index`` of the match is next: every person at the table is asked 准备
        (ready); it is dealt once all are, or when the table's countdown
        (``Settings.ready_wait``) runs out.  A table of bots only deals after the
        server's pause between games."""
        self.perform(self.readiness.ask(self.seats, index, self.clock.now()))

    async def say_ready(self, seat: int) -> None:
        """``seat`` is ready (准备): everyone sees it, and the next game is dealt if all
        are."""
        if not self.readiness.say(seat):
            return
        self.broadcast_table()
        if self.readiness.everyone(self.seats):
            await self.next_game(self.index + 1)

    async def ready_due_now(self, index: int) -> None:
        """The countdown ran out: game ``index`` is dealt, the seats not ready in it on
        托管 (docs/rules.md §10)."""
        if self.readiness.ready is None or index != self.index + 1:
            return
        await self.next_game(index)

    def ready_json(self) -> dict[str, Any] | None:
        """The TableState's ``ready`` (:meth:`.Readiness.json`)."""
        return self.readiness.json(self.instant())

    async def dissolve_left(self, seat: int) -> None:
        """``seat``'s player left between the games of the match: the match ends here
        (dissolved, reason ``left``); nobody is dealt a game in his name.  The others
        may start a new one (rematch), which seats only who says yes."""
        if self.readiness.ready is None or self.status != "playing":
            return
        self.perform(self.readiness.end())
        self.status, self.dissolved_reason, self.dissolved_by = "dissolved", "left", [seat]
        self.finished_at = self.clock.now()
        finished = time.time()
        await self.store.persist(
            lambda: self.storage.save_table(self.id, status="dissolved", finished=finished),
            "the end of the match")

    async def close(self, note: str) -> bool:
        """A moderator closes the table (its actor handles :class:`CloseTable`): a game
        being played is abandoned — not scored, counted in no one's totals, history or
        rating — and the table is dissolved (reason ``closed``), both stored before
        every seat and watcher is told, with the moderator's ``note``.  False when the
        match was over already (nothing changes)."""
        if self.status not in ("open", "playing"):
            return False
        game, now = self.game, time.time()
        abandoned = self.game_ids[-1] if self.status == "playing" and game is not None \
            and not game.is_over and self.game_ids else None
        hosted = self.hosted_json()

        async def write() -> None:
            if abandoned is not None:
                await self.storage.save_game(self.id, abandoned, status="abandoned",
                                             scored=False, hosted=hosted, finished=now)
            await self.storage.save_table(self.id, status="dissolved", finished=now)

        await self.store.persist(write, "its closing")
        self.timers[TimerName.TURN].cancel(drop=True)
        self.perform(self.readiness.end())
        self.status, self.dissolved_reason, self.dissolved_by = "dissolved", "closed", []
        self.closed_note = note
        self.finished_at = self.clock.now()
        self.broadcast_table()
        return True

    async def next_game(self, index: int) -> None:
        game = self.game
        if self.status != "playing" or self.match is None or game is None \
                or not game.is_over or index != self.index + 1:
            return
        late = self.readiness.late()
        self.perform(self.readiness.end())
        self.base += game.version
        self.match.advance()
        await self.begin_game(hosted=late)

    async def recover(self) -> None:
        """After a restart: finish what the crash interrupted, then play on."""
        game = self.game
        if game is None:
            return
        if game.is_over and not self.recorded:
            await self.game_over()
        elif game.is_over and self.status == "playing":
            # the result and the table's status are stored together: a table still
            # playing after a stored result has games to go (who was ready is asked
            # again: it was not stored)
            self.ask_ready(self.index + 1)
        self.schedule()

    # -- turns, 托管 and bots (:mod:`.turns`, carried out by :mod:`.shell`) ------------------
    def instant(self) -> Instant:
        """The table's time now, read once for one step of its logic."""
        return Instant(self.clock.now(), self.clock.wall())

    def deadline(self, now: float | None = None) -> float | None:
        """When the decision awaited now (or at ``now``) times out (``None``: nobody is
        waited for)."""
        return self.turns.deadline(self.game, self.seats, playing=self.status == "playing",
                                   now=self.clock.now() if now is None else now)

    def schedule(self) -> None:
        """Arrange what happens next: a bot thinks, 托管 moves, a held answer to the
        Guard's decision is shown, or a timer runs."""
        self.perform(self.plan(self.instant()))

    def plan(self, at: Instant) -> list[TimingEffect]:
        """What :meth:`schedule` arranges, decided at ``at``."""
        return self.turns.plan(self.game, self.seats, (self.index, self.moves),
                               playing=self.status == "playing", now=at)

    def _ring_for(self, name: TimerName) -> Callable[[Token], None]:
        """What the timer ``name`` does when it rings: it posts :class:`TimerFired`."""
        return lambda token: self.post(TimerFired(name, token))

    async def rang(self, name: TimerName, token: Token) -> None:
        """The timer ``name``, set for ``token``, rang."""
        match name:
            case TimerName.TURN:
                await self.timer_fired(token)
            case TimerName.NEXT_GAME:
                await self.next_game(token[0])
            case TimerName.READY:
                await self.ready_due_now(token[0])
            case TimerName.AWAY:
                # (at the end of a seat's away grace everyone is shown it on 托管)
                self.perform(self.away_watch.rang(self.clock.now()))
                self.tell_away()
            case _:
                assert_never(name)

    def perform(self, effects: list[TimingEffect]) -> None:
        """Carry the timing's effects out, in order, on the table's clock."""
        for effect in effects:
            self._time(effect)

    def _time(self, effect: TimingEffect) -> None:
        match effect:
            case SetTimer(name, due, token):
                self.timers[name].set_at(due, token)
            case CancelTimer(name):
                # (the turn's handle is kept for the next move's timer, a few ms on)
                self.timers[name].cancel(drop=name is not TimerName.TURN)
            case AskBot():
                seat = self.seats[effect.seat]
                assert seat is not None and seat.player is not None
                self.bot_answers.add(BotAnswer(effect, seat.player, self.clock,
                                               self.metrics, self._bot_answered, self.id))
            case _:
                assert_never(effect)

    async def carry_out(self, effects: list[Effect], *, decided: float | None = None) -> bool:
        """Carry ``effects`` out in order: each :class:`~.effects.Persist` written
        before anything after it is done.  A write that fails ends them there (nothing
        after it is sent): the table is told (:meth:`store_failed`), takes the change
        back and says so; False then — or, for a move, IllegalAction is raised (its
        mover is refused), and for a write fenced off by another server
        :class:`TableLost` (the table ends here: :meth:`moved_away`).  ``decided``: the
        instant a move or a game's end was decided at (:meth:`write_resumed`)."""
        store = self.store
        for index, effect in enumerate(effects):
            match effect:
                case Persist():
                    op, resumed = effect.op, store.resumed
                    failed = await store.put(op)
                    if failed is None and store.resumed != resumed:
                        # (the table paused: what the batch timed starts when it is written)
                        return await self.carry_out(self.write_resumed(
                            store.waited, decided, effects[index + 1:]))
                    if failed is not None:
                        await self.carry_out(self.store_failed(failed))
                        if failed.why == "fenced":
                            self.moved_away()
                            raise TableLost(self.id)
                        if isinstance(op, AppendAction):
                            raise IllegalAction("the server could not store this action; "
                                                "try again")
                        return False
                case SendEach():
                    for conn, text in zip(effect.to, effect.texts, strict=False):
                        conn.send(text)
                case Send():
                    text = effect.text
                    for conn in effect.to:
                        conn.send(text)
                case SendTable():
                    self.broadcast_table()
                case Refuse(conn, code, message, ref):
                    conn.error(code, message, ref)
                case SetTimer() | CancelTimer() | AskBot():
                    self._time(effect)
                case _:
                    assert_never(effect)
        return True

    def write_resumed(self, waited: float, decided: float | None,
                      rest: list[Effect]) -> list[Effect]:
        """A write of the batch whose effects ``rest`` follow it waited ``waited`` seconds
        for the database (the table paused, its clients told).  Nobody could act
        meanwhile: a decision begun by the move (or game's end) decided at ``decided``
        — and 准备's countdown it started — begin once it is written, their time whole,
        as do the timers and the bot it set; everyone is sent the table after the batch
        (the decision's deadline as it is now)."""
        turn = decided is not None and self.turns.started >= decided
        ready = decided is not None and self._finish_before is not None \
            and self._finish_before[-1]
        if turn:
            self.turns.postpone(waited)
        if ready:
            self.readiness.postpone(waited)
        later: list[Effect] = []
        for effect in rest:
            match effect:
                case AskBot() if turn:
                    effect = replace(effect, due=effect.due + waited)
                case SetTimer(name=TimerName.TURN) if turn:
                    effect = replace(effect, due=effect.due + waited)
                case SetTimer(name=TimerName.READY | TimerName.NEXT_GAME) if ready:
                    effect = replace(effect, due=effect.due + waited)
            later.append(effect)
        later.append(SendTable())
        return later

    def store_failed(self, failed: StoreFailed) -> list[Effect]:
        """The write of ``failed.op`` failed: the change it stored is taken back — a
        move's action popped from the game's record and the game rebuilt from it (its
        end too, when it ended the game), a seat change's seats restored, 托管 as it
        was, a game's settling undone — and the client who asked is told (a move's
        mover is refused by :meth:`carry_out`'s caller)."""
        op = failed.op
        effects: list[Effect] = []
        match op:
            case AppendAction():
                self._take_back_move()
            case FinishGame():
                effects += self._take_back_finish()
            case SaveSeats():
                before = self._seats_before
                self._seats_before = None
                if before is not None:
                    self._restore_seats(before)
                    if before.conn is not None:
                        effects.append(Refuse(before.conn, "not_stored", NOT_STORED,
                                              before.ref))
            case SaveHosted():
                hosted = self._hosted_before
                self._hosted_before = None
                if hosted is not None:
                    for seat, was in zip(self.seats, hosted.hosted, strict=True):
                        if seat is not None and was is not None:
                            seat.hosted, seat.hosted_count, seat.left = was
                    if hosted.conn is not None:
                        effects.append(Refuse(hosted.conn, "not_stored", NOT_STORED,
                                              hosted.ref))
            case _:
                assert_never(op)
        return effects

    def _take_back_move(self) -> None:
        game = self.game
        assert game is not None and self.match is not None and self._move_before is not None
        if self._finish_before is not None:
            self._take_back_finish()
        record = game.record()
        record["actions"].pop()
        self.match.game = Game.from_record(record)
        self.moves -= 1
        self.logged -= 1
        self.moved_at, mark, self._seats_shown.pending = self._move_before
        self._move_before = None
        self.turns.restore(mark)
        self._shown = [None] * 6            # (the next update sends each view whole)

    def _take_back_finish(self) -> list[TimingEffect]:
        assert self._finish_before is not None
        (self.totals, self.status, self.last_scored, self.dissolved_by, self.finished_at,
         self.recorded, asked) = self._finish_before
        self._finish_before = None
        return self.readiness.end() if asked else []

    def _bot_answered(self, answer: BotAnswer) -> None:
        self.bot_answers.discard(answer)
        assert answer.action is not None
        self.post(BotMove(answer.token, answer.seat, answer.action))

    async def timer_fired(self, token: Token) -> None:
        """What was timed for the turn ``token`` is due (nothing if that turn has
        passed)."""
        ring = self.turns.ring(self.game, self.seats, token, (self.index, self.moves),
                               self.clock.now())
        match ring:
            case None:
                return
            case ShowHeld(seat, action, source):
                try:
                    await self.apply(seat, action, source)
                except IllegalAction as exc:
                    log.warning("table %s: a held answer %s was refused (%s)", self.id,
                                action, exc.reason)
                    self.schedule()
            case HostedMove(seat, takeover):
                if takeover:
                    self.metrics.hosted_takeovers.labels("away").inc()
                await self.auto_move(seat, "hosted")
            case TimedOut(seat, guard):
                # timeout: 托管 answers, and plays on from now — except for the Guard's
                # decision (whose time is the pause), which 托管 only answers: a seat seen
                # on 托管 after it would be the Guard (docs/rules.md §10)
                if not guard:
                    self.metrics.hosted_takeovers.labels("timeout").inc()
                    timed_out = self.seats[seat]
                    assert timed_out is not None
                    before = self.hosted_before(None, None)
                    timed_out.put_on_hosted()
                    if not await self.save_hosted(before):
                        return
                    self.broadcast_table()
                await self.auto_move(seat, "timeout")
            case AwayOver():
                # the away grace ran out: 托管 takes over, and everybody is shown it once
                # (:meth:`tell_away`) — at the end of any seat's grace, not only the one
                # whose decision is timed, so the message tells nobody who decides (while
                # the Guard decides the others are shown every seat's 托管 as it was when
                # the decision began, :mod:`.seatstate`)
                self.tell_away()
                self.schedule()
            case _:
                assert_never(ring)

    async def auto_move(self, seat: int, source: str) -> None:
        """托管's answer for ``seat`` (``source``: ``hosted`` or ``timeout``).  A seat
        whose away grace ran out is shown on 托管 to everyone first."""
        game = self.game
        assert game is not None
        self.tell_away()
        await self.decide(seat, hosted_action(game.view(seat), game.legal_actions()),
                          source)

    async def bot_move(self, move: BotMove) -> None:
        """A bot's move, if its turn has not passed (refused: 托管 moves instead)."""
        game = self.game
        if game is None or game.is_over or move.token != (self.index, self.moves):
            return
        try:
            await self.decide(move.seat, move.action, "bot")
        except IllegalAction as exc:
            log.warning("table %s: bot move %s refused (%s); 托管 moves", self.id,
                        move.action, exc.reason)
            await self.auto_move(move.seat, "hosted")

    # -- sending --------------------------------------------------------------------------
    def conns(self) -> list[Subscriber]:
        seated = [s.conn for s in self.seats if s is not None and s.conn is not None]
        return seated + list(self.watchers)

    def event_sends(self, before: int, at: Instant, effects: list[Effect], *,
                    same: bool = False) -> None:
        """Each seat (and the watchers) one ``update``, added to ``effects``: the events
        after version ``before`` with what changed in its view since the view it was
        sent last (``same``: the decision awaited is the one awaited before them)."""
        game = self.game
        assert game is not None
        if not game.is_over:
            self.turns.begin_game(game, (self.index, self.moves), at,
                                  fresh=not same, same=same)
        deadline = None if game.is_over else self.deadline(at.mono)
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
        effects.append(SendEach(tuple(conns), tuple(texts)))
        if self.watchers and texts:
            effects.append(Send(tuple(self.watchers), texts[-1]))
        for r, view in zip(receivers, views, strict=True):
            shown[5 if r is None else r] = view

    def table_json(self, viewer: int | None) -> dict[str, Any]:
        """The TableState for a connection at ``viewer``'s seat (docs/protocol.md §3)."""
        game = self.game
        seats = self._seats_shown.seats(
            self.seats, viewer, grace=self.config.away_grace, now=self.clock.now(),
            deciding=game is not None and game.stage is Stage.GUARD)
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
                              "seats": list(self.dissolved_by),
                              **({"note": self.closed_note}
                                 if self.dissolved_reason == "closed" else {})}
                if self.status == "dissolved" else None,
                "last_scored": self.last_scored, "rematch": self.rematch,
                "ready_wait": s.ready_wait, "fill_bots": s.fill_bots,
                "ready": self.ready_json(), "challenge": s.challenge, "club": s.club}

    def send_table(self, conn: Subscriber) -> None:
        conn.send_message(TableMsg(table=self.table_json(conn.seat),
                                   you=You(seat=conn.seat, watcher=conn.seat is None)))

    def tell_paused(self, paused: bool) -> None:
        """Every client at the table: the table pauses (its database is out of reach),
        or goes on."""
        text = encode(Pause(paused=paused, reason="database" if paused else None))
        for conn in self.conns():
            conn.send(text)

    def broadcast_table(self) -> None:
        now, grace = self.clock.now(), self.config.away_grace
        for seat in self.seats:         # (every seat's away 托管 is shown by this one)
            if seat is not None and seat.away_over(grace, now):
                seat.away_told = seat.away_since
        for conn in self.conns():
            self.send_table(conn)
        if self.on_change is not None:
            self.on_change(self)

    def tell_away(self) -> None:
        """A seat whose player has been away for the grace time is on 托管 now: everyone
        is shown so (once) before 托管 plays for it — it never plays under an "offline"
        label alone (docs/rules.md §10)."""
        if self.status != "playing":
            return
        now, grace = self.clock.now(), self.config.away_grace
        if any(seat is not None and seat.away_over(grace, now)
               and seat.away_told != seat.away_since for seat in self.seats):
            self.broadcast_table()

    def watch_away(self, seat: Seat) -> None:
        """``seat``'s player went away: at the end of his grace time, everyone is told
        the seat is on 托管 (the same moment whoever he is and whatever his role)."""
        if self.status == "playing" and seat.away_since is not None and not seat.is_bot:
            self.perform(self.away_watch.watch(seat.away_since + self.config.away_grace))

    # -- storing seats --------------------------------------------------------------------
    def seat_of(self, user_id: int) -> int | None:
        for index, seat in enumerate(self.seats):
            if seat is not None and seat.user_id == user_id:
                return index
        return None

    def idle_since(self) -> float | None:
        """Since when (the table's clock) no player has been connected and no move made;
        ``None`` while a player is connected."""
        return idle_since(self.seats, self.moved_at)

    def five_seated(self) -> bool:
        """Five seats taken: by bots, and by people who said yes (an invited seat of a
        new match is not taken until its player joins)."""
        return all(seat is not None and not seat.invited for seat in self.seats)

    def seats_json(self) -> list[dict[str, Any] | None]:
        return [None if s is None else s.to_json() for s in self.seats]

    def hosted_json(self) -> list[dict[str, Any] | None]:
        return [None if s is None else s.hosted_json() for s in self.seats]

    def seats_before(self, conn: Subscriber | None, ref: str | None) -> SeatsBefore:
        """The seats as they are now, before ``conn``'s message ``ref`` changes them
        (restored if the change's write fails: :meth:`save_seats`)."""
        where = (None, None, False) if conn is None else \
            (conn.table, conn.seat, conn in self.watchers)
        return SeatsBefore(conn, ref, list(self.seats),
                           [None if s is None else (s.conn, s.away_since, s.invited)
                            for s in self.seats], where)

    def hosted_before(self, conn: Subscriber | None, ref: str | None) -> HostedBefore:
        """The seats' 托管 now, before ``conn``'s message ``ref`` changes it."""
        return HostedBefore(conn, ref, [None if s is None else (s.hosted, s.hosted_count,
                                                                  s.left)
                                        for s in self.seats])

    def seats_changed(self, before: SeatsBefore | None) -> list[Effect]:
        """The seats changed (from ``before``): stored before anything else is done."""
        self._seats_before = before
        return [Persist(SaveSeats(self.seats_json()))]

    def hosted_changed(self, before: HostedBefore | None) -> list[Effect]:
        """The seats' 托管 in the current game changed (from ``before``): stored first."""
        if not (self.game_ids and self.status == "playing"):
            return []
        self._hosted_before = before
        return [Persist(SaveHosted(self.game_ids[-1], self.hosted_json()))]

    def _restore_seats(self, before: SeatsBefore) -> None:
        """The seats as :meth:`seats_before` kept them: a seat change not stored."""
        now = self.clock.now()
        self.seats[:] = before.seats
        for index, (seat, held) in enumerate(zip(before.seats, before.held, strict=True)):
            if seat is None or held is None:
                continue
            seat.conn, seat.away_since, seat.invited = held
            conn = seat.conn
            if conn is not None and conn.table is not self and conn is not before.conn:
                # (its connection was taken over meanwhile: the seat's player is away)
                seat.conn, seat.away_since = None, now
            elif conn is not None:
                conn.seat = index
                self.watchers.discard(conn)
        conn = before.conn
        if conn is not None:
            conn.table, conn.seat, watching = before.where
            if watching:
                self.watchers.add(conn)
            else:
                self.watchers.discard(conn)

    async def save_seats(self, before: SeatsBefore | None = None) -> bool:
        """Store who sits where (the table pauses while the database is out of reach);
        False if the write failed: the seats are as they were ``before`` the change,
        and the client who asked for it is told (``not_stored``)."""
        return await self.carry_out(self.seats_changed(before))

    async def save_hosted(self, before: HostedBefore | None = None) -> bool:
        """Store the seats' 托管 in the current game (paused as :meth:`save_seats`);
        False if the write failed: 托管 is as it was ``before``."""
        return await self.carry_out(self.hosted_changed(before))

    def moved_away(self) -> None:
        """Another server holds the table now (its lease passed on, a write of ours was
        fenced off): it ends here — every connection is closed with 1012 (it reconnects
        and reaches the table there), no input is taken any more, and the lobby is told
        (:attr:`on_lost`) — as when this server finds its lease lost."""
        if self.lost:
            return
        self.lost = True
        self.store.stopping = True
        for conn in self.conns():
            conn.close(1012, "the table moved to another server; reconnect")
        if self.on_lost is not None:
            self.on_lost(self)
