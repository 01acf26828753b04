"""Server throughput: our server against a bare uvicorn WebSocket broadcast, same run.

1. Starts ``baohuang serve`` on loopback (a fresh SQLite file, no bot or 托管
   delays) and runs ``baohuang loadtest``'s code against it: ``--tables`` tables
   × five client bots playing ``--games`` games each.
2. Starts the baseline: a bare ASGI WebSocket app on uvicorn that only
   broadcasts — five clients per room take turns, each turn one client sends a
   message and the server sends a message of the same size as our server's
   average message to all five.  The same number of rooms play the same number of
   turns as our tables made moves.
3. Prints both (messages/s, move→broadcast latency) and the ratio of our
   message rate to the baseline's.

    python bench/server.py                    # 50 tables, one game each
    python bench/server.py --tables 500       # the 500-table run
    python bench/server.py --tables 500 --think 1.0   # players who think 1 s a move
    python bench/server.py --json
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import websockets

from baohuang.server.harness import ServerProcess, free_port
from baohuang.server.loadtest import LoadReport, run_loadtest

TARGET_RATIO = 0.5

# -- the baseline: a bare ASGI app that broadcasts --------------------------------------------
_rooms: dict[str, list[Any]] = {}


async def baseline_app(scope: dict[str, Any], receive: Any, send: Any) -> None:
    """Room ``/ws?room=R``: every text a client sends is answered by a broadcast of
    ``pad`` bytes to everybody in the room."""
    if scope["type"] == "lifespan":
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                await send({"type": "lifespan.shutdown.complete"})
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
    import uvicorn

    uvicorn.run(baseline_app, host="127.0.0.1", port=port, log_level="warning",
                ws_ping_interval=20.0)


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
    return asyncio.run(_baseline_clients(port, rooms, turns, size, first))


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
def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tables", type=int, default=50)
    parser.add_argument("--games", type=int, default=1)
    parser.add_argument("--think", type=float, default=0.0,
                        help="seconds each client waits before each move")
    parser.add_argument("--processes", type=int, default=1,
                        help="client processes (for both servers alike)")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--serve-baseline", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve_baseline:
        serve_baseline(args.serve_baseline)
        return

    with tempfile.TemporaryDirectory() as tmp:
        db = f"sqlite+aiosqlite:///{Path(tmp) / 'bench.db'}"
        server = ServerProcess(db, None, "--bot-delay", "0", "--hosted-delay", "0",
                               "--next-game-delay", "0")
        with server:
            ours: LoadReport = asyncio.run(run_loadtest(server.url, tables=args.tables,
                                                        games=args.games, think=args.think,
                                                        processes=args.processes))
    mine = ours.to_dict()
    turns = max(5, round(ours.moves / max(1, args.tables)))
    size = mine["bytes_per_message"]
    port = free_port()
    proc = subprocess.Popen([sys.executable, __file__, "--serve-baseline", str(port)],
                            env={**os.environ, "PYTHONUNBUFFERED": "1"})
    try:
        _wait_for_port(port)
        base = run_baseline(port, args.tables, turns, size, args.processes)
    finally:
        proc.terminate()
        proc.wait(timeout=10)
    ratio = mine["messages_per_second"] / base["messages_per_second"]
    out = {"ours": mine, "baseline": base, "ratio": round(ratio, 3), "target": TARGET_RATIO}
    if args.json:
        print(json.dumps(out, indent=2))
        return
    print(f"our server       {args.tables} tables × 5 clients, {mine['games_finished']}/"
          f"{mine['games_expected']} games, {mine['errors']} errors, {mine['resyncs']} resyncs")
    print(f"                 {mine['messages_per_second']} messages/s "
          f"({mine['bytes_per_message']} bytes each), {mine['moves_per_second']} moves/s, "
          f"move→broadcast p50 {mine['latency_ms']['p50']} ms p99 {mine['latency_ms']['p99']} ms")
    print(f"bare broadcast   {base['rooms']} rooms × 5 clients, {base['turns']} turns each")
    print(f"                 {base['messages_per_second']} messages/s, turn→broadcast "
          f"p50 {base['latency_ms']['p50']} ms p99 {base['latency_ms']['p99']} ms")
    print(f"ratio            {ratio:.2f} of the baseline's message rate (target ≥ "
          f"{TARGET_RATIO})")


def _wait_for_port(port: int) -> None:
    import socket

    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        with socket.socket() as sock:
            if sock.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.05)
    raise TimeoutError("the baseline server did not start")


if __name__ == "__main__":
    main()
