"""Indistinguishability (issue 16 point 1, SECURITY.md) against a real server.

Two tables are dealt the same deal but for one swap: the card that makes its holder the
Guard changes hands with a card of the same rank between its holder G and another seat X,
so that in deal A G is the hidden Guard and in deal B X is — in ``card`` mode the Guard
card ``SJ*`` and an ordinary small joker, in ``call`` mode the fourth copy of the card the
Emperor calls and a copy of another suit. Both play alike, so every hand plays alike in
both deals. Five real sockets per table (the same five accounts at both), and a watcher,
are driven in step: every decision is taken by the same rule from the deciding seat's
view (the role phase as 托管 would: the Guard 暗保), and between decisions the same seeded
hostile inputs are sent at both tables from the same seats — acting out of turn, resyncs,
托管 on and off, reconnects — whoever is the Guard. While the Guard decides, 托管 is turned
on by G, by X, by G and X one after the other (either order) or by the Emperor.

Every seat that is neither G nor X, and the watcher, must then receive the same messages
in the same order, byte for byte (but for the table's id, code and creation time), *at the
same times*, until the deals differ in public by rule (the Guard's card is played). Each
table runs on a clock the test moves by hand (:class:`ManualClock`): it moves only when
the table waits for no person — to the next 托管 move, the end of the Guard's pause — and
only once every socket has everything the table sent, so each message is stamped with the
clock time at which it was sent, and deadlines, 托管's delays and the Guard's pause are
compared exactly. No step waits on a real clock.

The deals are the server's own shuffle of a practice table's seed; only deal B's swap is
put in, by wrapping the table's dealing function in this (in-process) server.
"""

from __future__ import annotations

import asyncio
import json
import random
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from helpers import QUICK, quick_first
from server_support import LOOSE_CONFIG, Clocks
from table_sockets import Side, Sock, until

from baohuang.bots import hosted_action
from baohuang.client import Client, view_from_dict
from baohuang.engine.cards import GUARD_CARD, Card, Rank, parse_card
from baohuang.engine.match import Match
from baohuang.engine.rules import RuleSet
from baohuang.engine.state import Stage
from baohuang.server.config import ServerConfig
from baohuang.server.harness import ServerThread
from baohuang.server.table import tables as table_module
from baohuang.server.table.dealing import new_match

#: deals (practice seeds) tried per preset; each is played as far as the two deals
#: stay alike. ``shandong``: card mode; ``lianzhong_classic``: call mode
PRESETS = {"shandong": range(2, 7), "lianzhong_classic": range(1, 12)}
#: 托管 turned on while the Guard decides, deal by deal: by G, by X, by both one after
#: the other (in either order), by the Emperor
PROBES = ["guard", "other", "guard+other", "other+guard", "emperor"]
PAUSE, HOSTED_DELAY = 3.0, 0.5


# -- the deals ----------------------------------------------------------------------------
@dataclass(frozen=True)
class Deal:
    """Deal A of a practice seed: G holds ``guard_card``, which makes him the Guard; X
    holds ``plain``, of the same rank, and takes the part of G in deal B."""

    preset: str
    seed: int
    guard: int
    emperor: int
    others: list[int]                  # the seats that could be X
    guard_card: Card
    plain: dict[int, Card]             # X's card of the same rank, by X
    rank: Rank                         # plays with this rank are not chosen


def _deal(preset: str, seed: int) -> Deal | None:
    """Deal A, its role phase taken as the test takes it (as 托管 would) up to the
    Guard's decision; ``None`` if it has no Guard apart from the Emperor, or no X."""
    game = Match(RuleSet.preset(preset), seed).game
    while game.stage not in (Stage.GUARD, Stage.PLAY, Stage.OVER):
        seat = game.to_act
        assert seat is not None
        game.apply(hosted_action(game.view(seat), game.legal_actions()))
    guard, emperor = game.guard, game.emperor
    if game.stage is not Stage.GUARD or guard is None or emperor is None or guard == emperor:
        return None
    state = game._st
    if state.called is None:
        card = GUARD_CARD
        plain = {s: c for s in range(5) if s not in (guard, emperor)
                 for c in state.hands[s] if c.rank is card.rank and c != card}
    else:
        card = state.called
        plain = {s: c for s in range(5) if s not in (guard, emperor)
                 for c in state.hands[s] if c.rank is card.rank and c.suit != card.suit}
    if not plain:
        return None
    return Deal(preset, seed, guard, emperor, sorted(plain), card, plain, card.rank)


# -- the decisions ------------------------------------------------------------------------
def choose(view: dict[str, Any], rank: Rank) -> str:
    """The same rule for every seat, blind to its role: in the role phase what 托管 would
    answer (accept the crown, call its lowest triple, 暗保, decline everything else); in
    play the first legal play (in the engine's order) without a card of the swapped
    ``rank``, else pass, else whatever comes first — so the two deals' hands, alike but
    for the swap, play alike until a card of that rank must be played."""
    texts = list(view["legal_actions"])
    if view["stage"] != "play":
        parsed = view_from_dict(view)
        return str(hosted_action(parsed, list(parsed.legal_actions)))
    plays = [t for t in texts if t.startswith("play ")
             and all(parse_card(c).rank is not rank for c in t.split()[1:])]
    return plays[0] if plays else "pass" if "pass" in texts else texts[0]


# -- one deal -----------------------------------------------------------------------------
async def _side(url: str, owner: Client, tokens: list[str], deal: Deal,
                clocks: Clocks) -> Side:
    table = await owner.create_table(practice=True, seed=deal.seed, timeout=600.0,
                                     preset=deal.preset)
    clock = clocks.tables[table["id"]]
    side = Side(url, table, tokens, clock)
    for index, token in enumerate(tokens):
        sock = await Sock.open(url, token, clock)
        await sock.send({"type": "join", "table": table["id"]})
        await sock.wait("table", 1)
        side.seats[index] = sock
        side.history[index] = [sock]
        if index == 0:
            for kind in ("watcher", "probe"):
                watcher = await Sock.open(url, None, clock)
                await watcher.send({"type": "join", "table": table["id"], "as": "watcher"})
                await watcher.wait("table", 1)
                setattr(side, kind, watcher)
    await until(lambda: all(s.counts.get("snapshot", 0) for s in side.socks()))
    await side.settle(0)
    return side


async def _act(side: Side, seat: int, rank: Rank) -> None:
    sock = side.seats[seat]
    before = side.version()
    await sock.send({"type": "act", "action": choose(sock.view, rank), "version": sock.at})
    if sock.view["stage"] == "guard":
        await sock.resync()            # (held until the Guard's pause ends: no answer yet)
    else:
        await until(lambda: side.version() > before)
    await side.settle(before + 1)


async def _hostile(side: Side, kind: str, seat: int, *, settle: bool = True) -> None:
    """One hostile or odd input from ``seat`` (the same at both tables), then (``settle``)
    wait until the table has handled it and waits for a person again."""
    sock = side.seats[seat]
    before = side.version()
    if kind == "out_of_turn":
        errors = sock.counts.get("error", 0)
        await sock.send({"type": "act", "action": "pass"})
        await sock.wait("error", errors + 1)
    elif kind == "resync":
        await sock.resync()
    elif kind == "hosted":
        on = seat not in side.hosted
        await sock.send({"type": "hosted", "on": on})
        if on:
            side.hosted.add(seat)
            side.hosted_on[seat] = side.hosted_on.get(seat, 0) + 1
        else:
            side.hosted.discard(seat)
        await until(lambda: bool(sock.seats_shown[seat]["hosted"]) is on)
    elif kind == "reconnect":
        watcher = side.watcher
        assert watcher is not None
        await sock.close()
        # (the others hear of the disconnect before the seat comes back)
        await until(lambda: not watcher.seats_shown[seat]["connected"])
        new = await Sock.open(side.url, side.tokens[seat], side.clock)
        await new.send({"type": "join", "table": side.table["id"]})
        await new.wait("snapshot", 1)
        side.seats[seat] = new
        side.history[seat].append(new)
    if settle:
        await side.settle(before)


def _revealed(one: str, two: str) -> bool:
    """Whether the first message that differs is one by which the rules show the Guard
    to all: the Guard's card played (a ``reveal`` event), the lead after a player went out
    passed to his teammate (接风, docs/rules.md §7.3), or the game's end (every hand
    shown)."""
    first, second = json.loads(one), json.loads(two)
    if first["type"] == "game_over" or second["type"] == "game_over":
        return True
    events = [e for m in (first, second) if m["type"] == "update" for e in m["events"]]
    return any(e.get("type") == "reveal" for e in events) or (
        first["type"] == second["type"] == "update" and any(
            event.get("type") == "lead" and event.get("reason") == "lead_after_out"
            for event in first["events"]))


def _normalized(stream: list[tuple[float, str]], side: Side) -> list[tuple[float, str]]:
    """The texts with the table's id, code and creation time named."""
    out = []
    for at, text in stream:
        text = text.replace(side.table["id"], "<id>").replace(side.table["code"], "<code>")
        out.append((at, re.sub(r'"created":[-0-9.eE+]+', '"created":"<created>"', text)))
    return out


Streams = dict[int | None, tuple[list[tuple[float, str]], list[tuple[float, str]]]]


async def _play_pair(url: str, deal: Deal, clocks: Clocks,
                     swaps: list[tuple[int, int, Card, Card] | None], probe: str
                     ) -> tuple[Streams, int, int, int]:
    """Play ``deal`` at two tables in step; the streams to compare, the number of steps,
    how many hostile inputs were sent and whether the Guard's decision was passed."""
    guard, emperor = deal.guard, deal.emperor
    rng = random.Random(deal.seed)
    other = rng.choice(deal.others)
    owner = Client(url)
    await owner.guest("owner")
    players = []
    for index in range(5):
        client = Client(url)
        await client.guest(f"seat{index}")
        assert client.token is not None
        players.append(client.token)
    swaps.extend([None, (guard, other, deal.guard_card, deal.plain[other])])
    a = await _side(url, owner, players, deal, clocks)
    b = await _side(url, owner, players, deal, clocks)
    steps = hostile = 0
    decided, probed = 0, False
    while not a.over() and not b.over():
        seat_a, seat_b = a.actor(), b.actor()
        if seat_a is None and seat_b is None:
            break                          # (both on 托管 to the end: nothing more to do)
        assert seat_a is not None and seat_b is not None, (seat_a, seat_b)
        stage_a, stage_b = a.seats[seat_a].view["stage"], b.seats[seat_b].view["stage"]
        if stage_a == "guard" and stage_b == "guard":
            # the hidden decision: G decides in deal A, X in deal B
            assert (seat_a, seat_b) == (guard, other)
            if not decided:
                # 托管 on while the Guard decides; both toggles of G and X come before the
                # answer, which shows only when the Guard's pause ends
                seats = {"guard": [guard], "other": [other], "guard+other": [guard, other],
                         "other+guard": [other, guard], "emperor": [emperor]}[probe]
                for side in (a, b):
                    for seat in seats:
                        await _hostile(side, "hosted", seat, settle=False)
                    await side.settle(side.version())
                hostile += len(seats)
                decided += 1
                probed = True
                continue
        elif stage_a == "guard" or stage_b == "guard":
            # one table passed the decision (托管 answered for its Guard, at the end of the
            # pause); the other's Guard answers now — shown at the same time
            side, seat = (a, seat_a) if stage_a == "guard" else (b, seat_b)
            await _act(side, seat, deal.rank)
            decided += 1
            continue
        elif seat_a != seat_b:
            # the deals differ in public from here, by rule: 接风 went to the teammate of
            # a player who went out (the stream shows it: see _revealed)
            break
        choice = rng.random()
        if choice < 0.25:
            kind = rng.choice(["out_of_turn", "resync", "hosted", "reconnect"])
            seat = rng.choice([s for s in range(5) if s not in (seat_a, seat_b)
                               or kind != "out_of_turn"])
            if kind == "hosted" and ((seat not in a.hosted and a.hosted_on.get(seat, 0) >= 3)
                                     or (not probed and seat in (guard, other))):
                # (a fourth time would lock it on; G and X are kept off 托管 until the
                # probe, so that the Guard decides with every deal's probe)
                kind = "resync"
            for side in (a, b):
                await _hostile(side, kind, seat)
            hostile += 1
            steps += 1
            continue
        action_a = choose(a.seats[seat_a].view, deal.rank)
        action_b = choose(b.seats[seat_b].view, deal.rank)
        if action_a != action_b and stage_a != "guard":
            # the deals differ from here: a card of the swapped rank is to be played (the
            # Guard's at one table), or the public already differs by rule — 托管 played
            # the Guard's card — which the streams must show (see _revealed)
            break
        await _act(a, seat_a, deal.rank)
        await _act(b, seat_b, deal.rank)
        decided += stage_a == "guard"
        steps += 1
    for side in (a, b):                    # all that was sent has come in
        await side.quiet()
    streams: Streams = {}
    receivers: list[int | None] = [s for s in range(5) if s not in (guard, other)]
    for receiver in [*receivers, None]:
        streams[receiver] = (_normalized(a.stream(receiver), a),
                             _normalized(b.stream(receiver), b))
    for side in (a, b):
        for sock in [*side.socks(), *([side.probe] if side.probe else [])]:
            await sock.close()
    assert probed, "the Guard decided without the probe"
    return streams, steps, hostile, decided


@pytest.mark.parametrize("preset", quick_first(PRESETS))   # (make check: shandong)
def test_seats_that_are_not_the_guard_cannot_tell_which_seat_is(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, preset: str) -> None:
    swaps: list[tuple[int, int, Card, Card] | None] = []
    dealing = new_match

    def deal(*args: Any, **kwargs: Any) -> Match:
        match = dealing(*args, **kwargs)
        swap = swaps.pop(0)
        if swap is not None:           # deal B: the Guard's card goes to X, X's plain to G
            guard, other, card, plain = swap
            state = match.game._st
            state.take(guard, (card,))
            state.give(other, (card,))
            state.take(other, (plain,))
            state.give(guard, (plain,))
        return match
    monkeypatch.setattr(table_module, "new_match", deal)

    config = ServerConfig(db_url=f"sqlite+aiosqlite:///{tmp_path / 'bh.db'}", bot_delay=0.0,
                          hosted_delay=HOSTED_DELAY, guard_pause=PAUSE, next_game_delay=0.0,
                          away_grace=600.0, tables_per_user=100, rate_per_second=1000.0,
                          burst=1000, **LOOSE_CONFIG)
    deals = [d for d in (_deal(preset, s) for s in PRESETS[preset]) if d is not None][:5]
    assert len(deals) == 5
    deals = deals[:2] if QUICK else deals        # (make check: the first two)
    totals = {"steps": 0, "hostile": 0, "decided": 0, "messages": 0}
    clocks = Clocks()
    with ServerThread(config, clocks=clocks) as server:
        for number, one in enumerate(deals):
            streams, steps, hostile, decided = asyncio.run(
                _play_pair(server.url, one, clocks, swaps, PROBES[number % len(PROBES)]))
            for seat, (seen_a, seen_b) in streams.items():
                same = 0
                for (at_a, one_text), (at_b, two_text) in zip(seen_a, seen_b, strict=False):
                    if one_text != two_text:
                        # (the events of one move come in one update: the reveal may be
                        # a later event of it)
                        assert _revealed(one_text, two_text), \
                            (one.seed, seat, same, one_text, two_text)
                        break
                    assert at_a == at_b, (one.seed, seat, same, at_a, at_b, one_text)
                    same += 1
                else:
                    assert len(seen_a) == len(seen_b), (one.seed, seat)
                totals["messages"] += same
            totals["steps"] += steps
            totals["hostile"] += hostile
            totals["decided"] += bool(decided)
    # every deal went through the Guard's hidden decision, with hostile inputs on the way
    assert totals["decided"] == len(deals), totals
    assert totals["hostile"] >= 5 * len(deals) and totals["steps"] >= 30 * len(deals), totals
