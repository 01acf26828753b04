"""Indistinguishability (issue 16 point 1, SECURITY.md) against a real server.

Two tables are dealt the same deal but for one swap: the Guard card ``SJ*`` and an
ordinary small joker ``SJ`` change hands between its holder G and another seat X, so
that in deal A G is the hidden Guard and in deal B X is. A small joker plays as any other,
so every hand plays alike in both deals. Five real sockets per table (the same five
accounts at both), and a watcher, are driven in step: every decision is taken by the same
rule from the deciding seat's view (the Guard always 暗保), and between decisions the same
seeded hostile inputs are sent at both tables from the same seats — acting out of turn,
resyncs, 托管 on and off, reconnects — whoever is the Guard.

Every seat that is neither G nor X, and the watcher, must then receive the same messages
in the same order, byte for byte, until the deals differ in public by rule (the Guard card
itself is played), with two allowances: the table's id, code and creation time, and the
deadlines, which are wall-clock instants: each one is compared by when it first appears and
where it is repeated (the server fixes a decision's deadline when it begins, to the last
digit). 托管 answers are compared the same way: where in the stream 托管's move comes
(all timing knobs are the server's configuration; no test step waits on a clock).

The deals are the server's own shuffle of a practice table's seed; only deal B's swap is
put in, by wrapping the table's dealing function in this (in-process) server.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import websockets

from baohuang.client import Client
from baohuang.engine.cards import GUARD_CARD
from baohuang.engine.game import Game
from baohuang.engine.match import Match
from baohuang.engine.rules import RuleSet
from baohuang.server.config import ServerConfig
from baohuang.server.harness import ServerThread
from baohuang.server.table import tables as table_module
from baohuang.server.table.dealing import new_match

#: deals (practice seeds) tried; each is played as far as the two deals stay alike
SEEDS = range(2, 7)
SMALL_JOKER = "SJ"


# -- sockets ----------------------------------------------------------------------------
@dataclass
class Sock:
    """One socket: every text it received, in order, and what its view says now."""

    ws: Any
    texts: list[str] = field(default_factory=list)
    view: dict[str, Any] = field(default_factory=dict)
    at: int = -1                       # the version its view is at
    my_turn: bool = False              # at ``at``, this seat is to decide
    over: bool = False
    seats_shown: list[Any] = field(default_factory=list)     # as the last table message
    counts: dict[str, int] = field(default_factory=dict)
    reader: asyncio.Task[None] | None = None

    @classmethod
    async def open(cls, url: str, token: str | None) -> Sock:
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        ws = await websockets.connect(url.replace("http", "ws", 1) + "/ws",
                                      additional_headers=headers, max_size=None)
        sock = cls(ws)
        sock.reader = asyncio.get_running_loop().create_task(sock._read())
        return sock

    async def _read(self) -> None:
        with contextlib.suppress(websockets.ConnectionClosed):
            async for text in self.ws:
                assert isinstance(text, str)
                message = json.loads(text)
                kind = message["type"]
                self.counts[kind] = self.counts.get(kind, 0) + 1
                if kind != "hello":
                    self.texts.append(text)
                if kind == "snapshot":
                    self.view = dict(message["view"])
                elif kind == "update":
                    self.view.update(message["view"])
                elif kind == "game_over":
                    self.over = True
                elif kind == "table":
                    self.seats_shown = message["table"]["seats"]
                if kind in ("snapshot", "update"):
                    self.at = message["version"]
                    self.my_turn = bool(self.view.get("legal_actions")) and \
                        self.view.get("to_act") == self.view.get("seat")

    async def send(self, message: dict[str, Any]) -> None:
        await self.ws.send(json.dumps(message))

    async def wait(self, kind: str, count: int) -> None:
        """Until ``count`` messages of ``kind`` have come in all."""
        await _until(lambda: self.counts.get(kind, 0) >= count)

    async def close(self) -> None:
        await self.ws.close()
        if self.reader is not None:
            await self.reader


async def _until(condition: Any, limit: float = 60.0) -> None:
    """Wait for ``condition()`` (looking after every message; ``limit`` only ends a
    test that hangs)."""
    loop = asyncio.get_running_loop()
    end = loop.time() + limit
    while not condition():
        assert loop.time() < end, "the server did not answer"
        await asyncio.sleep(0.001)


@dataclass
class Side:
    """One of the two tables: its five seats' sockets (all kept, old ones too), the
    watcher's, and the seats on 托管."""

    url: str
    table: dict[str, Any]
    tokens: list[str]
    seats: dict[int, Sock] = field(default_factory=dict)
    history: dict[int, list[Sock]] = field(default_factory=dict)
    watcher: Sock | None = None
    hosted: set[int] = field(default_factory=set)
    hosted_on: dict[int, int] = field(default_factory=dict)

    def socks(self) -> list[Sock]:
        return [*self.seats.values(), *([self.watcher] if self.watcher else [])]

    def version(self) -> int:
        return max(s.at for s in self.socks())

    def over(self) -> bool:
        return any(s.over for s in self.socks())

    def actor(self) -> int | None:
        """The seat whose person the table waits for now (None: not waiting for one)."""
        top = self.version()
        for seat, sock in self.seats.items():
            if seat not in self.hosted and sock.my_turn and sock.at == top:
                return seat
        return None

    async def settle(self, after: int) -> None:
        """Until the game is over, or waits for a person at a version ≥ ``after``."""
        await _until(lambda: self.over() or (self.version() >= after
                                             and self.actor() is not None))

    async def barrier(self, seat: int) -> None:
        """Until the table has handled everything ``seat``'s socket sent (it answers a
        resync in order)."""
        sock = self.seats[seat]
        count = sock.counts.get("snapshot", 0)
        await sock.send({"type": "resync", "version": None})
        await sock.wait("snapshot", count + 1)

    def stream(self, seat: int | None) -> list[str]:
        socks = [self.watcher] if seat is None and self.watcher else self.history[seat or 0]
        return [text for sock in socks for text in sock.texts]


# -- the decisions ------------------------------------------------------------------------
def choose(view: dict[str, Any]) -> str:
    """The same rule for every seat, blind to its role: accept the crown, 暗保, decline
    everything else; in play the first legal play (in the engine's order) without a
    small joker, else pass, else whatever comes first — so the two deals' hands, alike
    but for one small joker, play alike until a small joker must be played."""
    texts = list(view["legal_actions"])
    for preferred in ("accept", "guard_hidden", "solo_hidden", "decline"):
        if preferred in texts:
            return preferred
    plays = [t for t in texts if t.startswith("play ") and SMALL_JOKER not in t]
    return plays[0] if plays else "pass" if "pass" in texts else texts[0]


# -- dealing ------------------------------------------------------------------------------
def _holders(seed: int) -> tuple[int, int, list[int]] | None:
    """Deal A's Guard card holder G, the Emperor candidate, and the seats X that could
    hold the Guard card instead (an ordinary small joker, neither G nor the candidate)."""
    game = Game.new(RuleSet.preset("shandong"), Match(seed=seed).game_seed(0))
    hands = [[str(c) for c in game.view(s).hand] for s in range(5)]
    guard = next(s for s in range(5) if str(GUARD_CARD) in hands[s])
    emperor = next(s for s in range(5) if "BJ*" in hands[s])
    others = [s for s in range(5) if s not in (guard, emperor) and SMALL_JOKER in hands[s]]
    return (guard, emperor, others) if guard != emperor and others else None


# -- one deal -----------------------------------------------------------------------------
async def _side(url: str, owner: Client, tokens: list[str], seed: int) -> Side:
    table = await owner.create_table(practice=True, seed=seed, timeout=600.0)
    side = Side(url, table, tokens)
    for index, token in enumerate(tokens):
        sock = await Sock.open(url, token)
        await sock.send({"type": "join", "table": table["id"]})
        await sock.wait("table", 1)
        side.seats[index] = sock
        side.history[index] = [sock]
        if index == 0:
            side.watcher = await Sock.open(url, None)
            await side.watcher.send({"type": "join", "table": table["id"], "as": "watcher"})
            await side.watcher.wait("table", 1)
    await _until(lambda: all(s.counts.get("snapshot", 0) for s in side.socks()))
    await side.settle(0)
    return side


async def _act(side: Side, seat: int) -> None:
    sock = side.seats[seat]
    before = side.version()
    await sock.send({"type": "act", "action": choose(sock.view), "version": sock.at})
    await side.settle(before + 1)


async def _hostile(side: Side, kind: str, seat: int) -> None:
    """One hostile or odd input from ``seat`` (the same at both tables), then wait until
    the table has handled it and waits for a person again."""
    sock = side.seats[seat]
    before = side.version()
    if kind == "out_of_turn":
        errors = sock.counts.get("error", 0)
        await sock.send({"type": "act", "action": "pass"})
        await sock.wait("error", errors + 1)
    elif kind == "resync":
        await side.barrier(seat)
    elif kind == "hosted":
        on = seat not in side.hosted
        await sock.send({"type": "hosted", "on": on})
        if on:
            side.hosted.add(seat)
            side.hosted_on[seat] = side.hosted_on.get(seat, 0) + 1
        else:
            side.hosted.discard(seat)
        # (the toggle's own table message, not a resync: 托管 may move at once, and a
        # resync would race with it)
        await _until(lambda: bool(sock.seats_shown[seat]["hosted"]) is on)
    elif kind == "reconnect":
        watcher = side.watcher
        assert watcher is not None
        await sock.close()
        # (the others hear of the disconnect before the seat comes back)
        await _until(lambda: not watcher.seats_shown[seat]["connected"])
        new = await Sock.open(side.url, side.tokens[seat])
        await new.send({"type": "join", "table": side.table["id"]})
        await new.wait("snapshot", 1)
        side.seats[seat] = new
        side.history[seat].append(new)
    await side.settle(before)


def _revealed(one: str, two: str) -> bool:
    """Whether the first message that differs is one by which the rules show the Guard
    to all: the Guard card played, the lead after a player went out passed to his
    teammate (接风, docs/rules.md §7.3), or the game's end (every hand shown)."""
    first, second = json.loads(one), json.loads(two)
    if str(GUARD_CARD) in one + two or first["type"] == "game_over":
        return True
    return first["type"] == second["type"] == "update" and any(
        event.get("type") == "lead" and event.get("reason") == "lead_after_out"
        for event in first["events"])


def _normalized(texts: list[str], side: Side) -> list[str]:
    """The texts with the table's id, code and creation time named, and each deadline
    by the order in which it first appeared."""
    order: dict[str, str] = {}

    def deadline(match: re.Match[str]) -> str:
        return f'"deadline":"D{order.setdefault(match.group(1), str(len(order)))}"'
    out = []
    for text in texts:
        text = text.replace(side.table["id"], "<id>").replace(side.table["code"], "<code>")
        text = re.sub(r'"created":[-0-9.eE+]+', '"created":"<created>"', text)
        out.append(re.sub(r'"deadline":([-0-9.eE+]+)', deadline, text))
    return out


async def _play_pair(url: str, seed: int, swaps: list[tuple[int, int] | None]
                     ) -> tuple[dict[int | None, tuple[list[str], list[str]]], int, int, int]:
    """Play deal ``seed`` at two tables in step; the streams to compare, the number of
    steps, how many hostile inputs were sent and whether the Guard's decision was
    passed."""
    found = _holders(seed)
    assert found is not None
    guard, emperor, others = found
    rng = random.Random(seed)
    other = rng.choice(others)
    owner = Client(url)
    await owner.guest("owner")
    players = []
    for index in range(5):
        client = Client(url)
        await client.guest(f"seat{index}")
        assert client.token is not None
        players.append(client.token)
    swaps.extend([None, (guard, other)])
    a = await _side(url, owner, players, seed)
    b = await _side(url, owner, players, seed)
    steps = hostile = 0
    decided = 0
    while not a.over() and not b.over():
        seat_a, seat_b = a.actor(), b.actor()
        assert seat_a is not None and seat_b is not None
        stage_a, stage_b = a.seats[seat_a].view["stage"], b.seats[seat_b].view["stage"]
        if stage_a == "guard" or stage_b == "guard":
            # the hidden decision: G decides in deal A, X in deal B; one table may have
            # passed it already (its Guard went on 托管, which answered)
            if stage_a == "guard" and stage_b == "guard":
                assert (seat_a, seat_b) == (guard, other)
                if not decided:
                    # 托管 on while the Guard decides: by G, by X or by another seat,
                    # deal by deal (what a seat turns on shows at once unless it is held
                    # back for every seat alike). (Not by G and X one after the other:
                    # 托管 answers for the deciding one at once, so the second toggle
                    # comes before the decision in one deal and after it in the other —
                    # SECURITY.md, not done.)
                    probe = [[guard], [other], [other], [guard], [emperor]][seed % 5]
                    for seat in probe:
                        for side in (a, b):
                            await _hostile(side, "hosted", seat)
                        hostile += 1
                    decided += 1
                    continue
            decided += 1
        elif seat_a != seat_b:
            # the deals differ in public from here, by rule: 接风 went to the teammate of
            # a player who went out (the stream shows it: see _revealed)
            break
        choice = rng.random()
        if choice < 0.25 and not (stage_a == "guard") ^ (stage_b == "guard"):
            kind = rng.choice(["out_of_turn", "resync", "hosted", "reconnect"])
            seat = rng.choice([s for s in range(5) if s not in (seat_a, seat_b)
                               or kind != "out_of_turn"])
            if kind == "hosted" and seat not in a.hosted and a.hosted_on.get(seat, 0) >= 3:
                kind = "resync"            # (a fourth time would lock it on)
            for side in (a, b):
                await _hostile(side, kind, seat)
            hostile += 1
            steps += 1
            continue
        if stage_a == "guard" and stage_b != "guard":
            await _act(a, seat_a)
            continue
        if stage_b == "guard" and stage_a != "guard":
            await _act(b, seat_b)
            continue
        action_a, action_b = choose(a.seats[seat_a].view), choose(b.seats[seat_b].view)
        if action_a != action_b:
            # the deals differ from here: a small joker is to be played (the Guard card at
            # one table), or the public already differs by rule — 托管 played a Guard
            # card — which the streams must show (see _revealed)
            break
        await _act(a, seat_a)
        await _act(b, seat_b)
        steps += 1
    for side in (a, b):                    # all that was sent has come in
        for seat in side.seats:
            await side.barrier(seat)
        watcher = side.watcher
        assert watcher is not None
        count = watcher.counts.get("snapshot", 0)
        await watcher.send({"type": "resync", "version": None})
        await watcher.wait("snapshot", count + 1)
    streams: dict[int | None, tuple[list[str], list[str]]] = {}
    receivers: list[int | None] = [s for s in range(5) if s not in (guard, other)]
    for receiver in [*receivers, None]:
        streams[receiver] = (_normalized(a.stream(receiver), a),
                             _normalized(b.stream(receiver), b))
    for side in (a, b):
        for sock in side.socks():
            await sock.close()
    return streams, steps, hostile, decided


def test_seats_that_are_not_the_guard_cannot_tell_which_seat_is(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    swaps: list[tuple[int, int] | None] = []
    dealing = new_match

    def deal(*args: Any, **kwargs: Any) -> Match:
        match = dealing(*args, **kwargs)
        swap = swaps.pop(0)
        if swap is not None:           # deal B: the Guard card goes to X, X's SJ to G
            guard, other = swap
            state = match.game._st
            state.take(guard, (GUARD_CARD,))
            state.give(other, (GUARD_CARD,))
            plain = next(c for c in state.hands[other] if str(c) == SMALL_JOKER)
            state.take(other, (plain,))
            state.give(guard, (plain,))
        return match
    monkeypatch.setattr(table_module, "new_match", deal)

    config = ServerConfig(db_url=f"sqlite+aiosqlite:///{tmp_path / 'bh.db'}", bot_delay=0.0,
                          hosted_delay=0.0, next_game_delay=0.0, away_grace=600.0,
                          tables_per_user=100)
    seeds = [s for s in SEEDS if _holders(s) is not None]
    assert len(seeds) >= 5
    totals = {"steps": 0, "hostile": 0, "decided": 0, "messages": 0}
    with ServerThread(config) as server:
        for seed in seeds:
            streams, steps, hostile, decided = asyncio.run(_play_pair(server.url, seed, swaps))
            for seat, (seen_a, seen_b) in streams.items():
                same = 0
                for one, two in zip(seen_a, seen_b, strict=False):
                    if one != two:
                        # (the events of one move come in one update: the reveal may be
                        # a later event of it)
                        assert _revealed(one, two), (seed, seat, same, one, two)
                        break
                    same += 1
                else:
                    assert len(seen_a) == len(seen_b), (seed, seat)
                totals["messages"] += same
            totals["steps"] += steps
            totals["hostile"] += hostile
            totals["decided"] += bool(decided)
    # every deal went through the Guard's hidden decision, with hostile inputs on the way
    assert totals["decided"] == len(seeds), totals
    assert totals["hostile"] >= 5 * len(seeds) and totals["steps"] >= 40 * len(seeds), totals
