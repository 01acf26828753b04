"""A table's inbox: the queue of one actor task.

``asyncio.Queue`` asks asyncio for the running loop each time its reader waits
(on Python 3.11 that is a ``getpid`` system call), and a busy server's table
waits for its next input after every move.  An inbox has one reader, takes
the loop once, and otherwise does what the queue did: ``put`` never blocks,
``get`` waits for the next item, items come out in order.

>>> import asyncio
>>> async def main() -> list[str]:
...     inbox: Inbox[str] = Inbox()
...     inbox.put("act")
...     later = asyncio.get_running_loop().call_later(0.01, inbox.put, "timer")
...     return [await inbox.get(), await inbox.get()]
>>> asyncio.run(main())
['act', 'timer']
"""

from __future__ import annotations

import asyncio
from collections import deque
from typing import Generic, TypeVar

__all__ = ["Inbox"]

_T = TypeVar("_T")


class Inbox(Generic[_T]):
    """An unbounded FIFO queue read by one task."""

    __slots__ = ("_items", "_loop", "_waiter")

    def __init__(self) -> None:
        self._items: deque[_T] = deque()
        self._waiter: asyncio.Future[None] | None = None
        self._loop: asyncio.AbstractEventLoop | None = None

    def __len__(self) -> int:
        return len(self._items)

    def put(self, item: _T) -> None:
        """Add ``item`` and wake the reader if it waits."""
        self._items.append(item)
        waiter = self._waiter
        if waiter is not None:
            self._waiter = None
            if not waiter.done():
                waiter.set_result(None)

    async def get(self) -> _T:
        """The next item, waiting for one if there is none (one reader at a time)."""
        items = self._items
        while not items:
            if self._waiter is not None:
                raise RuntimeError("an inbox has one reader")
            loop = self._loop
            if loop is None:
                loop = self._loop = asyncio.get_running_loop()
            waiter = self._waiter = loop.create_future()
            try:
                await waiter
            finally:
                if self._waiter is waiter:       # (cancelled while waiting)
                    self._waiter = None
        return items.popleft()
