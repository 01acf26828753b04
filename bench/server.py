"""Server throughput: our server against a bare uvicorn WebSocket broadcast, same run.

1. Starts ``baohuang serve`` on loopback (a fresh SQLite file, no bot or 托管
   delays) and runs ``baohuang loadtest``'s code against it: ``--tables`` tables
   × five clients playing ``--games`` games each — the load test's lean players
   (``baohuang/server/loadclient.py``: the real protocol, each message decoded only
   as far as the player needs, every move one of the legal-action texts the server
   sent, 托管's answer, validated by the server as any ``act``).
2. Starts the baseline: a bare ASGI WebSocket app on uvicorn that only
   broadcasts — five clients per room take turns, each turn one client sends a
   message and the server sends a message of the same size as our server's
   average message to all five.  The same number of rooms play the same number of
   turns as our tables made moves.
3. Prints both (messages/s, move→broadcast latency), the ratio of our
   message rate to the baseline's, the CPU time each server and each load
   generator spent per move (the baseline: per turn, one turn standing for one
   of our moves) while the clock ran — beside the time between two moves, so that
   the process that sets the pace (its CPU a move about that time) shows — and the
   machine's load average before and after.

Both servers run with the same uvicorn WebSocket settings and garbage
collection settings, and both load generators on uvloop.  The ratio compares
message rates when every client answers at once (``--think 0``): that is the
throughput test.  With ``--think S`` clients wait S seconds on average before
each move, as players do; the baseline (which does not think) is then not run,
and the run measures latency under a realistic load: the 500-table target is
p99 ≤ 50 ms with players who think 1 s a move — at ``--think 0`` 500 tables
saturate this 2-core machine, and p99 measures the queue, not the server.

    python bench/server.py                    # 50 tables, one game each: the ratio
    python bench/server.py --tables 500 --think 1.0   # the 500-table latency run
    python bench/server.py --tables 500       # 500 tables answering instantly
    python bench/server.py --json
    python bench/server.py --count            # instructions per move (needs valgrind)

Our server and its load generator run on the interpreter that runs this script (the
server as ``sys.executable -m baohuang.cli serve``), so a build is measured with its own
Python: ``<venv>/bin/python bench/server.py`` for a compiled install
(``BAOHUANG_COMPILE=1 pip install .``; ``bench/server.md`` has the figures).

``--count`` measures cost without the clock: the machine's speed drifts (the
baseline alone made 24k–64k messages/s on runs of one day), so a change of a
tenth is lost in seconds.  Both servers and both load generators run under
callgrind (valgrind), each twice — a short and a long load on the same tables
(rooms) — and the difference between the two runs, divided by the difference in
moves (turns), is what one more move (turn) costs in instructions: start-up,
sign-ups and table creation cancel out.  The counts are user-space only (the
socket system calls, the same number per move as per turn, are not in them, nor
are cache misses), so the ratio they give is an estimate of the message-rate
ratio, not a measurement of it.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import websockets

from baohuang.server.harness import LOAD_LIMITS, ServerProcess, free_port, lifespan
from baohuang.server.loadtest import LoadReport, run_loadtest, run_on_fast_loop

TARGET_RATIO = 0.5
TARGET_P99_MS = 50.0       # with TARGET_TABLES tables
TARGET_TABLES = 500


def _cpu_seconds(pid: int) -> float | None:
    """User + system CPU time of a process so far (Linux), or None."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

# -- the baseline: a bare ASGI app that broadcasts --------------------------------------------
_rooms: dict[str, list[Any]] = {}


async def baseline_app(scope: dict[str, Any], receive: Any, send: Any) -> None:
    """Room ``/ws?room=R``: every text a client sends is answered by a broadcast of
    ``pad`` bytes to everybody in the room."""
    if scope["type"] == "lifespan":
        await lifespan(receive, send)
        return
    if scope["type"] != "websocket":
        return
    room = scope["query_string"].decode().partition("room=")[2]
    await receive()                                      # websocket.connect
    await send({"type": "websocket.accept"})
    members = _rooms.setdefault(room, [])
    members.append(send)
    try:
        while True:
            message = await receive()
            if message["type"] == "websocket.disconnect":
                break
            text = message.get("text") or ""
            turn, _, size = text.partition(":")
            body = json.dumps({"turn": int(turn), "pad": "x" * max(0, int(size) - 30)})
            for member in list(members):
                await member({"type": "websocket.send", "text": body})
    finally:
        members.remove(send)


def serve_baseline(port: int) -> None:
    """The baseline on uvicorn with our server's uvicorn settings (the same
    ``uvicorn_config``: WebSocket protocol, pings, frame size, compression), so that
    only what runs on top of uvicorn differs."""
    import uvicorn

    from baohuang.server.config import ServerConfig
    from baohuang.server.runtime import tune_gc
    from baohuang.server.transport.app import uvicorn_config

    config = ServerConfig()
    tune_gc()                                 # as `baohuang serve` does
    uvicorn.Server(uvicorn_config(baseline_app, config, "127.0.0.1", port,
                                  log_level="warning")).run()


def run_baseline(port: int, rooms: int, turns: int, size: int, processes: int
                 ) -> dict[str, Any]:
    """``rooms`` rooms × five clients, ``turns`` turns each, in ``processes`` processes."""
    import concurrent.futures
    import multiprocessing

    shares = [rooms // processes + (1 if i < rooms % processes else 0) for i in range(processes)]
    starts = [sum(shares[:i]) for i in range(processes)]
    if processes == 1:
        parts = [_baseline_part(port, rooms, turns, size, 0)]
    else:
        context = multiprocessing.get_context("spawn")
        with concurrent.futures.ProcessPoolExecutor(processes, mp_context=context) as pool:
            parts = list(pool.map(_baseline_part, [port] * processes, shares,
                                  [turns] * processes, [size] * processes, starts))
    latencies = sorted(x for part in parts for x in part[2])
    received = sum(part[0] for part in parts)
    seconds = max(part[1] for part in parts)
    return {"rooms": rooms, "turns": turns, "messages": received, "seconds": round(seconds, 3),
            "messages_per_second": round(received / seconds, 1),
            "latency_ms": {"p50": round(latencies[len(latencies) // 2] * 1000, 2),
                           "p99": round(latencies[int(len(latencies) * 0.99)] * 1000, 2),
                           "mean": round(statistics.fmean(latencies) * 1000, 2)}}


def _baseline_part(port: int, rooms: int, turns: int, size: int, first: int
                   ) -> tuple[int, float, list[float]]:
    return run_on_fast_loop(_baseline_clients(port, rooms, turns, size, first))


async def _baseline_clients(port: int, rooms: int, turns: int, size: int, first: int
                            ) -> tuple[int, float, list[float]]:
    latencies: list[float] = []
    received = 0

    async def client(room: int, seat: int) -> None:
        nonlocal received
        url = f"ws://127.0.0.1:{port}/ws?room={room}"
        ready = barriers[room - first]
        async with websockets.connect(url, max_size=None) as ws:
            await ready.wait()
            sent_at = 0.0
            if seat == 0:
                sent_at = time.perf_counter()
                await ws.send(f"0:{size}")
            async for raw in ws:
                received += 1
                turn = json.loads(raw)["turn"]
                if turn % 5 == seat and sent_at:
                    latencies.append(time.perf_counter() - sent_at)
                    sent_at = 0.0
                if turn + 1 >= turns:
                    return
                if (turn + 1) % 5 == seat:
                    sent_at = time.perf_counter()
                    await ws.send(f"{turn + 1}:{size}")

    barriers = [asyncio.Barrier(5) for _ in range(rooms)]
    started = time.perf_counter()
    await asyncio.gather(*(client(first + r, s) for r in range(rooms) for s in range(5)))
    return received, time.perf_counter() - started, latencies


# -- the comparison -------------------------------------------------------------------------
def run_ours(args: argparse.Namespace) -> dict[str, Any]:
    """Our server on a fresh SQLite file, with the load test's clients."""
    with tempfile.TemporaryDirectory() as tmp:
        db = f"sqlite+aiosqlite:///{Path(tmp) / 'bench.db'}"
        server = ServerProcess(db, None, "--bot-delay", "0", "--hosted-delay", "0",
                               "--guard-pause", "0", "--next-game-delay", "0", *LOAD_LIMITS)
        with server:
            assert server.process is not None
            pid = server.process.pid
            marks: list[float | None] = []      # the server's CPU at the clock's start, stop
            ours: LoadReport = run_on_fast_loop(run_loadtest(
                server.url, tables=args.tables, games=args.games, think=args.think,
                processes=args.processes, on_clock=lambda: marks.append(_cpu_seconds(pid))))
    start, stop = [*marks, None, None][:2]
    server_cpu = None if start is None or stop is None else stop - start
    mine = ours.to_dict()
    moves = max(1, ours.moves)
    mine["cpu_ms_per_move"] = {
        "server": None if server_cpu is None else round(server_cpu / moves * 1000, 3),
        "clients": round(ours.cpu_seconds / moves * 1000, 3)}
    return mine


def run_base(args: argparse.Namespace, turns: int, size: int) -> dict[str, Any]:
    """The bare broadcast: as many rooms as we had tables, ``turns`` turns each."""
    port = free_port()
    proc = subprocess.Popen([sys.executable, __file__, "--serve-baseline", str(port)],
                            env={**os.environ, "PYTHONUNBUFFERED": "1"})
    try:
        _wait_for_port(port)
        base_cpu = _cpu_seconds(proc.pid)
        base_client_cpu = time.process_time()
        base = run_baseline(port, args.tables, turns, size, args.processes)
        base_client_cpu = time.process_time() - base_client_cpu
        base_after = _cpu_seconds(proc.pid)
        base_cpu = None if base_cpu is None or base_after is None else base_after - base_cpu
    finally:
        proc.terminate()
        proc.wait(timeout=10)
    base_turns = max(1, args.tables * turns)
    base["cpu_ms_per_turn"] = {
        "server": None if base_cpu is None else round(base_cpu / base_turns * 1000, 3),
        "clients": round(base_client_cpu / base_turns * 1000, 3)
        if args.processes == 1 else None}
    return base


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tables", type=int, default=50)
    parser.add_argument("--games", type=int, default=1)
    parser.add_argument("--think", type=float, default=0.0,
                        help="seconds each client waits before each move")
    parser.add_argument("--rounds", type=int, default=5,
                        help="rounds of our server and the baseline (--think 0; every other "
                             "round the baseline first); the ratio is the median of the "
                             "rounds' ratios")
    parser.add_argument("--processes", type=int, default=1,
                        help="client processes (for both servers alike)")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--count", action="store_true",
                        help="count instructions per move under callgrind instead (slow: "
                             "a few minutes with the default --count-tables)")
    parser.add_argument("--count-tables", type=int, default=3,
                        help="tables (rooms) of the --count runs")
    parser.add_argument("--serve-baseline", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--baseline-clients", type=int, nargs=4, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve_baseline:
        serve_baseline(args.serve_baseline)
        return
    if args.baseline_clients:
        port, rooms, turns, size = args.baseline_clients
        print(json.dumps(run_baseline(port, rooms, turns, size, 1)))
        return
    if args.count:
        _print_counts(count_instructions(args.count_tables), args.json)
        return

    load_before = os.getloadavg()
    rounds: list[dict[str, Any]] = []
    previous: dict[str, Any] | None = None
    for number in range(max(1, args.rounds) if args.think <= 0 else 1):
        # (each round measures both servers back to back: the machine's speed drifts
        # over minutes, and a ratio within a round is the one that means something; every
        # other round the baseline goes first, so that a drift favours neither — our
        # seeded games make the same moves every round, so the baseline's turns and
        # message size are known from the round before)
        base: dict[str, Any] | None = None
        ratio: float | None = None
        baseline_first = args.think <= 0 and previous is not None and number % 2 == 1
        if baseline_first and previous is not None:
            base = run_base(args, *_turns_and_size(args, previous))
        mine = run_ours(args)
        if args.think <= 0:
            if base is None:
                base = run_base(args, *_turns_and_size(args, mine))
            ratio = mine["messages_per_second"] / base["messages_per_second"]
        previous = mine
        rounds.append({"ours": mine, "baseline": base, "baseline_first": baseline_first,
                       "ratio": None if ratio is None else round(ratio, 3)})
        if not args.json:
            _print_round(len(rounds), args, mine, base, ratio, baseline_first)
    load_after = os.getloadavg()
    ratios = [r["ratio"] for r in rounds if r["ratio"] is not None]
    median = statistics.median(ratios) if ratios else None
    p99s = [r["ours"]["latency_ms"]["p99"] for r in rounds]
    p99 = None if None in p99s else max(p99s)
    out = {"tables": args.tables, "think": args.think, "rounds": rounds,
           "ratio": None if median is None else round(median, 3), "target_ratio": TARGET_RATIO,
           "target_p99_ms": TARGET_P99_MS,
           # (the latency target is for players who think: at --think 0 p99 is the queue)
           "p99_met": None if args.tables < TARGET_TABLES or args.think <= 0
           else p99 is not None and p99 <= TARGET_P99_MS,
           "load_average": {"before": [round(x, 2) for x in load_before],
                            "after": [round(x, 2) for x in load_after]}}
    if args.json:
        print(json.dumps(out, indent=2))
        return
    if median is not None:
        print(f"ratio            {median:.2f} of the baseline's message rate, the median of "
              f"{len(ratios)} round(s): {', '.join(f'{x:.2f}' for x in ratios)} "
              f"(target ≥ {TARGET_RATIO})")
    else:
        print("ratio            not compared: clients think, the bare broadcast does not "
              "(run with --think 0)")
    if out["p99_met"] is not None:
        print(f"p99              {p99} ms at {args.tables} tables (target ≤ "
              f"{TARGET_P99_MS:g} ms: {'met' if out['p99_met'] else 'not met'})")
    print(f"load average     {' '.join(f'{x:.2f}' for x in load_before)} before, "
          f"{' '.join(f'{x:.2f}' for x in load_after)} after (other work on the machine "
          "slows both servers)")


def _turns_and_size(args: argparse.Namespace, mine: dict[str, Any]) -> tuple[int, int]:
    """The baseline's turns per room and message size for a run of ours: as many turns
    as our tables made moves, messages as long as ours on average."""
    return max(5, round(mine["moves"] / max(1, args.tables))), mine["bytes_per_message"]


def _print_round(number: int, args: argparse.Namespace, mine: dict[str, Any],
                 base: dict[str, Any] | None, ratio: float | None,
                 baseline_first: bool) -> None:
    cpu = mine["cpu_ms_per_move"]
    print(f"round {number}" + (" (the baseline first)" if baseline_first else ""))
    print(f"our server       {args.tables} tables × 5 clients thinking {args.think:g} s a move, "
          f"{mine['games_finished']}/{mine['games_expected']} games, {mine['errors']} errors, "
          f"{mine['resyncs']} resyncs")
    print(f"                 {mine['messages_per_second']} messages/s "
          f"({mine['bytes_per_message']} bytes each), {mine['moves_per_second']} moves/s, "
          f"move→broadcast p50 {mine['latency_ms']['p50']} ms "
          f"p99 {mine['latency_ms']['p99']} ms")
    pace = 1000 / mine["moves_per_second"] if mine["moves_per_second"] else 0.0
    print(f"                 CPU per move: server {cpu['server']} ms, "
          f"load generator {cpu['clients']} ms, against a move every {pace:.3f} ms")
    if base is not None and ratio is not None:
        print(f"bare broadcast   {base['rooms']} rooms × 5 clients, {base['turns']} turns each")
        print(f"                 {base['messages_per_second']} messages/s, turn→broadcast "
              f"p50 {base['latency_ms']['p50']} ms p99 {base['latency_ms']['p99']} ms")
        bcpu = base["cpu_ms_per_turn"]
        turn = 5000 / base["messages_per_second"] if base["messages_per_second"] else 0.0
        print(f"                 CPU per turn: server {bcpu['server']} ms, "
              f"load generator {bcpu['clients']} ms, against a turn every {turn:.3f} ms")
        print(f"                 ratio {ratio:.2f}")


# -- instructions (--count) -----------------------------------------------------------------
def _callgrind(out: Path, *command: str) -> list[str]:
    return ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", *command]


def _instructions(out: Path) -> int:
    """The total of a callgrind output file (all threads)."""
    for line in out.read_text().splitlines():
        if line.startswith(("summary:", "totals:")):
            return int(line.split()[1])
    raise ValueError(f"no total in {out}")


def _stop(proc: subprocess.Popen[bytes]) -> None:
    proc.send_signal(signal.SIGTERM)        # (callgrind writes its counts as the process ends)
    try:
        proc.wait(timeout=120)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def _count_pair(tmp: Path, name: str, serve: list[str], clients: list[str]
                ) -> tuple[dict[str, Any], int, int]:
    """A server (``serve``, given the port as ``{port}``) and its load generator, both
    under callgrind: the load generator's JSON report and both instruction totals."""
    port = str(free_port())
    server = subprocess.Popen(
        _callgrind(tmp / f"{name}-server", *(a.format(port=port) for a in serve)),
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        _wait_for_port(int(port), timeout=300)
        client = subprocess.run(
            _callgrind(tmp / f"{name}-clients", *(a.format(port=port) for a in clients)),
            capture_output=True, text=True, check=True)
    finally:
        _stop(server)
    return (json.loads(client.stdout), _instructions(tmp / f"{name}-server"),
            _instructions(tmp / f"{name}-clients"))


def _count_ours(tmp: Path, tables: int, games: int) -> dict[str, int]:
    cli = [sys.executable, "-m", "baohuang.cli"]
    report, server, clients = _count_pair(
        tmp, f"ours-{games}",
        [*cli, "serve", "--port", "{port}", "--db",
         f"sqlite+aiosqlite:///{tmp / f'count-{games}.db'}", "--log-level", "warning",
         "--bot-delay", "0", "--hosted-delay", "0", "--guard-pause", "0",
         "--next-game-delay", "0", *LOAD_LIMITS],
        [*cli, "loadtest", "--server", "http://127.0.0.1:{port}", "--tables", str(tables),
         "--games", str(games), "--json"])
    return {"moves": report["moves"], "messages": report["messages"],
            "bytes_per_message": report["bytes_per_message"], "server": server,
            "clients": clients}


def _count_baseline(tmp: Path, rooms: int, turns: int, size: int) -> dict[str, int]:
    report, server, clients = _count_pair(
        tmp, f"base-{turns}", [sys.executable, __file__, "--serve-baseline", "{port}"],
        [sys.executable, __file__, "--baseline-clients", "{port}", str(rooms), str(turns),
         str(size)])
    return {"moves": rooms * turns, "messages": report["messages"], "server": server,
            "clients": clients}


def _per_move(short: dict[str, int], long: dict[str, int]) -> dict[str, float]:
    moves = long["moves"] - short["moves"]
    return {key: (long[key] - short[key]) / moves for key in ("messages", "server", "clients")}


def count_instructions(tables: int) -> dict[str, Any]:
    """Instructions per move of our server and load generator (one and three games at
    ``tables`` tables), per turn of the baseline (as many turns as those moves)."""
    if shutil.which("valgrind") is None:
        sys.exit("--count needs valgrind (Debian: apt-get install valgrind)")
    with tempfile.TemporaryDirectory() as name:
        tmp = Path(name)
        short, long = _count_ours(tmp, tables, 1), _count_ours(tmp, tables, 3)
        ours = _per_move(short, long)
        size = long["bytes_per_message"]        # (the baseline's messages are as long)
        turns = [max(5, round(run["moves"] / tables)) for run in (short, long)]
        base = _per_move(*(_count_baseline(tmp, tables, t, size) for t in turns))
    ours_cost, base_cost = ours["server"] + ours["clients"], base["server"] + base["clients"]
    ratio = (ours["messages"] / ours_cost) / (base["messages"] / base_cost)
    return {"tables": tables, "ours_per_move": ours, "baseline_per_turn": base,
            "ratio_estimate": round(ratio, 3), "target_ratio": TARGET_RATIO}


def _print_counts(counts: dict[str, Any], as_json: bool) -> None:
    if as_json:
        print(json.dumps(counts, indent=2))
        return
    ours, base = counts["ours_per_move"], counts["baseline_per_turn"]
    print(f"instructions (callgrind, {counts['tables']} tables; millions)")
    print(f"our server       {ours['server'] / 1e6:.3f} per move, load generator "
          f"{ours['clients'] / 1e6:.3f}; {ours['messages']:.2f} messages a move")
    print(f"bare broadcast   {base['server'] / 1e6:.3f} per turn, load generator "
          f"{base['clients'] / 1e6:.3f}; {base['messages']:.2f} messages a turn")
    print(f"ratio estimate   {counts['ratio_estimate']:.2f} (messages per instruction, ours "
          f"to the baseline's; target ≥ {TARGET_RATIO})")


def _wait_for_port(port: int, timeout: float = 30) -> None:
    import socket

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with socket.socket() as sock:
            if sock.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.05)
    raise TimeoutError("the baseline server did not start")


if __name__ == "__main__":
    main()
