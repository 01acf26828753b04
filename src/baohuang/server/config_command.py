"""``baohuang config check``: the settings ``baohuang serve --config FILE`` would start
with — from the file, the ``BAOHUANG_*`` environment variables and the defaults —
checked, each problem told, and a non-zero exit if there is one (registered in
``baohuang.cli``)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

__all__ = ["check_command", "config_app"]

config_app = typer.Typer(help="The server's settings (a TOML file and BAOHUANG_* "
                         "environment variables; docs/deploy.md).",
                         no_args_is_help=True, add_completion=False)


@config_app.command("check")
def check_command(
    file: Annotated[Path | None, typer.Option(
        "--file", "-f", help="the TOML file baohuang serve --config would read "
        "(without it: the environment and the defaults only)")] = None,
) -> None:
    """Load the settings as baohuang serve would and tell what is wrong: unknown keys,
    wrong types, bad URLs, rates or addresses, secrets too short or readable by every
    user. Exit 0 when the server would start with them, 1 otherwise."""
    from .configfile import SettingsError, load_settings

    try:
        settings = load_settings(file)
    except SettingsError as exc:
        for problem in exc.problems:
            typer.echo(f"error: {problem}", err=True)
        count = len(exc.problems)
        typer.echo(f"{count} problem{'s' if count > 1 else ''}: the server would not start",
                   err=True)
        raise typer.Exit(1) from None
    for warning in settings.warnings:
        typer.echo(f"warning: {warning}", err=True)
    rows = settings.shown()
    width = max((len(key) for key, _, _ in rows), default=0)
    for key, value, source in rows:
        typer.echo(f"{key.ljust(width)}  {value}  ({source})")
    typer.echo(f"settings ok: the server would listen on {settings.host}:{settings.port}, "
               f"database {settings.config.db_url.split(':', 1)[0]}")
