"""The cost of a cross-node hop: two ``baohuang serve --redis`` nodes on one database
and one redis-server; the same tables (made on node B, their actors run there) played
by client bots connected to node B itself ("direct") and to node A ("hop": every
message goes A -> Redis -> B and back, docs/cluster.md), alternately, in one run.

    python bench/cluster_hop.py [--tables 20] [--think 0.05] [--rounds 2] [--db URL]

Reported per configuration: moves per second, move-to-broadcast p50/p99 (a client's
act to the update of that move reaching it), and the CPU time per move of node A, node
B and redis-server (user + system, from /proc: the machine has no instruction
counters to read).  Results: bench/cluster.md.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path

from baohuang.server.children import ChildProcess
from baohuang.server.cluster.services import RedisServer
from baohuang.server.harness import LOAD_LIMITS, ServerProcess, free_port, pg_database
from baohuang.server.loadtest import run_loadtest, run_on_fast_loop

FLAGS = ("--bot-delay", "0", "--hosted-delay", "0", "--next-game-delay", "0",
         "--away-grace", "30", *LOAD_LIMITS)
TICK = os.sysconf("SC_CLK_TCK")


def _cpu(child: ChildProcess) -> float:
    """Seconds of CPU (user + system) ``child`` has used."""
    assert child.process is not None
    fields = Path(f"/proc/{child.process.pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK


@contextlib.contextmanager
def _database(base: str | None, directory: Path) -> Iterator[str]:
    if base is None:
        yield f"sqlite+aiosqlite:///{directory / 'hop.db'}"
    else:
        with pg_database(base) as url:
            yield url


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=int, default=20)
    parser.add_argument("--think", type=float, default=0.05)
    parser.add_argument("--rounds", type=int, default=2,
                        help="runs of each configuration, alternating")
    parser.add_argument("--db", default=None, help="a PostgreSQL URL (default: SQLite)")
    args = parser.parse_args()
    rows = ["| clients connect to | tables | games | errors | moves | moves/s | p50 ms "
            "| p99 ms | CPU ms/move node A | node B | Redis | all |",
            "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    with tempfile.TemporaryDirectory(prefix="bh-bench-hop-") as temp, \
            contextlib.ExitStack() as stack:
        directory = Path(temp)
        redis = stack.enter_context(RedisServer(free_port(), directory / "redis"))
        assert isinstance(redis, RedisServer)
        url = stack.enter_context(_database(args.db, directory))
        a, b = (stack.enter_context(ServerProcess(url, None, *FLAGS, "--redis", redis.url,
                                                  "--node", name)) for name in ("A", "B"))
        first = 0
        for _ in range(args.rounds):
            for label, server in (("node B (direct)", b), ("node A (hop via Redis)", a)):
                before = [_cpu(p) for p in (a, b, redis)]
                report = run_on_fast_loop(run_loadtest(
                    server.url, tables=args.tables, think=args.think, first=first,
                    tables_at=b.url)).to_dict()
                used = [_cpu(p) - was for p, was in zip((a, b, redis), before, strict=True)]
                first += args.tables
                moves = max(1, report["moves"])
                per = [f"{1000 * u / moves:.3f}" for u in used]
                latency = report["latency_ms"]
                rows.append(
                    f"| {label} | {args.tables} | {report['games_finished']}/{args.tables} "
                    f"| {report['errors']} | {report['moves']} | {report['moves_per_second']} "
                    f"| {latency['p50']} | {latency['p99']} | {per[0]} | {per[1]} | {per[2]} "
                    f"| {1000 * sum(used) / moves:.3f} |")
                print(rows[-1], report["error_codes"] or "", flush=True)
    print("\n".join(rows))


if __name__ == "__main__":
    main()
