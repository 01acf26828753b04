"""HTTP JSON API under ``/api`` (docs/protocol.md §2)."""

from __future__ import annotations

import dataclasses
from enum import Enum
from typing import Any

import msgspec
from starlette.requests import ClientDisconnect, Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from ...bots import bot_names, offered_levels
from ...engine.rules import OPTION_HELP, PRESETS, RuleSet
from ..accounts.accounts import AccountError, token_digest, user_json
from ..accounts.levels import LEVELS
from ..challenge.api import (
    challenge_day,
    challenge_days,
    challenge_of,
    challenge_start,
    challenge_today,
)
from ..challenge.service import ChallengeError
from ..db.storage import UserRecord
from ..table.lobby import LobbyError, check_spec
from ..table.outage import REFUSED, UNREACHABLE
from ..table.privacy import admits_json, is_table_id
from ..wire.replay import replay
from .state import COOKIE, server_state, session_token, session_user

__all__ = ["routes"]


#: the largest request body read (every JSON body of docs/protocol.md §2 is far smaller)
MAX_BODY = 16 * 1024
#: ids are database integers
MAX_ID = 2**31 - 1
_json = msgspec.json.Decoder()
#: the HTTP status of a lobby's refusal by its code (any other: 400)
LOBBY_STATUS = {"not_found": 404, "table_moving": 503, "too_many_tables": 429}


class RequestError(Exception):
    """A request refused before its handler's work: HTTP status, code and message."""

    def __init__(self, status: int, code: str, message: str) -> None:
        self.status, self.code, self.message = status, code, message
        super().__init__(f"{code}: {message}")


class ErrorResponse(JSONResponse):
    """A refusal: ``{"error": {"code", "message"}}``, its code kept for the figures."""

    def __init__(self, status: int, code: str, message: str) -> None:
        super().__init__({"error": {"code": code, "message": message}}, status_code=status)
        self.code = code


def error(status: int, code: str, message: str) -> JSONResponse:
    return ErrorResponse(status, code, message)


async def _body(request: Request) -> dict[str, Any]:
    """The request's JSON object: ``application/json``, at most :data:`MAX_BODY` bytes,
    nested no deeper than the decoder allows."""
    kind = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if kind != "application/json":
        raise RequestError(415, "unsupported_media_type",
                           "the body must be sent as Content-Type: application/json")
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > MAX_BODY:
        raise RequestError(413, "too_large", f"a request body has at most {MAX_BODY} bytes")
    data = bytearray()
    try:
        async for chunk in request.stream():
            data += chunk
            if len(data) > MAX_BODY:
                raise RequestError(413, "too_large",
                                   f"a request body has at most {MAX_BODY} bytes")
    except ClientDisconnect:
        raise RequestError(400, "bad_request", "the body was not sent whole") from None
    try:
        body = _json.decode(bytes(data))
    except msgspec.DecodeError:
        raise LobbyError("bad_request", "the body must be JSON") from None
    except RecursionError:
        raise LobbyError("bad_request", "the body's JSON is nested too deeply") from None
    if not isinstance(body, dict):
        raise LobbyError("bad_request", "the body must be a JSON object")
    return body


def _id(text: str) -> int | None:
    """A path's numeric id, or None when it cannot be one."""
    if not text.isdigit() or len(text) > 10:
        return None
    value = int(text)
    return value if 0 < value <= MAX_ID else None


def _logged_in(request: Request, token: str, user: UserRecord, status: int = 200
               ) -> JSONResponse:
    response = JSONResponse({"token": token, "user": user_json(user)}, status_code=status)
    # (Secure when the request came over HTTPS, directly or from a trusted proxy)
    response.set_cookie(COOKIE, token, httponly=True, samesite="lax", path="/",
                        max_age=int(server_state(request).config.session_absolute),
                        secure=request.url.scheme == "https")
    return response


def client_address(request: Request) -> str | None:
    """The client's address: the peer's, or — when the peer is a proxy of
    ``forwarded_allow_ips`` — the one its ``X-Forwarded-For`` names (uvicorn's proxy
    headers have set it so)."""
    return request.client.host if request.client else None


async def guest(request: Request) -> Response:
    body = await _body(request)
    token, user = await server_state(request).accounts.guest(
        body.get("name"), address=client_address(request))
    return _logged_in(request, token, user)


async def register(request: Request) -> Response:
    body = await _body(request)
    token, user = await server_state(request).accounts.register(
        body.get("name"), body.get("password"), address=client_address(request))
    return _logged_in(request, token, user, 201)


async def login(request: Request) -> Response:
    body = await _body(request)
    token, user = await server_state(request).accounts.login(
        body.get("name"), body.get("password"),
        address=client_address(request))
    return _logged_in(request, token, user)


async def logout(request: Request) -> Response:
    token = session_token(request)
    if token:
        state = server_state(request)
        await state.accounts.logout(token)
        state.sessions.end_session(token_digest(token), 4001, "logged out")
    response = JSONResponse({"ok": True})
    response.delete_cookie(COOKIE, path="/", httponly=True, samesite="lax",
                           secure=request.url.scheme == "https")
    return response


async def change_password(request: Request) -> Response:
    """A new password (the old one given): every other session of the user ends, and
    every socket of those sessions is closed (4001); this session goes on."""
    body = await _body(request)
    state = server_state(request)
    token = session_token(request)
    user = await state.accounts.change_password(token, body.get("password"),
                                                body.get("new_password"))
    assert token is not None
    state.sessions.end_user(user.id, keep=token_digest(token), code=4001,
                            reason="the password was changed")
    return JSONResponse({"ok": True})


async def me(request: Request) -> Response:
    user = await session_user(request)
    if user is None:
        if request.query_params.get("optional") == "1":
            return JSONResponse(None)       # a page asking whether it has a session
        return error(401, "login_required", "no session: log in or play as a guest")
    return JSONResponse(user_json(user))


async def user_detail(request: Request) -> Response:
    user_id = _id(request.path_params["user_id"])
    if user_id is None:
        return error(404, "not_found", "no such user")
    user = await server_state(request).storage.user(user_id)
    if user is None:
        return error(404, "not_found", f"no user {user_id}")
    return JSONResponse(user_json(user))


async def leaderboard(request: Request) -> Response:
    users = await server_state(request).storage.leaderboard()
    return JSONResponse({"users": [user_json(u) for u in users]})


async def levels(request: Request) -> Response:
    return JSONResponse({"levels": [lv._asdict() for lv in LEVELS]})


def _option(name: str, default: Any) -> dict[str, Any]:
    kind = type(default)
    zh, en = OPTION_HELP.get(name, ("", ""))
    if isinstance(default, Enum):
        values: list[Any] | None = [m.value for m in type(default)]
        type_name, default = "enum", default.value
    elif kind is bool:
        values, type_name = [False, True], "bool"
    else:
        values, type_name = None, "int"
    return {"values": values, "type": type_name, "default": default, "zh": zh, "en": en}


async def rules(request: Request) -> Response:
    defaults = RuleSet()
    options = {f.name: _option(f.name, getattr(defaults, f.name))
               for f in dataclasses.fields(RuleSet)}
    return JSONResponse({"presets": {name: r.to_dict() for name, r in PRESETS.items()},
                         "options": options, "bots": bot_names(),
                         "bot_levels": [level.to_dict() for level in offered_levels()]})


#: tables listed per page of ``GET /api/tables`` (at most, and by default)
MAX_PAGE, DEFAULT_PAGE = 100, 50


def _count(request: Request, name: str, default: int, high: int) -> int:
    text = request.query_params.get(name, str(default))
    if not text.isdigit() or len(text) > 9 or int(text) > high:
        raise LobbyError("bad_request", f"{name!r} must be a whole number 0..{high}")
    return int(text)


async def list_tables(request: Request) -> Response:
    router = server_state(request).router
    limit = _count(request, "limit", DEFAULT_PAGE, MAX_PAGE)
    offset = _count(request, "offset", 0, 10**6)
    page, total = await router.listing(offset, limit)
    return JSONResponse({"tables": page, "total": total, "offset": offset, "limit": limit})


async def create_table(request: Request) -> Response:
    user = await session_user(request)
    if user is None:
        return error(401, "login_required", "creating a table needs a session")
    spec = check_spec(await _body(request))
    state = server_state(request)
    await state.accounts.making_table(user.id, client_address(request))
    table = await state.lobby.create(user, spec)
    return JSONResponse({"id": table.id, "code": table.settings.code,
                         "table": table.table_json(None)}, status_code=201)


async def quickplay(request: Request) -> Response:
    user = await session_user(request)
    if user is None:
        return error(401, "login_required", "playing needs a session")
    body = await _body(request)
    bots = body.pop("bots", "heuristic")
    if isinstance(bots, str):
        bots = [bots] * 4
    if not isinstance(bots, list) or len(bots) != 4:
        raise LobbyError("bad_request", "'bots' is a bot name or a list of four")
    spec = check_spec({**body, "bots": {str(i + 1): b for i, b in enumerate(bots)},
                       "autostart": True})
    state = server_state(request)
    await state.accounts.making_table(user.id, client_address(request))
    table = await state.lobby.create(user, spec, sit_owner=True)
    return JSONResponse({"id": table.id, "code": table.settings.code, "seat": 0,
                         "table": table.table_json(None)}, status_code=201)


async def rematch(request: Request) -> Response:
    user = await session_user(request)
    if user is None:
        return error(401, "login_required", "playing needs a session")
    router = server_state(request).router
    key = request.path_params["key"]
    await _count_lookup(request, key, user)
    # (made by the node that runs the table: this one, or another of a cluster)
    return JSONResponse(await router.rematch(key, user), status_code=201)


async def _count_lookup(request: Request, key: str, user: UserRecord | None) -> None:
    """A lookup by a key not shaped as a table's id (an invitation code) is counted
    against the client's code lookups, before anything is told of what it finds."""
    if not is_table_id(key):
        await server_state(request).accounts.looking_up(None if user is None else user.id,
                                                        client_address(request))


async def table_detail(request: Request) -> Response:
    """A table's TableState, by id or code; a private table's only to its members or to
    whoever gives its code (anyone else is told there is no such table)."""
    router = server_state(request).router
    key = request.path_params["key"]
    user = await session_user(request)
    await _count_lookup(request, key, user)
    shown = await router.detail(key)        # (wherever it runs: 503 while it moves)
    if shown is None or not admits_json(shown, key, None if user is None else user.id):
        return error(404, "not_found", f"no table {key[:40]!r}")
    return JSONResponse(shown)


async def history(request: Request) -> Response:
    user = await session_user(request)
    if user is None:
        return error(401, "login_required", "history needs a session")
    try:
        limit = max(1, min(200, int(request.query_params.get("limit", "50"))))
    except ValueError:
        return error(400, "bad_request", "'limit' must be a number")
    games = await server_state(request).storage.history(user.id, limit)
    return JSONResponse({"games": games})


async def game_replay(request: Request) -> Response:
    game_id = _id(request.path_params["game_id"])
    if game_id is None:
        return error(404, "not_found", "no such game")
    row = await server_state(request).storage.game(game_id)
    if row is None:
        return error(404, "not_found", f"no game {game_id}")
    if row["status"] != "over":
        return error(409, "not_finished", f"game {game_id} is still being played")
    if not await challenge_of(request).replay_allowed(row["table_id"],
                                                      await session_user(request)):
        # (每日挑战: a deal's replay shows its cards; only to those who have played it)
        return error(403, "challenge_unplayed", "this is a deal of a daily challenge: its "
                     "replay is shown to those who have played it, and to all once the "
                     "day is over")
    return JSONResponse(replay(row))


def _guard(handler: Any) -> Any:
    async def wrapped(request: Request) -> Response:
        response = await _answer(request)
        if isinstance(response, ErrorResponse):
            server_state(request).metrics.errors.labels("api", response.code).inc()
        return response

    async def _answer(request: Request) -> Response:
        try:
            response: Response = await handler(request)
        except AccountError as exc:
            status = {"name_taken": 409, "bad_credentials": 401, "login_required": 401,
                      "rate_limited": 429, "banned": 403, "suspended": 403}.get(exc.code, 400)
            refused = error(status, exc.code, exc.message)
            if exc.retry_after is not None:
                refused.headers["Retry-After"] = str(exc.retry_after)
            return refused
        except LobbyError as exc:
            return error(LOBBY_STATUS.get(exc.code, 400), exc.code, exc.message)
        except RequestError as exc:
            return error(exc.status, exc.code, exc.message)
        except ChallengeError as exc:
            return error(exc.status, exc.code, exc.message)
        except REFUSED:
            raise                           # (a write the database refused: a fault)
        except UNREACHABLE:
            # (PostgreSQL restarting, the network cut: the tables pause, the API says so)
            refused = error(503, "database_unavailable",
                            "the server cannot reach its database: try again in a moment")
            refused.headers["Retry-After"] = "5"
            return refused
        return response
    wrapped.__name__ = handler.__name__
    return wrapped


routes = [
    Route("/api/guest", _guard(guest), methods=["POST"]),
    Route("/api/register", _guard(register), methods=["POST"]),
    Route("/api/login", _guard(login), methods=["POST"]),
    Route("/api/logout", _guard(logout), methods=["POST"]),
    Route("/api/password", _guard(change_password), methods=["POST"]),
    Route("/api/me", _guard(me)),
    Route("/api/users/{user_id}", _guard(user_detail)),
    Route("/api/leaderboard", _guard(leaderboard)),
    Route("/api/levels", _guard(levels)),
    Route("/api/rules", _guard(rules)),
    Route("/api/tables", _guard(list_tables)),
    Route("/api/tables", _guard(create_table), methods=["POST"]),
    Route("/api/tables/{key}", _guard(table_detail)),
    Route("/api/tables/{key}/rematch", _guard(rematch), methods=["POST"]),
    Route("/api/quickplay", _guard(quickplay), methods=["POST"]),
    Route("/api/history", _guard(history)),
    Route("/api/games/{game_id}/replay", _guard(game_replay)),
    Route("/api/challenge", _guard(challenge_today)),
    Route("/api/challenge/days", _guard(challenge_days)),
    Route("/api/challenge/{day}", _guard(challenge_day)),
    Route("/api/challenge/{day}/deals/{number}", _guard(challenge_start), methods=["POST"]),
]
