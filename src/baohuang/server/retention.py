"""Retention (数据保留): what the server stores about connections is kept for
``ServerConfig.connection_log_retention`` and purged every ``retention_check`` seconds.
Chat is never stored (it is relayed to the table and forgotten), so there is no chat to
purge.

The purge takes its clock and its sleep as arguments: a test moves time by hand."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Awaitable, Callable

from .db.storage import Storage

__all__ = ["Retention"]

log = logging.getLogger("baohuang.server")


class Retention:
    """Purges the connection log older than ``keep`` seconds, every ``every`` seconds."""

    def __init__(self, storage: Storage, keep: float, every: float, *,
                 clock: Callable[[], float] = time.time,
                 sleep: Callable[[float], Awaitable[None]] = asyncio.sleep) -> None:
        self.storage = storage
        self.keep, self.every = keep, every
        self.clock, self.sleep = clock, sleep
        self._task: asyncio.Task[None] | None = None
        #: rows purged so far
        self.purged = 0

    async def purge(self) -> int:
        """Delete what is older than the retention now; how many rows."""
        count = await self.storage.purge_connections(self.clock() - self.keep)
        self.purged += count
        if count:
            log.info("retention: purged %d connection log row(s)", count)
        return count

    def start(self) -> None:
        async def run() -> None:
            while True:
                try:
                    await self.purge()
                except Exception:
                    log.exception("retention: the purge failed")
                await self.sleep(self.every)
        self._task = asyncio.get_running_loop().create_task(run(), name="retention")

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
