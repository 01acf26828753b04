"""``baohuang loadtest`` against a real server: tables fill, games finish, and the
report has the numbers it promises."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
from server_support import FAST, shared_server
from typer.testing import CliRunner

from baohuang.cli import app
from baohuang.server.harness import LOAD_LIMITS, ServerProcess
from baohuang.server.loadtest import run_loadtest, run_on_fast_loop


@pytest.fixture(scope="module")
def server() -> ServerProcess:
    return shared_server("sqlite")


@pytest.fixture(scope="module")
def load_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    """A server started as the load test's help says: its limits opened wide
    (``LOAD_LIMITS``), since its players answer faster than people may."""
    directory = tmp_path_factory.mktemp("load")
    server = ServerProcess(f"sqlite+aiosqlite:///{directory / 'load.db'}", None,
                           *LOAD_LIMITS, *FAST, log=directory / "server.log")
    server.start()
    yield server
    server.stop()


def test_loadtest_command_reports_a_clean_run(server: ServerProcess) -> None:
    result = CliRunner().invoke(app, ["loadtest", "--server", server.url, "--tables", "2",
                                      "--games", "1", "--json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    assert report["games_finished"] == report["games_expected"] == 2
    assert report["errors"] == 0 and report["clients"] == 10
    assert report["messages"] > report["moves"] > 100
    assert 0 < report["latency_ms"]["p50"] <= report["latency_ms"]["p99"]


def test_loadtest_plays_a_match_of_several_games_without_an_error(
        load_server: ServerProcess) -> None:
    """Between a match's games each player says 准备 once: the lean players had said it
    again on every seat's 准备 they saw, and were refused (not_allowed, rate_limited)."""
    result = CliRunner().invoke(app, ["loadtest", "--server", load_server.url,
                                      "--tables", "2", "--games", "3", "--json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    assert report["games_finished"] == report["games_expected"] == 6
    assert report["errors"] == 0, report["error_codes"]


def test_loadtest_plays_a_named_bot_through_the_python_client(server: ServerProcess) -> None:
    # (--bot: every client a baohuang.client.Client with that bot, a full view a decision)
    result = CliRunner().invoke(app, ["loadtest", "--server", server.url, "--tables", "1",
                                      "--bot", "random", "--json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    assert report["games_finished"] == 1 and report["errors"] == 0
    assert report["messages"] > report["moves"] > 20


def test_loadtest_fails_when_games_do_not_finish(server: ServerProcess) -> None:
    # clients that think 0.5-1.5 s a move cannot finish a game of hundreds of moves in 1 s
    result = CliRunner().invoke(app, ["loadtest", "--server", server.url, "--tables", "1",
                                      "--think", "1.0", "--timeout", "1.0"])
    assert result.exit_code == 1
    assert "timeout" in result.output


def test_loadtest_names_an_unreachable_server_and_an_unknown_bot() -> None:
    from baohuang.server.harness import free_port

    url = f"http://127.0.0.1:{free_port()}"          # nobody listens there
    result = CliRunner().invoke(app, ["loadtest", "--server", url, "--tables", "1"])
    assert result.exit_code == 2
    assert f"cannot reach the server at {url}" in result.output
    assert "Traceback" not in result.output
    result = CliRunner().invoke(app, ["loadtest", "--server", url, "--bot", "hosted-5"])
    assert result.exit_code == 2
    assert "unknown bot 'hosted-5'" in result.output


def test_loadtest_calls_the_clock_hook_around_the_measured_part(server: ServerProcess) -> None:
    # (bench/server.py reads the server's CPU time at these two calls: the sign-ups and
    # the tables' creation before the clock are not in the moves' figures)
    calls: list[int] = []
    report = run_on_fast_loop(run_loadtest(server.url, tables=1, games=1,
                                           on_clock=lambda: calls.append(len(calls))))
    assert calls == [0, 1]
    assert report.finished == 1 and report.moves > 20
    assert report.cpu_seconds > 0
