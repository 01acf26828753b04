"""Moderation (管理): roles, reports (举报) and what moderators may do about them.

Every account has a role: ``player`` (everyone at first), ``moderator`` or ``admin``.
Players report another player from a table, a score sheet or the history, with a
reason.  Moderators read the reports (with the game's replay) and the audit log, and
mute (禁言: no chat, no quick phrases), suspend (封禁 for a time), ban (永久封禁) and
unban players, close a table (its game abandoned unscored, every seat told why) and
reset a player's password.  Admins do the same to moderators too, and grant roles.
Every such action is written to the audit log: who, when, what and why — made through
the web (``via="web"``) or the shell (``baohuang admin``, ``via="shell"``, no user).

A banned or suspended player's sessions end at once: their rows are deleted (no
request or socket is let in with them, and logins are refused) and the sockets this
server holds of them are closed (4003); another node's (a cluster) close at its next
check of the sessions of open sockets (``ServerConfig.session_check``).

>>> check_reason("  cheating with a friend  ")
'cheating with a friend'
>>> check_reason("")
Traceback (most recent call last):
...
baohuang.server.moderation.ModerationError: bad_reason: a reason has 1 to 500 characters
>>> outranks("admin", "moderator"), outranks("moderator", "moderator")
(True, False)
"""

from __future__ import annotations

import asyncio
import secrets
import time
import unicodedata
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from .accounts.accounts import hash_password
from .db.moderation import muted_text
from .db.storage import Storage, UserRecord
from .table.effects import CloseTable

if TYPE_CHECKING:
    from .accounts.sessions import LiveSessions
    from .table.lobby import Lobby

__all__ = ["MAX_REASON", "PLACES", "ROLES", "Moderation", "ModerationError", "check_reason",
           "muted_text", "outranks"]

#: the roles, lowest first
ROLES: tuple[str, ...] = ("player", "moderator", "admin")
#: where a report is made from: a table, a score sheet (结算), the history, a club's
#: chat (亲友圈: with the line reported)
PLACES: tuple[str, ...] = ("table", "scoresheet", "history", "club")
#: a moderator's read of a club's chat returns at most this many lines
CLUB_CHAT_PAGE = 200
#: the longest reason (of a report, or of a moderator's action), in characters
MAX_REASON = 500
#: the longest mute or suspension: a year, in minutes (a ban is for longer)
MAX_MINUTES = 366 * 24 * 60
#: the close code of a socket whose user is banned or suspended
BARRED_CLOSE = 4003


class ModerationError(ValueError):
    """A refused moderation request: HTTP status, code and message."""

    def __init__(self, status: int, code: str, message: str) -> None:
        self.status, self.code, self.message = status, code, message
        super().__init__(f"{code}: {message}")


def check_reason(text: object) -> str:
    """A reason: 1 to :data:`MAX_REASON` characters after trimming; line breaks are
    kept, other control and format characters are not allowed."""
    if not isinstance(text, str):
        raise ModerationError(400, "bad_reason", "a reason is a string")
    text = text.strip()
    if not 1 <= len(text) <= MAX_REASON:
        raise ModerationError(400, "bad_reason", f"a reason has 1 to {MAX_REASON} characters")
    if any(unicodedata.category(ch) in ("Cc", "Cf") and ch != "\n" for ch in text):
        raise ModerationError(400, "bad_reason", "a reason may not contain control "
                              "characters")
    return text


def _positive(body: dict[str, Any], key: str) -> int | None:
    value = body.get(key)
    if value is not None and (isinstance(value, bool) or not isinstance(value, int)
                              or not 0 < value < 2**31):
        raise ModerationError(400, "bad_request", f"{key!r} is an id")
    return value


def rank(role: str) -> int:
    return ROLES.index(role) if role in ROLES else 0


def outranks(actor: str, target: str) -> bool:
    """Whether a user of role ``actor`` may act on one of role ``target``."""
    return rank(actor) > rank(target)


def _minutes(value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int) \
            or not 1 <= value <= MAX_MINUTES:
        raise ModerationError(400, "bad_request",
                              f"'minutes' must be a whole number 1..{MAX_MINUTES}")
    return value


class Moderation:
    """The moderators' actions on top of :class:`Storage`; on a running server also
    its lobby (to close tables) and its open sockets (to end them), absent in the
    shell."""

    def __init__(self, storage: Storage, *, lobby: Lobby | None = None,
                 live: LiveSessions[Any] | None = None,
                 clock: Callable[[], float] = time.time) -> None:
        self.storage = storage
        self.lobby = lobby
        self.live = live
        self.clock = clock

    # -- who may ----------------------------------------------------------------------
    @staticmethod
    def require(user: UserRecord | None, role: str = "moderator") -> UserRecord:
        """``user``, if he has at least ``role``; else 401 (no session) or 403."""
        if user is None:
            raise ModerationError(401, "login_required", "this needs a session")
        if rank(user.role) < rank(role):
            raise ModerationError(403, "forbidden", f"this is for a {role} only; your "
                                  f"role is {user.role}")
        return user

    async def _target(self, actor: UserRecord | None, user_id: int) -> UserRecord:
        target = await self.storage.user(user_id)
        if target is None:
            raise ModerationError(404, "not_found", f"no user {user_id}")
        if actor is not None:
            if actor.id == target.id:
                raise ModerationError(403, "forbidden", "a moderator does not act on himself")
            if not outranks(actor.role, target.role):
                raise ModerationError(403, "forbidden", f"a {actor.role} cannot act on a "
                                      f"{target.role}")
        return target

    async def _audit(self, actor: UserRecord | None, action: str, reason: str, *,
                     user: int | None = None, table: str | None = None,
                     detail: dict[str, Any] | None = None) -> None:
        await self.storage.audit(moderator=None if actor is None else actor.id,
                                 via="shell" if actor is None else "web", action=action,
                                 reason=reason, target_user=user, target_table=table,
                                 detail=detail)

    def _end_sockets(self, user_id: int, reason: str) -> int:
        if self.live is None:
            return 0
        return self.live.end_user(user_id, keep=None, code=BARRED_CLOSE, reason=reason)

    # -- reports ----------------------------------------------------------------------
    async def report(self, reporter: UserRecord, body: dict[str, Any],
                     count: Callable[[], Awaitable[None]] | None = None) -> int:
        """A player's report (举报) of another: ``user_id``, ``reason``, ``place`` (one
        of :data:`PLACES`) and the ``game_id`` or ``table_id`` it concerns, if any; from
        a club's chat (``place`` ``club``) the ``club_id`` and ``message_id`` of the
        line, which must be the reported player's, in a club the reporter is a member
        of.  ``count`` counts it against the reporter's limit once it is found well
        made (a refused report is not counted; raises when over the limit)."""
        known = {"user_id", "reason", "place", "game_id", "table_id", "club_id",
                 "message_id"}
        extra = sorted(set(body) - known)
        if extra:
            raise ModerationError(400, "bad_request", f"unknown field {extra[0]!r}")
        reported = body.get("user_id")
        if isinstance(reported, bool) or not isinstance(reported, int) \
                or not 0 < reported < 2**31:
            raise ModerationError(400, "bad_request", "'user_id' is a user's id")
        place = body.get("place", "table")
        if place not in PLACES:
            raise ModerationError(400, "bad_request", f"'place' is one of {', '.join(PLACES)}")
        reason = check_reason(body.get("reason"))
        game_id = body.get("game_id")
        if game_id is not None and (isinstance(game_id, bool) or not isinstance(game_id, int)
                                    or not 0 < game_id < 2**31):
            raise ModerationError(400, "bad_request", "'game_id' is a game's id")
        table_id = body.get("table_id")
        if table_id is not None and (not isinstance(table_id, str) or not table_id.isalnum()
                                     or len(table_id) > 16):
            raise ModerationError(400, "bad_request", "'table_id' is a table's id")
        club_id, message_id = _positive(body, "club_id"), _positive(body, "message_id")
        if (place == "club") != (club_id is not None and message_id is not None):
            raise ModerationError(400, "bad_request", "a report from a club's chat gives "
                                  "'club_id' and 'message_id' (the line), and only it does")
        if reported == reporter.id:
            raise ModerationError(400, "bad_request", "you cannot report yourself")
        if await self.storage.user(reported) is None:
            raise ModerationError(404, "not_found", f"no user {reported}")
        if club_id is not None and message_id is not None:
            await self._reported_line(reporter, reported, club_id, message_id)
        if game_id is not None:
            found = await self.storage.game_table(game_id)
            if found is None:
                raise ModerationError(404, "not_found", f"no game {game_id}")
            table_id = found
        elif table_id is not None:       # (from a table or its score sheet: its last game)
            game_id = await self.storage.latest_game(table_id)
        if count is not None:
            await count()
        return await self.storage.add_report(reporter=reporter.id, reported=reported,
                                             place=place, table_id=table_id,
                                             game_id=game_id, reason=reason,
                                             club_id=club_id, message_id=message_id)

    async def _reported_line(self, reporter: UserRecord, reported: int, club_id: int,
                             message_id: int) -> None:
        """A reported line of club chat: one the reporter can read (a member of its
        club: anyone else is told there is no such line) by the reported player."""
        role = await self.storage.club_role(club_id, reporter.id)
        line = await self.storage.club_message(message_id)
        if role in (None, "pending") or line is None or line["club_id"] != club_id:
            raise ModerationError(404, "not_found", "no such line in a club of yours")
        if line["user_id"] != reported:
            raise ModerationError(400, "bad_request", "this line is not the reported "
                                  "player's")

    async def reports(self, status: str | None = "open", limit: int = 100
                      ) -> list[dict[str, Any]]:
        """The latest reports, each with the replay of its game (``replay``: the path
        of its replay in the web client, ``replay_api``: the API's)."""
        rows = await self.storage.report_list(status, limit)
        for row in rows:
            game = row["game_id"]
            row["replay"] = None if game is None else f"/#/replay/{game}"
            row["replay_api"] = None if game is None else f"/api/games/{game}/replay"
            # (from a club's chat: the line, unless a moderator removed it already)
            line = None if row.get("message_id") is None else \
                await self.storage.club_message(row["message_id"])
            row["line"] = None if line is None else {"text": line["text"], "at": line["at"]}
            row["club_chat_api"] = None if row.get("club_id") is None else \
                f"/api/mod/clubs/{row['club_id']}/chat"
        return rows

    async def close_report(self, actor: UserRecord | None, report_id: int,
                           reason: object) -> None:
        why = check_reason(reason)
        if await self.storage.report(report_id) is None:
            raise ModerationError(404, "not_found", f"no report {report_id}")
        await self.storage.close_report(report_id, None if actor is None else actor.id)
        await self._audit(actor, "close_report", why, detail={"report": report_id})

    # -- sanctions --------------------------------------------------------------------
    async def mute(self, actor: UserRecord | None, user_id: int, minutes: object,
                   reason: object) -> float:
        """Mute (禁言) a player: no chat and no quick phrases for ``minutes``; until when."""
        why, length = check_reason(reason), _minutes(minutes)
        target = await self._target(actor, user_id)
        until = self.clock() + 60 * length
        await self.storage.set_user(target.id, muted_until=until)
        await self._audit(actor, "mute", why, user=target.id, detail={"minutes": length})
        return until

    async def unmute(self, actor: UserRecord | None, user_id: int, reason: object) -> None:
        why = check_reason(reason)
        target = await self._target(actor, user_id)
        await self.storage.set_user(target.id, muted_until=None)
        await self._audit(actor, "unmute", why, user=target.id)

    async def suspend(self, actor: UserRecord | None, user_id: int, minutes: object,
                      reason: object) -> float:
        """Suspend (封禁) a player for ``minutes``: his sessions end now and he cannot
        log in until then; until when."""
        why, length = check_reason(reason), _minutes(minutes)
        target = await self._target(actor, user_id)
        until = self.clock() + 60 * length
        await self.storage.set_user(target.id, suspended_until=until)
        await self.storage.delete_user_sessions(target.id)
        self._end_sockets(target.id, "suspended by a moderator")
        await self._audit(actor, "suspend", why, user=target.id, detail={"minutes": length})
        return until

    async def ban(self, actor: UserRecord | None, user_id: int, reason: object) -> None:
        """Ban (永久封禁) a player: his sessions end now and he cannot log in again."""
        why = check_reason(reason)
        target = await self._target(actor, user_id)
        await self.storage.set_user(target.id, banned=True)
        await self.storage.delete_user_sessions(target.id)
        self._end_sockets(target.id, "banned by a moderator")
        await self._audit(actor, "ban", why, user=target.id)

    async def unban(self, actor: UserRecord | None, user_id: int, reason: object) -> None:
        """Lift a ban and a suspension."""
        why = check_reason(reason)
        target = await self._target(actor, user_id)
        await self.storage.set_user(target.id, banned=False, suspended_until=None)
        await self._audit(actor, "unban", why, user=target.id)

    async def reset_password(self, actor: UserRecord | None, user_id: int,
                             reason: object) -> str:
        """A new random password for a registered player (told once, to the moderator,
        to hand on); every session of the player ends."""
        why = check_reason(reason)
        target = await self._target(actor, user_id)
        if target.guest:
            raise ModerationError(400, "no_password", "a guest account has no password")
        password = secrets.token_urlsafe(12)
        await self.storage.set_user(target.id, password_hash=await hash_password(password))
        await self.storage.delete_user_sessions(target.id)
        if self.live is not None:
            self.live.end_user(target.id, keep=None, code=4001,
                               reason="the password was reset")
        await self._audit(actor, "reset_password", why, user=target.id)
        return password

    async def grant(self, actor: UserRecord | None, user_id: int, role: object,
                    reason: object) -> None:
        """Give a user a role (an admin's, or the shell's)."""
        why = check_reason(reason)
        if role not in ROLES:
            raise ModerationError(400, "bad_request", f"'role' is one of {', '.join(ROLES)}")
        if actor is not None:
            self.require(actor, "admin")
        target = await self._target(actor, user_id)
        if target.guest and role != "player":
            raise ModerationError(400, "bad_request", "a guest cannot be given a role")
        await self.storage.set_user(target.id, role=role)
        await self._audit(actor, "grant", why, user=target.id,
                          detail={"role": role, "was": target.role})

    async def close_table(self, actor: UserRecord | None, key: str, reason: object) -> None:
        """Close a table this server runs, through its actor (:class:`CloseTable`): its
        game is abandoned unscored and every seat is told why; stored before sent."""
        why = check_reason(reason)
        table = None if self.lobby is None else self.lobby.router.local(key)
        if table is None:
            message = f"no table {key[:40]!r} on this server"
            if self.lobby is not None and \
                    await self.lobby.router.locate(key, wait=0) is not None:
                message += " (a cluster: ask the node that runs it)"
            raise ModerationError(404, "not_found", message)
        done: asyncio.Future[bool] = asyncio.get_running_loop().create_future()
        table.post(CloseTable(why, done))
        if not await asyncio.wait_for(done, 60):
            raise ModerationError(409, "not_open", "the table's match is over already")
        await self._audit(actor, "close_table", why, table=table.id)

    # -- club chat (亲友圈) -------------------------------------------------------------
    async def club_chat(self, club_id: int, after: int = 0) -> dict[str, Any]:
        """A club's name and its chat as a moderator reads it: the
        :data:`CLUB_CHAT_PAGE` newest lines after id ``after``, oldest first."""
        club = await self.storage.club(club_id)
        if club is None:
            raise ModerationError(404, "not_found", f"no club {club_id}")
        return {"club": {"id": club_id, "name": club["name"], "owner": club["owner"]},
                "messages": await self.storage.club_messages(club_id, after,
                                                             CLUB_CHAT_PAGE)}

    async def remove_club_line(self, actor: UserRecord | None, club_id: int,
                               message_id: int, reason: object) -> None:
        """Remove a line of a club's chat; the audit log keeps its author and text."""
        why = check_reason(reason)
        line = await self.storage.club_message(message_id)
        if line is None or line["club_id"] != club_id:
            raise ModerationError(404, "not_found", f"no line {message_id} in club {club_id}")
        author = await self.storage.user(line["user_id"])
        if actor is not None and author is not None and author.id != actor.id \
                and not outranks(actor.role, author.role):
            raise ModerationError(403, "forbidden", f"a {actor.role} cannot act on a "
                                  f"{author.role}")
        await self.storage.remove_club_message(message_id)
        await self._audit(actor, "remove_club_line", why, user=line["user_id"],
                          detail={"club": club_id, "message": message_id,
                                  "text": line["text"], "at": line["at"]})

    async def audit_log(self, limit: int = 100) -> list[dict[str, Any]]:
        return await self.storage.audit_list(limit)

