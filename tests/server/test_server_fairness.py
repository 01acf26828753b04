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

Besides, seats drop (their socket closes) and come back at random moments, and one may
leave the game (逃跑, at tables whose game plays on after it); while the Guard decides,
G, X or the Emperor may drop or leave instead of turning 托管 on.  A server bot sits at
one seat of most deals (neither G nor X; every level in turn: the expert level as the
Emperor, where it plays as the hard level and so alike at both tables), its answers
timed on the table's clock.  Three presets: ``shandong`` (card mode),
``lianzhong_classic`` (call mode) and ``wurenju`` (五人局: call mode, the called card
above the jokers); each with the away grace longer than the Guard's pause and shorter.
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
from server_support import LOOSE_CONFIG, RESYNCING, Clocks
from table_sockets import Side, Sock, until

from baohuang.bots import Bot, hosted_action, make_bot
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
#: stay alike. ``shandong``: card mode; ``lianzhong_classic`` and ``wurenju`` (五人局):
#: call mode
PRESETS = {"shandong": range(2, 7), "lianzhong_classic": range(1, 12),
           "wurenju": range(1, 8)}
#: what happens while the Guard decides, deal by deal, step by step (``/``): 托管 turned
#: on by G, by X, by both one after the other (in either order), by the Emperor; G, X or
#: the Emperor drops or leaves — a number: the clock moves on that many seconds (a
#: Guard who dropped has not answered, and another seat leaving must not move his time)
PROBES = ["hosted:guard", "hosted:other", "hosted:guard/hosted:other",
          "hosted:other/hosted:guard", "hosted:emperor", "drop:guard/0.5/leave:emperor",
          "drop:other/0.5/leave:emperor", "leave:guard", "leave:other",
          "drop:emperor/0.9/drop:guard"]
#: the server bot at a seat of each deal, in turn (``None``: five people)
BOTS = ["normal", "expert", "easy", "hard", None]
PAUSE, HOSTED_DELAY = 3.0, 0.5
#: steps played in step at least, a deal (``wurenju``'s called card is above the jokers:
#: the hands of G and X, which differ by it, come to play differently sooner)
MIN_STEPS = {"shandong": 30, "lianzhong_classic": 30, "wurenju": 20}
#: the away grace: longer than the Guard's pause, and shorter
GRACES = {"long": 600.0, "short": 1.0}
#: (preset, grace) of each run; ``make check`` runs the first
RUNS = [("shandong", "long"), ("lianzhong_classic", "short"), ("wurenju", "long"),
        ("shandong", "short"), ("lianzhong_classic", "long"), ("wurenju", "short")]


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
    bots: dict[int, str]               # the server bots' seats


def _deal(preset: str, seed: int, bots: dict[int, str] | None = None) -> Deal | None:
    """Deal A, its role phase taken as the test takes it (as 托管 would; ``bots``: the
    seats of server bots, which decide for themselves as at the table) up to the Guard's
    decision; ``None`` if it has no Guard apart from the Emperor, or no X."""
    game = Match(RuleSet.preset(preset), seed).game
    players: dict[int, Bot] = {seat: make_bot(name, seed + seat)   # (as a table makes them)
                               for seat, name in (bots or {}).items()}
    while game.stage not in (Stage.GUARD, Stage.PLAY, Stage.OVER):
        seat = game.to_act
        assert seat is not None
        if seat in players:
            game.apply(players[seat].choose(game.view(seat), game.legal_actions()))
        else:
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
    return Deal(preset, seed, guard, emperor, sorted(plain), card, plain, card.rank,
                dict(bots or {}))


def _cast(preset: str, seed: int, level: str | None) -> tuple[Deal, int] | None:
    """Deal A with X chosen, and a server bot of ``level`` at a seat that is neither G
    nor X (the expert level: the Emperor's) if the role phase goes the same with it."""
    deal = _deal(preset, seed)
    if deal is None:
        return None
    other = random.Random(deal.seed).choice(deal.others)
    if level is None:
        return deal, other
    seats = [deal.emperor] if level == "expert" else \
        [s for s in range(5) if s not in (deal.guard, other, deal.emperor)]
    for seat in seats:
        with_bot = _deal(preset, seed, {seat: level})
        if with_bot is not None and (with_bot.guard, with_bot.emperor) == \
                (deal.guard, deal.emperor) and other in with_bot.others:
            return with_bot, other
    return deal, other


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
                                     preset=deal.preset,
                                     options={"leave_ends_game": False},
                                     bots={str(seat): name for seat, name in deal.bots.items()})
    clock = clocks.tables[table["id"]]
    side = Side(url, table, tokens, clock)
    for index, token in enumerate(tokens):
        if index in deal.bots:
            continue                       # (people take the free seats in order)
        sock = await Sock.open(url, token, clock)
        await sock.send({"type": "join", "table": table["id"]})
        await sock.wait("table", 1)
        side.seats[index] = sock
        side.history[index] = [sock]
        if side.watcher is None:
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
    elif kind in ("reconnect", "drop", "leave"):
        watcher = side.watcher
        assert watcher is not None
        if kind == "leave":                # (逃跑: 托管 plays the seat to the end)
            await sock.send({"type": "leave"})
            await sock.wait("left", 1)
            side.left.add(seat)
            side.hosted.add(seat)
        await sock.close()
        side.away.add(seat)
        # (the others hear of the disconnect before the seat comes back)
        await until(lambda: not watcher.seats_shown[seat]["connected"])
        if kind == "reconnect":
            await _hostile(side, "rejoin", seat, settle=False)
    elif kind == "rejoin":
        new = await Sock.open(side.url, side.tokens[seat], side.clock)
        await new.send({"type": "join", "table": side.table["id"]})
        await new.wait("snapshot", 1)
        side.seats[seat] = new
        side.history[seat].append(new)
        side.away.discard(seat)
    if settle:
        await side.settle(before)


def _revealed(one: str, two: str, dealt: tuple[int, int]) -> bool:
    """Whether the first message that differs is one by which the rules show the Guard
    to all: the Guard's card played (a ``reveal`` event), the lead after a player went out
    passed to his teammate (接风, docs/rules.md §7.3), or the game's end (every hand
    shown) — or one where the deals differ in public by what they are dealt: 托管, playing
    for G or X (``dealt``: who dropped, left or turned it on), moves differently from the
    two hands, which differ by the swapped card (the test's own moves for G and X never
    do: they leave that rank alone)."""
    first, second = json.loads(one), json.loads(two)
    if first["type"] == "game_over" or second["type"] == "game_over":
        return True
    events = [e for m in (first, second) if m["type"] == "update" for e in m["events"]]
    if first["type"] == second["type"] == "update" and first["events"] and second["events"]:
        move_a, move_b = first["events"][0], second["events"][0]
        if move_a.get("seat") == move_b.get("seat") and move_a.get("seat") in dealt \
                and {move_a["type"], move_b["type"]} <= {"play", "pass"}:
            return True
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


async def _play_pair(url: str, deal: Deal, other: int, clocks: Clocks,
                     swaps: list[tuple[int, int, Card, Card] | None], probe: str
                     ) -> tuple[Streams, int, int, int]:
    """Play ``deal`` at two tables in step (X: ``other``); the streams to compare, the
    number of steps, how many hostile inputs were sent and whether the Guard's decision
    was passed."""
    guard, emperor = deal.guard, deal.emperor
    rng = random.Random(deal.seed)
    assert rng.choice(deal.others) == other
    people = [s for s in range(5) if s not in deal.bots]
    # (the Emperor, or if a bot plays him the other seat that is neither G nor X)
    third = emperor if emperor in people else \
        next(s for s in people if s not in (guard, other, emperor))
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
    decided, probed, leaves = 0, False, 0
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
                # 托管 on, a drop or a leave while the Guard decides; all of them come
                # before the answer, which shows only when the Guard's pause ends
                seats = {"guard": guard, "other": other, "emperor": third}
                for side in (a, b):
                    for step in probe.split("/"):
                        kind, _, who = step.partition(":")
                        if not who:
                            await asyncio.to_thread(side.clock.advance_to,
                                                    side.clock.now() + float(kind))
                            await side.quiet()
                        elif seats[who] not in side.left:
                            if seats[who] in side.away:     # (dropped before: back first)
                                await _hostile(side, "rejoin", seats[who], settle=False)
                            await _hostile(side, kind, seats[who], settle=False)
                    await side.settle(side.version())
                hostile += probe.count(":")
                leaves += probe.count("leave:")
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
            kind = rng.choice(["out_of_turn", "resync", "hosted", "reconnect", "drop",
                               "rejoin", "leave"])
            seat = rng.choice([s for s in people if s not in a.left
                               and (s not in (seat_a, seat_b) or kind != "out_of_turn")])
            if seat in a.away:
                kind = "rejoin"            # (what an absent player can do: come back)
            elif kind == "rejoin" or (kind == "leave" and leaves):
                kind = "drop"
            if (kind == "hosted" and seat not in a.hosted and a.hosted_on.get(seat, 0) >= 3) \
                    or (not probed and seat in (guard, other)
                        and kind in ("hosted", "drop", "leave")):
                # (a fourth time would lock it on; G and X are kept at the table and off
                # 托管 until the probe, so that the Guard decides with every deal's probe)
                kind = "resync"
            for side in (a, b):
                await _hostile(side, kind, seat)
            leaves += kind == "leave"
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
    receivers: list[int | None] = [s for s in people if s not in (guard, other)]
    for receiver in [*receivers, None]:
        streams[receiver] = (_normalized(a.stream(receiver), a),
                             _normalized(b.stream(receiver), b))
    for side in (a, b):
        for sock in [*side.socks(), *([side.probe] if side.probe else [])]:
            await sock.close()
    assert probed, "the Guard decided without the probe"
    return streams, steps, hostile, decided


@pytest.mark.parametrize("run", quick_first(RUNS, ids="-".join))  # (make check: the first)
def test_seats_that_are_not_the_guard_cannot_tell_which_seat_is(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, run: tuple[str, str]) -> None:
    preset, grace = run
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

    config = ServerConfig(db_url=f"sqlite+aiosqlite:///{tmp_path / 'bh.db'}", bot_delay=0.4,
                          hosted_delay=HOSTED_DELAY, guard_pause=PAUSE, next_game_delay=0.0,
                          away_grace=GRACES[grace], tables_per_user=100,
                          **LOOSE_CONFIG, **RESYNCING)
    casts = [c for c in (_cast(preset, s, BOTS[n % len(BOTS)])
                         for n, s in enumerate(PRESETS[preset])) if c is not None][:5]
    assert len(casts) == 5
    casts = casts[:2] if QUICK else casts        # (make check: the first two)
    start = 5 + RUNS.index(run) * 3              # (each run its own probes)
    totals = {"steps": 0, "hostile": 0, "decided": 0, "messages": 0}
    clocks = Clocks()
    with ServerThread(config, clocks=clocks) as server:
        for number, (one, other) in enumerate(casts):
            probe = PROBES[(start + number) % len(PROBES)]
            streams, steps, hostile, decided = asyncio.run(
                _play_pair(server.url, one, other, clocks, swaps, probe))
            for seat, (seen_a, seen_b) in streams.items():
                same = 0
                for (at_a, one_text), (at_b, two_text) in zip(seen_a, seen_b, strict=False):
                    if one_text != two_text:
                        # (the events of one move come in one update: the reveal may be
                        # a later event of it)
                        assert _revealed(one_text, two_text, (one.guard, other)), \
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
    assert totals["decided"] == len(casts), totals
    assert totals["hostile"] >= 5 * len(casts), totals
    assert totals["steps"] >= MIN_STEPS[preset] * len(casts), totals
