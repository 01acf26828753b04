"""What happens next at a table, and when: a bot thinks, 托管 answers, a held answer
to the Guard's decision is shown, or the turn's timer runs (docs/rules.md §10).

These run inside the table's actor task, like :mod:`.seating`, on a
:class:`TurnTable` (the table actor is one).  Time is the table's clock; when
each decision began and the Guard's pause are its :class:`~.turns.Turns`.

**A server bot's answer time** tells nothing a seat may not know (SECURITY.md).  How
long a bot thinks depends on its hand and its role — the expert level searches only
as a rebel — so its answer never shows when its thinking ends: it shows
:func:`answer_delay` after its decision began, a time drawn before it thinks from
its level and public facts only (the table's seed, the game, the decision, the
seat), the same in every role, and long enough to cover its thinking
(:data:`THINK_COVER` times its think time, :func:`~baohuang.bots.levels.think_time`).
The bot thinks meanwhile; only thinking that overruns its time (an overloaded
server) shows late, and is logged.
"""

from __future__ import annotations

import asyncio
import logging
import random
import time
from typing import Final, Protocol

from ...bots import Bot, hosted_action
from ...bots.levels import think_time
from ...engine.actions import Action
from ...engine.state import IllegalAction, Stage
from ...engine.views import View
from .inputs import BotMove, Input, Token
from .seating import SeatingTable
from .turns import Turns

__all__ = ["THINK_COVER", "BotAnswer", "TurnTable", "answer_delay", "begin_turn", "bot_move",
           "deadline", "schedule", "time_limit", "timer_fired"]

#: a server bot's answer shows no sooner than this many times its think time after its
#: decision began (and ``bot_delay`` more): its thinking, however long it is in the role
#: it plays, ends before (the expert level: 0.8 s of search, answers after 1.0 s)
THINK_COVER: Final = 1.25

log = logging.getLogger("baohuang.server")


class TurnTable(SeatingTable, Protocol):
    """What the turns read and do at a table."""

    @property
    def moves(self) -> int: ...
    @property
    def turns(self) -> Turns: ...
    #: the turn a bot was last asked to think for, and the bots' answers to come
    bot_turn: Token | None
    @property
    def bot_answers(self) -> set[BotAnswer]: ...

    def post(self, item: Input) -> None: ...


def begin_turn(table: TurnTable, *, fresh: bool = False, same: bool = False) -> None:
    """The decision awaited now began now if it is a new one (``fresh``: after any
    move, even one that leaves the same seat to decide; ``same``: after an action that
    did not concern the seat deciding, a seat leaving — its clock runs on)."""
    game = table.game
    deciding = game is not None and not game.is_over and game.stage is Stage.GUARD
    table.turns.begin((table.index, table.moves), deciding_guard=deciding, fresh=fresh,
                      same=same)


def time_limit(table: TurnTable) -> float:
    """How long the decision awaited now lasts: the table's think time — but the Guard's
    明保/暗保 lasts exactly the Guard's pause (when there is one), so that his answer,
    however given, always shows at the same moment (docs/rules.md §10)."""
    game = table.game
    pause = table.turns.pause
    if pause > 0 and game is not None and game.stage is Stage.GUARD:
        return pause
    return table.settings.timeout


def deadline(table: TurnTable) -> float | None:
    """When the decision awaited now times out (``None``: nobody is waited for)."""
    game = table.game
    if game is None or game.is_over or game.to_act is None or table.status != "playing":
        return None
    seat = table.seats[game.to_act]
    if game.stage is not Stage.GUARD and (
            seat is None or seat.is_bot
            or seat.auto(table.config.away_grace, table.clock.now())):
        return None
    # (the same instant however late it is asked for, to the last digit: a decision
    # overdue — its timer not yet handled on a busy server — shows a deadline past,
    # not a new one)
    return table.turns.started_at + time_limit(table)


def schedule(table: TurnTable) -> None:
    """Arrange what happens next: a bot thinks, 托管 moves, a held answer to the
    Guard's decision is shown, or a timer runs."""
    turns = table.turns
    turns.cancel()
    game = table.game
    if table.status != "playing" or game is None or game.is_over or game.to_act is None:
        return
    token = (table.index, table.moves)
    begin_turn(table)
    seat_index = game.to_act
    seat = table.seats[seat_index]
    assert seat is not None
    shown_at = turns.guard_shown_at
    if turns.held is not None and shown_at is not None:
        turns.set_at(shown_at, token)
        return
    if seat.is_bot:
        if table.bot_turn != token and seat.player is not None:
            table.bot_turn = token
            player, view, legal = seat.player, game.view(seat_index), game.legal_actions()
            # (the time its answer shows is set before it thinks, and its thinking
            # starts now: both are in hand before anything else happens at the table)
            due = turns.started + answer_delay(table, seat_index, player)
            thinking = table.clock.compute(lambda: _timed_choice(table, player, view, legal))
            table.bot_answers.add(BotAnswer(table, token, seat_index, player, thinking,
                                            max(due, table.clock.now()), view, legal))
        return
    grace, now = table.config.away_grace, table.clock.now()
    if seat.auto(grace, now):
        turns.set_at(turns.answer_at(table.config.hosted_delay, time_limit(table)), token)
        return
    due = max(now, turns.started + time_limit(table))
    if seat.away_since is not None:
        due = min(due, max(now, seat.away_since + grace))
    turns.set_at(due, token)


async def timer_fired(table: TurnTable, token: Token) -> None:
    """What was timed for the turn ``token`` is due (nothing if that turn has passed)."""
    game = table.game
    if game is None or game.is_over or token != (table.index, table.moves) \
            or game.to_act is None:
        return
    turns = table.turns
    held = turns.held
    if held is not None:                   # the Guard's pause is over: show the answer
        turns.held = None
        try:
            await table.apply(*held)
        except IllegalAction as exc:
            log.warning("table %s: a held answer %s was refused (%s)", table.id, held[1],
                        exc.reason)
            schedule(table)
        return
    seat_index = game.to_act
    seat = table.seats[seat_index]
    if seat is None or seat.is_bot:
        return
    if seat.auto(table.config.away_grace, table.clock.now()):
        if not (seat.hosted or seat.left or seat.away_hosted):
            # (on 托管 because away: 托管 takes over his first decision since he went)
            seat.away_hosted = True
            table.metrics.hosted_takeovers.labels("away").inc()
        await auto_move(table, seat_index, "hosted")
    elif turns.elapsed() >= time_limit(table) - 1e-3:
        # timeout: 托管 answers, and plays on from now — except for the Guard's
        # decision (whose time is the pause), which 托管 only answers: a seat seen on
        # 托管 after it would be the Guard (docs/rules.md §10)
        if game.stage is not Stage.GUARD:
            table.metrics.hosted_takeovers.labels("timeout").inc()
            seat.put_on_hosted()
            await table.save_hosted()
            table.broadcast_table()
        await auto_move(table, seat_index, "timeout")
    else:
        # the away grace ran out: 托管 takes over, and everybody is shown it once
        # (:meth:`Table.tell_away`) — at the end of any seat's grace, not only the one
        # whose decision is timed, so the message tells nobody who decides (while the
        # Guard decides the others are shown every seat's 托管 as it was when the
        # decision began, :mod:`.seatstate`)
        table.tell_away()
        schedule(table)


async def auto_move(table: TurnTable, seat: int, source: str) -> None:
    """托管's answer for ``seat`` (``source``: ``hosted`` or ``timeout``).  A seat whose
    away grace ran out is shown on 托管 to everyone first."""
    game = table.game
    assert game is not None
    table.tell_away()
    await table.decide(seat, hosted_action(game.view(seat), game.legal_actions()), source)


def answer_delay(table: TurnTable, seat: int, player: Bot) -> float:
    """How long after its decision began a server bot's answer shows: drawn uniformly
    from ``[bot_delay, 2 * bot_delay]`` plus :data:`THINK_COVER` times the bot's think
    time, by a generator seeded with the table's seed, the game, the decision and the
    seat — public facts only, so the same whatever the bot's role (and at two tables of
    one seed, the same at both).

    >>> from types import SimpleNamespace
    >>> from baohuang.bots import make_bot
    >>> from baohuang.server.table.clock import ManualClock
    >>> table = SimpleNamespace(config=SimpleNamespace(bot_delay=0.6), index=0,
    ...                         settings=SimpleNamespace(seed=5),
    ...                         turns=Turns(ManualClock(), pause=6.0))
    >>> table.turns.begin((0, 9), deciding_guard=False)
    >>> normal = answer_delay(table, 2, make_bot("normal", 2))
    >>> expert = answer_delay(table, 2, make_bot("expert", 2))
    >>> 0.6 <= normal <= 1.2, 1.6 <= expert <= 2.2, normal == answer_delay(table, 2, None)
    (True, True, True)
    """
    base = table.config.bot_delay
    draw = random.Random(f"bot-answer/{table.settings.seed}/{table.index}/"
                         f"{table.turns.decision}/{seat}").random()
    return base * (1.0 + draw) + THINK_COVER * think_time(player)


def _timed_choice(table: TurnTable, player: Bot, view: View, legal: list[Action]) -> Action:
    """``player``'s choice, its thinking time counted in the server's figures."""
    began = time.perf_counter()
    action = player.choose(view, legal)
    table.metrics.bot_think_seconds.labels(player.name).observe(time.perf_counter() - began)
    return action


class BotAnswer:
    """A server bot's answer to one decision: posted to the table once the bot has
    thought (``thinking`` done) and its answer time ``due`` has come, whichever is
    last — from the callback of the one that comes last, so nothing else at the table
    can come in between."""

    def __init__(self, table: TurnTable, token: Token, seat: int, player: Bot,
                 thinking: asyncio.Future[Action], due: float, view: View,
                 legal: list[Action]) -> None:
        self.table, self.token, self.seat, self.player = table, token, seat, player
        self.view, self.legal = view, legal
        self.action: Action | None = None
        self.rang = False
        self.thinking = thinking
        self.timer = table.clock.call_at(due, self._ring)
        thinking.add_done_callback(self._thought)

    def _thought(self, thinking: asyncio.Future[Action]) -> None:
        if thinking.cancelled():
            return
        error = thinking.exception()
        if error is None:
            self.action = thinking.result()
        else:
            log.error("table %s: bot %s failed; 托管 moves instead", self.table.id,
                      self.player.name, exc_info=error)
            self.action = hosted_action(self.view, self.legal)
        if self.rang:
            log.warning("table %s: bot %s thought past its answer time; its answer "
                        "shows late", self.table.id, self.player.name)
            self._post()

    def _ring(self) -> None:
        self.rang = True
        if self.action is not None:
            self._post()

    def _post(self) -> None:
        assert self.action is not None
        self.table.bot_answers.discard(self)
        self.table.post(BotMove(self.token, self.seat, self.action))

    def cancel(self) -> None:
        """Answer nothing (the table stops)."""
        self.timer.cancel()
        self.thinking.cancel()
        self.table.bot_answers.discard(self)


async def bot_move(table: TurnTable, move: BotMove) -> None:
    """A bot's move, if its turn has not passed (refused: 托管 moves instead)."""
    game = table.game
    if game is None or game.is_over or move.token != (table.index, table.moves):
        return
    try:
        await table.decide(move.seat, move.action, "bot")
    except IllegalAction as exc:
        log.warning("table %s: bot move %s refused (%s); 托管 moves", table.id,
                    move.action, exc.reason)
        await auto_move(table, move.seat, "hosted")
