"""``GET /metrics``: Prometheus' figures of a real server under a small load agree with
what was played; the endpoint is off without a token and refuses a wrong one; the
Grafana dashboard in docs/ reads only figures the server exports."""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from prometheus_client.parser import text_string_to_metric_families
from server_support import (
    FAST,
    LOOSE_CONFIG,
    Clocks,
    Raw,
    deserted_table,
    running_server,
    shared_server,
)
from websockets.exceptions import ConnectionClosed

from baohuang.client import Client, ClientError
from baohuang.server.config import ServerConfig
from baohuang.server.harness import ServerProcess, ServerThread
from baohuang.server.metrics import Census, ServerMetrics

TOKEN = "metrics-" + "7f3c9a1e5b2d4c68"
DASHBOARD = Path(__file__).resolve().parents[2] / "docs" / "grafana-dashboard.json"

Samples = dict[tuple[str, tuple[tuple[str, str], ...]], float]


def scrape(url: str, token: str = TOKEN) -> Samples:
    """Every sample of ``/metrics``, parsed by prometheus_client's own parser, by name
    and labels."""
    response = httpx.get(url + "/metrics", headers={"Authorization": f"Bearer {token}"})
    assert response.status_code == 200, response.text
    assert response.headers["content-type"].startswith("text/plain")
    samples: Samples = {}
    for family in text_string_to_metric_families(response.text):
        for sample in family.samples:
            samples[sample.name, tuple(sorted(sample.labels.items()))] = sample.value
    return samples


def value(samples: Samples, name: str, **labels: str) -> float:
    return samples.get((name, tuple(sorted(labels.items()))), 0.0)


async def settled(url: str, done: Callable[[Samples], bool], tries: int = 200) -> Samples:
    """Scrape until ``done`` holds of the figures (what the server counts when it
    notices something, a socket's end, it counts a moment after the client did it)."""
    for _ in range(tries):
        samples = await asyncio.to_thread(scrape, url)
        if done(samples):
            return samples
        await asyncio.sleep(0.05)
    raise AssertionError("the figures did not settle")


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    with running_server("sqlite", tmp_path_factory.mktemp("metrics"), *FAST,
                        "--metrics-token", TOKEN) as process:
        yield process


def test_metrics_are_off_without_a_token_and_refuse_a_wrong_one(
        server: ServerProcess) -> None:
    plain = shared_server("sqlite")                      # (started without a token)
    assert httpx.get(plain.url + "/metrics").status_code == 404
    assert httpx.get(plain.url + "/metrics",
                     headers={"Authorization": f"Bearer {TOKEN}"}).status_code == 404
    refused = httpx.get(server.url + "/metrics")
    assert refused.status_code == 401 and refused.headers["www-authenticate"] == "Bearer"
    for wrong in (TOKEN[:-1], TOKEN + "0", "x" * len(TOKEN)):
        answer = httpx.get(server.url + "/metrics", headers={"Authorization": f"Bearer {wrong}"})
        assert answer.status_code == 401
        assert "baohuang_" not in answer.text
    # a session cookie or ?token= (the player's credentials) does not open it
    assert httpx.get(server.url + f"/metrics?token={TOKEN}").status_code == 401


def test_a_short_metrics_token_is_refused_at_start() -> None:
    from typer.testing import CliRunner

    from baohuang.cli import app
    result = CliRunner().invoke(app, ["serve", "--metrics-token", "short"])
    assert result.exit_code == 2 and "16" in result.output


def test_figures_agree_with_what_was_played(server: ServerProcess) -> None:
    async def sources_of(client: Client) -> Counter[str]:
        """Who made each stored move of the client's games, from their replays."""
        made: Counter[str] = Counter()
        for game in await client.history():
            for step in (await client.replay(game["game_id"]))["steps"]:
                made[step["source"]] += 1
        return made

    async def main() -> tuple[Samples, Samples, Samples, Counter[str], int, int]:
        before = scrape(server.url)
        # a table waiting for its player: one socket open, his seat and four bots' taken
        host = Client(server.url)
        await host.guest("host")
        table = await host.quickplay(bots="random", practice=True, seed=11, timeout=60)
        raw = await Raw.connect(server.url, host.token)
        await raw.send({"type": "join", "table": table["id"]})
        await raw.recv_type("snapshot")
        during = scrape(server.url)
        # he hands his seat to 托管, which plays it to the end with the bots
        await raw.send({"type": "hosted", "on": True})
        await raw.recv_type("game_over", timeout=60)
        await raw.close()
        # two more games, played by their player (托管's choices, sent as his)
        players = [Client(server.url) for _ in range(2)]
        for index, client in enumerate(players):
            await client.guest(f"player{index}")
        tables = [await c.quickplay(bots="random", practice=True, seed=20 + i)
                  for i, c in enumerate(players)]
        await asyncio.wait_for(asyncio.gather(*(
            c.play(t["id"], "hosted") for c, t in zip(players, tables, strict=True))), 120)
        # refused: two logins, and messages past a socket's rate limit
        for password in ("wrong-one", "wrong-two"):
            with pytest.raises(ClientError, match="bad_credentials"):
                await Client(server.url).login("host", password)
        flood = await Raw.connect(server.url)
        with contextlib.suppress(ConnectionClosed):
            for _ in range(300):
                await flood.send({"type": "ping"})
        refused = 0
        with contextlib.suppress(ConnectionClosed):      # (closed for too many refusals)
            while True:
                message = await flood.recv(30)
                refused += message["type"] == "error" and message["code"] == "rate_limited"
        # (each socket's end counted once the server has seen it end)
        after = await settled(server.url, lambda s: value(s, "baohuang_sockets") == 0)
        made = Counter[str]()
        for client in (host, *players):
            made += await sources_of(client)
        return before, during, after, made, refused, len(tables) + 1

    before, during, after, made, refused, games = asyncio.run(main())

    def grew(name: str, **labels: str) -> float:
        return value(after, name, **labels) - value(before, name, **labels)

    assert value(before, "baohuang_sockets") == 0 and value(during, "baohuang_sockets") == 1
    assert value(during, "baohuang_seats", kind="player") == 1
    assert value(during, "baohuang_seats", kind="bot") == 4
    assert value(during, "baohuang_tables", status="playing") == 1
    # every move stored is counted once, by who made it, and timed at its table
    assert made["hosted"] > 0 and made["player"] > 0 and made["bot"] > 0
    for source in ("player", "bot", "hosted", "timeout", "leave"):
        assert grew("baohuang_moves_total", source=source) == made[source], source
    total = sum(made.values())
    assert grew("baohuang_move_seconds_count") == total
    assert grew("baohuang_store_seconds_count") == total
    assert 0 < grew("baohuang_move_seconds_sum") < total
    assert grew("baohuang_bot_think_seconds_count", bot="random") == made["bot"]
    assert grew("baohuang_hosted_takeovers_total", reason="asked") == 1
    assert value(after, "baohuang_tables", status="finished") == games
    assert value(after, "baohuang_tables", status="playing") == 0
    assert value(after, "baohuang_seats", kind="player") == 0
    assert grew("baohuang_login_failures_total") == 2
    assert grew("baohuang_errors_total", where="api", code="bad_credentials") == 2
    assert refused > 0
    assert grew("baohuang_rate_limited_total", limit="messages") == refused
    assert grew("baohuang_errors_total", where="socket", code="rate_limited") == refused
    # one server: no cluster figures
    assert not any(name.startswith("baohuang_cluster") for name, _ in after)


def test_servers_in_one_process_count_apart(tmp_path: Path) -> None:
    """Each server has a registry of its own: what one counts, the other does not."""
    configs = [ServerConfig(db_url=f"sqlite+aiosqlite:///{tmp_path / f'{n}.db'}",
                            metrics_token=TOKEN, **LOOSE_CONFIG) for n in ("a", "b")]
    with ServerThread(configs[0]) as first, ServerThread(configs[1]) as second:
        for _ in range(3):
            httpx.post(first.url + "/api/login", json={"name": "nobody", "password": "x"})
        assert value(scrape(first.url), "baohuang_login_failures_total") == 3
        assert value(scrape(second.url), "baohuang_login_failures_total") == 0


def dashboard_exprs(node: Any) -> Iterator[str]:
    if isinstance(node, dict):
        for key, item in node.items():
            if key == "expr" and isinstance(item, str):
                yield item
            else:
                yield from dashboard_exprs(item)
    elif isinstance(node, list):
        for item in node:
            yield from dashboard_exprs(item)


def test_the_dashboard_reads_only_figures_the_server_exports() -> None:
    dashboard = json.loads(DASHBOARD.read_text(encoding="utf-8"))
    metrics = ServerMetrics()
    metrics.hosted_takeovers.labels("asked")               # (labelled families: one child
    metrics.moves.labels("player")                          # each, so their samples show)
    metrics.errors.labels("api", "x")
    metrics.rate_limited.labels("messages")
    metrics.bot_think_seconds.labels("random")
    metrics.takeovers.labels("one")
    metrics.watch(lambda: Census({}, {}, node="one", leases=0))
    exported = set(metrics.families())
    exprs = list(dashboard_exprs(dashboard))
    assert len(exprs) >= 10
    for expr in exprs:
        named = set(re.findall(r"\b(baohuang_[a-z_]+)", expr))
        assert named, expr
        assert named <= exported, (expr, named - exported)
    panels = dashboard["panels"]
    assert all(panel.get("title") for panel in panels)


def test_a_take_over_of_an_away_seat_is_counted_once_an_absence(tmp_path: Path) -> None:
    """Five players join and go; once the away grace has run out (the tables' clock
    moved by hand), 托管 plays their seats: every move counted as 托管's, every seat
    taken over counted once however many of its decisions 托管 makes."""
    clocks = Clocks()
    config = ServerConfig(db_url=f"sqlite+aiosqlite:///{tmp_path / 'bh.db'}", bot_delay=0.0,
                          hosted_delay=0.0, guard_pause=0.0, away_grace=10.0,
                          metrics_token=TOKEN, **LOOSE_CONFIG)

    async def main(url: str) -> tuple[Samples, list[int]]:
        clients, table, watcher, _ = await deserted_table(url, "away")
        clock = clocks.tables[table["id"]]
        while True:                     # 托管 plays every seat to the end of the game
            await asyncio.to_thread(clock.advance_to, 10.0)   # (托管's turn: due now)
            message = await watcher.recv()
            while message["type"] not in ("update", "game_over"):
                message = await watcher.recv()
            if message["type"] == "game_over":
                break
        await watcher.close()
        history = await clients[0].history()
        steps = (await clients[0].replay(history[0]["game_id"]))["steps"]
        return await asyncio.to_thread(scrape, url), [step["seat"] for step in steps]

    with ServerThread(config, clocks=clocks) as server:
        samples, seats = asyncio.run(main(server.url))
    assert value(samples, "baohuang_moves_total", source="hosted") == len(seats)
    assert len(seats) > 5 and set(seats) == {0, 1, 2, 3, 4}
    assert value(samples, "baohuang_hosted_takeovers_total", reason="away") == 5
    assert value(samples, "baohuang_hosted_takeovers_total", reason="timeout") == 0
