"""The batched send of :mod:`baohuang.server.wsbatch`: several texts written at once
(by the batched ``send`` or the synchronous ``write``) arrive as separate WebSocket
messages, in order, and plain ASGI sends still work."""

from __future__ import annotations

import asyncio
import threading
import time
from typing import Any

import uvicorn
import websockets

from baohuang.server.app import uvicorn_config
from baohuang.server.config import ServerConfig
from baohuang.server.harness import free_port, lifespan
from baohuang.server.wsbatch import SEND_MANY, ws_protocol

seen_extensions: list[bool] = []
written: list[bool] = []


async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
    """Answers every text ``n`` with ``n`` batched messages and one plain message."""
    if scope["type"] == "lifespan":
        await lifespan(receive, send)
        return
    await receive()
    await send({"type": "websocket.accept"})
    seen_extensions.append(SEND_MANY in (scope.get("extensions") or {}))
    while True:
        message = await receive()
        if message["type"] != "websocket.receive":
            return
        text = message["text"]
        if text.startswith("write "):         # the synchronous write of the extension
            n = int(text.split()[1])
            written.append(scope["extensions"][SEND_MANY]["write"](
                [f"now {i}" for i in range(n)]))
            await send({"type": "websocket.send", "text": "plain"})
            continue
        n = int(text)
        await send({"type": SEND_MANY, "texts": [f"batch {i}" for i in range(n)]})
        await send({"type": "websocket.send", "text": "plain"})


def test_batched_texts_arrive_as_separate_messages() -> None:
    assert ws_protocol() != "auto"
    port = free_port()
    server = uvicorn.Server(uvicorn_config(app, ServerConfig(db_url="sqlite://"),
                                           "127.0.0.1", port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started:
        assert time.monotonic() < deadline, "the server did not start"
        time.sleep(0.01)

    async def talk() -> list[str]:
        async with websockets.connect(f"ws://127.0.0.1:{port}/") as ws:
            await ws.send("3")
            got = [str(await ws.recv()) for _ in range(4)]
            await ws.send("1")
            got += [str(await ws.recv()) for _ in range(2)]
            await ws.send("write 2")
            got += [str(await ws.recv()) for _ in range(3)]
            return got

    try:
        got = asyncio.run(talk())
    finally:
        server.should_exit = True
        thread.join(10)
    assert got == ["batch 0", "batch 1", "batch 2", "plain", "batch 0", "plain",
                   "now 0", "now 1", "plain"]
    assert seen_extensions == [True]
    assert written == [True]              # (an open socket that is not paused takes them)
