"""Where a tournament's deals are played: in this process, in local worker
processes (``--jobs``), or as Ray tasks on a cluster (``--ray``, the
optional ``ray`` extra).  Each task plays a range of deals and returns their
:class:`~baohuang.tournament.records.DealResult`; the caller sorts them by deal."""

from __future__ import annotations

import importlib
import logging
import os
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from typing import Any

from .core import (
    Executor,
    Progress,
    Tournament,
    TournamentError,
    chunks,
    play_deals,
    play_here,
    task_args,
)
from .records import DealResult

__all__ = ["default_jobs", "local", "on_ray", "run_local", "run_ray"]


def default_jobs() -> int:
    """The number of cores this process may use."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not Linux
        return os.cpu_count() or 1


def local(jobs: int) -> Executor:
    """The executor that plays with ``jobs`` local processes (1: in this process)."""
    def play(t: Tournament, progress: Progress | None) -> list[DealResult]:
        return run_local(t, jobs, progress)
    return play


def on_ray(address: str) -> Executor:
    """The executor that plays as Ray tasks on the cluster at ``address``."""
    def play(t: Tournament, progress: Progress | None) -> list[DealResult]:
        return run_ray(t, address, progress)
    return play


def run_local(t: Tournament, jobs: int, progress: Progress | None) -> list[DealResult]:
    """Play every deal with ``jobs`` processes (1: in this process)."""
    if jobs < 1:
        raise TournamentError(f"jobs must be at least 1, not {jobs}")
    if jobs == 1:
        return play_here(t, progress)
    results: list[DealResult] = []
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        pending: set[Future[list[DealResult]]] = {
            pool.submit(play_deals, *task_args(t, deals))
            for deals in chunks(t.deals, t.chunk_size(jobs))}
        while pending:
            done, pending = wait(pending, return_when=FIRST_COMPLETED)
            for fut in done:
                part = fut.result()
                results.extend(part)
                if progress is not None:
                    progress(len(part))
    return results


def run_ray(t: Tournament, address: str, progress: Progress | None) -> list[DealResult]:
    """Play every deal as Ray tasks on the cluster at ``address`` (``local``:
    start a Ray instance on this machine).  The workers must be able to import
    this version of ``baohuang``."""
    try:
        # Any: type-checks the same whether or not the optional extra is installed
        ray: Any = importlib.import_module("ray")
    except ImportError:
        raise TournamentError(
            "--ray needs Ray, which is not installed: pip install 'baohuang[ray]'") from None
    started = False
    if not ray.is_initialized():
        if address == "local":
            ray.init(logging_level=logging.ERROR, log_to_driver=False)
        else:
            ray.init(address=address, logging_level=logging.ERROR, log_to_driver=False)
        started = True
    try:
        remote = ray.remote(play_deals)
        workers = max(1, int(ray.cluster_resources().get("CPU", 1)))
        pending = [remote.remote(*task_args(t, deals))
                   for deals in chunks(t.deals, t.chunk_size(workers))]
        results: list[DealResult] = []
        while pending:
            done, pending = ray.wait(pending, num_returns=1)
            for ref in done:
                part: list[DealResult] = ray.get(ref)
                results.extend(part)
                if progress is not None:
                    progress(len(part))
        return results
    finally:
        if started:
            ray.shutdown()
