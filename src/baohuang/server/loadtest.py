"""``baohuang loadtest``: N tables × five client bots over WebSocket.

By default every client is the lean player of :mod:`.loadclient`: it speaks the
protocol as any client does but decodes of each message only what it needs and
answers as 托管 from the legal-action texts the server sends (a load generator
should cost little next to the server it measures).  With ``bot`` every client is
a :class:`baohuang.client.Client` — the same code an outside program uses, a full
view a decision — playing with that registered bot.  The report counts games
finished, errors, resyncs and reconnects, the messages received per second,
and the move→broadcast latency: from a client sending ``act`` until its own
move comes back as an event.

>>> LoadReport(tables=1, games=1, finished=1, seconds=2.0, messages=500,
...            latencies=[0.001, 0.002, 0.003]).to_dict()["messages_per_second"]
250.0
"""

from __future__ import annotations

import asyncio
import random
import statistics
import time
from collections import Counter
from collections.abc import Callable, Coroutine, Sequence
from dataclasses import dataclass, field
from http.cookiejar import CookieJar, DefaultCookiePolicy
from typing import Any, TypeVar

import httpx

from ..bots import make_bot
from ..client import Client, PlayResult
from ..engine.actions import Action
from ..engine.views import View
from .loadclient import LeanResult, play_lean
from .runtime import tune_gc

__all__ = ["LoadReport", "run_loadtest", "run_on_fast_loop"]

T = TypeVar("T")


def run_on_fast_loop(main: Coroutine[Any, Any, T]) -> T:
    """``asyncio.run(main)`` on uvloop when it is installed (as uvicorn uses it), with the
    server's garbage collection settings (:func:`.runtime.tune_gc`): the load generator
    shares the machine with the server it measures, so it should cost as little as it
    can.  The bench's baseline clients run the same way."""
    tune_gc()
    try:
        import uvloop
    except ImportError:          # pragma: no cover - uvloop comes with uvicorn[standard]
        return asyncio.run(main)
    return uvloop.run(main)


def _percentile(values: Sequence[float], q: float) -> float | None:
    if not values:
        return None
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))
    return ordered[index]


@dataclass
class LoadReport:
    """What a load test measured."""

    tables: int
    games: int
    finished: int = 0
    seconds: float = 0.0
    messages: int = 0
    bytes: int = 0
    errors: int = 0
    error_codes: dict[str, int] = field(default_factory=dict)
    resyncs: int = 0
    reconnects: int = 0
    moves: int = 0
    latencies: list[float] = field(default_factory=list)
    #: this process's CPU time while the clock ran (the load generator's own)
    cpu_seconds: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        p50 = _percentile(self.latencies, 0.50)
        p99 = _percentile(self.latencies, 0.99)
        return {
            "tables": self.tables, "clients": self.tables * 5,
            "games_expected": self.tables * self.games, "games_finished": self.finished,
            "errors": self.errors, "error_codes": dict(self.error_codes),
            "resyncs": self.resyncs, "reconnects": self.reconnects,
            "seconds": round(self.seconds, 3), "messages": self.messages,
            "messages_per_second": round(self.messages / self.seconds, 1)
            if self.seconds else 0.0,
            "bytes_per_message": round(self.bytes / self.messages) if self.messages else 0,
            "moves": self.moves,
            "moves_per_second": round(self.moves / self.seconds, 1) if self.seconds else 0.0,
            "latency_ms": {"p50": None if p50 is None else round(p50 * 1000, 2),
                           "p99": None if p99 is None else round(p99 * 1000, 2),
                           "mean": round(statistics.fmean(self.latencies) * 1000, 2)
                           if self.latencies else None},
        }

    @property
    def games_finished(self) -> int:
        return self.finished

    def text(self) -> str:
        d = self.to_dict()
        lat = d["latency_ms"]
        codes = ", ".join(f"{k}×{v}" for k, v in sorted(self.error_codes.items())) or "none"
        return "\n".join([
            f"tables            {d['tables']} ({d['clients']} clients)",
            f"games finished    {d['games_finished']} / {d['games_expected']}",
            f"errors            {d['errors']} ({codes})",
            f"resyncs           {d['resyncs']}   reconnects {d['reconnects']}",
            f"time              {d['seconds']} s",
            f"messages          {d['messages']}  ({d['messages_per_second']} /s)",
            f"moves             {d['moves']}  ({d['moves_per_second']} /s)",
            f"move→broadcast    p50 {lat['p50']} ms   p99 {lat['p99']} ms",
        ])


def _thinking(bot: str, seed: int, think: float) -> Any:
    """The bot, waiting ``think`` seconds on average (0.5–1.5×, so that tables do not
    all move at the same instant) before each decision."""
    player = make_bot(bot, seed)
    if think <= 0:
        return player
    rng = random.Random(seed)

    async def decide(view: View, legal: Sequence[Action]) -> Action:
        await asyncio.sleep(think * rng.uniform(0.5, 1.5))
        return player.choose(view, legal)
    return decide


async def run_loadtest(server: str, *, tables: int, games: int = 1, bot: str | None = None,
                       think: float = 0.0, timeout: float | None = None,
                       preset: str = "shandong",
                       processes: int = 1, first: int = 0,
                       tables_at: str | None = None,
                       on_clock: Callable[[], None] | None = None) -> LoadReport:
    """Fill ``tables`` tables with five client bots each and play ``games`` games:
    lean players (:func:`.loadclient.play_lean`), or with ``bot`` Python clients
    (:class:`baohuang.client.Client`) playing that bot.
    ``tables_at``: another node of the same cluster, where the tables are made (their
    actors run there) while the clients connect to ``server``.
    With ``processes`` > 1 the clients are split over that many worker processes
    (one Python process decoding every message of 2500 clients is slower than the
    server it measures).  Clients still playing after ``timeout`` seconds are stopped
    and counted as errors (``timeout``).  ``on_clock`` (in one process only) is called
    when the clock starts (after the sign-ups and the tables' creation) and when it
    stops, so that a caller can take, say, the server's CPU time over the measured part
    alone."""
    if processes > 1:
        return await _in_processes(server, tables=tables, games=games, bot=bot, think=think,
                                   timeout=timeout, preset=preset, processes=processes)
    report = LoadReport(tables=tables, games=games)
    limits = httpx.Limits(max_connections=50, max_keepalive_connections=50)
    gate = asyncio.Semaphore(50)
    # (the clients share one connection pool and each sends its bearer token: no cookie
    # may be kept, or a guest's sign-up would carry the previous one's session cookie,
    # which the server refuses without an Origin)
    no_cookies = CookieJar(DefaultCookiePolicy(allowed_domains=[]))
    async with httpx.AsyncClient(timeout=60, limits=limits, cookies=no_cookies) as http:
        clients = [Client(server, http=http) for _ in range(tables * 5)]

        async def sign_up(index: int, client: Client) -> None:
            async with gate:
                await client.guest(f"load{first * 5 + index}")

        await asyncio.gather(*(sign_up(i, c) for i, c in enumerate(clients)))
        ids = []
        for t in range(tables):
            owner = clients[t * 5] if tables_at is None else \
                Client(tables_at, clients[t * 5].token, http=http)
            async with gate:
                made = await owner.create_table(preset=preset, games=games, timeout=600,
                                                practice=True, seed=first + t)
            ids.append(made["id"])
        if on_clock is not None:
            on_clock()
        cpu_start = time.process_time()
        started = time.perf_counter()
        url = clients[0].ws_url()
        plays: list[Coroutine[Any, Any, PlayResult | LeanResult]] = [
            play_lean(url, clients[i].token or "", ids[i // 5], think=think,
                      seed=first * 5 + i, max_backoff=2.0) if bot is None else
            clients[i].play(ids[i // 5], _thinking(bot, first * 5 + i, think), max_backoff=2.0)
            for i in range(len(clients))]
        tasks = [asyncio.ensure_future(p) for p in plays]
        await asyncio.wait(tasks, timeout=timeout)
        report.seconds = time.perf_counter() - started
        report.cpu_seconds = time.process_time() - cpu_start
        if on_clock is not None:
            on_clock()
        results: list[PlayResult | LeanResult | BaseException] = []
        for task in tasks:
            if not task.done():
                task.cancel()
                results.append(TimeoutError("still playing"))
            elif task.exception() is not None:
                results.append(task.exception() or RuntimeError())
            else:
                results.append(task.result())
    codes: Counter[str] = Counter()
    for index, result in enumerate(results):
        if isinstance(result, BaseException):
            codes["timeout" if isinstance(result, TimeoutError) else type(result).__name__] += 1
            continue
        if index % 5 == 0:
            report.finished += len(result.games)
        report.messages += result.messages
        report.bytes += result.bytes
        report.resyncs += result.resyncs
        report.reconnects += result.reconnects
        report.moves += len(result.sent) if isinstance(result, PlayResult) else result.moves
        report.latencies.extend(result.latencies)
        codes.update(str(e.get("code")) for e in result.errors)
    report.errors = sum(codes.values())
    report.error_codes = dict(codes)
    return report


def _worker(server: str, tables: int, games: int, bot: str | None, think: float,
            timeout: float | None, preset: str, first: int) -> LoadReport:
    return run_on_fast_loop(run_loadtest(server, tables=tables, games=games, bot=bot,
                                         think=think,
                                    timeout=timeout, preset=preset, first=first))


async def _in_processes(server: str, *, tables: int, games: int, bot: str | None,
                        think: float,
                        timeout: float | None, preset: str, processes: int) -> LoadReport:
    import concurrent.futures
    import multiprocessing

    shares = [tables // processes + (1 if i < tables % processes else 0)
              for i in range(processes)]
    starts = [sum(shares[:i]) for i in range(processes)]
    context = multiprocessing.get_context("spawn")
    loop = asyncio.get_running_loop()
    with concurrent.futures.ProcessPoolExecutor(processes, mp_context=context) as pool:
        parts = await asyncio.gather(*(
            loop.run_in_executor(pool, _worker, server, share, games, bot, think, timeout,
                                 preset, start)
            for share, start in zip(shares, starts, strict=True) if share))
    report = LoadReport(tables=tables, games=games)
    codes: Counter[str] = Counter()
    for part in parts:
        report.finished += part.finished
        report.seconds = max(report.seconds, part.seconds)
        report.messages += part.messages
        report.bytes += part.bytes
        report.resyncs += part.resyncs
        report.reconnects += part.reconnects
        report.moves += part.moves
        report.latencies.extend(part.latencies)
        report.cpu_seconds += part.cpu_seconds
        codes.update(part.error_codes)
    report.errors = sum(codes.values())
    report.error_codes = dict(codes)
    return report
