"""``baohuang admin …``: moderation from the shell, on the database of ``--db`` (as
``baohuang serve`` takes it), while the server runs or not.  Each action is written to
the audit log as made from the shell (``via: shell``, no moderator).

A ban or suspension made here deletes the player's sessions at once (no request or new
socket gets in with them, logins are refused); a running server closes the sockets it
still holds of them at its next check of the sessions of open sockets
(``ServerConfig.session_check``, a minute).  Closing a table is done from the
moderator page (the table's own server must do it).

Users are named by their registered name, or ``#id`` (a guest has no name to log in
with: ``#17``)."""

from __future__ import annotations

import asyncio
import datetime
import json
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

import typer

__all__ = ["admin_app"]

T = TypeVar("T")

admin_app = typer.Typer(help="Moderation from the shell (管理): roles, bans, mutes, "
                        "passwords, reports and the audit log.", no_args_is_help=True)

_DB = typer.Option(None, "--db", help="database URL, as baohuang serve --db takes (default: "
                   "SQLite file data/baohuang.db)")
_REASON = typer.Option(..., "--reason", help="why (written to the audit log)")


def _run(db: str | None, work: Callable[[Any], Awaitable[T]]) -> T:
    """``work(moderation)`` on the database ``db``; a refusal is printed, exit 1."""
    from .config import default_db_url
    from .db.storage import open_storage
    from .moderation import Moderation, ModerationError

    async def main() -> T:
        storage = await open_storage(db or default_db_url())
        try:
            return await work(Moderation(storage))
        finally:
            await storage.close()
    try:
        return asyncio.run(main())
    except ModerationError as exc:
        typer.echo(f"error: {exc.message}", err=True)
        raise typer.Exit(1) from None


async def _find(moderation: Any, who: str) -> int:
    from .moderation import ModerationError

    if who.startswith("#") and who[1:].isdigit():
        return int(who[1:])
    found: int | None = await moderation.storage.user_by_name(who)
    if found is None:
        raise ModerationError(404, "not_found", f"no registered user called {who!r}")
    return found


def _when(stamp: float | None) -> str:
    if stamp is None:
        return "-"
    return datetime.datetime.fromtimestamp(stamp, datetime.UTC).strftime("%Y-%m-%d %H:%M")


def _on(db: str | None, who: str, action: str, *args: Any) -> Any:
    """``Moderation.<action>(None, the user called who, *args)`` from the shell (``None``:
    no moderator's account, the audit log says ``shell``); its answer."""
    async def work(moderation: Any) -> Any:
        return await getattr(moderation, action)(None, await _find(moderation, who), *args)
    return _run(db, work)


_WHO = typer.Argument(..., help="a registered name, or #id")
_MINUTES = typer.Option(..., help="how long")


@admin_app.command("grant")
def grant(who: str = _WHO,
          role: str = typer.Argument(..., help="player, moderator or admin"),
          reason: str = _REASON, db: str | None = _DB) -> None:
    """Give a user a role (player, moderator or admin)."""
    _on(db, who, "grant", role, reason)
    typer.echo(f"{who} is now {role}")


@admin_app.command("ban")
def ban(who: str = _WHO, reason: str = _REASON, db: str | None = _DB) -> None:
    """Ban a player: his sessions end and he cannot log in again."""
    _on(db, who, "ban", reason)
    typer.echo(f"{who} is banned")


@admin_app.command("unban")
def unban(who: str = _WHO, reason: str = _REASON, db: str | None = _DB) -> None:
    """Lift a ban or a suspension."""
    _on(db, who, "unban", reason)
    typer.echo(f"{who} is no longer banned")


@admin_app.command("suspend")
def suspend(who: str = _WHO, minutes: int = _MINUTES, reason: str = _REASON,
            db: str | None = _DB) -> None:
    """Suspend a player for some minutes: his sessions end, no login until then."""
    until = _on(db, who, "suspend", minutes, reason)
    typer.echo(f"{who} is suspended until {_when(until)} UTC")


@admin_app.command("mute")
def mute(who: str = _WHO, minutes: int = _MINUTES, reason: str = _REASON,
         db: str | None = _DB) -> None:
    """Mute a player (禁言): no chat and no quick phrases for some minutes."""
    until = _on(db, who, "mute", minutes, reason)
    typer.echo(f"{who} is muted until {_when(until)} UTC")


@admin_app.command("unmute")
def unmute(who: str = _WHO, reason: str = _REASON, db: str | None = _DB) -> None:
    """Lift a mute."""
    _on(db, who, "unmute", reason)
    typer.echo(f"{who} is no longer muted")


@admin_app.command("reset-password")
def reset_password(who: str = _WHO, reason: str = _REASON, db: str | None = _DB) -> None:
    """Give a player a new random password (printed once); his sessions end."""
    password = _on(db, who, "reset_password", reason)
    typer.echo(f"new password for {who}: {password}")


@admin_app.command("reports")
def reports(status: str = typer.Option("open", help="open, closed or all"),
            limit: int = typer.Option(100, help="at most this many, latest first"),
            as_json: bool = typer.Option(False, "--json", help="print JSON"),
            db: str | None = _DB) -> None:
    """List the reports (举报), latest first."""
    if status not in ("open", "closed", "all"):
        raise typer.BadParameter("open, closed or all", param_hint="--status")

    async def work(moderation: Any) -> list[dict[str, Any]]:
        rows: list[dict[str, Any]] = await moderation.reports(
            None if status == "all" else status, limit)
        return rows
    rows = _run(db, work)
    if as_json:
        typer.echo(json.dumps(rows, ensure_ascii=False, indent=2))
        return
    for row in rows:
        where = f"game {row['game_id']} {row['replay']}" if row["game_id"] else \
            f"table {row['table_id'] or '-'}"
        typer.echo(f"#{row['id']} {_when(row['created'])} {row['status']} "
                   f"{row['reporter_name']} (#{row['reporter']}) reports "
                   f"{row['reported_name']} (#{row['reported']}) from {row['place']}, "
                   f"{where}: {row['reason']}")
    if not rows:
        typer.echo("no reports")


@admin_app.command("audit")
def audit(limit: int = typer.Option(100, help="at most this many, latest first"),
          as_json: bool = typer.Option(False, "--json", help="print JSON"),
          db: str | None = _DB) -> None:
    """The audit log of moderator actions: who, when, what and why."""
    async def work(moderation: Any) -> list[dict[str, Any]]:
        rows: list[dict[str, Any]] = await moderation.audit_log(limit)
        return rows
    rows = _run(db, work)
    if as_json:
        typer.echo(json.dumps(rows, ensure_ascii=False, indent=2))
        return
    for row in rows:
        who = "shell" if row["moderator"] is None else \
            f"{row['moderator_name']} (#{row['moderator']})"
        target = f"user {row['target_name']} (#{row['target_user']})" \
            if row["target_user"] is not None else f"table {row['target_table'] or '-'}"
        typer.echo(f"{_when(row['at'])} {who} {row['action']} {target}: {row['reason']}")
    if not rows:
        typer.echo("the audit log is empty")
