"""The HTTP routes of moderation and of a player's own data (docs/protocol.md §2,
"Moderation" and "Your data"): reports (举报) by players, the moderators' ``/api/mod``
routes (each refused with 403 ``forbidden`` to anyone without the role), and a player's
export and deletion of his account."""

from __future__ import annotations

import time
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from ...engine.game import RECORD_VERSION
from ..accounts.accounts import AccountError, user_json
from ..accounts.levels import level_for
from ..accounts.rating import ordinal
from ..db.storage import UserRecord
from ..moderation import Moderation, ModerationError
from .api import _body, _guard, _id, client_address, error
from .state import COOKIE, server_state, session_user

__all__ = ["CHAT_NOTE", "routes"]

#: what the export says of chat (a table's is not stored; a club's lines are, and
#: are exported under ``club_chat``)
CHAT_NOTE = {"stored": False,
             "en": "A table's chat is not stored by this server: a message is relayed to "
                   "the table and forgotten, so there is none to export. Your lines in "
                   "clubs' chats are stored for their members, and are listed under "
                   "club_chat.",
             "zh": "本服务器不保存牌桌聊天：消息只转发给同桌玩家，不留存，因此无可导出。"
                   "你在亲友圈聊天中的发言会为圈内成员保存，列在 club_chat 中。"}


def _moderation(request: Request) -> Moderation:
    moderation = server_state(request).moderation
    assert moderation is not None
    return moderation


def _guarded(handler: Any) -> Any:
    """:func:`~.api._guard` that also answers a :class:`ModerationError`."""
    async def moderated(request: Request) -> Response:
        try:
            response: Response = await handler(request)
        except ModerationError as exc:
            return error(exc.status, exc.code, exc.message)
        return response
    moderated.__name__ = handler.__name__
    return _guard(moderated)


async def _moderator(request: Request, role: str = "moderator") -> UserRecord:
    return Moderation.require(await session_user(request), role)


def _user_id(request: Request) -> int:
    user_id = _id(request.path_params["user_id"])
    if user_id is None:
        raise ModerationError(404, "not_found", "no such user")
    return user_id


def _limit(request: Request) -> int:
    text = request.query_params.get("limit", "100")
    if not text.isdigit() or not 1 <= int(text[:4]) <= 500 or len(text) > 3:
        raise ModerationError(400, "bad_request", "'limit' must be a whole number 1..500")
    return int(text)


# -- reports by players ---------------------------------------------------------------
async def make_report(request: Request) -> Response:
    """举报: a player reports another (rate-limited per account)."""
    user = await session_user(request)
    if user is None:
        return error(401, "login_required", "reporting needs a session")
    body = await _body(request)
    accounts = server_state(request).accounts
    report_id = await _moderation(request).report(user, body,
                                                  lambda: accounts.reporting(user.id))
    return JSONResponse({"id": report_id}, status_code=201)


# -- the moderators' routes ------------------------------------------------------------
async def list_reports(request: Request) -> Response:
    await _moderator(request)
    status = request.query_params.get("status", "open")
    if status not in ("open", "closed", "all"):
        raise ModerationError(400, "bad_request", "'status' is open, closed or all")
    reports = await _moderation(request).reports(None if status == "all" else status,
                                                 _limit(request))
    return JSONResponse({"reports": reports})


async def close_report(request: Request) -> Response:
    actor = await _moderator(request)
    report_id = _id(request.path_params["report_id"])
    if report_id is None:
        raise ModerationError(404, "not_found", "no such report")
    body = await _body(request)
    await _moderation(request).close_report(actor, report_id, body.get("reason"))
    return JSONResponse({"ok": True})


async def audit(request: Request) -> Response:
    await _moderator(request)
    return JSONResponse({"entries": await _moderation(request).audit_log(_limit(request))})


async def user_state(request: Request) -> Response:
    """A user as a moderator sees him: his public form and his sanctions."""
    await _moderator(request)
    user = await server_state(request).storage.user(_user_id(request))
    if user is None:
        raise ModerationError(404, "not_found", "no such user")
    return JSONResponse({**user_json(user), "muted_until": user.muted_until,
                         "suspended_until": user.suspended_until, "banned": user.banned})


async def user_action(request: Request) -> Response:
    """One action on a user: mute, unmute, suspend, ban, unban, password, role."""
    actor = await _moderator(request)
    target = _user_id(request)
    body = await _body(request)
    moderation = _moderation(request)
    reason = body.get("reason")
    action = request.path_params["action"]
    answer: dict[str, Any] = {"ok": True}
    if action == "mute":
        answer["until"] = await moderation.mute(actor, target, body.get("minutes"), reason)
    elif action == "unmute":
        await moderation.unmute(actor, target, reason)
    elif action == "suspend":
        answer["until"] = await moderation.suspend(actor, target, body.get("minutes"), reason)
    elif action == "ban":
        await moderation.ban(actor, target, reason)
    elif action == "unban":
        await moderation.unban(actor, target, reason)
    elif action == "password":
        answer["password"] = await moderation.reset_password(actor, target, reason)
    elif action == "role":
        await moderation.grant(actor, target, body.get("role"), reason)
    else:
        raise ModerationError(404, "not_found", f"no action {action[:24]!r}")
    return JSONResponse(answer)


async def close_table(request: Request) -> Response:
    actor = await _moderator(request)
    body = await _body(request)
    await _moderation(request).close_table(actor, request.path_params["key"],
                                           body.get("reason"))
    return JSONResponse({"ok": True})


async def club_chat(request: Request) -> Response:
    """A club's chat as a moderator reads it (``after``: the lines after that id)."""
    await _moderator(request)
    club_id = _id(request.path_params["club_id"])
    if club_id is None:
        raise ModerationError(404, "not_found", "no such club")
    text = request.query_params.get("after", "0")
    if not text.isdigit() or len(text) > 10:
        raise ModerationError(400, "bad_request", "'after' must be a line's id")
    return JSONResponse(await _moderation(request).club_chat(club_id, int(text)))


async def remove_club_line(request: Request) -> Response:
    actor = await _moderator(request)
    club_id = _id(request.path_params["club_id"])
    message_id = _id(request.path_params["message_id"])
    if club_id is None or message_id is None:
        raise ModerationError(404, "not_found", "no such line")
    body = await _body(request)
    await _moderation(request).remove_club_line(actor, club_id, message_id,
                                                body.get("reason"))
    return JSONResponse({"ok": True})


# -- a player's own data ---------------------------------------------------------------
async def export(request: Request) -> Response:
    """Everything stored of the session's user, as one JSON file."""
    user = await session_user(request)
    if user is None:
        return error(401, "login_required", "your data needs a session")
    rows = await server_state(request).storage.export_rows(user.id)
    for game in rows["games"]:
        game["replay"] = f"/api/games/{game['game_id']}/replay" \
            if game["status"] == "over" else None
    level = level_for(user.points)
    body = {"format": "baohuang-export", "version": 1, "record_version": RECORD_VERSION,
            "exported": time.time(), "user": user_json(user), "account": rows["account"],
            "rating": {"mu": user.mu, "sigma": user.sigma,
                       "ordinal": ordinal(user.mu, user.sigma), "points": user.points,
                       "level": level.level, "title": {"zh": level.zh, "en": level.en}},
            "games": rows["games"], "reports": rows["reports"],
            "connections": rows["connections"], "chat": CHAT_NOTE,
            "club_chat": await server_state(request).storage.club_lines_of(user.id)}
    name = f"baohuang-{user.id}.json"
    return JSONResponse(body, headers={"Content-Disposition": f'attachment; filename="{name}"',
                                       "Cache-Control": "no-store"})


async def delete_account(request: Request) -> Response:
    """Delete the session's account (a registered one gives its password): his games
    stay, under the name 已注销/deleted #id; every session ends."""
    state = server_state(request)
    user = await session_user(request)
    if user is None:
        return error(401, "login_required", "deleting an account needs a session")
    body = await _body(request)
    if not user.guest:
        await state.accounts.check_password_of(user, body.get("password"),
                                               client_address(request))
    elif body.get("confirm") is not True:
        raise AccountError("bad_request", "a guest confirms with \"confirm\": true")
    for table in state.lobby.tables.values():
        if table.status in ("open", "playing") and table.seat_of(user.id) is not None:
            return error(409, "at_table", "leave your tables (or let their match end) "
                         "before deleting your account")
    name = await state.storage.delete_account(user.id)
    state.sessions.end_user(user.id, keep=None, code=4001, reason="the account was deleted")
    response = JSONResponse({"ok": True, "name": name})
    response.delete_cookie(COOKIE, path="/", httponly=True, samesite="lax",
                           secure=request.url.scheme == "https")
    return response


routes = [
    Route("/api/reports", _guarded(make_report), methods=["POST"]),
    Route("/api/mod/reports", _guarded(list_reports)),
    Route("/api/mod/reports/{report_id}/close", _guarded(close_report), methods=["POST"]),
    Route("/api/mod/audit", _guarded(audit)),
    Route("/api/mod/users/{user_id}", _guarded(user_state)),
    Route("/api/mod/users/{user_id}/{action}", _guarded(user_action), methods=["POST"]),
    Route("/api/mod/tables/{key}/close", _guarded(close_table), methods=["POST"]),
    Route("/api/mod/clubs/{club_id}/chat", _guarded(club_chat)),
    Route("/api/mod/clubs/{club_id}/chat/{message_id}/remove", _guarded(remove_club_line),
          methods=["POST"]),
    Route("/api/me/export", _guarded(export)),
    Route("/api/me/delete", _guarded(delete_account), methods=["POST"]),
]
