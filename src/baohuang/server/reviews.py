"""复盘 on the server: reviews of finished games computed in the background.

A review (:mod:`baohuang.bots.review`) takes tens of seconds of CPU, so it never runs
on the event loop: :class:`ReviewJobs` replays the stored record and sends its
decisions, one at a time, to a pool of worker **processes**
(``ServerConfig.review_workers``), so that the table actors keep their loop and the
GIL.  Each job counts its decisions for the progress bar, stops at the CPU budget
(``review_cpu_seconds``, summed from the workers' ``time.process_time``), and, once
done, is stored (``reviews`` table) and read from there ever after — the same review,
because its deals are seeded from the game record and the budget.  A job belongs to
the node that runs it; its stored result is every node's.

Who may ask is the API's business (``baohuang.server.transport.review_api``); here: one
job per game and seat, at most ``reviews_per_user`` running for one account.
"""

from __future__ import annotations

import asyncio
import copy
import logging
import multiprocessing
from concurrent.futures import Executor, ProcessPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from ..bots.review import (
    ReviewSettings,
    decision_points,
    record_salt,
    review_step,
    start_review,
)
from .config import ServerConfig
from .db.storage import Storage
from .wire.replay import record_of

__all__ = ["ReviewJob", "ReviewJobs", "TooManyReviews"]

log = logging.getLogger(__name__)


class TooManyReviews(Exception):
    """An account asked for more reviews at once than ``reviews_per_user``."""


@dataclass(slots=True)
class ReviewJob:
    """One review being computed: its progress (``done`` of ``total`` decisions) and,
    when it failed, why."""

    game_id: int
    seat: int
    user_id: int
    done: int = 0
    total: int = 0
    failed: str | None = None
    task: asyncio.Task[None] | None = field(default=None, repr=False)

    def to_json(self) -> dict[str, Any]:
        if self.failed is not None:
            return {"status": "failed", "game_id": self.game_id, "seat": self.seat,
                    "message": self.failed}
        return {"status": "running", "game_id": self.game_id, "seat": self.seat,
                "done": self.done, "total": self.total}


class ReviewJobs:
    """The reviews this server is computing, and its worker processes."""

    def __init__(self, storage: Storage, config: ServerConfig,
                 executor: Executor | None = None) -> None:
        self.storage = storage
        self.settings = ReviewSettings(playouts=config.review_playouts,
                                       cpu_seconds=config.review_cpu_seconds)
        self.per_user = config.reviews_per_user
        self._workers = config.review_workers
        self._executor = executor
        self.jobs: dict[tuple[int, int], ReviewJob] = {}

    def _pool(self) -> Executor:
        if self._executor is None:
            # (spawned, not forked: the server's process has threads and an event loop)
            self._executor = ProcessPoolExecutor(
                max_workers=self._workers, mp_context=multiprocessing.get_context("spawn"))
        return self._executor

    def job(self, game_id: int, seat: int) -> ReviewJob | None:
        return self.jobs.get((game_id, seat))

    def start(self, row: dict[str, Any], seat: int, user_id: int) -> ReviewJob:
        """Start the review of ``seat`` in the finished game ``row`` (as
        :meth:`~baohuang.server.db.games.GameStore.game` reads it), or return the one
        already running; a failed one is started again.  Raises
        :class:`TooManyReviews`."""
        key = (int(row["id"]), seat)
        job = self.jobs.get(key)
        if job is not None and job.failed is None:
            return job
        running = sum(1 for j in self.jobs.values()
                      if j.user_id == user_id and j.failed is None)
        if running >= self.per_user:
            raise TooManyReviews(f"you have {running} reviews running: wait for one to end")
        job = self.jobs[key] = ReviewJob(key[0], seat, user_id)
        job.task = asyncio.create_task(self._run(job, record_of(row)),
                                       name=f"review {key[0]}/{seat}")
        return job

    async def _run(self, job: ReviewJob, record: dict[str, Any]) -> None:
        loop = asyncio.get_running_loop()
        try:
            review = start_review(record, job.seat, self.settings)
            job.total = review.total
            salt = record_salt(record)
            for index, game, action in decision_points(record, job.seat):
                if review.cpu_seconds >= self.settings.cpu_seconds:
                    review.partial = True
                    break
                decision, spent = await loop.run_in_executor(
                    self._pool(), review_step, copy.deepcopy(game), action, self.settings,
                    index, salt)
                review.add(decision, spent)
                job.done += 1
            await self.storage.store_review(job.game_id, job.seat, review.to_dict(),
                                            review.cpu_seconds)
        except asyncio.CancelledError:
            raise
        except Exception as exc:       # a job's failure is told to whoever polls it
            log.exception("review of game %s seat %s failed", job.game_id, job.seat)
            job.failed = f"the review could not be computed ({type(exc).__name__})"
            return
        self.jobs.pop((job.game_id, job.seat), None)

    async def close(self) -> None:
        """Stop every job and the worker processes."""
        tasks = [j.task for j in self.jobs.values() if j.task is not None]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        if self._executor is not None:
            self._executor.shutdown(wait=False, cancel_futures=True)
