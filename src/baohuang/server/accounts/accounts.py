"""Accounts: argon2 password hashes, session tokens, names, and the public
form of a user (with level and rating).

>>> check_name("  Li Wei ")
'Li Wei'
>>> check_name("")
Traceback (most recent call last):
...
baohuang.server.accounts.accounts.AccountError: bad_name: a name has 1 to 24 characters
>>> len(new_token()) > 30, token_digest("abc") == token_digest("abc")
(True, True)
"""

from __future__ import annotations

import asyncio
import hashlib
import secrets
import unicodedata
from typing import Any

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError

from ..db.storage import NameTaken, Storage, UserRecord
from .levels import level_for, next_level_at
from .rating import DEFAULT_MU, DEFAULT_SIGMA, ordinal

__all__ = ["AccountError", "Accounts", "check_name", "new_token", "token_digest", "user_json"]

MAX_NAME = 24
MIN_PASSWORD, MAX_PASSWORD = 6, 200
_hasher = PasswordHasher()


class AccountError(ValueError):
    """A refused account request; ``code`` is one of docs/protocol.md §2."""

    def __init__(self, code: str, message: str) -> None:
        self.code = code
        self.message = message
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
    return name


def check_password(password: object) -> str:
    if not isinstance(password, str) or not MIN_PASSWORD <= len(password) <= MAX_PASSWORD:
        raise AccountError("bad_password",
                           f"a password has {MIN_PASSWORD} to {MAX_PASSWORD} characters")
    return password


def new_token() -> str:
    return secrets.token_urlsafe(32)


def token_digest(token: str) -> str:
    """Tokens are stored only as their SHA-256 digest."""
    return hashlib.sha256(token.encode()).hexdigest()


def user_json(user: UserRecord) -> dict[str, Any]:
    """The public form of a user (docs/protocol.md §1)."""
    level = level_for(user.points)
    return {"id": user.id, "name": user.name, "guest": user.guest, "points": user.points,
            "games": user.games, "wins": user.wins, "leaves": user.leaves,
            "level": level.level, "title": {"zh": level.zh, "en": level.en},
            "next_level_at": next_level_at(user.points),
            "rating": {"mu": round(user.mu, 3), "sigma": round(user.sigma, 3),
                       "ordinal": round(ordinal(user.mu, user.sigma), 3)}}


class Accounts:
    """Guests, registration, login and sessions on top of :class:`Storage`."""

    def __init__(self, storage: Storage) -> None:
        self.storage = storage

    async def _session(self, user: UserRecord) -> tuple[str, UserRecord]:
        token = new_token()
        await self.storage.add_session(token_digest(token), user.id)
        return token, user

    async def guest(self, name: object) -> tuple[str, UserRecord]:
        user = await self.storage.create_user(check_name(name), name_key=None,
                                              password_hash=None, guest=True,
                                              mu=DEFAULT_MU, sigma=DEFAULT_SIGMA)
        return await self._session(user)

    async def register(self, name: object, password: object) -> tuple[str, UserRecord]:
        display = check_name(name)
        secret = check_password(password)
        digest = await asyncio.to_thread(_hasher.hash, secret)
        try:
            user = await self.storage.create_user(display, name_key=display.casefold(),
                                                  password_hash=digest, guest=False,
                                                  mu=DEFAULT_MU, sigma=DEFAULT_SIGMA)
        except NameTaken:
            raise AccountError("name_taken", f"the name {display!r} is taken") from None
        return await self._session(user)

    async def login(self, name: object, password: object) -> tuple[str, UserRecord]:
        if not isinstance(name, str) or not isinstance(password, str):
            raise AccountError("bad_credentials", "wrong name or password")
        found = await self.storage.login_row(name.strip().casefold())
        if found is None or found[1] is None:
            raise AccountError("bad_credentials", "wrong name or password")
        user, digest = found
        assert digest is not None
        try:
            await asyncio.to_thread(_hasher.verify, digest, password)
        except (VerificationError, InvalidHashError):
            raise AccountError("bad_credentials", "wrong name or password") from None
        if _hasher.check_needs_rehash(digest):
            await self.storage.set_password_hash(user.id,
                                                 await asyncio.to_thread(_hasher.hash, password))
        return await self._session(user)

    async def user_for_token(self, token: str | None) -> UserRecord | None:
        if not token:
            return None
        return await self.storage.session_user(token_digest(token))

    async def logout(self, token: str) -> None:
        await self.storage.delete_session(token_digest(token))
