"""The table's pure logic on a hand-moved clock: no event loop, socket or database.

Each test tells the table's timing (:class:`~baohuang.server.table.turns.Turns`) the
time as a test moves it and reads the effects it answers with: when the turn's timer
rings, when a bot is asked and when its answer shows, what a ring means.  A move is
decided the same way (:meth:`~baohuang.server.table.tables.Table.move`): its effects
are read, none carried out — the table's storage is never opened."""

from __future__ import annotations

from itertools import pairwise
from typing import Any, Literal

import pytest

from baohuang.bots import hosted_action, make_bot
from baohuang.engine.actions import Action
from baohuang.engine.game import Game
from baohuang.engine.rules import RuleSet
from baohuang.engine.state import IllegalAction, Stage
from baohuang.server.config import ServerConfig
from baohuang.server.db.storage import Storage, UserRecord, make_engine
from baohuang.server.table import seating
from baohuang.server.table.clock import ManualClock
from baohuang.server.table.dealing import new_match
from baohuang.server.table.effects import (
    AppendAction,
    AskBot,
    AwayOver,
    CancelTimer,
    Effect,
    FinishGame,
    HostedMove,
    Instant,
    Persist,
    Refuse,
    SaveSeats,
    Send,
    SendEach,
    SendTable,
    SetTimer,
    ShowHeld,
    StoreFailed,
    TimedOut,
    TimerName,
)
from baohuang.server.table.expiry import Sweep, idle_since, sweep
from baohuang.server.table.outage import RETRY_FIRST, RETRY_MAX, Retries
from baohuang.server.table.readiness import Readiness
from baohuang.server.table.seats import Seat
from baohuang.server.table.settings import Settings
from baohuang.server.table.tables import Table
from baohuang.server.table.turns import THINK_COVER, AwayWatch, Timing, Turns, answer_delay
from baohuang.server.wire.protocol import GameOver, ServerMessage, Update, decode_server

EPOCH = 1_800_000_000.0
TURN = TimerName.TURN


def at(mono: float) -> Instant:
    """The hand-moved clock at ``mono`` seconds (and the wall clock with it)."""
    return Instant(mono, EPOCH + mono)


def people() -> list[Seat | None]:
    return [Seat(name=f"p{i}", user_id=i + 1, away_since=None) for i in range(5)]


class Socket:
    """A player's connection as the table sees it: what it was sent."""

    def __init__(self) -> None:
        self.user: UserRecord | None = None
        self.table: object | None = None
        self.seat: int | None = None
        self.hints = False
        self.sent: list[str] = []

    def send(self, text: str) -> None:
        self.sent.append(text)

    def send_message(self, message: ServerMessage) -> None:
        self.sent.append(repr(message))

    def error(self, code: str, message: str, ref: str | None = None) -> None:
        self.sent.append(code)

    def close(self, code: int, reason: str) -> None:
        self.sent.append(str(code))


def deal(seed: int = 1) -> Game:
    return Game.new(RuleSet(), seed, dealer=0)


def to_the_guard() -> Game:
    """A game whose Guard decides 明保/暗保 now (托管 answering every role before)."""
    for seed in range(1, 200):
        game = deal(seed)
        while not game.is_over and game.stage is not Stage.GUARD \
                and game.stage is not Stage.PLAY:
            seat = game.to_act
            assert seat is not None
            game.apply(hosted_action(game.view(seat), game.legal_actions()))
        if game.stage is Stage.GUARD:
            return game
    raise AssertionError("no deal of the first 200 has a Guard's decision")


def test_a_person_is_timed_out_when_the_turns_time_runs_out() -> None:
    game, seats = deal(), people()
    turns = Turns(Timing(pause=6.0, timeout=20.0, grace=60.0))
    turns.begin_game(game, (0, 0), at(0.0), fresh=True)
    assert turns.plan(game, seats, (0, 0), playing=True, now=at(0.0)) \
        == [SetTimer(TURN, 20.0, (0, 0))]
    assert turns.deadline(game, seats, playing=True, now=3.0) == EPOCH + 20.0
    # (asked again later — a reconnect — the turn's time is where it was)
    assert turns.plan(game, seats, (0, 0), playing=True, now=at(7.5)) \
        == [SetTimer(TURN, 20.0, (0, 0))]
    seat = game.to_act
    assert seat is not None
    assert turns.ring(game, seats, (0, 0), (0, 0), 20.0) == TimedOut(seat, guard=False)
    # a ring for a turn that has passed means nothing
    assert turns.ring(game, seats, (0, 0), (0, 1), 20.0) is None


def test_nothing_is_timed_at_a_table_not_playing() -> None:
    game, seats = deal(), people()
    turns = Turns(Timing(pause=6.0, timeout=20.0))
    assert turns.plan(game, seats, (0, 0), playing=False, now=at(0.0)) \
        == [CancelTimer(TURN)]
    assert turns.deadline(game, seats, playing=False, now=0.0) is None


def test_the_guards_decision_lasts_exactly_the_pause_and_an_early_answer_is_held() -> None:
    game, seats = to_the_guard(), people()
    turns = Turns(Timing(pause=6.0, timeout=20.0))
    began = 100.0
    turns.begin_game(game, (0, 9), at(began), fresh=True)
    # the pause, not the timeout, times the decision, and every seat is shown its end
    assert turns.plan(game, seats, (0, 9), playing=True, now=at(began)) \
        == [SetTimer(TURN, began + 6.0, (0, 9))]
    assert turns.deadline(game, seats, playing=True, now=began) == EPOCH + began + 6.0
    assert turns.too_early(began + 0.2) and turns.too_early(began + 5.99)
    assert not turns.too_early(began + 6.0)
    guard = game.to_act
    assert guard is not None
    answer = game.legal_actions()[0]
    assert turns.hold(game, guard, answer, "player", began + 0.2)     # checked and held
    assert turns.plan(game, seats, (0, 9), playing=True, now=at(began + 0.2)) \
        == [SetTimer(TURN, began + 6.0, (0, 9))]
    with pytest.raises(IllegalAction):                        # one answer only
        turns.hold(game, guard, game.legal_actions()[-1], "player", began + 1.0)
    assert turns.ring(game, seats, (0, 9), (0, 9), began + 6.0) \
        == ShowHeld(guard, answer, "player")
    assert turns.held is None


@pytest.mark.parametrize("source", ["player", "bot", "hosted", "timeout"])
def test_every_answer_to_the_guards_decision_shows_when_the_pause_ends(source: str) -> None:
    game, seats = to_the_guard(), people()
    guard = game.to_act
    assert guard is not None
    turns = Turns(Timing(pause=6.0, timeout=20.0))
    turns.begin_game(game, (0, 9), at(50.0), fresh=True)
    answer = game.legal_actions()[-1]
    for early in (50.0, 52.5, 55.99):
        fresh = Turns(Timing(pause=6.0, timeout=20.0))
        fresh.begin_game(game, (0, 9), at(50.0), fresh=True)
        assert fresh.hold(game, guard, answer, source, early)
        assert fresh.plan(game, seats, (0, 9), playing=True, now=at(early)) \
            == [SetTimer(TURN, 56.0, (0, 9))]
        assert fresh.ring(game, seats, (0, 9), (0, 9), 56.0) == ShowHeld(guard, answer, source)
    # at the pause's end, an answer is applied at once; an illegal one is refused early
    assert not turns.hold(game, guard, answer, source, 56.0)
    with pytest.raises(IllegalAction):
        turns.hold(game, guard, Action.read("pass"), source, 51.0)
    assert turns.held is None


def test_hosted_answers_the_guards_decision_when_the_pause_ends() -> None:
    game, seats = to_the_guard(), people()
    guard = game.to_act
    assert guard is not None
    seat = seats[guard]
    assert seat is not None
    seat.put_on_hosted()
    turns = Turns(Timing(pause=6.0, timeout=20.0, hosted_delay=0.5))
    turns.begin_game(game, (0, 9), at(10.0), fresh=True)
    assert turns.plan(game, seats, (0, 9), playing=True, now=at(10.0)) \
        == [SetTimer(TURN, 16.0, (0, 9))]
    # a timeout in the Guard's decision: 托管 only answers it (no seat seen on 托管 after)
    seat.hosted = False
    assert turns.ring(game, seats, (0, 9), (0, 9), 16.0) == TimedOut(guard, guard=True)


def test_hosted_answers_once_its_delay_after_it_was_first_asked_each_turn() -> None:
    game, seats = deal(), people()
    seat_index = game.to_act
    assert seat_index is not None
    seat = seats[seat_index]
    assert seat is not None
    seat.put_on_hosted()
    turns = Turns(Timing(pause=6.0, timeout=20.0, hosted_delay=0.5))
    turns.begin_game(game, (0, 0), at(1.0), fresh=True)
    assert turns.plan(game, seats, (0, 0), playing=True, now=at(1.0)) \
        == [SetTimer(TURN, 1.5, (0, 0))]
    # toggled off and on again, or a reconnect: no new time
    assert turns.plan(game, seats, (0, 0), playing=True, now=at(1.4)) \
        == [SetTimer(TURN, 1.5, (0, 0))]
    assert turns.deadline(game, seats, playing=True, now=1.4) is None
    assert turns.ring(game, seats, (0, 0), (0, 0), 1.5) == HostedMove(seat_index, False)


def test_an_away_seat_is_taken_over_by_hosted_once_its_grace_runs_out() -> None:
    game, seats = deal(), people()
    seat_index = game.to_act
    assert seat_index is not None
    seat = seats[seat_index]
    assert seat is not None
    turns = Turns(Timing(pause=6.0, timeout=20.0, grace=5.0, hosted_delay=0.5))
    turns.begin_game(game, (0, 0), at(0.0), fresh=True)
    seat.away_since = 2.0                               # (he disconnects at 2 s)
    assert turns.plan(game, seats, (0, 0), playing=True, now=at(2.0)) \
        == [SetTimer(TURN, 7.0, (0, 0))]
    assert turns.ring(game, seats, (0, 0), (0, 0), 7.0) == HostedMove(seat_index, True)
    assert seat.away_hosted          # (counted once an absence)
    assert turns.ring(game, seats, (0, 0), (0, 0), 7.5) == HostedMove(seat_index, False)


def test_another_seats_grace_ending_first_is_told_and_the_turn_timed_again() -> None:
    game, seats = deal(), people()
    seat_index = game.to_act
    assert seat_index is not None
    turns = Turns(Timing(pause=6.0, timeout=20.0, grace=5.0))
    turns.begin_game(game, (0, 0), at(0.0), fresh=True)
    # (the seat deciding is connected; the timer rang for another's grace)
    assert turns.ring(game, seats, (0, 0), (0, 0), 5.0) == AwayOver()


def test_a_bot_is_asked_once_a_turn_its_answer_due_at_a_time_drawn_from_public_facts() -> None:
    game = deal(3)
    seat_index = game.to_act
    assert seat_index is not None
    seats = people()
    seats[seat_index] = Seat.for_bot("expert", 7)
    timing = Timing(pause=6.0, timeout=20.0, bot_delay=0.6, seed=42)
    turns = Turns(timing)
    turns.begin_game(game, (0, 0), at(3.0), fresh=True)
    effects = turns.plan(game, seats, (0, 0), playing=True, now=at(3.0))
    assert effects[0] == CancelTimer(TURN)
    ask = effects[1]
    assert isinstance(ask, AskBot) and ask.token == (0, 0) and ask.seat == seat_index
    assert ask.legal == tuple(game.legal_actions())
    delay = answer_delay(timing, 0, (0, 0), seat_index, make_bot("expert", 1))
    assert ask.due == 3.0 + delay >= 3.0 + 0.6 + THINK_COVER * 0.8
    # asked again in the same turn (a seat joins, a toggle): no second ask
    assert turns.plan(game, seats, (0, 0), playing=True, now=at(3.5)) == [CancelTimer(TURN)]
    # the bot's seat and level, not its role, draw the time: a rebel's and an Emperor's
    # answer show alike
    assert delay == answer_delay(timing, 0, (0, 0), seat_index, Seat.for_bot("expert", 9)
                                 .player)


def test_a_seat_leaving_keeps_the_decisions_clock_and_deadline() -> None:
    game, seats = deal(), people()
    turns = Turns(Timing(pause=6.0, timeout=20.0))
    turns.begin_game(game, (0, 0), at(0.0), fresh=True)
    turns.begin_game(game, (0, 1), at(4.0), same=True)      # (逃跑: not the decision)
    assert turns.deadline(game, seats, playing=True, now=4.0) == EPOCH + 20.0
    assert turns.plan(game, seats, (0, 1), playing=True, now=at(4.0)) \
        == [SetTimer(TURN, 20.0, (0, 1))]
    turns.begin_game(game, (0, 2), at(5.0), fresh=True)      # a move: a new decision
    assert turns.deadline(game, seats, playing=True, now=5.0) == EPOCH + 25.0


def test_a_write_out_of_reach_is_tried_again_later_each_time_and_told_once() -> None:
    retries = Retries()
    now, told, tries = 50.0, [], [50.0]
    for _ in range(6):                      # the database out of reach six times
        pause, due = retries.failed(now)
        told += [True] if pause else []
        tries.append(due)
        now = due
    assert told == [True]                   # the clients are told once the table pauses
    gaps = [b - a for a, b in pairwise(tries)]
    assert gaps == [RETRY_FIRST, 0.5, 1.0, RETRY_MAX, RETRY_MAX, RETRY_MAX]
    assert retries.written() is True        # ... and once it goes on
    assert retries.failed(now) == (True, now + RETRY_FIRST)     # a new outage: anew


def test_a_table_nobody_plays_at_is_dissolved_once_idle_for_its_time() -> None:
    seats = people()
    for seat in seats[1:]:
        assert seat is not None
        seat.away_since = 40.0 + (seat.user_id or 0)       # (the last goes away at 45 s)
    first = seats[0]
    assert first is not None
    first.conn = Socket()
    seats[4] = Seat.for_bot("normal", 4)                     # (a bot counts for nothing)
    assert idle_since(seats, moved_at=50.0) is None          # a player is connected

    def at_(now: float) -> Sweep | None:
        return sweep(status="playing", finished_at=None, connected=False,
                     idle=idle_since(seats, moved_at=30.0), now=now, keep_finished=600.0,
                     table_idle=300.0)
    first.conn, first.away_since = None, 20.0
    assert idle_since(seats, moved_at=30.0) == 44.0          # the last player's leaving
    assert idle_since(seats, moved_at=50.0) == 50.0          # ... or the last move
    assert at_(344.0) is None and at_(344.01) is Sweep.DISSOLVE
    # a finished table is forgotten once kept long enough and nobody is connected
    def finished(now: float, connected: bool) -> Sweep | None:
        return sweep(status="over", finished_at=100.0, connected=connected, idle=44.0,
                     now=now, keep_finished=600.0, table_idle=300.0)
    assert finished(800.0, connected=True) is None
    assert finished(700.0, connected=False) is None
    assert finished(700.5, connected=False) is Sweep.FORGET


def test_between_games_the_next_is_dealt_once_everyone_is_ready_or_the_countdown_ends() -> None:
    seats = people()
    seats[3], seats[4] = Seat.for_bot("normal", 3), Seat.for_bot("normal", 4)
    between = Readiness(next_game_delay=2.0, ready_wait=15.0)
    assert between.ask(seats, 1, now=40.0) \
        == [CancelTimer(TimerName.READY), SetTimer(TimerName.READY, 55.0, (1, 0))]
    assert between.json(at(41.0)) == {"seats": [3, 4], "deadline": EPOCH + 55.0}
    assert between.say(0) and not between.say(0)            # (said once)
    assert not between.everyone(seats)
    assert between.late() == frozenset({1, 2})               # dealt in on 托管 at 55 s
    assert between.say(1) and between.say(2) and between.everyone(seats)
    assert between.end() == [CancelTimer(TimerName.READY)]
    assert between.json(at(42.0)) is None and not between.say(0)


def test_a_table_of_bots_deals_its_next_game_after_the_servers_pause() -> None:
    bots: list[Seat | None] = [Seat.for_bot("normal", i) for i in range(5)]
    between = Readiness(next_game_delay=2.0, ready_wait=None)
    assert between.ask(bots, 3, now=7.0) \
        == [CancelTimer(TimerName.READY), SetTimer(TimerName.NEXT_GAME, 9.0, (3, 0))]
    # without a countdown a table of people waits for them all
    assert Readiness(2.0, None).ask(people(), 3, now=7.0) == [CancelTimer(TimerName.READY)]


def test_everyone_is_shown_each_away_seat_on_hosted_at_the_end_of_its_grace() -> None:
    watch, away = AwayWatch(), TimerName.AWAY
    # three players go away at 10 s, 30 s and 12 s; the grace is 60 s
    assert watch.watch(70.0) == [SetTimer(away, 70.0, (0, 0))]
    assert watch.watch(90.0) == [SetTimer(away, 70.0, (0, 0))]
    assert watch.watch(72.0) == [SetTimer(away, 70.0, (0, 0))]
    assert watch.rang(70.0) == [SetTimer(away, 72.0, (0, 0))]
    assert watch.rang(72.0) == [SetTimer(away, 90.0, (0, 0))]
    assert watch.rang(90.0) == []


# -- the path of a move --------------------------------------------------------------------
def playing_table(seed: int = 4) -> tuple[Table, list[Socket]]:
    """A practice table of five connected people, its first game dealt: the table's
    logic as a move finds it (its storage made but never opened: the core writes
    nothing itself)."""
    settings = Settings("core1", "CORE01", None, "shandong", RuleSet.preset("shandong"),
                        30.0, 1, seed, True, EPOCH, practice=True)
    url = "sqlite+aiosqlite:///:memory:"
    seats = people()
    sockets = []
    for index, seat in enumerate(seats):
        assert seat is not None
        sock = Socket()
        sock.seat = index
        seat.conn = sock
        sockets.append(sock)
    table = Table(settings, seats, Storage(make_engine(url)), ServerConfig(db_url=url),
                  seating=seating.handle, status="playing", clock=ManualClock())
    for sock in sockets:
        sock.table = table
    table.match = new_match(settings.rules, settings.seed, settings.games, practice=True)
    table.game_ids = [11]
    return table, sockets


def hosted_move(table: Table) -> tuple[int, Action]:
    """The seat to act and 托管's choice for it."""
    game = table.game
    assert game is not None and game.to_act is not None
    seat = game.to_act
    return seat, hosted_action(game.view(seat), game.legal_actions())


def first(effects: list[Effect], kind: type) -> int:
    return next(i for i, effect in enumerate(effects) if isinstance(effect, kind))


def test_a_move_is_stored_before_anything_of_it_is_sent() -> None:
    table, sockets = playing_table()
    seat, action = hosted_move(table)
    effects = table.move(seat, action, "player", at(1.0))
    assert effects[0] == Persist(AppendAction(11, 0, seat, action.to_dict(), "player", 1))
    assert not any(sock.sent for sock in sockets)            # decided, nothing done
    sends = [e for e in effects if isinstance(e, SendEach | Send | Refuse)]
    assert sends and all(effects.index(e) > 0 for e in sends)
    each = effects[first(effects, SendEach)]
    assert isinstance(each, SendEach)
    assert each.to == tuple(sockets)                          # one update a seat
    updates = [decode_server(text) for text in each.texts]
    assert all(isinstance(u, Update) and u.version == table.version for u in updates)
    assert isinstance(effects[-1], SetTimer)                  # then what is timed next
    assert effects[-1].token == (0, 1)
    # the next move is stored as the next version of the log
    seat, action = hosted_move(table)
    assert table.move(seat, action, "player", at(2.0))[0] \
        == Persist(AppendAction(11, 1, seat, action.to_dict(), "player", 2))


@pytest.mark.parametrize("why", ["refused", "stopped", "fenced"])
def test_a_move_whose_write_fails_sends_nothing_and_is_taken_back(
        why: Literal["fenced", "refused", "stopped"]) -> None:
    table, _ = playing_table()
    for t in range(3):                                       # (a few moves in)
        table.move(*hosted_move(table), "player", at(float(t)))
    game = table.game
    assert game is not None
    record, version, turn = game.record(), table.version, table.turns.mark()
    seat, action = hosted_move(table)
    effects = table.move(seat, action, "player", at(5.0))
    persist = effects[0]
    assert isinstance(persist, Persist) and table.version == version + 1
    back = table.store_failed(StoreFailed(persist.op, why))
    assert not [e for e in back if isinstance(e, SendEach | Send)]
    game = table.game
    assert game is not None
    assert game.record() == record and table.version == version
    assert (table.moves, table.logged, table.moved_at) == (3, 3, 2.0)
    assert table.turns.mark() == turn                        # the decision's clock too
    # the same move again is the same write, every view sent whole
    again = table.move(seat, action, "player", at(6.0))
    assert again[0] == persist
    each = again[first(again, SendEach)]
    assert isinstance(each, SendEach)
    assert all(len(msgspec_view(text)) > 20 for text in each.texts)


def msgspec_view(text: str) -> dict[str, Any]:
    update = decode_server(text)
    assert isinstance(update, Update)
    return update.view


def test_the_games_result_is_stored_before_game_over_is_sent() -> None:
    table, sockets = playing_table()
    game = table.game
    assert game is not None
    t = 0.0
    while True:
        t += 1.0
        effects = table.move(*hosted_move(table), "hosted", at(t))
        if game.is_over:
            break
        assert not [e for e in effects if isinstance(e, Persist)
                    and isinstance(e.op, FinishGame)]
    stored = [i for i, e in enumerate(effects) if isinstance(e, Persist)]
    assert len(stored) == 2
    action, result = (effects[i] for i in stored)
    assert isinstance(action, Persist) and isinstance(action.op, AppendAction)
    assert isinstance(result, Persist) and isinstance(result.op, FinishGame)
    over = [i for i, e in enumerate(effects) if isinstance(e, Send)
            and isinstance(decode_server(e.text), GameOver)]
    assert len(over) == 1
    assert stored[0] < first(effects, SendEach) < stored[1] < over[0]
    sent = effects[over[0]]
    assert isinstance(sent, Send) and sent.to == tuple(sockets)
    assert result.op.settled.totals == table.totals and table.recorded
    # its write failing takes the settling back: the game is over, not recorded
    totals = list(table.totals)
    table.store_failed(StoreFailed(result.op, "refused"))
    assert not table.recorded and table.last_scored is None
    assert table.status == "playing" and totals != [0] * 5 and table.totals == [0] * 5


def test_a_seat_change_whose_write_fails_is_taken_back_and_its_client_told() -> None:
    settings = Settings("core2", "CORE02", None, "shandong", RuleSet.preset("shandong"),
                        30.0, 1, 3, True, EPOCH)
    url = "sqlite+aiosqlite:///:memory:"
    table = Table(settings, [None] * 5, Storage(make_engine(url)), ServerConfig(db_url=url),
                  seating=seating.handle, clock=ManualClock())
    sock = Socket()
    table.watchers.add(sock)
    sock.table = table
    before = table.seats_before(sock, "sit")
    table.seats[2] = Seat(name="li", user_id=9, conn=sock, away_since=None)
    table.watchers.discard(sock)
    sock.seat = 2
    effects = table.seats_changed(before)
    assert isinstance(effects[0], Persist) and isinstance(effects[0].op, SaveSeats)
    assert effects[0].op.seats[2] == {"name": "li", "user_id": 9, "bot": None}
    [refused] = table.store_failed(StoreFailed(effects[0].op, "refused"))
    assert isinstance(refused, Refuse)
    assert (refused.conn, refused.code, refused.ref) == (sock, "not_stored", "sit")
    assert table.seats == [None] * 5 and sock.seat is None and sock in table.watchers


def test_a_decision_begun_by_a_move_whose_write_paused_starts_once_it_is_written() -> None:
    """The database out of reach for 12 s while a move is stored: nobody heard of the
    move meanwhile, so the next seat's time counts from when it was written (its timer
    and deadline 12 s later), and everyone is sent the table with that deadline."""
    table, _ = playing_table()
    effects = table.move(*hosted_move(table), "player", at(10.0))
    [timer] = [e for e in effects if isinstance(e, SetTimer) and e.name is TURN]
    assert timer.due == 10.0 + 30.0
    game = table.game
    assert game is not None
    assert table.deadline(10.0) == EPOCH + 40.0
    later = table.write_resumed(12.0, 10.0, effects[1:])
    assert [type(e) for e in later[:-1]] == [type(e) for e in effects[1:]]
    assert [e for e in later if isinstance(e, SetTimer)] == [SetTimer(TURN, 52.0, timer.token)]
    assert table.deadline(22.0) == EPOCH + 52.0
    assert isinstance(later[-1], SendTable)
    # a later move's write that paused moves no decision it did not begin
    effects = table.move(*hosted_move(table), "player", at(30.0))
    started = table.turns.mark()
    table.write_resumed(3.0, 31.0, effects[1:])
    assert table.turns.mark() == started
