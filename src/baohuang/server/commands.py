"""The ``baohuang serve`` and ``baohuang loadtest`` commands (registered in
``baohuang.cli``).  The server stack is imported only when a command runs."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

__all__ = ["backup_command", "loadtest_command", "restore_command",
           "serve_command"]



#: ``baohuang serve`` options whose settings key (``configfile.KEYS``) is another name
_KEY_OF = {"db": "db_url", "redis": "redis_url", "allowed_origin": "allowed_origins",
           "trusted_host": "trusted_hosts", "message_rate": "rate_per_second",
           "message_burst": "burst"}


def serve_command(
    ctx: typer.Context,
    config_file: Annotated[Path | None, typer.Option(
        "--config", help="a TOML file of settings (docs/deploy.md; check it with "
        "`baohuang config check --file FILE`); the environment's BAOHUANG_* variables "
        "and then this command line's options win over it")] = None,
    host: str = typer.Option("127.0.0.1", help="address to listen on"),
    port: int = typer.Option(8000, help="port to listen on"),
    db: str | None = typer.Option(
        None, help="database URL (default: SQLite file data/baohuang.db; "
        "PostgreSQL: postgresql+asyncpg://user:password@host/name)"),
    bot_delay: float = typer.Option(
        0.6, help="a server bot's answer shows this to twice this many seconds after its "
        "turn began, plus its level's think time, the same in every role"),
    hosted_delay: float = typer.Option(0.5, help="seconds 托管 waits before moving"),
    guard_pause: float = typer.Option(
        6.0, help="seconds the Guard's 明保/暗保 decision lasts; its answer (the Guard's, a "
        "bot's or 托管's) is shown exactly then, so its timing tells nothing (0: off)"),
    away_grace: float = typer.Option(
        10.0, help="seconds a disconnected player's seat waits before 托管 plays it"),
    next_game_delay: float = typer.Option(
        4.0, help="pause between the games of a match of bots only (people say 准备)"),
    table_idle: float = typer.Option(
        3600.0, help="seconds a table may go without a connected player and a move before "
        "it is dissolved (its finished games are kept)"),
    watchers_per_table: int = typer.Option(50, help="watchers one table takes at a time"),
    session_idle: float = typer.Option(30 * 24 * 3600.0,
                                       help="seconds a session lasts unused"),
    session_absolute: float = typer.Option(365 * 24 * 3600.0,
                                           help="seconds a session lasts from its login"),
    ws_compression: bool = typer.Option(
        False, help="compress WebSocket messages (permessage-deflate)"),
    allowed_origin: Annotated[list[str] | None, typer.Option(
        help="an origin (https://host[:port]) whose pages may also use the server; "
        "repeatable (the server's own host is always allowed)")] = None,
    trusted_host: Annotated[list[str] | None, typer.Option(
        help="a host name the server answers to; repeatable (default: any)")] = None,
    forwarded_allow_ips: str = typer.Option(
        "127.0.0.1", help="comma-separated addresses of proxies whose X-Forwarded-* headers "
        "are believed ('*': any)"),
    max_header_bytes: int = typer.Option(
        16 * 1024, help="the largest request head (request line and headers) in bytes: a "
        "longer one is refused (400) before more is read"),
    max_header_line: int = typer.Option(
        8 * 1024, help="the longest request line or header line in bytes (431 beyond)"),
    message_rate: float = typer.Option(
        50.0, help="messages a second one connection may send on average (more are "
        "refused as rate_limited)"),
    message_burst: int = typer.Option(
        100, help="messages one connection may send at once beyond that average"),
    account_rate_address: str = typer.Option(
        "10/minute;60/hour;200/day", help="accounts (guests and registrations) one client "
        "address may make (limits notation, tiers separated by ';')"),
    table_rate_address: str = typer.Option(
        "30/minute;300/hour;1000/day", help="tables one client address may make"),
    table_rate_account: str = typer.Option(
        "20/minute;200/hour;1000/day", help="tables one account may make"),
    code_rate_address: str = typer.Option(
        "30/minute;300/hour;1000/day", help="lookups of a table by invitation code (or by a "
        "key that finds nothing) one client address may make"),
    code_rate_account: str = typer.Option(
        "20/minute;200/hour;600/day", help="such lookups one account may make"),
    log_level: str = typer.Option("info", help="debug, info, warning or error"),
    log_format: str | None = typer.Option(
        None, show_default=False, help="json (one JSON object a line) or text; default: "
        "text when standard error is a terminal, json otherwise"),
    redis: str | None = typer.Option(
        None, help="a cluster node: the Redis of the table leases (redis://host:port/db); "
        "the nodes share one PostgreSQL --db (docs/cluster.md)"),
    node: str = typer.Option("", help="this cluster node's name, without '#' or '|' "
                             "(default: the host and a random part); each start of the "
                             "process adds a random part of its own to it"),
    lease_ttl: float = typer.Option(
        5.0, help="seconds a cluster node's table lease and its alive key last unrenewed: "
        "a killed node's tables are taken over, and its players' seats let go, after this"),
    metrics_token: str | None = typer.Option(
        None, show_default=False,
        help="serve the figures for Prometheus at /metrics to a scraper that sends this "
        "bearer token (Authorization: Bearer TOKEN; at least 16 characters, say from "
        "`openssl rand -hex 32`); without it /metrics is off. Better given in the "
        "environment variable BAOHUANG_METRICS_TOKEN than on the command line, which "
        "other users can see"),
    challenge_tz: str = typer.Option(
        "Asia/Shanghai", help="每日挑战 (daily challenge): the time zone whose calendar day "
        "is a challenge day (an IANA name)"),
    challenge_deals: int = typer.Option(6, help="deals in a challenge day (1 to 20)"),
    challenge_preset: str = typer.Option("shandong", help="the rules preset of the "
                                         "challenge's deals"),
    challenge_bot: str = typer.Option(
        "normal", help="the bots of the challenge (a level that answers a position always "
        "the same way: normal or hard)"),
    challenge_guests: bool = typer.Option(True, help="guests may play the daily challenge"),
    challenge_timeout: float = typer.Option(60.0, help="seconds a challenge deal's turn "
                                            "lasts"),
    challenge_reveal_after: float = typer.Option(
        3600.0, help="seconds after a challenge day ends that its secret seed is published"),
    review_playouts: int = typer.Option(
        4000, min=1, help="复盘 (game review): playouts per decision, spread over its choices"),
    review_cpu_seconds: float = typer.Option(
        90.0, min=0.1, help="复盘: CPU seconds one seat's review may take (it stops there)"),
    review_workers: int = typer.Option(
        1, min=1, help="复盘: worker processes that compute reviews"),
    reviews_per_user: int = typer.Option(
        2, min=1, help="复盘: reviews one account may have running at once"),
) -> None:
    """Serve tables over HTTP and WebSocket (web client at /, API at /api, socket at /ws).

    Every option may also come from a TOML file (--config) or a BAOHUANG_* environment
    variable (docs/deploy.md)."""
    from typer._click.core import ParameterSource

    from .configfile import SettingsError, load_settings
    from .transport.app import serve

    given = {}
    for name, value in ctx.params.items():
        if name != "config_file" and \
                ctx.get_parameter_source(name) is ParameterSource.COMMANDLINE:
            given[_KEY_OF.get(name, name)] = value
    try:
        settings = load_settings(config_file, given=given)
    except SettingsError as exc:
        for problem in exc.problems:
            typer.echo(f"error: {problem}", err=True)
        raise typer.Exit(2) from None
    serve(settings.host, settings.port, settings.config, settings.log_level,
          settings.log_format, settings.warnings)


def loadtest_command(
    server: str = typer.Option("http://127.0.0.1:8000", help="server URL"),
    tables: int = typer.Option(10, help="tables to fill, five client bots each"),
    games: int = typer.Option(1, help="games per table (a match)"),
    bot: str | None = typer.Option(
        None, help="the bot every client plays with, as a Python client (baohuang.client: a "
        "full view a decision); without it every client answers as 托管 from the "
        "legal-action texts the server sends, decoding only what it needs"),
    think: float = typer.Option(0.0, help="seconds each client waits before moving, on "
                                "average (0.5–1.5× at random)"),
    processes: int = typer.Option(1, help="client processes to spread the clients over"),
    timeout: float | None = typer.Option(None, help="stop clients still playing after this "
                                         "many seconds (counted as errors)"),
    as_json: bool = typer.Option(False, "--json", help="print the report as JSON"),
) -> None:
    """Fill TABLES tables with five WebSocket client bots each and report throughput,
    errors, resyncs and move→broadcast latency.  Every client comes from this machine's
    address: start the server with its limits per address opened wide (the flags of
    ``baohuang.server.harness.LOAD_LIMITS``), or it refuses the guests and tables."""
    import json

    import httpx

    from ..bots.base import is_bot, unknown_bot
    from ..client import ClientError
    from .loadtest import run_loadtest, run_on_fast_loop

    if bot is not None and not is_bot(bot):
        raise typer.BadParameter(str(unknown_bot(bot)), param_hint="--bot")
    if tables < 1 or games < 1 or processes < 1:
        raise typer.BadParameter("--tables, --games and --processes are at least 1")
    try:
        report = run_on_fast_loop(run_loadtest(server, tables=tables, games=games, bot=bot,
                                               think=think, processes=processes,
                                               timeout=timeout))
    except httpx.HTTPError as exc:
        typer.echo(f"error: cannot reach the server at {server}: {exc}", err=True)
        raise typer.Exit(2) from None
    except ClientError as exc:
        typer.echo(f"error: the server at {server} refused the load test: {exc}", err=True)
        raise typer.Exit(2) from None
    if as_json:
        typer.echo(json.dumps(report.to_dict(), indent=2))
    else:
        typer.echo(report.text())
    if report.errors or report.games_finished < tables * games:
        raise typer.Exit(1)


_DB_HELP = ("database URL, as baohuang serve --db takes (default: SQLite file "
            "data/baohuang.db; PostgreSQL: postgresql+asyncpg://user:password@host/name)")


def backup_command(
    file: Annotated[Path, typer.Argument(
        help="the backup file to write (replaced if it exists)")],
    db: str | None = typer.Option(None, help=_DB_HELP),
) -> None:
    """Copy the whole database into FILE, safely while the server runs: SQLite through
    its online backup API, PostgreSQL through pg_dump (on PATH)."""
    from .config import default_db_url
    from .db.backup import BackupError, backup

    try:
        summary = backup(db or default_db_url(), file)
    except BackupError as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(1) from None
    typer.echo(f"backed up to {summary.text()}")


def restore_command(
    file: Annotated[Path, typer.Argument(help="a file baohuang backup wrote")],
    db: str | None = typer.Option(None, help=_DB_HELP + "; it must be empty"),
) -> None:
    """Put a backup into an empty database (a new SQLite file, or a PostgreSQL database
    made with createdb; pg_restore on PATH), then start the server on it."""
    from .config import default_db_url
    from .db.backup import BackupError, restore

    try:
        summary = restore(file, db or default_db_url())
    except BackupError as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(1) from None
    typer.echo(f"restored into {summary.text()}")
