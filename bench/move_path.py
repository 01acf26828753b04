"""Which of the package's modules one move passes through, from the socket to every seat.

A real server in this process (uvicorn on loopback, a fresh SQLite file) and five bare
WebSocket clients at one practice table; 托管's choices are played until the play
phase, then one seat's ``play`` is traced: every Python call in the server's thread
from the moment its ``act`` frame is sent until every seat has its ``update``.  Prints
the modules in the order first entered (server and engine ones counted apart), how
often ``table/tables.py`` was entered from another module, and the steps between
modules.  Compiled modules (mypyc) are not seen: run it on an editable install.

    python bench/move_path.py
    PYTHONPATH=../other-checkout/src python bench/move_path.py   # another version
"""

from __future__ import annotations

import asyncio
import sys
import tempfile
import threading
from pathlib import Path
from types import FrameType
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from server_support import LOOSE_CONFIG, Raw, guests  # noqa: E402

from baohuang.bots import hosted_action  # noqa: E402
from baohuang.client import view_from_dict  # noqa: E402
from baohuang.engine.actions import ActionKind  # noqa: E402
from baohuang.engine.state import Stage  # noqa: E402
from baohuang.server.config import ServerConfig  # noqa: E402
from baohuang.server.harness import ServerThread  # noqa: E402

#: the package's modules entered, one a Python call, in order
calls: list[str] = []


def profile(frame: FrameType, event: str, arg: Any) -> None:
    if event == "call":
        name = frame.f_globals.get("__name__", "")
        if name.startswith("baohuang."):
            calls.append(name)


def _in_loop(loop: asyncio.AbstractEventLoop, tracing: bool) -> None:
    """Trace (or stop tracing) the calls made in the server's thread, from now."""
    done = threading.Event()

    def switch() -> None:
        sys.setprofile(profile if tracing else None)
        done.set()
    loop.call_soon_threadsafe(switch)
    done.wait()


async def one_move(server: ServerThread) -> None:
    """Play to the play phase, tracing one ``play``."""
    clients = await guests(server.url, 5, "path")
    table = await clients[0].create_table(practice=True, seed=9, timeout=600)
    raws = []
    for client in clients:
        raw = await Raw.connect(server.url, client.token)
        await raw.send({"type": "join", "table": table["id"]})
        raws.append(raw)
    version = 0
    for raw in raws:
        version = (await raw.recv_type("snapshot"))["version"]
    loop = server.loop
    assert loop is not None
    traced = False
    while not traced:
        actor = next(r for r in raws if r.view["legal_actions"]
                     and r.view["to_act"] == r.view["seat"])
        view = view_from_dict(actor.view)
        action = hosted_action(view, list(view.legal_actions))
        traced = view.stage is Stage.PLAY and action.kind is ActionKind.PLAY
        if traced:
            _in_loop(loop, True)
        await actor.send({"type": "act", "action": action.to_dict(), "version": version})
        for raw in raws:
            version = (await raw.recv_type("update"))["version"]
        if traced:
            _in_loop(loop, False)
    for raw in raws:
        await raw.close()


def main() -> None:
    with tempfile.TemporaryDirectory() as directory:
        config = ServerConfig(db_url=f"sqlite+aiosqlite:///{Path(directory) / 'bh.db'}",
                              bot_delay=0.0, hosted_delay=0.0, guard_pause=0.0,
                              **LOOSE_CONFIG)
        with ServerThread(config) as server:
            asyncio.run(one_move(server))
    order: list[str] = []
    steps: list[str] = []
    for module in calls:
        if module not in order:
            order.append(module)
        if not steps or steps[-1] != module:
            steps.append(module)
    short = [m.removeprefix("baohuang.") for m in order]
    served = [m for m in short if m.startswith("server.")]
    engine = [m for m in short if m.startswith("engine.")]
    print(f"{len(served)} server modules "
          f"({sum(m.startswith('server.table.') for m in served)} in table/), "
          f"{len(engine)} engine modules; table/tables.py entered "
          f"{steps.count('baohuang.server.table.tables')} times; {len(steps)} steps")
    print(" -> ".join(short))


if __name__ == "__main__":
    main()
