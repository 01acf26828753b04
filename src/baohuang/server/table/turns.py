"""The timing of a table's decisions, as pure logic: when the decision awaited now
began (its deadline is fixed then), what times it, who answers when, and the
Guard's pause.  Nothing here reads a clock or sets a timer: each call is given the
table's time (an :class:`~.effects.Instant` or its ``mono`` seconds) and what is
to be timed comes back as effects (:class:`~.effects.SetTimer`,
:class:`~.effects.AskBot`) for the table's shell to carry out (:mod:`.shell`).

**The Guard's pause** (docs/rules.md §10, SECURITY.md).  The other seats do not
see who decides 明保/暗保, so no answer may come at a moment that tells how it was
made: the decision lasts exactly ``pause`` (its time limit, :meth:`Turns.time_limit`)
and every answer — the Guard's own, a bot's, 托管's, a timeout's — is shown when it
ends.  An answer made before is *held*: checked, kept, and applied when the pause
ends; until then nothing is sent.

>>> from baohuang.server.table.effects import Instant
>>> turns = Turns(Timing(pause=3.0, timeout=20.0))
>>> turns.begin((0, 4), Instant(0.0, 0.0), deciding_guard=True)
>>> turns.guard_shown_at, turns.answer_at(0.0, 0.5, limit=3.0)   # 托管 waits for the pause
(3.0, 3.0)
>>> turns.begin((0, 5), Instant(0.0, 0.0), deciding_guard=False, fresh=True)
>>> turns.guard_shown_at, turns.answer_at(0.0, 0.5, limit=20.0)
(None, 0.5)

托管's answer is timed once a turn: asked again later (a reconnect, a toggle), it is
still due when it first was — and never after the turn's own time runs out.

>>> turns.answer_at(0.4, 0.5, limit=20.0), turns.answer_at(0.4, 600.0, limit=20.0)
(0.5, 0.5)
>>> turns.begin((0, 6), Instant(0.4, 0.4), deciding_guard=False)
>>> turns.answer_at(0.4, 600.0, limit=20.0)
20.4

An action that does not concern the seat deciding — a seat leaving the game (逃跑) —
moves the table's version but not the decision's clock: the deadline shown stays, and
so does the moment a held answer shows (a clock restarted by it would tell, while
the Guard decides, whether he had answered yet).

>>> turns.begin((0, 7), Instant(1.0, 1.0), deciding_guard=False, same=True)
>>> turns.started, turns.decision
(0.4, (0, 6))

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

import heapq
import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from ...bots import Bot
from ...bots.levels import think_time
from ...engine.actions import Action, ActionKind
from ...engine.game import Game
from ...engine.state import IllegalAction, Stage
from .effects import (
    AskBot,
    AwayOver,
    CancelTimer,
    HostedMove,
    Instant,
    Ring,
    SetTimer,
    ShowHeld,
    TimedOut,
    TimerName,
    TimingEffect,
    Token,
)
from .seats import Seat

__all__ = ["THINK_COVER", "AwayWatch", "Held", "Timing", "Turns", "TurnsMark", "answer_delay"]

#: a decision made before the Guard's pause ended: (seat, action, source)
Held = tuple[int, Action, str]
#: a :class:`Turns`' decision clock, kept while a move's write is in flight
TurnsMark = tuple[Token | None, Token | None, float, float, float | None, Held | None,
                  Token | None, float | None]

#: a server bot's answer shows no sooner than this many times its think time after its
#: decision began (and ``bot_delay`` more): its thinking, however long it is in the role
#: it plays, ends before (the expert level: 0.8 s of search, answers after 1.0 s)
THINK_COVER: Final = 1.25


@dataclass(frozen=True, slots=True)
class Timing:
    """A table's times, seconds: the Guard's ``pause`` (0: none), a decision's
    ``timeout``, a player's away ``grace``, 托管's ``hosted_delay``, a bot's
    ``bot_delay``, and the table's ``seed`` (its bots' answer times are drawn from it)."""

    pause: float
    timeout: float
    grace: float = 60.0
    hosted_delay: float = 0.0
    bot_delay: float = 0.0
    seed: int = 0


def answer_delay(timing: Timing, index: int, decision: Token | None, seat: int,
                 player: Bot | None) -> float:
    """How long after its decision began a server bot's answer shows: drawn uniformly
    from ``[bot_delay, 2 * bot_delay]`` plus :data:`THINK_COVER` times the bot's think
    time, by a generator seeded with the table's seed, the game, the decision and the
    seat — public facts only, so the same whatever the bot's role (and at two tables of
    one seed, the same at both).

    >>> from baohuang.bots import make_bot
    >>> timing = Timing(pause=6.0, timeout=20.0, bot_delay=0.6, seed=5)
    >>> normal = answer_delay(timing, 0, (0, 9), 2, make_bot("normal", 2))
    >>> expert = answer_delay(timing, 0, (0, 9), 2, make_bot("expert", 2))
    >>> 0.6 <= normal <= 1.2, 1.6 <= expert <= 2.2
    (True, True)
    >>> normal == answer_delay(timing, 0, (0, 9), 2, None)
    True
    """
    draw = random.Random(f"bot-answer/{timing.seed}/{index}/{decision}/{seat}").random()
    return timing.bot_delay * (1.0 + draw) + THINK_COVER * think_time(player)


class Turns:
    """A table's decision clock and what it times (pure: told the time, it answers
    with effects)."""

    def __init__(self, timing: Timing) -> None:
        self.timing = timing
        self.pause = timing.pause
        self.turn: Token | None = None
        #: the turn at which the decision awaited now began (an action that did not
        #: concern it moves :attr:`turn` only)
        self.decision: Token | None = None
        #: when the decision awaited now began (clock time), and the same instant by the
        #: wall clock, from which the deadline shown is counted
        self.started = 0.0
        self.started_at = 0.0
        #: when the Guard's decision began (``None``: the Guard is not deciding)
        self.guard_since: float | None = None
        self.held: Held | None = None
        #: the turn a server bot was last asked to decide (it is asked once a turn)
        self.asked: Token | None = None
        #: when 托管 answers the decision awaited now, once it was first asked
        self._answer_due: float | None = None

    def begin(self, token: Token, now: Instant, *, deciding_guard: bool,
              fresh: bool = False, same: bool = False) -> None:
        """The decision awaited at ``token`` (a new one if the token changed, or
        ``fresh``; ``same``: the one awaited before, although the token changed — the
        action that changed it did not concern the seat deciding); ``deciding_guard``:
        the Guard decides 明保/暗保 now."""
        if same and self.turn is not None:
            self.turn = token
        elif fresh or token != self.turn:
            self.turn = self.decision = token
            self.started, self.started_at = now.mono, now.wall
            self._answer_due = None
        if not deciding_guard:
            self.guard_since, self.held = None, None
        elif self.guard_since is None:
            self.guard_since = self.started

    def mark(self) -> TurnsMark:
        """The decision clock as it is now, to :meth:`restore` if the move about to be
        made is taken back (its write failed)."""
        return (self.turn, self.decision, self.started, self.started_at, self.guard_since,
                self.held, self.asked, self._answer_due)

    def restore(self, mark: TurnsMark) -> None:
        """The decision clock as it was at :meth:`mark`."""
        (self.turn, self.decision, self.started, self.started_at, self.guard_since,
         self.held, self.asked, self._answer_due) = mark

    def postpone(self, by: float) -> None:
        """The decision awaited now begins ``by`` seconds later than it was told (the
        table paused before anyone heard of it): its time, 托管's answer and the
        Guard's pause all count from then."""
        self.started += by
        self.started_at += by
        if self._answer_due is not None:
            self._answer_due += by
        if self.guard_since is not None:
            self.guard_since += by

    def begin_game(self, game: Game, token: Token, now: Instant, *, fresh: bool = False,
                   same: bool = False) -> None:
        """:meth:`begin` the decision ``game`` awaits at ``token``."""
        deciding = not game.is_over and game.stage is Stage.GUARD
        self.begin(token, now, deciding_guard=deciding, fresh=fresh, same=same)

    def elapsed(self, now: float) -> float:
        return now - self.started

    @property
    def guard_shown_at(self) -> float | None:
        """When the Guard's answer may be shown (``None``: the Guard is not deciding)."""
        return None if self.guard_since is None else self.guard_since + self.pause

    def too_early(self, now: float) -> bool:
        """Whether an answer made at ``now`` must be held (the Guard's pause is on)."""
        shown = self.guard_shown_at
        return shown is not None and now < shown - 1e-3

    def hold(self, game: Game | None, seat: int, action: Action, source: str,
             now: float) -> bool:
        """Whether ``seat``'s decision made at ``now`` — by its player, bot, 托管 or a
        timeout — is an answer to the Guard's decision given before the pause ends:
        checked and held (:attr:`held`, shown by the timer at the pause's end); raises
        IllegalAction if it is not legal or an answer is held already.  False: it is
        applied now (a seat leaving is never held: it does not answer the decision)."""
        if game is None or game.stage is not Stage.GUARD or action.kind is ActionKind.LEAVE \
                or not self.too_early(now):
            return False
        if self.held is not None:
            raise IllegalAction("your answer is given; it is shown when the decision's "
                                "pause ends")
        if action not in game.legal_actions():
            raise IllegalAction(f"{action} is not allowed now")
        self.held = (seat, action, source)
        return True

    def answer_at(self, now: float, delay: float, limit: float) -> float:
        """When 托管 answers the decision awaited now: ``delay`` after it was first asked
        to this turn (asking again moves nothing: a reconnect or a 托管 toggle gives no
        new time), no later than the turn's time ``limit`` runs out, and not before the
        Guard's pause ends."""
        if self._answer_due is None:
            self._answer_due = now + delay
        due = min(self._answer_due, max(now, self.started + limit))
        shown = self.guard_shown_at
        return due if shown is None else max(due, shown)

    # -- what is timed ----------------------------------------------------------------------
    def time_limit(self, game: Game | None) -> float:
        """How long the decision awaited now lasts: the table's think time — but the
        Guard's 明保/暗保 lasts exactly the Guard's pause (when there is one), so that his
        answer, however given, always shows at the same moment (docs/rules.md §10)."""
        if self.pause > 0 and game is not None and game.stage is Stage.GUARD:
            return self.pause
        return self.timing.timeout

    def deadline(self, game: Game | None, seats: Sequence[Seat | None], *, playing: bool,
                 now: float) -> float | None:
        """When the decision awaited now times out, by the wall clock (``None``: nobody
        is waited for)."""
        if game is None or game.is_over or game.to_act is None or not playing:
            return None
        seat = seats[game.to_act]
        if game.stage is not Stage.GUARD and (
                seat is None or seat.is_bot or seat.auto(self.timing.grace, now)):
            return None
        # (the same instant however late it is asked for, to the last digit: a decision
        # overdue — its timer not yet handled on a busy server — shows a deadline past,
        # not a new one)
        return self.started_at + self.time_limit(game)

    def plan(self, game: Game | None, seats: Sequence[Seat | None], token: Token, *,
             playing: bool, now: Instant) -> list[TimingEffect]:
        """What happens next at the turn ``token``: a bot is asked, 托管 answers, a held
        answer to the Guard's decision is shown, or the turn's timer runs out."""
        off: list[TimingEffect] = [CancelTimer(TimerName.TURN)]
        if not playing or game is None or game.is_over or game.to_act is None:
            return off
        self.begin_game(game, token, now)
        seat_index = game.to_act
        seat = seats[seat_index]
        assert seat is not None
        shown_at = self.guard_shown_at
        if self.held is not None and shown_at is not None:
            return [SetTimer(TimerName.TURN, shown_at, token)]
        if seat.is_bot:
            if self.asked == token or seat.player is None:
                return off
            self.asked = token
            # (the time its answer shows is set before it thinks)
            due = self.started + answer_delay(self.timing, token[0], self.decision,
                                              seat_index, seat.player)
            return [off[0], AskBot(token, seat_index, max(due, now.mono),
                                   game.view(seat_index), tuple(game.legal_actions()))]
        grace, mono = self.timing.grace, now.mono
        if seat.auto(grace, mono):
            due = self.answer_at(mono, self.timing.hosted_delay, self.time_limit(game))
            return [SetTimer(TimerName.TURN, due, token)]
        due = max(mono, self.started + self.time_limit(game))
        if seat.away_since is not None:
            due = min(due, max(mono, seat.away_since + grace))
        return [SetTimer(TimerName.TURN, due, token)]

    def ring(self, game: Game | None, seats: Sequence[Seat | None], token: Token,
             current: Token, now: float) -> Ring | None:
        """What the turn's timer, set for ``token``, means at ``now`` (``current``: the
        table's turn; nothing if that turn has passed)."""
        if game is None or game.is_over or token != current or game.to_act is None:
            return None
        held = self.held
        if held is not None:                   # the Guard's pause is over: show the answer
            self.held = None
            return ShowHeld(*held)
        seat_index = game.to_act
        seat = seats[seat_index]
        if seat is None or seat.is_bot:
            return None
        if seat.auto(self.timing.grace, now):
            takeover = not (seat.hosted or seat.left or seat.away_hosted)
            if takeover:
                # (on 托管 because away: 托管 takes over his first decision since he went)
                seat.away_hosted = True
            return HostedMove(seat_index, takeover)
        if self.elapsed(now) >= self.time_limit(game) - 1e-3:
            return TimedOut(seat_index, guard=game.stage is Stage.GUARD)
        # the away grace ran out: 托管 takes over, and everybody is shown it once
        return AwayOver()


class AwayWatch:
    """The ends of the away graces still to come: at each, everyone is shown the seats
    then on 托管 (the same moment whoever went away and whatever his role), one timer
    (:data:`~.effects.TimerName.AWAY`) ringing at the first.

    >>> watch = AwayWatch()
    >>> [effect.due for effect in watch.watch(70.0) + watch.watch(60.0)]
    [70.0, 60.0]
    >>> watch.rang(60.0)
    [SetTimer(name=<TimerName.AWAY: 'away'>, due=70.0, token=(0, 0))]
    >>> watch.rang(70.0)
    []
    """

    __slots__ = ("_ends",)

    def __init__(self) -> None:
        self._ends: list[float] = []

    def watch(self, end: float) -> list[TimingEffect]:
        """A seat's grace ends at ``end``: the timer rings at the first end to come."""
        heapq.heappush(self._ends, end)
        return [SetTimer(TimerName.AWAY, self._ends[0], (0, 0))]

    def rang(self, now: float) -> list[TimingEffect]:
        """The timer rang at ``now``: every end come is done; the next one is timed."""
        while self._ends and self._ends[0] <= now:
            heapq.heappop(self._ends)
        return [SetTimer(TimerName.AWAY, self._ends[0], (0, 0))] if self._ends else []
