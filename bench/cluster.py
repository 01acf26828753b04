"""Cluster benchmark: moves per second and move-to-broadcast latency of 1, 2 and 3
``baohuang serve --redis`` nodes on one database against the single process, in one
run on this machine (the clients of each node's share of the tables connect to that
node; the cost of a client on another node than its table's is measured by
bench/cluster_hop.py).

    python bench/cluster.py [--tables 60] [--think 0.2] [--nodes 1,2,3] [--db URL]

``--db``: a PostgreSQL URL (each configuration gets a fresh database next to it);
default: an SQLite file per configuration.  Needs Debian's redis-server.  Results:
bench/cluster.md.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import tempfile
from collections.abc import Iterator
from pathlib import Path

from baohuang.server.cluster.services import RedisServer
from baohuang.server.harness import LOAD_LIMITS, ServerProcess, free_port, pg_database
from baohuang.server.loadtest import LoadReport, run_loadtest, run_on_fast_loop

FLAGS = ("--bot-delay", "0", "--hosted-delay", "0", "--guard-pause", "0",
         "--next-game-delay", "0", "--away-grace", "30", *LOAD_LIMITS)


@contextlib.contextmanager
def _database(base: str | None, directory: Path, name: str) -> Iterator[str]:
    if base is None:
        yield f"sqlite+aiosqlite:///{directory / f'{name}.db'}"
    else:
        with pg_database(base) as url:
            yield url


async def _load(urls: list[str], tables: int, think: float) -> LoadReport:
    """``tables`` tables split over ``urls``, played at once; one report for all."""
    shares = [tables // len(urls) + (i < tables % len(urls)) for i in range(len(urls))]
    parts = await asyncio.gather(*(run_loadtest(url, tables=share, think=think, first=i * 10_000)
                                   for i, (url, share) in enumerate(zip(urls, shares,
                                                                        strict=True))
                                   if share))
    total = LoadReport(tables=tables, games=1)
    for part in parts:
        total.finished += part.finished
        total.messages += part.messages
        total.bytes += part.bytes
        total.errors += part.errors
        total.resyncs += part.resyncs
        total.reconnects += part.reconnects
        total.moves += part.moves
        total.latencies += part.latencies
        total.seconds = max(total.seconds, part.seconds)
    return total


def _run(label: str, urls: list[str], tables: int, think: float) -> str:
    report = run_on_fast_loop(_load(urls, tables, think)).to_dict()
    latency = report["latency_ms"]
    return (f"| {label} | {tables} | {report['games_finished']}/{tables} | {report['errors']} "
            f"| {report['moves_per_second']} | {latency['p50']} | {latency['p99']} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=int, default=60)
    parser.add_argument("--think", type=float, default=0.2,
                        help="seconds a client thinks a move, on average")
    parser.add_argument("--nodes", default="1,2,3", help="node counts to measure")
    parser.add_argument("--db", default=None, help="a PostgreSQL URL (default: SQLite)")
    args = parser.parse_args()
    rows = ["| configuration | tables | games | errors | moves/s | p50 ms | p99 ms |",
            "| --- | --- | --- | --- | --- | --- | --- |"]
    with tempfile.TemporaryDirectory(prefix="bh-bench-cluster-") as temp:
        directory = Path(temp)
        with _database(args.db, directory, "single") as url:
            with ServerProcess(url, None, *FLAGS) as single:
                rows.append(_run("single process", [single.url], args.tables, args.think))
            print(rows[-1], flush=True)
        with RedisServer(free_port(), directory / "redis") as redis:
            assert isinstance(redis, RedisServer)
            for count in (int(n) for n in args.nodes.split(",")):
                with _database(args.db, directory, f"nodes{count}") as url, \
                        contextlib.ExitStack() as stack:
                    nodes = [stack.enter_context(ServerProcess(
                        url, None, *FLAGS, "--redis", redis.url, "--node", f"n{i}"))
                        for i in range(count)]
                    rows.append(_run(f"{count} node{'s' if count > 1 else ''} + Redis",
                                     [node.url for node in nodes], args.tables, args.think))
                print(rows[-1], flush=True)
    print("\n".join(rows))


if __name__ == "__main__":
    main()
