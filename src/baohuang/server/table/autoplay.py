"""What happens next at a table, and when: a bot thinks, 托管 answers, a held answer
to the Guard's decision is shown, or the turn's timer runs (docs/rules.md §10).

These run inside the table's actor task, like :mod:`.seating`, on a
:class:`TurnTable` (the table actor is one).  Time is the table's clock; when
each decision began and the Guard's pause are its :class:`~.turns.Turns`.
"""

from __future__ import annotations

import asyncio
import logging
import time
from typing import Protocol

from ...bots import Bot, hosted_action
from ...engine.actions import Action
from ...engine.state import IllegalAction, Stage
from ...engine.views import View
from .clock import sleep
from .inputs import BotMove, Input, Token
from .seating import SeatingTable
from .turns import Turns

__all__ = ["TurnTable", "begin_turn", "bot_move", "deadline", "schedule", "time_limit",
           "timer_fired"]

log = logging.getLogger("baohuang.server")


class TurnTable(SeatingTable, Protocol):
    """What the turns read and do at a table."""

    @property
    def moves(self) -> int: ...
    @property
    def turns(self) -> Turns: ...
    #: the turn a bot was last asked to think for, and the bots thinking
    bot_turn: Token | None
    @property
    def bot_tasks(self) -> set[asyncio.Task[None]]: ...

    def post(self, item: Input) -> None: ...


def begin_turn(table: TurnTable, *, fresh: bool = False) -> None:
    """The decision awaited now began now if it is a new one (``fresh``: after any
    move, even one that leaves the same seat to decide)."""
    game = table.game
    deciding = game is not None and not game.is_over and game.stage is Stage.GUARD
    table.turns.begin((table.index, table.moves), deciding_guard=deciding, fresh=fresh)


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
            task = asyncio.get_running_loop().create_task(
                _bot_think(table, token, seat_index, seat.player, game.view(seat_index),
                           game.legal_actions()))
            table.bot_tasks.add(task)
            task.add_done_callback(table.bot_tasks.discard)
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
    else:                              # the away grace ran out: 托管 takes over
        table.tell_away()
        schedule(table)


async def auto_move(table: TurnTable, seat: int, source: str) -> None:
    """托管's answer for ``seat`` (``source``: ``hosted`` or ``timeout``).  A seat whose
    away grace ran out is shown on 托管 to everyone first."""
    game = table.game
    assert game is not None
    table.tell_away()
    await table.decide(seat, hosted_action(game.view(seat), game.legal_actions()), source)


async def _bot_think(table: TurnTable, token: Token, seat: int, player: Bot, view: View,
                     legal: list[Action]) -> None:
    await sleep(table.clock, table.config.bot_delay)
    began = time.perf_counter()
    try:
        action = await asyncio.to_thread(player.choose, view, legal)
        table.metrics.bot_think_seconds.labels(player.name).observe(
            time.perf_counter() - began)
    except Exception:
        log.exception("table %s: bot %s failed; 托管 moves instead", table.id, player.name)
        action = hosted_action(view, legal)
    table.post(BotMove(token, seat, action))


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
