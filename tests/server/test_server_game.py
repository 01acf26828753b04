"""End to end: five WebSocket clients play whole games and matches against a real
``baohuang serve`` (SQLite file, and PostgreSQL when configured)."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from server_support import DATABASES, guests, play_together, shared_server

import baohuang as bh
from baohuang.bots import make_bot
from baohuang.client import Client, PlayResult
from baohuang.server.harness import ServerProcess


@pytest.fixture(scope="module", params=DATABASES)
def server(request: pytest.FixtureRequest) -> ServerProcess:
    return shared_server(request.param)


def engine_match(preset: str, seed: int, games: int) -> bh.Match:
    """The same match played locally by the engine with 托管 bots in every seat."""
    match = bh.Match(bh.RuleSet.preset(preset).replace(leave_ends_game=False), seed, games)
    bots = [make_bot("hosted", s) for s in range(5)]
    while not match.is_over:
        game = match.game
        while not game.is_over:
            seat = game.to_act
            assert seat is not None
            game.apply(bots[seat].choose(game.view(seat), game.legal_actions()))
        match.advance()
    return match


def sent_in_order(results: list[PlayResult]) -> list[dict[str, Any]]:
    return [action.to_dict() for _, action in sorted((a for r in results for a in r.sent),
                                                       key=lambda sent: sent[0])]


def test_five_clients_play_a_full_game(server: ServerProcess) -> None:
    async def main() -> tuple[list[Client], list[PlayResult], PlayResult, dict[str, Any]]:
        clients = await guests(server.url, 5)
        table = await clients[0].create_table(timeout=60)        # rated: a secret deal
        watcher = Client(server.url)
        watching = asyncio.create_task(watcher.play(table["code"], None, watch=True))
        results = await play_together(clients, table["id"])
        watched = await asyncio.wait_for(watching, 30)
        return clients, results, watched, table

    clients, results, watched, table = asyncio.run(main())
    assert sorted(r.seat for r in results if r.seat is not None) == [0, 1, 2, 3, 4]
    outcome = results[0].games[0]["result"]
    for r in results:
        assert [g["result"] for g in r.games] == [outcome]
        assert r.errors == [] and r.resyncs == 0 and r.reconnects == 0
    assert watched.seat is None and watched.games[0]["result"] == outcome

    async def after() -> tuple[list[list[dict[str, Any]]], dict[str, Any], list[Any]]:
        histories = [await c.history() for c in clients]
        replay = await clients[0].replay(histories[0][0]["game_id"])
        me = [await c.request("GET", "/api/me") for c in clients]
        return histories, replay, me

    histories, replay, me = asyncio.run(after())
    # every action a client sent is in the stored record, in order, once
    assert replay["record"]["actions"] == sent_in_order(results)
    assert bh.Game.from_record(replay["record"]).result.to_dict() == outcome  # type: ignore[union-attr]
    assert replay["practice"] is False and table["table"]["practice"] is False
    for r, history, user in zip(results, histories, me, strict=True):
        assert r.seat is not None
        assert len(history) == 1 and history[0]["table_id"] == table["id"]
        assert history[0]["seat"] == r.seat
        assert history[0]["score"] == user["points"] == outcome["scores"][r.seat]
        assert user["games"] == 1
    ratings = {u["id"]: u["rating"]["mu"] for u in me}
    assert len(set(ratings.values())) == 2    # winners went up, losers down


def test_match_with_tribute(server: ServerProcess) -> None:
    snapshots: list[dict[str, Any]] = []

    async def main() -> list[PlayResult]:
        clients = await guests(server.url, 5, "t")
        table = await clients[0].create_table(preset="seed001_216", games=2, practice=True,
                                              seed=2, timeout=60)
        plays = [c.play(table["id"], "hosted", seed=i,
                        on_message=(snapshots.append if i == 0 else None))
                 for i, c in enumerate(clients)]
        return await asyncio.wait_for(asyncio.gather(*plays), 300)

    results = asyncio.run(main())
    expected = engine_match("seed001_216", 2, 2)
    for r in results:
        assert [g["result"] for g in r.games] == [x.to_dict() for x in expected.results]
        assert r.games[-1]["totals"] == expected.totals
        assert r.games[-1]["match"] == {"games": 2, "played": 2, "over": True,
                                        "status": "finished", "reason": None, "hosted": []}
    second = [s for s in snapshots if s["type"] == "snapshot" and s["game"] == 1]
    tribute = [e for e in second[0]["view"]["events"] if e["type"] == "tribute"]
    assert tribute, "the second game starts with tribute"
    # versions continue across the games of the match
    assert second[0]["version"] > results[0].games[0]["version"]


def test_wurenju_match_with_random_players(server: ServerProcess) -> None:
    """The 五人局 preset through the server: random players (who play the 特画
    when they hold it) finish two games, every client sees the same results, and
    the stored records replay to them."""
    async def main() -> tuple[list[PlayResult], list[dict[str, Any]]]:
        clients = await guests(server.url, 5, "w")
        table = await clients[0].create_table(preset="wurenju", games=2, practice=True, seed=7,
                                              timeout=60)
        plays = [c.play(table["id"], "random", seed=i) for i, c in enumerate(clients)]
        results = await asyncio.wait_for(asyncio.gather(*plays), 300)
        history = await clients[0].history()
        return results, [await clients[0].replay(h["game_id"]) for h in history]

    results, replays = asyncio.run(main())
    outcomes = [g["result"] for g in results[0].games]
    assert len(outcomes) == 2
    for r in results:
        assert [g["result"] for g in r.games] == outcomes
        # instant random players may trip the message rate limit; nothing else goes wrong
        assert {e["code"] for e in r.errors} <= {"rate_limited"}
    replayed = [bh.Game.from_record(rp["record"]).result for rp in replays]
    assert sorted(list(r.scores) for r in replayed if r is not None) == sorted(
        o["scores"] for o in outcomes)
    for outcome in outcomes:
        assert sum(1 for p in outcome["places"] if p is not None) <= 3


def test_quickplay_against_server_bots(server: ServerProcess) -> None:
    async def main() -> tuple[PlayResult, list[dict[str, Any]]]:
        client = Client(server.url)
        await client.guest("solo")
        table = await client.quickplay(bots="random", practice=True, seed=5)
        assert table["seat"] == 0
        result = await asyncio.wait_for(client.play(table["id"], "hosted"), 60)
        return result, await client.history()

    result, history = asyncio.run(main())
    assert result.seat == 0 and len(result.games) == 1 and result.errors == []
    players = history[0]["players"]
    assert [p["bot"] for p in players] == [None, "random", "random", "random", "random"]


def test_web_client_or_notice_is_served_at_root(server: ServerProcess) -> None:
    import httpx

    response = httpx.get(server.url + "/")
    assert response.status_code == 200 and "html" in response.headers["content-type"]
    rules = httpx.get(server.url + "/api/rules").json()
    assert set(rules["presets"]) == set(bh.PRESETS) and "hosted" in rules["bots"]
    assert rules["options"]["hold_sixes"]["type"] == "bool"
    # the difficulty levels, weakest first, named in both languages, each a bot
    levels = rules["bot_levels"]
    assert [lv["name"] for lv in levels] == ["easy", "normal", "hard", "expert"]
    assert [(lv["zh"], lv["en"]) for lv in levels] == [
        ("简单", "Easy"), ("普通", "Normal"), ("困难", "Hard"), ("大师", "Expert")]
    assert all(lv["name"] in rules["bots"] for lv in levels)
    assert [lv["think"] for lv in levels] == sorted(lv["think"] for lv in levels)




def test_the_hint_order_comes_only_to_a_connection_that_asks(server: ServerProcess) -> None:
    """A player's screen asks for the hint order in its ``join`` and gets it with its
    legal actions; a program that does not ask is not sent it."""
    from server_support import Raw

    async def main() -> tuple[dict[str, Any], dict[str, Any]]:
        asking, silent = await guests(server.url, 2, "hint")
        table = await asking.quickplay(bots="random", practice=True, seed=6, timeout=60)
        raw = await Raw.connect(server.url, asking.token)
        await raw.send({"type": "join", "table": table["id"], "hints": True})
        with_hints = (await raw.recv_type("snapshot"))["view"]
        await raw.close()
        watcher = await Raw.connect(server.url, silent.token)
        await watcher.send({"type": "join", "table": table["id"], "as": "watcher"})
        without = (await watcher.recv_type("snapshot"))["view"]
        await watcher.close()
        return with_hints, without

    with_hints, without = asyncio.run(main())
    assert "hints" in with_hints and "hints" not in without
    legal = with_hints["legal_actions"]
    assert all(legal[i].startswith("play") for i in with_hints["hints"])
