"""The ``baohuang`` command.  Each subcommand lives in its own module and is
registered here."""

from __future__ import annotations

import typer
from rich.console import Console, Group, RenderableType
from rich.padding import Padding
from rich.text import Text

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
    """Show every rule option, its meaning and its value in each preset (规则选项)."""
    console = Console()
    names = list(PRESETS)
    lines: list[RenderableType] = [Text("保皇 rule options / 规则选项", style="bold"),
             Text("presets / 预设: " + ", ".join(f"{i} {n}" for i, n in enumerate(names, 1))),
             Text("")]
    for option, (zh, en) in OPTION_HELP.items():
        values = [PRESETS[p].to_dict()[option] for p in names]
        shown = [("on" if v else "off") if isinstance(v, bool) else str(v) for v in values]
        lines += [Text(option, style="bold cyan"),
                  Padding(Text(zh), (0, 0, 0, 2)),
                  Padding(Text(en, style="dim"), (0, 0, 0, 2)),
                  Padding(Text("   ".join(f"{i} {v}" for i, v in enumerate(shown, 1)),
                               style="green"), (0, 0, 0, 2))]
    body = Group(*lines)
    if console.is_terminal:
        with console.pager(styles=True):
            console.print(body)
    else:
        console.print(body)


# `baohuang tournament` (duplicate tournaments between bots): tournament/cli.py
from .tournament.cli import tournament_command  # noqa: E402

app.command("tournament")(tournament_command)


# `baohuang play` (one human seat against four bots in the terminal): terminal/app.py
from .terminal.app import play_command  # noqa: E402

app.command("play")(play_command)


# `baohuang serve`, `baohuang loadtest`, `baohuang backup` and `baohuang restore` (the
# game server and its database): server/commands.py
from .server.commands import (  # noqa: E402
    backup_command,
    loadtest_command,
    restore_command,
    serve_command,
)

app.command("serve")(serve_command)
app.command("loadtest")(loadtest_command)
app.command("backup")(backup_command)
app.command("restore")(restore_command)

# `baohuang config check` (the server's settings from a TOML file and the environment):
# server/config_command.py
from .server.config_command import config_app  # noqa: E402

app.add_typer(config_app, name="config")

# `baohuang cluster` (nodes, PostgreSQL, Redis and HAProxy on this machine): server/cluster
from .server.cluster.command import cluster_command  # noqa: E402

app.command("cluster")(cluster_command)

# `baohuang admin ...` (moderation from the shell): server/admin.py
from .server.admin import admin_app  # noqa: E402

app.add_typer(admin_app, name="admin")

# `baohuang train` (the learned bot's self-play training): learn/cli.py
from .learn.cli import train_command  # noqa: E402

app.command("train")(train_command)

# `baohuang review` (复盘, the review of a finished game's decisions): terminal/review.py
from .terminal.review import review_command  # noqa: E402

app.command("review")(review_command)


def main() -> None:
    app()


if __name__ == "__main__":
    main()
