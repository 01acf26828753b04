"""``baohuang config check`` and ``baohuang serve --config``: settings from a TOML file
and ``BAOHUANG_*`` variables, each mistake told with its key and where it came from,
and a non-zero exit; a server started from the file serves with its settings."""

from __future__ import annotations

import os
import re
from pathlib import Path

import httpx
import pytest
from server_support import FAST, LOOSE
from typer.testing import CliRunner

from baohuang.cli import app
from baohuang.server.configfile import SettingsError, load_settings
from baohuang.server.harness import ServerProcess

GOOD = """\
host = "127.0.0.1"
port = 8000
db_url = "sqlite+aiosqlite:////var/lib/baohuang/baohuang.db"
trusted_hosts = ["bh.example.org", "localhost"]
forwarded_allow_ips = "127.0.0.1, 10.0.0.0/8"
log_format = "json"
"""


def _check(tmp_path: Path, text: str, env: dict[str, str] | None = None,
           mode: int = 0o640) -> tuple[int, str]:
    path = tmp_path / "baohuang.toml"
    path.write_text(text)
    path.chmod(mode)
    unset: dict[str, str | None] = {k: None for k in os.environ if k.startswith("BAOHUANG_")}
    result = CliRunner().invoke(app, ["config", "check", "--file", str(path)],
                                env={**unset, **(env or {})})
    return result.exit_code, result.output


def test_good_settings_pass_and_show_where_each_came_from(tmp_path: Path) -> None:
    code, out = _check(tmp_path, GOOD, {"BAOHUANG_METRICS_TOKEN": "x" * 32,
                                        "BAOHUANG_PORT": "8100"})
    assert code == 0, out
    assert "settings ok: the server would listen on 127.0.0.1:8100" in out
    assert re.search(r"^metrics_token +\*\*\*  \(\$BAOHUANG_METRICS_TOKEN\)$", out, re.M)
    assert "x" * 32 not in out                                    # (a secret is masked)
    assert f"bh.example.org, localhost  ({tmp_path / 'baohuang.toml'})" in out


@pytest.mark.parametrize(("text", "env", "told"), [
    ("lease_tll = 5\n", {}, "unknown key 'lease_tll' (did you mean 'lease_ttl'?)"),
    ("[server]\nport = 1\n", {}, "unknown section 'server'"),
    ('port = "8000"\n', {}, "port ("),
    ("port = 8000\nhost = \n", {}, "not TOML"),
    ('db_url = "mysql://u:p@h/db"\n', {}, "db_url ("),
    ('db_url = "nonsense"\n', {}, "not a URL"),
    ('redis_url = "http://h"\ndb_url = "postgresql+asyncpg://u:p@h/db"\n', {},
     "not a Redis URL"),
    ('table_rate_address = "lots"\n', {}, "not a rate such as 10/minute;60/hour"),
    ('forwarded_allow_ips = "haproxy"\n', {}, "not an address or network: 'haproxy'"),
    ('allowed_origins = ["bh.example.org"]\n', {}, "an origin is https://HOST[:PORT]"),
    ('log_level = "verbose"\n', {}, "log_level ("),
    ("", {"BAOHUANG_METRICS_TOKEN": "short"}, "must have at least 16 characters"),
    ("", {"BAOHUANG_AWAY_GRACE": "-1"}, "away_grace ($BAOHUANG_AWAY_GRACE): must not be "
     "negative"),
    ("", {"BAOHUANG_WS_COMPRESSION": "maybe"}, "ws_compression ($BAOHUANG_WS_COMPRESSION)"),
])
def test_each_mistake_is_told_with_its_key_and_a_failing_exit(
        tmp_path: Path, text: str, env: dict[str, str], told: str) -> None:
    code, out = _check(tmp_path, text, env)
    assert code == 1, out
    assert told in out and "the server would not start" in out


def test_a_secret_in_a_file_every_user_may_read_is_refused(tmp_path: Path) -> None:
    secret = 'metrics_token = "0123456789abcdef0123"\n'
    code, out = _check(tmp_path, secret, mode=0o644)
    assert code == 1 and "holds a secret (metrics_token)" in out
    assert "0123456789abcdef0123" not in out
    assert _check(tmp_path, secret, mode=0o640)[0] == 0
    url = 'db_url = "postgresql+asyncpg://bh:hunter22@db.internal/bh"\n'
    code, out = _check(tmp_path, url, mode=0o604)
    assert code == 1 and "holds a secret (db_url)" in out and "hunter22" not in out


def test_serve_reads_the_file_and_the_command_line_wins(tmp_path: Path) -> None:
    settings = tmp_path / "baohuang.toml"
    settings.write_text('trusted_hosts = ["bh.example.org", "127.0.0.1"]\n'
                        'port = 1\nlog_format = "text"\nlog_level = "error"\n')
    server = ServerProcess(f"sqlite+aiosqlite:///{tmp_path / 'bh.db'}", None, *LOOSE, *FAST,
                           "--config", str(settings), "--log-format", "json",
                           "--log-level", "info", log=tmp_path / "server.log")
    server.start()                  # (on the command line's --port, not the file's 1)
    try:
        # the file's trusted hosts
        assert httpx.get(server.url + "/healthz",
                         headers={"Host": "bh.example.org"}).status_code == 200
        assert httpx.get(server.url + "/healthz",
                         headers={"Host": "elsewhere.example"}).status_code == 400
    finally:
        server.stop()
    # the command line's log format and level
    assert (tmp_path / "server.log").read_text().startswith('{"time": ')


def test_serve_refuses_bad_settings_before_it_starts(tmp_path: Path) -> None:
    settings = tmp_path / "baohuang.toml"
    settings.write_text("lease_ttl = 0\n")
    result = CliRunner().invoke(app, ["serve", "--config", str(settings)])
    assert result.exit_code == 2 and "lease_ttl" in result.output


def test_config_check_refuses_a_daily_challenge_that_cannot_work(tmp_path: Path) -> None:
    """每日挑战's settings are checked with the others: a time zone that does not exist
    and a bot level that does not answer the same way twice are named."""
    file = tmp_path / "baohuang.toml"
    file.write_text('challenge_tz = "Mars/Olympus"\n', encoding="utf-8")
    with pytest.raises(SettingsError) as zone:
        load_settings(file)
    assert any("Mars/Olympus" in problem for problem in zone.value.problems)
    file.write_text('challenge_bot = "easy"\n', encoding="utf-8")
    with pytest.raises(SettingsError) as bot:
        load_settings(file)
    assert any("always the same way" in problem for problem in bot.value.problems)
