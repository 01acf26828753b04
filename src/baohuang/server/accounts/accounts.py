"""Accounts: argon2 password hashes, session tokens, names, and the public
form of a user (with level and rating).

>>> check_name("  Li Wei ")
'Li Wei'
>>> check_name("")
Traceback (most recent call last):
...
baohuang.server.accounts.accounts.AccountError: bad_name: a name has 1 to 24 characters
>>> check_name("ß" * 13)
Traceback (most recent call last):
...
baohuang.server.accounts.accounts.AccountError: bad_name: a name has at most 24 ...
>>> len(new_token()) > 30, token_digest("abc") == token_digest("abc")
(True, True)
"""

from __future__ import annotations

import asyncio
import functools
import hashlib
import logging
import math
import secrets
import time
import unicodedata
from concurrent.futures import ThreadPoolExecutor
from importlib import resources
from typing import Any

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError
from limits import RateLimitItem, parse_many
from limits.aio.storage import MemoryStorage, RedisStorage
from limits.aio.storage import Storage as LimitStorage
from limits.aio.strategies import MovingWindowRateLimiter

from ..db.storage import NameTaken, Storage, UserRecord
from ..metrics import ServerMetrics
from .levels import level_for, next_level
from .rating import DEFAULT_MU, DEFAULT_SIGMA, ordinal

__all__ = ["AccountError", "Accounts", "check_name", "check_password", "common_passwords",
           "hash_password", "new_token", "refuse_barred", "token_digest", "user_json"]

MAX_NAME = 24
MIN_PASSWORD, MAX_PASSWORD = 8, 200
#: different characters a password must have (``aaaaaaaa`` and ``abababab`` do not)
MIN_DISTINCT = 4
_hasher = PasswordHasher()
#: argon2 runs in threads of its own: a flood of logins cannot take the threads (of
#: the default executor) that tables and storage use
_hashing = ThreadPoolExecutor(max_workers=2, thread_name_prefix="argon2")
#: checked when a name has no password, so that a login takes as long either way
_NO_USER_HASH = _hasher.hash(secrets.token_urlsafe(16))


class AccountError(ValueError):
    """A refused account request; ``code`` is one of docs/protocol.md §2.  A refusal
    for trying too often says in how many seconds to try again (``retry_after``)."""

    def __init__(self, code: str, message: str, retry_after: int | None = None) -> None:
        self.code = code
        self.message = message
        self.retry_after = retry_after
        super().__init__(f"{code}: {message}")


def check_name(name: object) -> str:
    """A display name: 1–24 characters after trimming, no control characters."""
    if not isinstance(name, str):
        raise AccountError("bad_name", "a name is a string")
    name = name.strip()
    if not 1 <= len(name) <= MAX_NAME:
        raise AccountError("bad_name", f"a name has 1 to {MAX_NAME} characters")
    if any(unicodedata.category(ch).startswith("C") for ch in name):
        raise AccountError("bad_name", "a name may not contain control characters")
    if len(name.casefold()) > MAX_NAME:     # (the stored key: "ß" is "ss" without case)
        raise AccountError("bad_name", f"a name has at most {MAX_NAME} characters "
                           "when case is ignored")
    return name


@functools.cache
def common_passwords() -> frozenset[str]:
    """The shipped list of the most common passwords (``common_passwords.txt``: its
    header says where it comes from), case-folded."""
    text = resources.files(__package__).joinpath("common_passwords.txt").read_text("utf-8")
    return frozenset(line.casefold() for line in text.splitlines()
                     if line and not line.startswith("#"))


def check_password(password: object, name: str | None = None) -> str:
    """A new password: 8–200 characters, counted without the spaces at its ends (six
    spaces are no password), at least 4 different characters, not one of the most common
    passwords (case-insensitively, spaces at the ends ignored) and not the account's
    name.  The password is kept as given.

    >>> check_password("correct horse")
    'correct horse'
    >>> for weak in ("qwerty123", "PassWord1", " password ", "Li Wei 1", "      ",
    ...              "  abc12  ", "abababab", "x" * 201):
    ...     try:
    ...         check_password(weak, "li wei 1")
    ...     except AccountError as exc:
    ...         print(exc.message)
    this password is one of the most common passwords: choose another
    this password is one of the most common passwords: choose another
    this password is one of the most common passwords: choose another
    a password may not be the account's name
    a password has at least 8 characters besides spaces at its ends
    a password has at least 8 characters besides spaces at its ends
    a password needs at least 4 different characters
    a password has at most 200 characters
    """
    if not isinstance(password, str):
        raise AccountError("bad_password", "a password is a string")
    if len(password) > MAX_PASSWORD:
        raise AccountError("bad_password", f"a password has at most {MAX_PASSWORD} characters")
    trimmed = password.strip()
    if len(trimmed) < MIN_PASSWORD:
        raise AccountError("bad_password", f"a password has at least {MIN_PASSWORD} "
                           "characters besides spaces at its ends")
    if len(set(trimmed)) < MIN_DISTINCT:
        raise AccountError("bad_password", f"a password needs at least {MIN_DISTINCT} "
                           "different characters")
    folded = trimmed.casefold()
    if folded in common_passwords():
        raise AccountError("bad_password", "this password is one of the most common "
                           "passwords: choose another")
    if name is not None and folded == name.strip().casefold():
        raise AccountError("bad_password", "a password may not be the account's name")
    return password


def new_token() -> str:
    return secrets.token_urlsafe(32)


def token_digest(token: str) -> str:
    """Tokens are stored only as their SHA-256 digest."""
    return hashlib.sha256(token.encode()).hexdigest()


def user_json(user: UserRecord) -> dict[str, Any]:
    """The public form of a user (docs/protocol.md §1)."""
    level, following = level_for(user.points), next_level(user.points)
    return {"id": user.id, "name": user.name, "guest": user.guest, "points": user.points,
            "games": user.games, "wins": user.wins, "leaves": user.leaves,
            "level": level.level, "title": {"zh": level.zh, "en": level.en},
            "level_from": level.min_points,
            "next_level_at": None if following is None else following.min_points,
            "next_title": None if following is None else {"zh": following.zh,
                                                          "en": following.en},
            "rating": {"mu": round(user.mu, 3), "sigma": round(user.sigma, 3),
                       "ordinal": round(ordinal(user.mu, user.sigma), 3)},
            "role": user.role}


log = logging.getLogger("baohuang.server")


def refuse_barred(user: UserRecord, now: float) -> None:
    """Refuse (403) a login of a banned user, or of one suspended until after ``now``."""
    if user.banned:
        raise AccountError("banned", "this account is banned")
    if user.suspended_until is not None and user.suspended_until > now:
        raise AccountError("suspended", "this account is suspended until "
                           + time.strftime("%Y-%m-%d %H:%M UTC",
                                           time.gmtime(user.suspended_until)))


async def hash_password(secret: str) -> str:
    """The argon2 hash of a new password (in the hashing threads)."""
    digest: str = await _hash_work(_hasher.hash, secret)
    return digest


async def _hash_work(function: Any, *args: Any) -> Any:
    return await asyncio.get_running_loop().run_in_executor(_hashing, function, *args)


def limit_storage(redis_url: str | None) -> LimitStorage:
    """Where the login counts are kept: in this process, or — for the nodes of a
    cluster (``redis_url``) — in Redis, so that every node counts the same logins
    (N nodes would otherwise allow N times as many).

    >>> type(limit_storage(None)).__name__
    'MemoryStorage'
    """
    if redis_url is None:
        return MemoryStorage()
    return RedisStorage(f"async+{redis_url}", implementation="redispy",
                        key_prefix="baohuang-limits")


class Accounts:
    """Guests, registration, login and sessions on top of :class:`Storage`.  Logins
    are limited per account and per client address in tiers that back off (``limits``
    notation, e.g. ``10/minute;30/hour;100/day``: moving windows, so a caller who keeps
    trying keeps being refused, for a minute, then an hour, then a day), counted in
    Redis when ``redis_url`` is given (:func:`limit_storage`)."""

    def __init__(self, storage: Storage, *, per_account: str = "10/minute;30/hour;100/day",
                 per_address: str = "60/minute;600/hour", idle: float = float("inf"),
                 absolute: float = float("inf"), redis_url: str | None = None,
                 accounts_per_address: str = "10/minute;60/hour;200/day",
                 tables_per_address: str = "30/minute;300/hour;1000/day",
                 tables_per_account: str = "20/minute;200/hour;1000/day",
                 codes_per_address: str = "30/minute;300/hour;1000/day",
                 codes_per_account: str = "20/minute;200/hour;600/day",
                 reports_per_account: str = "5/minute;20/hour;50/day",
                 metrics: ServerMetrics | None = None) -> None:
        self.storage = storage
        #: where refused logins and tries refused by a limit are counted
        self.metrics = metrics or ServerMetrics()
        #: sessions end after ``idle`` seconds unused and ``absolute`` seconds after login
        self.idle, self.absolute = idle, absolute
        self._limiter = MovingWindowRateLimiter(limit_storage(redis_url))
        #: counts in this process's memory while the shared ones cannot be reached
        self._fallback = MovingWindowRateLimiter(MemoryStorage()) if redis_url else None
        self._per_account = parse_many(per_account)
        self._per_address = parse_many(per_address)
        #: what may be made per client address and per account (:meth:`making_table`)
        self._accounts_per_address = parse_many(accounts_per_address)
        self._tables_per_address = parse_many(tables_per_address)
        self._tables_per_account = parse_many(tables_per_account)
        self._codes_per_address = parse_many(codes_per_address)
        self._codes_per_account = parse_many(codes_per_account)
        self._reports_per_account = parse_many(reports_per_account)

    async def _hit(self, tiers: list[RateLimitItem], *keys: str) -> None:
        """Count one try (a login, something made, a code looked up) in each tier,
        shortest first; refused (``rate_limited``, with the seconds until the refusing
        tier lets one more try through) at the first tier that is full — a refused try
        is not counted in the longer tiers.  While the cluster's Redis is out of reach,
        each node counts in its own memory (logins go on, limited)."""
        limiter = self._limiter
        for limit in tiers:
            try:
                allowed = await limiter.hit(limit, *keys)
            except Exception:
                if self._fallback is None:
                    raise
                log.warning("login limits: Redis out of reach; counting in this node's memory")
                limiter = self._fallback
                allowed = await limiter.hit(limit, *keys)
            if not allowed:
                stats = await limiter.get_window_stats(limit, *keys)
                wait = max(1, math.ceil(stats.reset_time - time.time()))
                self.metrics.rate_limited.labels(keys[0]).inc()
                raise AccountError("rate_limited",
                                   f"too many tries: try again in {wait} s", retry_after=wait)

    async def making_table(self, user_id: int, address: str | None) -> None:
        """Count one table made by ``user_id`` from the client ``address``: refused
        (``rate_limited``, with ``retry_after``) when either has made too many lately, so
        that guest accounts made by the dozen do not multiply the tables one client
        can make."""
        await self._hit(self._tables_per_address, "table-address", address or "")
        await self._hit(self._tables_per_account, "table-account", str(user_id))

    async def looking_up(self, user_id: int | None, address: str | None) -> None:
        """Count one lookup of a table by a key that is not a table's id (an invitation
        code, or nothing at all) from the client ``address`` and, with a session, by
        ``user_id``: refused (``rate_limited``) when either has looked up too many lately,
        so that codes cannot be tried by the thousand."""
        await self._hit(self._codes_per_address, "code-address", address or "")
        if user_id is not None:
            await self._hit(self._codes_per_account, "code-account", str(user_id))

    async def reporting(self, user_id: int) -> None:
        """Count one report (举报) made by ``user_id``: refused (``rate_limited``) past
        ``ServerConfig.report_rate_account``."""
        await self._hit(self._reports_per_account, "report-account", str(user_id))

    async def _making_account(self, address: str | None) -> None:
        await self._hit(self._accounts_per_address, "account-address", address or "")

    async def _session(self, user: UserRecord, kind: str, address: str | None
                       ) -> tuple[str, UserRecord]:
        """A new session of ``user``, written to the connection log (``kind``: guest,
        register or login; kept for ``ServerConfig.connection_log_retention``)."""
        token = new_token()
        await self.storage.add_session(token_digest(token), user.id)
        await self.storage.log_connection(user.id, kind, address)
        return token, user

    async def guest(self, name: object, address: str | None = None) -> tuple[str, UserRecord]:
        """A guest account, limited per client ``address`` (with registrations)."""
        display = check_name(name)
        await self._making_account(address)
        user = await self.storage.create_user(display, name_key=None,
                                              password_hash=None, guest=True,
                                              mu=DEFAULT_MU, sigma=DEFAULT_SIGMA)
        return await self._session(user, "guest", address)

    async def register(self, name: object, password: object, address: str | None = None
                       ) -> tuple[str, UserRecord]:
        """A registered account, limited per client ``address`` (with guests)."""
        display = check_name(name)
        secret = check_password(password, display)
        await self._making_account(address)
        digest = await _hash_work(_hasher.hash, secret)
        try:
            user = await self.storage.create_user(display, name_key=display.casefold(),
                                                  password_hash=digest, guest=False,
                                                  mu=DEFAULT_MU, sigma=DEFAULT_SIGMA)
        except NameTaken:
            raise AccountError("name_taken", f"the name {display!r} is taken") from None
        return await self._session(user, "register", address)

    async def login(self, name: object, password: object, address: str | None = None
                    ) -> tuple[str, UserRecord]:
        if not isinstance(name, str) or not isinstance(password, str) \
                or len(password) > MAX_PASSWORD or len(name) > 4 * MAX_NAME:
            self.metrics.login_failures.inc()
            raise AccountError("bad_credentials", "wrong name or password")
        key = name.strip().casefold()
        await self._hit(self._per_address, "login-address", address or "")
        await self._hit(self._per_account, "login-account", key)
        found = await self.storage.login_row(key)
        # (a name without a password is checked against a hash all the same: the answer
        # takes as long whether or not the user exists)
        user, digest = found if found is not None and found[1] is not None \
            else (None, _NO_USER_HASH)
        assert digest is not None
        try:
            await _hash_work(_hasher.verify, digest, password)
        except (VerificationError, InvalidHashError):
            self.metrics.login_failures.inc()
            raise AccountError("bad_credentials", "wrong name or password") from None
        if user is None:
            self.metrics.login_failures.inc()
            raise AccountError("bad_credentials", "wrong name or password")
        refuse_barred(user, time.time())     # (told only with the right password)
        if _hasher.check_needs_rehash(digest):
            await self.storage.set_password_hash(user.id,
                                                 await _hash_work(_hasher.hash, password))
        return await self._session(user, "login", address)

    async def user_for_token(self, token: str | None) -> UserRecord | None:
        if not token:
            return None
        return await self.storage.session_user(token_digest(token), idle=self.idle,
                                               absolute=self.absolute)

    async def logout(self, token: str) -> None:
        await self.storage.delete_session(token_digest(token))

    async def change_password(self, token: str | None, old: object, new: object) -> UserRecord:
        """Set a new password for the session's user, who gives the old one; every other
        session of the user ends (the caller closes their sockets).  Limited as logins
        are, per account."""
        user = await self.user_for_token(token)
        if user is None or token is None:
            raise AccountError("login_required", "changing the password needs a session")
        if not isinstance(old, str) or len(old) > MAX_PASSWORD:
            raise AccountError("bad_credentials", "wrong password")
        await self._hit(self._per_account, "password-account", str(user.id))
        secret = check_password(new, user.name)
        digest = await self.storage.password_hash(user.id)
        if digest is None:
            raise AccountError("no_password", "a guest account has no password to change")
        try:
            await _hash_work(_hasher.verify, digest, old)
        except (VerificationError, InvalidHashError):
            raise AccountError("bad_credentials", "wrong password") from None
        await self.storage.set_password_hash(user.id, await _hash_work(_hasher.hash, secret))
        await self.storage.delete_user_sessions(user.id, keep=token_digest(token))
        return user

    async def check_password_of(self, user: UserRecord, password: object,
                                address: str | None) -> None:
        """Refuse (``bad_credentials``) unless ``password`` is ``user``'s: asked before
        what cannot be undone (deleting the account).  Limited as logins are."""
        if not isinstance(password, str) or len(password) > MAX_PASSWORD:
            raise AccountError("bad_credentials", "wrong password")
        await self._hit(self._per_address, "login-address", address or "")
        await self._hit(self._per_account, "password-account", str(user.id))
        digest = await self.storage.password_hash(user.id)
        if digest is None:
            raise AccountError("bad_credentials", "wrong password")
        try:
            await _hash_work(_hasher.verify, digest, password)
        except (VerificationError, InvalidHashError):
            raise AccountError("bad_credentials", "wrong password") from None

    async def use_sessions(self, digests: list[str]) -> None:
        """Record a use of each of the sessions ``digests``, whose open sockets sent
        messages since the last check: as an HTTP call with its token does (written at
        most once a minute each). A message is a use however long ago the last one was
        recorded; a session past its absolute age, or deleted, stays ended."""
        await self.storage.use_sessions(digests, absolute=self.absolute)

    async def ended_sessions(self, digests: list[str]) -> list[str]:
        """Which of the sessions ``digests`` have ended (by age, logout or a password
        change); nothing counts as their use."""
        return await self.storage.ended_sessions(digests, idle=self.idle,
                                                 absolute=self.absolute)
