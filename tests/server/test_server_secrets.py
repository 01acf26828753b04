"""Nothing hidden leaks: over several bot games (with tribute, called guards, hidden
guards) every message to every seat and watcher is checked against the engine —
each snapshot's view is exactly ``game.view(seat)``, each update's view
changes are part of it and add up to it, its events are exactly those of
``game.events_for(seat)`` since the version before it, and no message carries another
seat's cards before the game is over."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import pytest
from server_support import guests, shared_server

import baohuang as bh
from baohuang.client import Client
from baohuang.server.harness import ServerProcess

TABLES = [
    {"preset": "shandong", "options": {"tribute": True}, "games": 2, "seed": 31,
     "practice": True},
    {"preset": "lianzhong_classic", "games": 1, "seed": 32, "practice": True},
    {"preset": "lianzhong_simple", "games": 1, "seed": 33, "practice": True},
    {"preset": "wurenju", "games": 1, "seed": 34, "practice": True},
]


@pytest.fixture(scope="module")
def server() -> ServerProcess:
    return shared_server("sqlite")


Inbox = list[tuple[int | None, dict[str, Any]]]   # (seat of the receiver, message)


async def _play_table(url: str, spec: dict[str, Any], prefix: str
                      ) -> tuple[Inbox, list[dict[str, Any]]]:
    players = await guests(url, 5, prefix)
    table = await players[0].create_table(timeout=60, **spec)
    inbox: Inbox = []
    seat_of: dict[int, int | None] = {}

    def collector(index: int) -> Any:
        def collect(message: dict[str, Any]) -> None:
            if message["type"] == "table":
                seat_of[index] = message["you"]["seat"]
            inbox.append((seat_of.get(index), message))
        return collect

    watcher = Client(url)
    plays = [c.play(table["id"], "random", seed=i, on_message=collector(i))
             for i, c in enumerate(players)]
    plays.append(watcher.play(table["id"], None, watch=True, on_message=collector(5)))
    await asyncio.wait_for(asyncio.gather(*plays), 120)
    history = await players[0].history()
    replays = [await players[0].replay(h["game_id"]) for h in sorted(history,
                                                                      key=lambda h: h["index"])]
    return inbox, replays


def _walk(value: Any) -> Iterator[tuple[str, Any]]:
    if isinstance(value, dict):
        for key, item in value.items():
            yield key, item
            yield from _walk(item)
    elif isinstance(value, list):
        for item in value:
            yield from _walk(item)


def _expected(replays: list[dict[str, Any]], wanted: set[tuple[int, int | None]]
              ) -> tuple[dict[tuple[int, int | None], tuple[int, dict[str, Any], list[Any],
                                                       list[str] | None]], list[int]]:
    """Replays every game once; for each wanted (table version, seat): the game index,
    the engine's view for that seat then, its events, and its true hand (None once
    the game is over).  Also the table version before each game's first event."""
    out: dict[tuple[int, int | None], tuple[int, dict[str, Any], list[Any],
                                            list[str] | None]] = {}
    bases = []
    base = 0
    for index, replay in enumerate(replays):
        record = replay["record"]
        game = bh.Game.from_record(dict(record, actions=[]))
        bases.append(base)

        def note(game: bh.Game = game, index: int = index, base: int = base) -> None:
            for seat in (0, 1, 2, 3, 4, None):
                if (base + game.version, seat) in wanted:
                    hand = None if game.is_over else (
                        [] if seat is None else [str(c) for c in game.hand(seat)])
                    out[(base + game.version, seat)] = (
                        index, game.view(seat).to_dict(), game.events_for(seat), hand)

        note()
        for raw in record["actions"]:
            game.apply(bh.Action.from_dict(raw))
            note()
        base += game.version
    return out, bases


def test_no_message_ever_shows_another_seats_cards(server: ServerProcess) -> None:
    async def main() -> list[tuple[Inbox, list[dict[str, Any]]]]:
        return list(await asyncio.gather(*(_play_table(server.url, spec, f"s{i}_")
                                           for i, spec in enumerate(TABLES))))

    checked = 0
    for inbox, replays in asyncio.run(main()):
        for _, message in inbox:
            if message["type"] == "table":
                continue                  # (a TableState's "private" says a private table)
            for key, _ in _walk(message):
                assert key != "private", message       # no event's private parts
        game_messages = [(seat, m) for seat, m in inbox if m["type"] in ("update", "snapshot")]
        assert {seat for seat, _ in game_messages} == {0, 1, 2, 3, 4, None}
        wanted = {(m["version"], seat) for seat, m in game_messages}
        truth, bases = _expected(replays, wanted)
        # an update carries what changed, not the whole view: the rules (which never
        # change) come once per receiver and game, in the first update after the deal
        whole = [m for _, m in game_messages if m["type"] == "update" and "rules" in m["view"]]
        games = len({m["game"] for _, m in game_messages})
        assert 0 < len(whole) <= 6 * games
        shown: dict[int | None, dict[str, Any]] = {}    # each receiver's view so far
        for seat, message in game_messages:
            index, view, events, hand = truth[(message["version"], seat)]
            assert message["game"] == index
            expected = dict(view)
            if message["type"] == "snapshot":
                assert message["view"] == expected
                shown[seat] = dict(message["view"])
                del shown[seat]["events"]
            else:
                del expected["events"]
                since = message["since"] - bases[index]
                assert message["events"] == events[since:message["version"] - bases[index]]
                # what changed is a part of the seat's own view at that version ...
                assert {k: expected[k] for k in message["view"]} == message["view"]
                shown[seat].update(message["view"])
            # ... and the changes add up to exactly that view
            assert shown[seat] == {k: v for k, v in expected.items() if k != "events"}
            if hand is not None:          # before the game is over: only the own hand
                assert shown[seat]["hands"] == {}
                assert shown[seat]["hand"] == hand
                checked += 1
    assert checked > 1000
