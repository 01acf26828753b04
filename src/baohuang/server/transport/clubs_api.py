"""The 亲友圈 (club) routes of the HTTP API under ``/api/clubs`` (docs/protocol.md
§2 Clubs): clubs, their members and roles, their tables, their ledger (战绩) and chat.

Every read of a club is for its members only: anyone else — and any id that is not a
club's — is told there is no such club, in the same words."""

from __future__ import annotations

import dataclasses
import datetime as dt
import time
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from ..clubs.club import (
    CLUBS_PER_OWNER,
    CLUBS_PER_USER,
    CODE_LENGTH,
    MEMBERS_PER_CLUB,
    ClubSpec,
    check_club,
    clean_text,
    new_code,
)
from ..clubs.ledger import PERIODS, evening_window, leaderboard, period_start, role_of
from ..db.moderation import muted_text
from ..db.storage import UserRecord
from ..table.lobby import LobbyError, check_spec
from ..table.seating import EMOTE_INTERVAL
from ..wire.protocol import CHAT_MAX
from .api import RequestError, _body, _guard, _id, client_address
from .state import server_state, session_user

__all__ = ["club_routes"]

#: the roles that run a club (approve, remove members, open the invitation anew)
MODERATORS = ("owner", "admin")
#: a chat read returns at most this many messages
CHAT_PAGE = 50
#: the timezone offsets accepted (minutes east of UTC)
TZ_BOUND = 14 * 60
#: a member who read his club's page this recently is shown online (seconds; the web
#: client reads it every 5 s while it is open)
SEEN_ONLINE = 15.0


def _seen(request: Request) -> dict[int, float]:
    """When each user last read a club's page on this node (monotonic seconds)."""
    seen: dict[int, float] | None = getattr(request.app.state, "club_seen", None)
    if seen is None:
        seen = request.app.state.club_seen = {}
    return seen


async def _user(request: Request, registered: bool = False) -> UserRecord:
    user = await session_user(request)
    if user is None:
        raise RequestError(401, "login_required", "clubs need a session: log in")
    if registered and user.guest:
        raise RequestError(403, "registered_only",
                           "clubs are for registered players: create an account first")
    return user


def _club_id(request: Request) -> int:
    club_id = _id(request.path_params["club_id"])
    if club_id is None:
        raise RequestError(404, "not_found", "no such club")
    return club_id


async def _membership(request: Request, user: UserRecord,
                      roles: tuple[str, ...] = ("owner", "admin", "member")
                      ) -> tuple[dict[str, Any], str]:
    """The club of the path and ``user``'s role in it: a 404 for one he is not in (or
    not even a club), a 403 for a role not among ``roles``."""
    club_id = _club_id(request)
    storage = server_state(request).storage
    role = await storage.club_role(club_id, user.id)
    club = await storage.club(club_id) if role not in (None, "pending") else None
    if club is None:
        raise RequestError(404, "not_found", f"no club {club_id} of yours")
    if role not in roles:
        raise RequestError(403, "forbidden", f"only the club's {' or '.join(roles)} "
                           "may do this")
    assert role is not None
    return club, role


def _spec(club: dict[str, Any]) -> ClubSpec:
    return ClubSpec(club["name"], club["description"], club["preset"], club["options"],
                    club["timeout"], club["games"], club["approval"], club["custom_rules"],
                    club["watchers"])


def _club_json(club: dict[str, Any], role: str | None) -> dict[str, Any]:
    shown = {key: club[key] for key in (
        "id", "name", "description", "owner", "preset", "options", "timeout", "games",
        "approval", "custom_rules", "watchers", "created")}
    shown["role"] = role
    if role in MODERATORS or role == "member":
        shown["code"] = club["code"]
    return shown


def _tz(request: Request) -> int:
    text = request.query_params.get("tz", "0")
    try:
        value = int(text) if len(text) <= 5 else TZ_BOUND + 1
    except ValueError:
        value = TZ_BOUND + 1
    if not -TZ_BOUND <= value <= TZ_BOUND:
        raise LobbyError("bad_request", f"'tz' must be minutes east of UTC, "
                         f"{-TZ_BOUND}..{TZ_BOUND}")
    return value


# -- clubs -----------------------------------------------------------------------------
async def create_club(request: Request) -> Response:
    user = await _user(request, registered=True)
    spec = check_club(await _body(request))
    storage = server_state(request).storage
    if await storage.clubs_owned(user.id) >= CLUBS_PER_OWNER:
        raise RequestError(429, "too_many_clubs",
                           f"you may own at most {CLUBS_PER_OWNER} clubs")
    if await storage.count_memberships(user.id) >= CLUBS_PER_USER:
        raise RequestError(429, "too_many_clubs",
                           f"you may be in at most {CLUBS_PER_USER} clubs")
    code = await _fresh_code(request)
    now = time.time()
    club_id = await storage.insert_club({**spec.row(), "owner": user.id, "code": code,
                                         "created": now}, user.id, now)
    club = await storage.club(club_id)
    assert club is not None
    return JSONResponse(_club_json(club, "owner"), status_code=201)


async def _fresh_code(request: Request) -> str:
    storage = server_state(request).storage
    while True:
        code = new_code()
        if not await storage.club_code_in_use(code):
            return code


async def my_clubs(request: Request) -> Response:
    """The clubs of the session's user, and the open tables of those he is a member of
    (what the client's notices of a new table are made from)."""
    user = await _user(request)
    storage = server_state(request).storage
    return JSONResponse({"clubs": await storage.clubs_of(user.id),
                         "open_tables": await storage.open_club_tables(user.id)})


async def club_detail(request: Request) -> Response:
    user = await _user(request)
    club, role = await _membership(request, user)
    state = server_state(request)
    members = await state.storage.club_members(club["id"])
    now, seen = time.monotonic(), _seen(request)
    seen[user.id] = now
    for gone in [u for u, at in seen.items() if now - at > SEEN_ONLINE]:
        del seen[gone]
    online = state.sessions.users() | set(seen)
    shown = [{**m, "online": m["user_id"] in online} for m in members
             if m["role"] != "pending" or role in MODERATORS]
    tables = []
    for row in await state.storage.club_tables(club["id"]):
        live = state.lobby.get(row["id"])
        seats = live.table_json(None)["seats"] if live is not None else row["seats"]
        tables.append({"id": row["id"], "code": row["code"], "owner": row["owner"],
                       "status": row["status"], "created": row["created"],
                       "fill_bots": row["fill_bots"],
                       "seats": [None if s is None else {"name": s.get("name"),
                                                         "bot": s.get("bot"),
                                                         "user_id": s.get("user_id")}
                                 for s in seats]})
    return JSONResponse({**_club_json(club, role), "members": shown, "tables": tables})


async def change_club(request: Request) -> Response:
    """The owner or an admin changes the club's name, description, rules or flags."""
    user = await _user(request)
    club, role = await _membership(request, user, MODERATORS)
    spec = check_club(await _body(request), _spec(club))
    storage = server_state(request).storage
    await storage.update_club(club["id"], **spec.row())
    changed = await storage.club(club["id"])
    assert changed is not None
    return JSONResponse(_club_json(changed, role))


async def new_invitation(request: Request) -> Response:
    """A new invitation code: the old one admits nobody any more."""
    user = await _user(request)
    club, _ = await _membership(request, user, MODERATORS)
    code = await _fresh_code(request)
    await server_state(request).storage.update_club(club["id"], code=code)
    return JSONResponse({"code": code})


def _code(value: Any) -> str:
    if not isinstance(value, str) or len(value.strip()) != CODE_LENGTH:
        raise LobbyError("bad_code", f"an invitation code has {CODE_LENGTH} characters")
    return value.strip().upper()


async def _by_code(request: Request, user: UserRecord, code: str) -> dict[str, Any]:
    """The club whose invitation is ``code`` (each lookup counted: codes cannot be tried
    by the thousand)."""
    state = server_state(request)
    await state.accounts.looking_up(user.id, client_address(request))
    club = await state.storage.club_by_code(code)
    if club is None:
        raise RequestError(404, "not_found", "no club has this invitation code")
    return club


async def invitation(request: Request) -> Response:
    """What an invitation link shows before joining: the club's name, description,
    members and whether the owner approves who joins."""
    user = await _user(request)
    club = await _by_code(request, user, _code(request.path_params["code"]))
    storage = server_state(request).storage
    return JSONResponse({"id": club["id"], "name": club["name"],
                         "description": club["description"], "approval": club["approval"],
                         "members": await storage.count_members(club["id"]),
                         "role": await storage.club_role(club["id"], user.id)})


async def join_club(request: Request) -> Response:
    user = await _user(request, registered=True)
    body = await _body(request)
    club = await _by_code(request, user, _code(body.get("code")))
    storage = server_state(request).storage
    role = await storage.club_role(club["id"], user.id)
    if role is not None:
        return JSONResponse({"id": club["id"], "role": role})
    if await storage.count_memberships(user.id) >= CLUBS_PER_USER:
        raise RequestError(429, "too_many_clubs",
                           f"you may be in at most {CLUBS_PER_USER} clubs")
    if await storage.count_members(club["id"]) >= MEMBERS_PER_CLUB:
        raise RequestError(409, "club_full",
                           f"this club has {MEMBERS_PER_CLUB} members, as many as it takes")
    role = "pending" if club["approval"] else "member"
    await storage.add_member(club["id"], user.id, role, time.time())
    return JSONResponse({"id": club["id"], "role": role}, status_code=201)


async def member_action(request: Request) -> Response:
    """``approve`` (who asked to join), ``remove`` (a member: the owner or an admin;
    an admin removes no other admin), ``admin`` / ``member`` (a member's role: the
    owner), ``owner`` (the owner hands the club to a member and becomes an admin)."""
    user = await _user(request)
    club, role = await _membership(request, user, MODERATORS)
    target = _id(request.path_params["user_id"])
    action = (await _body(request)).get("action")
    storage = server_state(request).storage
    target_role = None if target is None else await storage.club_role(club["id"], target)
    if target is None or target_role is None:
        raise RequestError(404, "not_found", "no such member of this club")
    if action not in ("approve", "remove", "admin", "member", "owner"):
        raise LobbyError("bad_request",
                         "'action' is one of approve, remove, admin, member, owner")
    if target == user.id:
        raise RequestError(409, "yourself", "to leave the club, use leave")
    if action == "approve":
        if target_role != "pending":
            raise RequestError(409, "not_pending", "this member has joined already")
        await storage.set_role(club["id"], target, "member")
    elif action == "remove":
        if target_role == "owner" or (target_role == "admin" and role != "owner"):
            raise RequestError(403, "forbidden",
                               "only the owner removes an admin; nobody removes the owner")
        await storage.remove_member(club["id"], target)
    else:
        if role != "owner":
            raise RequestError(403, "forbidden", "only the club's owner changes roles")
        if target_role == "pending":
            raise RequestError(409, "not_member", "approve this player first")
        if action == "owner":
            await storage.transfer_club(club["id"], user.id, target)
        else:
            await storage.set_role(club["id"], target, action)
    return JSONResponse({"user_id": target,
                         "role": await storage.club_role(club["id"], target)})


async def leave_club(request: Request) -> Response:
    user = await _user(request)
    club_id = _club_id(request)
    storage = server_state(request).storage
    role = await storage.club_role(club_id, user.id)
    if role is None:
        raise RequestError(404, "not_found", f"no club {club_id} of yours")
    if role == "owner":
        raise RequestError(409, "owner_leaves", "the owner hands the club to another "
                           "member before leaving")
    await storage.remove_member(club_id, user.id)
    return JSONResponse({"ok": True})


# -- tables ----------------------------------------------------------------------------
async def open_table(request: Request) -> Response:
    """A member opens a table with the club's rules (and, where the club allows, his
    changes to them): private (not in the lobby list), only the club's members sit."""
    user = await _user(request)
    club, _ = await _membership(request, user)
    body = await _body(request)
    extra = sorted(set(body) - {"options", "timeout", "games", "fill_bots", "ready_wait",
                                "counter"})
    if extra:
        raise LobbyError("bad_request", f"unknown field {extra[0]!r}")
    changes = {key: body[key] for key in ("options", "timeout", "games") if key in body}
    if changes and not club["custom_rules"]:
        raise RequestError(403, "fixed_rules", "this club's tables play the club's rules")
    options = body.get("options", {})
    if not isinstance(options, dict):
        raise LobbyError("bad_rules", "'options' must be an object of option: value")
    spec = check_spec({"preset": club["preset"], "options": {**club["options"], **options},
                       "timeout": body.get("timeout", club["timeout"]),
                       "games": body.get("games", club["games"]),
                       "fill_bots": body.get("fill_bots"),
                       "ready_wait": body.get("ready_wait"),
                       "counter": body.get("counter", True),
                       "private": True, "autostart": True})
    if not changes and not club["options"]:
        spec = dataclasses.replace(spec, preset=club["preset"])
    state = server_state(request)
    await state.accounts.making_table(user.id, client_address(request))
    table = await state.lobby.create(user, dataclasses.replace(spec, club=club["id"]),
                                     sit_owner=True)
    return JSONResponse({"id": table.id, "code": table.settings.code, "seat": 0,
                         "table": table.table_json(None)}, status_code=201)


# -- ledger ----------------------------------------------------------------------------
async def ledger(request: Request) -> Response:
    """The club's leaderboard for a period (``day``, ``week``, ``month``, ``all``)."""
    user = await _user(request)
    club, _ = await _membership(request, user)
    period = request.query_params.get("period", "all")
    if period not in PERIODS:
        raise LobbyError("bad_request", f"'period' is one of {', '.join(PERIODS)}")
    state = server_state(request)
    since = period_start(period, time.time(), _tz(request))
    rows = await state.storage.club_games(club["id"], since)
    members = {m["user_id"] for m in await state.storage.club_members(club["id"])}
    board = [{**entry, "member": entry["user_id"] in members} for entry in leaderboard(rows)]
    return JSONResponse({"period": period, "since": since,
                         "games": len({r["game_id"] for r in rows}), "players": board})


def _games(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The rows' games, each with its seats' names, scores, places and roles."""
    out: dict[int, dict[str, Any]] = {}
    for row in rows:
        game = out.setdefault(row["game_id"], {"game_id": row["game_id"],
                                               "table_id": row["table_id"],
                                               "finished": row["finished"], "players": []})
        game["players"].append({"seat": row["seat"], "user_id": row["user_id"],
                                "bot": row["bot"], "name": row["name"], "score": row["score"],
                                "place": row["place"],
                                "role": role_of(row["result"] or {}, row["seat"])})
    return list(out.values())


async def member_ledger(request: Request) -> Response:
    """A member's page in the club: his figures for each period and his last games."""
    user = await _user(request)
    club, _ = await _membership(request, user)
    target = _id(request.path_params["user_id"])
    state = server_state(request)
    members = {m["user_id"]: m for m in await state.storage.club_members(club["id"])}
    rows = await state.storage.club_games(club["id"])
    if target is None or (target not in members
                          and all(r["user_id"] != target for r in rows)):
        raise RequestError(404, "not_found", "no such player in this club")
    tz, now = _tz(request), time.time()
    periods: dict[str, Any] = {}
    for period in PERIODS:
        since = period_start(period, now, tz)
        mine = [r for r in rows if r["user_id"] == target
                and (since is None or r["finished"] >= since)]
        board = leaderboard(mine)
        periods[period] = board[0] if board else None
    games = {r["game_id"] for r in rows if r["user_id"] == target}
    recent = [g for g in _games(rows) if g["game_id"] in games][-20:][::-1]
    member = members.get(target)
    return JSONResponse({"user_id": target, "role": member["role"] if member else None,
                         "name": member["name"] if member else next(
                             r["name"] for r in rows if r["user_id"] == target),
                         "periods": periods, "games": recent})


async def evening(request: Request) -> Response:
    """今晚战绩: an evening's summary (``date``, local ``YYYY-MM-DD``; by default today):
    each player's points and places, and every game with its scores."""
    user = await _user(request)
    club, _ = await _membership(request, user)
    tz = _tz(request)
    text = request.query_params.get("date")
    if text is None:
        local = dt.datetime.now(dt.timezone(dt.timedelta(minutes=tz)))
        day = (local - dt.timedelta(hours=6)).date()
    else:
        try:
            day = dt.date.fromisoformat(text[:10])
        except ValueError:
            raise LobbyError("bad_request", "'date' is a day, YYYY-MM-DD") from None
    start, end = evening_window(day, tz)
    rows = await server_state(request).storage.club_games(club["id"], start, end)
    return JSONResponse({"club": {"id": club["id"], "name": club["name"]},
                         "date": day.isoformat(), "from": start, "until": end,
                         "players": leaderboard(rows), "games": _games(rows)})


# -- chat ------------------------------------------------------------------------------
async def chat_read(request: Request) -> Response:
    user = await _user(request)
    club, _ = await _membership(request, user)
    text = request.query_params.get("after", "0")
    if not text.isdigit() or len(text) > 10:
        raise LobbyError("bad_request", "'after' must be a message id")
    messages = await server_state(request).storage.club_messages(club["id"], int(text),
                                                                 CHAT_PAGE)
    return JSONResponse({"messages": messages})


async def chat_write(request: Request) -> Response:
    """A member's line in the club's chat: plain text (as the table's chat: control and
    format characters out), 1 to ``CHAT_MAX`` characters, one every
    ``EMOTE_INTERVAL`` seconds; none from a player a moderator has muted (禁言: 403
    ``muted``, as at a table)."""
    user = await _user(request)
    club, _ = await _membership(request, user)
    text = clean_text((await _body(request)).get("text"), "text", 1, CHAT_MAX)
    storage = server_state(request).storage
    now = time.time()
    refusal = muted_text(await storage.muted_until(user.id), now)
    if refusal is not None:
        raise RequestError(403, "muted", refusal)
    last = await storage.last_club_message(club["id"], user.id)
    if last is not None and now - last < EMOTE_INTERVAL:
        raise RequestError(429, "rate_limited",
                           f"one chat message every {EMOTE_INTERVAL:g} seconds")
    message_id = await storage.add_club_message({"club_id": club["id"], "user_id": user.id,
                                                 "name": user.name, "text": text, "at": now})
    return JSONResponse({"id": message_id, "user_id": user.id, "name": user.name,
                         "text": text, "at": now}, status_code=201)


club_routes = [
    Route("/api/clubs", _guard(my_clubs)),
    Route("/api/clubs", _guard(create_club), methods=["POST"]),
    Route("/api/clubs/join", _guard(join_club), methods=["POST"]),
    Route("/api/clubs/invitation/{code}", _guard(invitation)),
    Route("/api/clubs/{club_id}", _guard(club_detail)),
    Route("/api/clubs/{club_id}", _guard(change_club), methods=["PATCH"]),
    Route("/api/clubs/{club_id}/code", _guard(new_invitation), methods=["POST"]),
    Route("/api/clubs/{club_id}/leave", _guard(leave_club), methods=["POST"]),
    Route("/api/clubs/{club_id}/members/{user_id}", _guard(member_action), methods=["POST"]),
    Route("/api/clubs/{club_id}/members/{user_id}", _guard(member_ledger)),
    Route("/api/clubs/{club_id}/tables", _guard(open_table), methods=["POST"]),
    Route("/api/clubs/{club_id}/ledger", _guard(ledger)),
    Route("/api/clubs/{club_id}/evening", _guard(evening)),
    Route("/api/clubs/{club_id}/chat", _guard(chat_read)),
    Route("/api/clubs/{club_id}/chat", _guard(chat_write), methods=["POST"]),
]
