"""The open sockets of each session, and ending them: at a logout, a password change
(every other session of the user) and when a session ends by age (a sweep asks the
accounts which of the sessions with open sockets have ended).

A message on an open socket is a use of its session: the socket marks it (a set
insertion), and each sweep first records the use of the sessions marked since the
one before — one check a sweep (a minute) for a busy session, however many messages.

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
>>> live.add("s3", 8, "d"); live.used("s3"); live.used("s3"); live.used("gone")
>>> async def used(digests: list[str]) -> None: print("used", digests)
>>> async def expired(digests: list[str]) -> list[str]: return []
>>> asyncio.run(live.sweep(expired, used)), asyncio.run(live.sweep(expired, used))
used ['s3']
(0, 0)
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
#: record a use of each of the given session digests
Used = Callable[[list[str]], Awaitable[None]]


class LiveSessions(Generic[S]):
    """Session digest → its open sockets (and whose session it is)."""

    def __init__(self, end: EndSocket[S]) -> None:
        self._end = end
        self._sockets: dict[str, set[S]] = {}
        self._user: dict[str, int] = {}
        #: sessions a socket sent a message on since the last sweep
        self._busy: set[str] = set()
        self._sweeper: asyncio.Task[None] | None = None
        self._checks: tuple[Expired, Used | None] | None = None

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

    def used(self, digest: str) -> None:
        """A socket of session ``digest`` sent a message (recorded at the next sweep)."""
        if digest in self._sockets:
            self._busy.add(digest)

    def digests(self) -> list[str]:
        """The sessions that have open sockets."""
        return list(self._sockets)

    def users(self) -> set[int]:
        """The users who have open sockets here (who is online)."""
        return set(self._user.values())

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
    async def sweep(self, expired: Expired | None = None, used: Used | None = None) -> int:
        """Record the use of the sessions whose sockets sent messages since the last
        sweep (``used``), then end the sockets of every session that has ended
        (``expired``); returns how many.  Without arguments: the checks the sweeper was
        started with."""
        if expired is None:
            assert self._checks is not None, "no sweeper was started"
            expired, used = self._checks
        busy, self._busy = self._busy, set()
        busy &= self._sockets.keys()
        if busy and used is not None:
            await used(sorted(busy))
        digests = self.digests()
        if not digests:
            return 0
        return sum(self.end_session(d, 4001, "the session has ended")
                   for d in await expired(digests))

    def start_sweeper(self, expired: Expired, every: float, used: Used | None = None) -> None:
        """Sweep every ``every`` seconds until :meth:`stop`."""
        self._checks = (expired, used)

        async def run() -> None:
            while True:
                await asyncio.sleep(every)
                try:
                    await self.sweep()
                except Exception:
                    log.exception("checking the sessions of open sockets failed")
        self._sweeper = asyncio.get_running_loop().create_task(run())

    async def stop(self) -> None:
        if self._sweeper is not None:
            self._sweeper.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._sweeper
