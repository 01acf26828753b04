"""The Guard's pause and 托管's delay, on a real server whose tables run on clocks the
test moves by hand (docs/rules.md §10, SECURITY.md).

Nobody but the Guard knows who decides 明保/暗保, so the moment the answer shows must
not tell how it was given: the decision lasts exactly ``guard_pause``, and the Guard's
own answer (at once or at the last moment), 托管's (turned on while he decides), a
bot's and a timeout's all show then — a timeout takes 托管's answer without putting the
seat on 托管. 托管's own delay is the same for every role.

Each table has a :class:`ManualClock`: nothing happens on it until the test moves it,
and after every move of the clock or input the test waits until every socket has all
the table sent (a resync, answered in order), so each message is stamped with the
clock time at which the table sent it.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import pytest
from server_support import LOOSE_CONFIG, RESYNCING, Clocks, Raw, guests

from baohuang.bots import hosted_action
from baohuang.client import view_from_dict
from baohuang.server.config import ServerConfig
from baohuang.server.harness import ServerThread
from baohuang.server.table.clock import ManualClock

PAUSE, HOSTED_DELAY, TIMEOUT = 3.0, 0.5, 20.0


class Table:
    """Five seated sockets and a watcher at one table, with its clock."""

    def __init__(self, clock: ManualClock, seats: list[Raw], watcher: Raw,
                 spec: dict[str, Any], tokens: list[str]) -> None:
        self.clock, self.seats, self.watcher = clock, seats, watcher
        #: the table as created, and each seat's session token (to connect again)
        self.spec, self.tokens = spec, tokens
        #: (clock time, message) as each socket received them, in order
        self.log: dict[int | None, list[tuple[float, dict[str, Any]]]] = {
            i: [] for i in [*range(5), None]}
        #: seats whose player left the table or dropped (their sockets are not read)
        self.gone: set[int] = set()

    def raws(self) -> list[tuple[int | None, Raw]]:
        return [*((seat, raw) for seat, raw in enumerate(self.seats) if seat not in self.gone),
                (None, self.watcher)]

    async def quiet(self, sender: int | None = None) -> None:
        """Until every socket has what the table sent so far (stamped with now).

        ``sender``: the seat whose socket sent something last — resynced first, so that
        the table has handled what it sent before any other socket's resync."""
        raws = self.raws()
        if sender is not None:
            raws.sort(key=lambda item: item[0] != sender)
        for seat, raw in raws:
            await raw.send({"type": "resync", "version": None})
            while True:
                message = await raw.recv()
                if message["type"] == "snapshot":
                    break
                self.log[seat].append((self.clock.now(), message))

    async def advance_to(self, when: float) -> None:
        """Move the clock to ``when``, a timer at a time, quiet after each."""
        while True:
            due = self.clock.next_due()
            if due is None or due > when:
                break
            await asyncio.to_thread(self.clock.advance_to, due)
            await self.quiet()
        await asyncio.to_thread(self.clock.advance_to, when)
        await self.quiet()

    async def run(self) -> None:
        """Let the clock run, a timer at a time, until the game is over."""
        while not any(m["type"] == "game_over" for _, m in self.log[None]):
            due = self.clock.next_due()
            assert due is not None, "the table waits for nobody and nothing"
            await self.advance_to(due)

    def deadline(self, seat: int | None) -> float | None:
        """The deadline ``seat``'s socket was last told (by an update or the table)."""
        told = None
        for _, message in self.log[seat]:
            if message["type"] == "update" and "deadline" in message:
                told = message["deadline"]
            elif message["type"] == "table":
                told = message["table"].get("deadline")
        return told

    def stage(self) -> str:
        return str(self.watcher.view["stage"])

    def deciding(self) -> int | None:
        """The seat whose own view says it is to decide now."""
        for seat, raw in enumerate(self.seats):
            view = raw.view
            if view.get("legal_actions") and view.get("to_act") == seat:
                return seat
        return None

    async def reconnect(self, url: str, seat: int) -> None:
        """``seat``'s player comes back on a new connection (the old one is closed)."""
        old = self.seats[seat]
        raw = await Raw.connect(url, self.tokens[seat])
        await raw.send({"type": "join", "table": self.spec["id"]})
        await raw.recv_type("snapshot")
        self.seats[seat] = raw
        await old.close()
        await self.quiet()

    async def act(self, seat: int) -> None:
        view = self.seats[seat].view
        parsed = view_from_dict(view)
        action = hosted_action(parsed, list(parsed.legal_actions))
        await self.seats[seat].send({"type": "act", "action": action.to_dict()})
        await self.quiet(seat)

    def shown_at(self, seat: int | None, stage: str) -> float:
        """When ``seat``'s socket was first shown a view past ``stage``."""
        current, reached = None, False
        for at, message in self.log[seat]:
            if message["type"] in ("update", "snapshot"):
                current = message["view"].get("stage", current)
                reached = reached or current == stage
                if reached and current != stage:
                    return at
        raise AssertionError(f"seat {seat} was never shown the end of {stage}")


async def _table(url: str, clocks: Clocks, seed: int, **spec: Any) -> Table:
    clients = await guests(url, 5, f"s{seed}-")
    spec = await clients[0].create_table(practice=True, seed=seed, timeout=TIMEOUT, **spec)
    watcher = await Raw.connect(url)
    await watcher.send({"type": "join", "table": spec["id"], "as": "watcher"})
    seats = [await Raw.connect(url, client.token) for client in clients]
    table = Table(clocks.tables[spec["id"]], seats, watcher, spec,
                  [str(client.token) for client in clients])
    await watcher.recv_type("table")
    for raw in seats:                      # (the fifth one starts the game)
        await raw.send({"type": "join", "table": spec["id"]})
        await raw.recv_type("table")
    for raw in [*seats, watcher]:          # (the deal)
        await raw.recv_type("snapshot")
    await table.quiet()
    return table


async def _to_the_guard(table: Table) -> int:
    """Take the role phase's decisions before the Guard's, at once; the Guard's seat."""
    while table.stage() != "guard":
        seat = table.deciding()
        assert seat is not None and table.stage() != "play"
        await table.act(seat)
    guard = table.deciding()
    assert guard is not None
    return guard


def _paused_server(tmp_path_factory: pytest.TempPathFactory, name: str,
                   away_grace: float) -> Iterator[tuple[str, Clocks]]:
    """A server on hand-moved clocks with the Guard's pause ``PAUSE``."""
    clocks = Clocks()
    path = tmp_path_factory.mktemp(name) / "bh.db"
    config = ServerConfig(db_url=f"sqlite+aiosqlite:///{path}", hosted_delay=HOSTED_DELAY,
                          bot_delay=0.0, guard_pause=PAUSE, next_game_delay=600.0,
                          away_grace=away_grace, **LOOSE_CONFIG, **RESYNCING)
    with ServerThread(config, clocks=clocks) as running:
        yield running.url, clocks


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Clocks]]:
    yield from _paused_server(tmp_path_factory, "pause", 600.0)


@pytest.mark.parametrize("way", ["at_once", "hosted", "last_moment", "timeout"])
def test_the_guards_answer_shows_at_the_same_moment_however_it_was_given(
        server: tuple[str, Clocks], way: str) -> None:
    url, clocks = server

    async def main() -> tuple[Table, int, float, set[float | None]]:
        table = await _table(url, clocks, seed=7)
        guard = await _to_the_guard(table)
        began = table.clock.now()
        if way == "at_once":
            await table.act(guard)
        elif way == "hosted":
            await table.seats[guard].send({"type": "hosted", "on": True})
            await table.quiet(guard)
        # (nothing shows before the pause ends)
        await table.advance_to(began + PAUSE - 0.01)
        assert table.stage() == "guard", "an answer showed before the Guard's pause ended"
        deadlines = {table.deadline(seat) for seat, _ in table.raws()}
        if way == "last_moment":
            await table.act(guard)
        while table.stage() == "guard":
            due = table.clock.next_due()
            assert due is not None
            await table.advance_to(due)
        return table, guard, began, deadlines

    table, guard, began, deadlines = asyncio.run(main())
    for seat in [*range(5), None]:
        if seat != guard:
            assert table.shown_at(seat, "guard") == began + PAUSE, (seat, way)
    assert len(deadlines) == 1 and None not in deadlines    # (the same for everyone)
    # a timeout answers without 托管 (a seat seen on 托管 after it would be the Guard);
    # 托管 turned on by the Guard stays on, as he chose
    seats = next(m for _, m in reversed(table.log[None]) if m["type"] == "table")
    assert seats["table"]["seats"][guard]["hosted"] is (way == "hosted")


def test_hosted_answers_every_role_after_the_same_delay(server: tuple[str, Clocks]) -> None:
    """All five on 托管 from the start: every decision comes ``hosted_delay`` after the
    one before, whoever's it is — the Guard's answer only waits for the pause."""
    url, clocks = server

    async def main() -> Table:
        table = await _table(url, clocks, seed=11)
        for seat, raw in enumerate(table.seats):
            await raw.send({"type": "hosted", "on": True})
            await table.quiet(seat)
        await table.run()
        return table

    table = asyncio.run(main())
    over = next(m for _, m in table.log[None] if m["type"] == "game_over")
    roles = {over["result"]["emperor"]: "emperor", over["result"]["guard"]: "guard"}
    delays: dict[str, set[float]] = {}
    updates = [(at, m) for at, m in table.log[None] if m["type"] == "update"]
    previous = 0.0                         # (the deal: everyone turned 托管 on at once)
    for at, message in updates:
        events = message["events"]
        kinds = {e["type"] for e in events}
        if "guard" in kinds:
            assert round(at - previous, 6) == PAUSE
        moves = [e for e in events if e["type"] in ("play", "pass")]
        if moves:
            role = roles.get(moves[0]["seat"], "rebel")
            delays.setdefault(role, set()).add(round(at - previous, 6))
        previous = at
    assert delays.keys() == {"emperor", "guard", "rebel"}, delays
    assert all(d == {HOSTED_DELAY} for d in delays.values()), delays


def test_the_guards_answer_after_his_time_is_refused(server: tuple[str, Clocks]) -> None:
    """The Guard's time is the pause: an answer he sends once it is over finds the
    decision taken (托管's answer) and changes nothing."""
    url, clocks = server

    async def main() -> tuple[str, str, dict[str, Any]]:
        table = await _table(url, clocks, seed=7)
        guard = await _to_the_guard(table)
        late = dict(table.seats[guard].view)
        await table.advance_to(table.clock.now() + PAUSE)
        after = table.stage()
        parsed = view_from_dict(late)
        action = hosted_action(parsed, list(parsed.legal_actions))
        await table.seats[guard].send({"type": "act", "action": action.to_dict()})
        refused = await table.seats[guard].recv_type("error")
        await table.quiet(guard)
        return after, table.stage(), refused

    after, now, refused = asyncio.run(main())
    assert after != "guard" and now == after
    assert refused["code"] in ("illegal", "not_your_turn", "stale"), refused


def test_reconnecting_never_delays_the_hosted_answer(server: tuple[str, Clocks]) -> None:
    """A seat on 托管 whose player reconnects again and again before 托管 answers: the
    answer still comes ``hosted_delay`` after 托管 was turned on (each reconnect used to
    time it anew, so a player could hold the table up by reconnecting)."""
    url, clocks = server

    async def main() -> tuple[Table, int, float]:
        table = await _table(url, clocks, seed=3)
        seat = table.deciding()
        assert seat is not None
        await table.seats[seat].send({"type": "hosted", "on": True})
        await table.quiet(seat)
        on_at = table.clock.now()
        for step in (1, 2, 3, 4):
            await table.advance_to(on_at + HOSTED_DELAY * step / 5)
            await table.reconnect(url, seat)
            assert table.deciding() == seat          # (托管 has not answered yet)
        await table.advance_to(on_at + HOSTED_DELAY)
        return table, seat, on_at

    table, seat, on_at = asyncio.run(main())
    moved = [at for at, m in table.log[None]
             if m["type"] == "update" and any(e.get("seat") == seat for e in m["events"])]
    assert moved and moved[0] == on_at + HOSTED_DELAY, (moved, on_at)


async def _gone(table: Table, seat: int, event: str) -> None:
    """``seat``'s player leaves the table (逃跑) or drops (his socket closes); until
    every socket left has heard of it."""
    raw = table.seats[seat]
    table.gone.add(seat)
    if event == "leave":
        await raw.send({"type": "leave"})
        await raw.recv_type("left")
        await raw.close()
    else:
        await raw.close()
    while True:
        await table.quiet()
        shown = [m for _, m in table.log[None] if m["type"] == "table"]
        if shown and not shown[-1]["table"]["seats"][seat]["connected"]:
            return


def _told(table: Table, seat: int | None, since: float,
          mark: dict[int | None, int]) -> list[tuple[float, str, Any]]:
    """What ``seat``'s socket was sent after its first ``mark[seat]`` messages: when
    (from ``since``), the message's type and the deadline it told, if any."""
    out = []
    for at, message in table.log[seat][mark[seat]:]:
        deadline = message.get("deadline", message.get("table", {}).get("deadline"))
        out.append((round(at - since, 6), message["type"], deadline))
    return out


def _emperor(table: Table) -> int:
    emperor = table.watcher.view.get("emperor")
    assert isinstance(emperor, int)
    return emperor


@pytest.mark.parametrize("event", ["leave", "drop"])
def test_a_seat_going_while_the_guard_decides_moves_no_clock(
        server: tuple[str, Clocks], event: str) -> None:
    """A seat that leaves (逃跑, at a table whose game plays on) or drops while the Guard
    decides is no part of the decision: the deadline everybody was shown stays, and the
    answer shows when the pause ends — whether the Guard has answered already or not.
    (Leaving used to restart the decision's clock: the deadline moved, and a Guard who
    had not answered yet answered a second later than one who had.)"""
    url, clocks = server

    async def one(answered: bool) -> tuple[float, float, list[tuple[float, str, Any]]]:
        table = await _table(url, clocks, seed=7, options={"leave_ends_game": False})
        guard = await _to_the_guard(table)
        emperor = _emperor(table)
        began, mark = table.clock.now(), {s: len(log) for s, log in table.log.items()}
        if answered:
            await table.act(guard)
        await table.advance_to(began + 1.0)
        await _gone(table, next(s for s in range(5) if s not in (guard, emperor)), event)
        while table.stage() == "guard":
            due = table.clock.next_due()
            assert due is not None
            await table.advance_to(due)
        return began, table.shown_at(None, "guard"), _told(table, None, began, mark)

    for answered in (False, True):
        began, shown, told = asyncio.run(one(answered))
        deadlines = {d for at, _, d in told if d is not None and at < PAUSE}
        assert deadlines == {ManualClock.EPOCH + began + PAUSE}, (answered, told)
        assert shown == began + PAUSE, (answered, told)
    assert asyncio.run(one(False))[2] == asyncio.run(one(True))[2]


@pytest.fixture(scope="module")
def short_grace(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Clocks]]:
    """A server whose away grace (1 s) is shorter than the Guard's pause (3 s)."""
    yield from _paused_server(tmp_path_factory, "grace", 1.0)


@pytest.mark.parametrize("event", ["leave", "drop"])
def test_the_guard_going_while_he_decides_looks_like_anyone_going(
        short_grace: tuple[str, Clocks], event: str) -> None:
    """While the Guard decides, the Guard's seat dropping or leaving and another seat's
    send the others the same number of messages at the same times with the same
    deadlines — also where the away grace ends within the Guard's pause (the Guard's
    grace ending used to send everybody one more ``table`` message).  Once the answer
    shows, who went is public, and so is what follows."""
    url, clocks = short_grace

    async def one(guard_goes: bool) -> dict[str, list[tuple[float, str, Any]]]:
        table = await _table(url, clocks, seed=7, options={"leave_ends_game": False})
        guard = await _to_the_guard(table)
        emperor = _emperor(table)
        rebels = [s for s in range(5) if s not in (guard, emperor)]
        began, mark = table.clock.now(), {s: len(log) for s, log in table.log.items()}
        # (gone at 0.9 s: 0.9 + 1.0 - 0.9 rounds below 1.0 — the grace ends at the very
        # instant its timer is set for all the same)
        await table.advance_to(began + 0.9)
        await _gone(table, guard if guard_goes else rebels[0], event)
        await table.advance_to(began + PAUSE)
        assert table.stage() != "guard"
        told = {"watcher": _told(table, None, began, mark),
                "emperor": _told(table, emperor, began, mark),
                "rebel": _told(table, rebels[-1], began, mark)}
        # (the next decision's deadline, shown with the answer, is whose turn it is)
        return {key: [(at, kind, deadline if at < PAUSE else None)
                      for at, kind, deadline in seen] for key, seen in told.items()}

    assert asyncio.run(one(True)) == asyncio.run(one(False))
