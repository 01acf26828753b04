"""The ``baohuang`` command.  Each subcommand lives in its own module and is
registered here."""

from __future__ import annotations

import typer
from rich.console import Console
from rich.table import Table

from .engine.rules import OPTION_HELP, PRESETS

app = typer.Typer(
    help="保皇 (Baohuang): play in the terminal, run bots and tournaments, serve tables.",
    no_args_is_help=True,
    add_completion=False,
)


@app.callback()
def _root() -> None:
    """保皇 (Baohuang): play in the terminal, run bots and tournaments, serve tables."""


@app.command("rules")
def rules_command() -> None:
    """Show every rule option and its value in each preset."""
    table = Table(title="保皇 rule options / 规则选项")
    table.add_column("option")
    for name in PRESETS:
        table.add_column(name)
    table.add_column("说明 / meaning")
    for option, (zh, en) in OPTION_HELP.items():
        values = [str(PRESETS[p].to_dict()[option]) for p in PRESETS]
        table.add_row(option, *values, f"{zh}\n{en}")
    Console().print(table)


# `baohuang tournament` (duplicate tournaments between bots): tournament/cli.py
from .tournament.cli import tournament_command  # noqa: E402

app.command("tournament")(tournament_command)


# `baohuang play` (one human seat against four bots in the terminal): terminal/app.py
from .terminal.app import play_command  # noqa: E402

app.command("play")(play_command)


# `baohuang serve` and `baohuang loadtest` (the game server): server/commands.py
from .server.commands import loadtest_command, serve_command  # noqa: E402

app.command("serve")(serve_command)
app.command("loadtest")(loadtest_command)


def main() -> None:
    app()


if __name__ == "__main__":
    main()
