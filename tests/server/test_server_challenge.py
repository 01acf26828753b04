"""每日挑战 (the daily challenge) on a real server: players play a day's deals against
the same bots, and are scored against each other (matchpoints computed here from
their own games' scores); one attempt per deal; a deal's cards reach nobody before he
plays it; the secret seed is published only after the day (the calendar's clock moved
by hand), and then makes the very deals that were played."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from server_support import FAST, LOOSE, LOOSE_CONFIG, Raw, database, guests
from sqlalchemy import update
from test_server_secrets import _expected, _walk

import baohuang as bh
from baohuang.client import Client, ClientError
from baohuang.server.challenge.days import day_bounds, deal_of
from baohuang.server.challenge.service import ChallengeService
from baohuang.server.config import ServerConfig
from baohuang.server.db.models import challenge_plays
from baohuang.server.harness import ServerProcess, ServerThread

ZONE = "Asia/Shanghai"
DAY = "2026-12-07"
#: noon of DAY in the server's zone
NOON = day_bounds(DAY, ZONE)[0] + 12 * 3600


class DayClock:
    """The challenge's calendar clock, moved by hand."""

    def __init__(self, now: float) -> None:
        self.t = now

    def __call__(self) -> float:
        return self.t


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[ServerThread, DayClock]]:
    config = ServerConfig(db_url=f"sqlite+aiosqlite:///{tmp_path / 'bh.db'}", bot_delay=0,
                          hosted_delay=0, guard_pause=0, next_game_delay=0, away_grace=30,
                          challenge_tz=ZONE, challenge_deals=2, **LOOSE_CONFIG)
    clock = DayClock(NOON)
    with ServerThread(config) as server:
        assert server.app is not None
        service: ChallengeService = server.app.state.challenge
        service.now = clock
        yield server, clock


async def _play_deal(client: Client, number: int, player: str, seed: int,
                     day: str = DAY, **kwargs: Any) -> dict[str, Any]:
    """Begin deal ``number`` and play it to its end; the start's answer."""
    started: dict[str, Any] = await client.request("POST", f"/api/challenge/{day}/deals/{number}")
    await asyncio.wait_for(client.play(started["table_id"], player, seed=seed, **kwargs), 120)
    return started


async def _own_games(client: Client) -> dict[int, dict[str, Any]]:
    """The player's challenge games by deal number: his score (from his history, as
    the table stored it) and the replay."""
    out = {}
    for row in await client.history():
        replay = await client.replay(row["game_id"])
        table = await client.request("GET", f"/api/tables/{row['table_id']}")
        out[table["challenge"]["deal"]] = {"score": row["score"], "replay": replay,
                                          "seat": row["seat"]}
    return out


def _expected_points(scores: dict[str, int]) -> dict[str, float]:
    """Matchpoints the long way: for each player, the others he beat, ties half."""
    out = {}
    for name, mine in scores.items():
        others = [s for n, s in scores.items() if n != name]
        won = sum(1.0 if s < mine else 0.5 if s == mine else 0.0 for s in others)
        out[name] = won / len(others) if others else 0.5
    return out


def _check_day(day: dict[str, Any], games: dict[str, dict[int, dict[str, Any]]]) -> None:
    """The API's matchpoints, differences and ranking against those computed here."""
    means: dict[str, list[float]] = {name: [] for name in games}
    diffs: dict[str, list[float]] = {name: [] for name in games}
    for deal in day["deals"]:
        scores = {name: mine[deal["deal"]]["score"] for name, mine in games.items()}
        points = _expected_points(scores)
        mean = sum(scores.values()) / len(scores)
        shown = {r["name"]: r for r in deal["results"]}
        assert set(shown) == set(scores)
        for name, score in scores.items():
            assert shown[name]["score"] == score
            assert shown[name]["matchpoints"] == pytest.approx(points[name], abs=1e-4)
            assert shown[name]["difference"] == pytest.approx(score - mean, abs=0.01)
            means[name].append(points[name])
            diffs[name].append(score - mean)
        counts: dict[int, int] = {}
        for score in scores.values():
            counts[score] = counts.get(score, 0) + 1
        assert deal["distribution"] == [{"score": s, "count": c}
                                        for s, c in sorted(counts.items())]
    ranked = {r["name"]: r for r in day["ranking"]}

    def standing(name: str) -> tuple[float, float]:
        """(mean matchpoints, mean difference) over the deals played: the ranking's order
        (the difference breaks a tie in matchpoints), rounded where floats may differ."""
        return (round(sum(means[name]) / len(means[name]), 6),
                round(sum(diffs[name]) / len(diffs[name]), 6))
    for name, mps in means.items():
        assert ranked[name]["matchpoints"] == pytest.approx(sum(mps) / len(mps), abs=1e-4)
        better = sum(1 for other in means if standing(other) > standing(name))
        assert ranked[name]["rank"] == better + 1, (name, standing(name))


def test_two_players_play_a_day_and_are_scored_against_each_other(
        served: tuple[ServerThread, DayClock]) -> None:
    server, _ = served

    async def main() -> None:
        a, b = await guests(server.url, 2, "duo")
        today_a = await a.request("GET", "/api/challenge")
        today_b = await b.request("GET", "/api/challenge")
        assert today_a["day"] == today_b["day"] == DAY and today_a["count"] == 2
        assert [d["seat"] for d in today_a["deals"]] == [d["seat"] for d in today_b["deals"]]
        assert today_a["seed"] is None and all("results" not in d for d in today_a["deals"])
        # deal 1: both play it the same way (the heuristic), so the same bots must have
        # answered the same: the very same game; deal 2: each his own way
        started = await _play_deal(a, 1, "heuristic", 0)
        assert started["deal"] == 1 and started["deals"] == 2
        await _play_deal(b, 1, "heuristic", 0)
        await _play_deal(a, 2, "random", 1)
        await _play_deal(b, 2, "random", 2)
        games = {"duo0": await _own_games(a), "duo1": await _own_games(b)}
        one_a, one_b = games["duo0"][1]["replay"], games["duo1"][1]["replay"]
        assert one_a["record"]["actions"] == one_b["record"]["actions"]
        assert one_a["record"]["seed"] == one_b["record"]["seed"]
        for number in (1, 2):
            assert games["duo0"][number]["seat"] == games["duo1"][number]["seat"] == \
                today_a["deals"][number - 1]["seat"]
            hands = [games[n][number]["replay"]["record"]["seed"] for n in games]
            assert hands[0] == hands[1]
        day = await a.request("GET", f"/api/challenge/{DAY}")
        _check_day(day, games)
        assert day["you"]["played"] == 2 and day["played"] == 2
        # one attempt per deal: refused, and nothing changes
        for number in (1, 2):
            with pytest.raises(ClientError) as refused:
                await a.request("POST", f"/api/challenge/{DAY}/deals/{number}")
            assert refused.value.status == 409 and refused.value.code == "already_played"
        assert await a.request("GET", f"/api/challenge/{DAY}") == day
        assert len(await a.history()) == 2
        overview = await a.request("GET", "/api/challenge")
        assert overview["streak"] == 1 and overview["best"]["day"] == DAY
    asyncio.run(main())


@pytest.mark.slow
def test_twenty_players_play_a_day(served: tuple[ServerThread, DayClock]) -> None:
    server, _ = served

    async def main() -> None:
        players = await guests(server.url, 20, "many")

        async def day_of(index: int, client: Client) -> None:
            for number in (2, 1) if index % 2 else (1, 2):
                await _play_deal(client, number, "random", 100 * index + number)
        await asyncio.gather(*(day_of(i, c) for i, c in enumerate(players)))
        games = {f"many{i}": await _own_games(c) for i, c in enumerate(players)}
        day = await players[0].request("GET", f"/api/challenge/{DAY}")
        _check_day(day, games)
        assert len(day["ranking"]) == 20
    asyncio.run(main())


def test_a_deal_cannot_be_peeked_at_before_it_is_played(
        served: tuple[ServerThread, DayClock]) -> None:
    """Player A plays deal 1: every game message he gets is his own seat's view and
    nothing more. Player B, who has not played it, finds nothing of its cards in any
    answer: the day's pages, A's replay (refused), A's table by id or code (none)."""
    server, _ = served

    async def main() -> None:
        a, b = await guests(server.url, 2, "peek")
        inbox: list[dict[str, Any]] = []
        started = await _play_deal(a, 1, "random", 5, on_message=inbox.append)
        seat = started["seat"]
        replay = (await _own_games(a))[1]["replay"]
        game_messages = [m for m in inbox if m["type"] in ("update", "snapshot")]
        truth, _ = _expected([replay], {(m["version"], seat) for m in game_messages})
        for message in game_messages:
            _, view, _, hand = truth[(message["version"], seat)]
            if hand is not None:
                assert message["view"].get("hands", {}) == {}
                assert {k: view[k] for k in message["view"] if k != "events"} == \
                    {k: v for k, v in message["view"].items() if k != "events"}
        for message in inbox:
            if message["type"] != "table":
                assert all(key != "private" for key, _ in _walk(message))
        # what B can ask for
        table = await a.request("GET", f"/api/tables/{started['table_id']}")
        answers = [json.dumps(await b.request("GET", "/api/challenge")),
                   json.dumps(await b.request("GET", f"/api/challenge/{DAY}")),
                   json.dumps(await b.request("GET", "/api/challenge/days"))]
        game_id = next(iter(await a.history()))["game_id"]
        with pytest.raises(ClientError) as refused:
            await b.replay(game_id)
        assert refused.value.status == 403 and refused.value.code == "challenge_unplayed"
        async with httpx.AsyncClient() as http:
            anonymous = await http.get(f"{server.url}/api/games/{game_id}/replay")
        assert anonymous.status_code == 403
        for key in (started["table_id"], table["code"]):
            with pytest.raises(ClientError):
                await b.request("GET", f"/api/tables/{key}")
            raw = await Raw.connect(server.url, b.token)
            await raw.send({"type": "join", "table": key, "as": "watcher"})
            answer = await raw.recv_type("error")
            assert answer["code"] == "no_table"
            answers.append(json.dumps(raw.seen))
            await raw.close()
        record = replay["record"]
        game = bh.Game.from_record(dict(record, actions=[]))
        hands = [sorted(str(c) for c in game.hand(s)) for s in range(5)]
        for text in answers:
            assert '"hands"' not in text and '"record"' not in text
            assert str(record["seed"] // 1000) not in text     # the deal's table seed
            for hand in hands:
                assert json.dumps(hand) not in text
        # once B has played deal 1 himself he sees A's game
        await _play_deal(b, 1, "random", 6)
        assert (await b.replay(game_id))["record"]["seed"] == record["seed"]
        seen = await b.request("GET", f"/api/challenge/{DAY}")
        assert {r["name"] for r in seen["deals"][0]["results"]} == {"peek0", "peek1"}
        assert "results" not in seen["deals"][1]
    asyncio.run(main())


def test_the_seed_is_published_only_after_the_day_and_makes_its_deals(
        served: tuple[ServerThread, DayClock]) -> None:
    server, clock = served

    async def main() -> None:
        (a,) = await guests(server.url, 1, "seed")
        await _play_deal(a, 2, "random", 3)
        service: ChallengeService = server.app.state.challenge  # type: ignore[union-attr]
        secret = (await service.store.day(DAY)).seed  # type: ignore[union-attr]
        end = day_bounds(DAY, ZONE)[1]
        for moment in (NOON, end - 1, end + 10, end + 3599):
            clock.t = moment
            texts = [json.dumps(await a.request("GET", f"/api/challenge/{DAY}")),
                     json.dumps(await a.request("GET", "/api/challenge/days")),
                     json.dumps(await a.request("GET", "/api/challenge"))]
            for text in texts:
                assert secret not in text
        # the day is over: its deals can no longer be begun
        with pytest.raises(ClientError) as refused:
            await a.request("POST", f"/api/challenge/{DAY}/deals/1")
        assert refused.value.code == "day_over"
        clock.t = end + 3600
        day = await a.request("GET", f"/api/challenge/{DAY}")
        assert day["seed"] == secret
        played = (await _own_games(a))[2]["replay"]["record"]
        deal = deal_of(day["seed"], DAY, 2)
        assert deal.table_seed == day["deals"][1]["table_seed"]
        assert played["seed"] == deal.table_seed * 1000
        remade = bh.Game.new(bh.RuleSet.preset(day["preset"]), deal.table_seed * 1000,
                             dealer=0)
        dealt = bh.Game.from_record(dict(played, actions=[]))
        assert [remade.hand(s) for s in range(5)] == [dealt.hand(s) for s in range(5)]
        # the next day is another day, with other deals
        today = await a.request("GET", "/api/challenge")
        assert today["day"] == "2026-12-08" and today["seed"] is None
        assert (await a.request("GET", "/api/challenge/days"))["days"][1]["day"] == DAY
    asyncio.run(main())


def test_a_deals_review_follows_its_replays_rule(
        served: tuple[ServerThread, DayClock]) -> None:
    """复盘 of a challenge deal shows its cards as its replay does, so it is asked for
    on the same terms: A, who played the deal, may ask for his seat's review and for
    any other; B, who has not played it, is refused (``challenge_unplayed``) until he
    plays it himself; C, who never does, is refused until the day is published, and
    then may ask for it as for the replay."""
    server, clock = served

    async def main() -> dict[str, list[tuple[int, str]]]:
        a, b, c = await guests(server.url, 3, "rv")
        started = await _play_deal(a, 1, "random", 7)
        game_id = next(iter(await a.history()))["game_id"]
        seats = (started["seat"], (started["seat"] + 1) % 5)
        out: dict[str, list[tuple[int, str]]] = {}

        async def asks(who: str, client: Client) -> None:
            for seat in seats:
                async with httpx.AsyncClient() as http:
                    answer = await http.get(
                        f"{server.url}/api/games/{game_id}/review/{seat}",
                        headers={"Authorization": f"Bearer {client.token}"})
                out.setdefault(who, []).append((answer.status_code,
                                                answer.json()["error"]["code"]))
        await asks("player", a)
        await asks("before_b_played", b)
        await asks("before_c_played_or_published", c)
        await _play_deal(b, 1, "random", 8)
        await asks("after_b_played", b)
        clock.t = day_bounds(DAY, ZONE)[1] + 3600
        await asks("published", c)
        return out

    got = asyncio.run(main())
    allowed = [(404, "not_started")] * 2           # (let in: no review started yet)
    refused = [(403, "challenge_unplayed")] * 2
    assert got == {"player": allowed, "before_b_played": refused,
                   "before_c_played_or_published": refused, "after_b_played": allowed,
                   "published": allowed}


def test_a_deleted_players_results_show_the_placeholder(
        served: tuple[ServerThread, DayClock]) -> None:
    """A and B play deal 1; A deletes his account: the day's results (B's view) show A
    as 已注销/deleted #id, and A's name is nowhere in the day's page."""
    server, _ = served

    async def main() -> tuple[int, str]:
        a, b = await guests(server.url, 2, "leaver")
        await _play_deal(a, 1, "random", 11)
        await _play_deal(b, 1, "random", 12)
        assert a.user is not None
        gone = int(a.user["id"])
        await a.request("POST", "/api/me/delete", {"confirm": True})
        return gone, json.dumps(await b.request("GET", f"/api/challenge/{DAY}"),
                                ensure_ascii=False)

    gone, text = asyncio.run(main())
    day = json.loads(text)
    names = {r["name"] for r in day["deals"][0]["results"]}
    assert names == {f"已注销/deleted #{gone}", "leaver1"}
    assert "leaver0" not in text


def test_a_player_who_goes_comes_back_to_the_same_deal(
        served: tuple[ServerThread, DayClock]) -> None:
    server, _ = served

    async def main() -> None:
        (a,) = await guests(server.url, 1, "back")
        first = await a.request("POST", f"/api/challenge/{DAY}/deals/1")
        raw = await Raw.connect(server.url, a.token)
        await raw.send({"type": "join", "table": first["table_id"]})
        snapshot = await raw.recv_type("snapshot")
        await raw.close()
        again = await a.request("POST", f"/api/challenge/{DAY}/deals/1")
        assert again["table_id"] == first["table_id"] and again["resumed"] is True
        raw = await Raw.connect(server.url, a.token)
        await raw.send({"type": "join", "table": first["table_id"]})
        back = await raw.recv_type("snapshot")
        assert back["view"]["seat"] == snapshot["view"]["seat"] == first["seat"]
        assert back["view"]["hand"][:1] and back["game"] == snapshot["game"]
        await raw.close()
        today = await a.request("GET", "/api/challenge")
        assert today["deals"][0]["status"] == "playing"
        assert today["deals"][0]["table_id"] == first["table_id"]
        await asyncio.wait_for(a.play(first["table_id"], "random", seed=1), 120)
        with pytest.raises(ClientError) as refused:
            await a.request("POST", f"/api/challenge/{DAY}/deals/1")
        assert refused.value.code == "already_played"
        # a rematch of a challenge table is refused
        with pytest.raises(ClientError) as again_refused:
            await a.request("POST", f"/api/tables/{first['table_id']}/rematch")
        assert again_refused.value.code == "challenge_played"
    asyncio.run(main())


def test_guests_are_refused_when_the_host_says_so(tmp_path: Path) -> None:
    config = ServerConfig(db_url=f"sqlite+aiosqlite:///{tmp_path / 'bh.db'}",
                          challenge_guests=False, **LOOSE_CONFIG)
    with ServerThread(config) as server:
        async def main() -> None:
            (guest,) = await guests(server.url, 1, "g")
            day = (await guest.request("GET", "/api/challenge"))["day"]
            with pytest.raises(ClientError) as refused:
                await guest.request("POST", f"/api/challenge/{day}/deals/1")
            assert refused.value.status == 403 and refused.value.code == "guests_not_allowed"
            member = Client(server.url)
            await member.register("member1", "a long password 1")
            started = await member.request("POST", f"/api/challenge/{day}/deals/1")
            assert started["deal"] == 1
        asyncio.run(main())


@pytest.mark.slow
def test_a_challenge_deal_survives_a_restart(tmp_path: Path) -> None:
    """The server is killed while a deal waits for its player and started again on the
    same database: the player comes back to the same seat and cards, the table still
    admits him alone, and the deal is still his one attempt."""
    with database("sqlite", tmp_path) as url:
        server = ServerProcess(url, None, *LOOSE, *FAST, "--away-grace", "600",
                               "--challenge-timeout", "600", log=tmp_path / "server.log")
        server.start()
        try:
            async def before() -> tuple[Client, Client, dict[str, Any], dict[str, Any]]:
                a, b = await guests(server.url, 2, "again")
                day = (await a.request("GET", "/api/challenge"))["day"]
                started = await a.request("POST", f"/api/challenge/{day}/deals/1")
                raw = await Raw.connect(server.url, a.token)
                await raw.send({"type": "join", "table": started["table_id"]})
                snapshot = await raw.recv_type("snapshot")
                await raw.close()
                return a, b, started, snapshot
            a, b, started, snapshot = asyncio.run(before())
            table = asyncio.run(a.request("GET", f"/api/tables/{started['table_id']}"))
            server.kill()
            server.start()

            async def after() -> None:
                again = await a.request("POST", f"/api/challenge/{started['day']}/deals/1")
                assert again["table_id"] == started["table_id"] and again["resumed"]
                raw = await Raw.connect(server.url, a.token)
                await raw.send({"type": "join", "table": started["table_id"]})
                back = await raw.recv_type("snapshot")
                assert back["view"]["seat"] == started["seat"]
                assert back["view"]["hand"] == snapshot["view"]["hand"]
                await raw.close()
                other = await Raw.connect(server.url, b.token)
                await other.send({"type": "join", "table": table["code"], "as": "watcher"})
                assert (await other.recv_type("error"))["code"] == "no_table"
                await other.close()
                shown = await a.request("GET", f"/api/tables/{started['table_id']}")
                assert shown["challenge"] == {"day": started["day"], "deal": 1,
                                              "deals": started["deals"]}
            asyncio.run(after())
        finally:
            server.stop()


def test_an_attempt_whose_table_was_never_noted_gets_that_table_back(
        served: tuple[ServerThread, DayClock]) -> None:
    """A node that stopped between making a deal's table and noting it in the attempt
    (acted out by clearing the note): asking again, even long after, leads to that same
    table — never a second deal of the same cards."""
    server, clock = served
    service: ChallengeService = server.app.state.challenge  # type: ignore[union-attr]

    async def forget() -> None:
        async with service.store.engine.begin() as conn:
            await conn.execute(update(challenge_plays).values(table_id=None))

    async def main() -> None:
        (a,) = await guests(server.url, 1, "lost")
        first = await a.request("POST", f"/api/challenge/{DAY}/deals/1")
        server.call(forget)
        clock.t += 120                      # (older than a stale claim)
        again = await a.request("POST", f"/api/challenge/{DAY}/deals/1")
        assert again["table_id"] == first["table_id"] and again["resumed"]
        today = await a.request("GET", "/api/challenge")
        assert today["deals"][0]["table_id"] == first["table_id"]
    asyncio.run(main())
