"""A paused table tries its write again on its own clock (server/table/outage.py):
a table on a :class:`ManualClock` whose database refuses two writes tries again
exactly 0.25 and then 0.5 of the clock's seconds later, and not before the clock
is moved — the retries are the table's time like its turns and 托管's delays."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

from baohuang.engine.rules import RuleSet
from baohuang.server.config import ServerConfig
from baohuang.server.db.storage import open_storage
from baohuang.server.table import seating
from baohuang.server.table.clock import ManualClock
from baohuang.server.table.outage import RETRY_FIRST
from baohuang.server.table.settings import Settings
from baohuang.server.table.tables import Table


def test_a_paused_write_is_tried_again_on_the_tables_clock(tmp_path: Path) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path / 'bh.db'}"

    async def main() -> list[float]:
        storage = await open_storage(url)
        clock = ManualClock()
        settings = Settings("t1", "ABCDEF", None, "shandong", RuleSet.preset("shandong"),
                            30.0, 1, 7, True, time.time())
        table = Table(settings, [None] * 5, storage, ServerConfig(db_url=url), clock=clock,
                      seating=seating.handle)
        tried: list[float] = []

        async def write() -> None:          # the database out of reach twice
            tried.append(clock.now())
            if len(tried) <= 2:
                raise ConnectionRefusedError("the database is out of reach")

        task = asyncio.create_task(table.store.persist(write, "a test write"))
        try:
            for due in (RETRY_FIRST, RETRY_FIRST * 3):
                loop = asyncio.get_running_loop()
                end = loop.time() + 10
                while clock.next_due() is None:        # (the failed try sets its retry)
                    assert loop.time() < end, "no retry was set on the table's clock"
                    await asyncio.sleep(0.01)
                assert clock.next_due() == due
                assert not task.done()
                await asyncio.to_thread(clock.advance_to, due)
            await asyncio.wait_for(task, 10)
        finally:
            await storage.close()
        return tried

    assert asyncio.run(main()) == [0.0, RETRY_FIRST, RETRY_FIRST * 3]
