"""The open sockets of each session, and ending them: at a logout, a password change
(every other session of the user) and when a session ends by age (a sweep asks the
accounts which of the sessions with open sockets have ended).

The registry knows no transport: it is given the function that ends one socket.

>>> ended = []
>>> live = LiveSessions(lambda sock, code, reason: ended.append((sock, code)))
>>> live.add("s1", 7, "a"); live.add("s1", 7, "b"); live.add("s2", 7, "c")
>>> live.end_user(7, keep="s1", code=4001, reason="password changed")
1
>>> ended, sorted(live.digests())
([('c', 4001)], ['s1'])
>>> live.discard("s1", "a"); live.end_session("s1", 4001, "logged out"), ended[-1]
(1, ('b', 4001))
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable, Hashable
from typing import Generic, TypeVar

__all__ = ["LiveSessions"]

log = logging.getLogger("baohuang.server")

S = TypeVar("S", bound=Hashable)
#: ends one socket: close it with ``code`` and ``reason``, and let its table know
EndSocket = Callable[[S, int, str], None]
#: which of the given session digests have ended (by age, or deleted)
Expired = Callable[[list[str]], Awaitable[list[str]]]


class LiveSessions(Generic[S]):
    """Session digest → its open sockets (and whose session it is)."""

    def __init__(self, end: EndSocket[S]) -> None:
        self._end = end
        self._sockets: dict[str, set[S]] = {}
        self._user: dict[str, int] = {}
        self._sweeper: asyncio.Task[None] | None = None

    def add(self, digest: str, user_id: int, sock: S) -> None:
        self._sockets.setdefault(digest, set()).add(sock)
        self._user[digest] = user_id

    def discard(self, digest: str, sock: S) -> None:
        held = self._sockets.get(digest)
        if held is not None:
            held.discard(sock)
            if not held:
                del self._sockets[digest]
                self._user.pop(digest, None)

    def digests(self) -> list[str]:
        """The sessions that have open sockets."""
        return list(self._sockets)

    def end_session(self, digest: str, code: int, reason: str) -> int:
        """End every socket of one session; returns how many."""
        held = self._sockets.pop(digest, set())
        self._user.pop(digest, None)
        for sock in held:
            self._end(sock, code, reason)
        return len(held)

    def end_user(self, user_id: int, *, keep: str | None, code: int, reason: str) -> int:
        """End every socket of ``user_id``'s sessions but ``keep``; returns how many."""
        return sum(self.end_session(digest, code, reason)
                   for digest, user in list(self._user.items())
                   if user == user_id and digest != keep)

    # -- sessions that end by age -------------------------------------------------------
    async def sweep(self, expired: Expired) -> int:
        """End the sockets of every session that has ended; returns how many."""
        digests = self.digests()
        if not digests:
            return 0
        return sum(self.end_session(d, 4001, "the session has ended")
                   for d in await expired(digests))

    def start_sweeper(self, expired: Expired, every: float) -> None:
        """Sweep every ``every`` seconds until :meth:`stop`."""
        async def run() -> None:
            while True:
                await asyncio.sleep(every)
                try:
                    await self.sweep(expired)
                except Exception:
                    log.exception("checking the sessions of open sockets failed")
        self._sweeper = asyncio.get_running_loop().create_task(run())

    async def stop(self) -> None:
        if self._sweeper is not None:
            self._sweeper.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._sweeper
