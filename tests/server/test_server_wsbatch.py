"""The extension of :mod:`baohuang.server.transport.wsbatch`: several texts written at once
(by the batched ``send`` or the synchronous ``write``) arrive as separate WebSocket
messages, in order, and plain ASGI sends still work; a text handler takes each text
message as it arrives while the disconnect still comes through ASGI."""

from __future__ import annotations

import asyncio
import threading
import time
from typing import Any

import pytest
import uvicorn
import websockets

from baohuang.server.config import ServerConfig
from baohuang.server.harness import free_port, lifespan
from baohuang.server.transport.app import uvicorn_config
from baohuang.server.transport.wsbatch import SEND_MANY, ws_protocol

seen_extensions: list[bool] = []
written: list[bool] = []


async def _accepted(scope: dict[str, Any], receive: Any, send: Any) -> bool:
    """Serve the lifespan (False), or accept the WebSocket (True)."""
    if scope["type"] == "lifespan":
        await lifespan(receive, send)
        return False
    await receive()
    await send({"type": "websocket.accept"})
    return True


async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
    """Answers every text ``n`` with ``n`` batched messages and one plain message."""
    if not await _accepted(scope, receive, send):
        return
    seen_extensions.append(SEND_MANY in (scope.get("extensions") or {}))
    while True:
        message = await receive()
        if message["type"] != "websocket.receive":
            return
        text = message["text"]
        if text == "long":                    # frames with 2- and 8-byte lengths, twice
            written.append(scope["extensions"][SEND_MANY]["write"](list(LONG) * 2))
            await send({"type": SEND_MANY, "texts": list(LONG)})
            continue
        if text.startswith("write "):         # the synchronous write of the extension
            n = int(text.split()[1])
            written.append(scope["extensions"][SEND_MANY]["write"](
                [f"now {i}" for i in range(n)]))
            await send({"type": "websocket.send", "text": "plain"})
            continue
        n = int(text)
        await send({"type": SEND_MANY, "texts": [f"batch {i}" for i in range(n)]})
        await send({"type": "websocket.send", "text": "plain"})


#: texts whose frames have a 7-bit, a 16-bit and a 64-bit length (one not ASCII)
LONG = ("short", "保皇 " * 60, "x" * 70_000)


def _serve(application: Any, *, compression: bool = False
           ) -> tuple[uvicorn.Server, threading.Thread, int]:
    port = free_port()
    config = ServerConfig(db_url="sqlite://", ws_compression=compression)
    server = uvicorn.Server(uvicorn_config(application, config,
                                           "127.0.0.1", port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started:
        assert time.monotonic() < deadline, "the server did not start"
        time.sleep(0.01)
    return server, thread, port


@pytest.mark.parametrize("compression", [False, True])
def test_batched_texts_arrive_as_separate_messages(compression: bool) -> None:
    assert ws_protocol() != "auto"
    seen_extensions.clear()
    written.clear()
    server, thread, port = _serve(app, compression=compression)

    async def talk() -> list[str]:
        async with websockets.connect(f"ws://127.0.0.1:{port}/", max_size=None,
                                      compression="deflate" if compression else None) as ws:
            assert bool(ws.protocol.extensions) is compression
            await ws.send("long")
            long = [str(await ws.recv()) for _ in range(9)]
            assert long == list(LONG) * 3
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
    assert written == [True, True]        # (an open socket that is not paused takes them)


handled: list[str] = []
after_handler: list[str] = []


async def handler_app(scope: dict[str, Any], receive: Any, send: Any) -> None:
    """Takes text messages through the extension's handler: each answered at once."""
    if not await _accepted(scope, receive, send):
        return
    extension = scope["extensions"][SEND_MANY]

    def take(text: str) -> None:
        handled.append(text)
        extension["write"]([f"got {text}"])

    extension["receive"](take)
    while True:
        message = await receive()
        after_handler.append(message["type"])
        if message["type"] != "websocket.receive":
            return


def test_a_text_handler_takes_each_message_as_it_arrives() -> None:
    server, thread, port = _serve(handler_app)

    async def talk() -> list[str]:
        async with websockets.connect(f"ws://127.0.0.1:{port}/") as ws:
            for text in ("one", "two", "three" * 1000):
                await ws.send(text)
            await ws.send(["frag", "mented"])         # (one message in two frames)
            await ws.send(b"binary")
            return [str(await ws.recv()) for _ in range(4)]

    try:
        got = asyncio.run(talk())
        deadline = time.monotonic() + 10
        while "websocket.disconnect" not in after_handler and time.monotonic() < deadline:
            time.sleep(0.01)
    finally:
        server.should_exit = True
        thread.join(10)
    assert got == ["got one", "got two", "got " + "three" * 1000, "got fragmented"]
    assert handled == ["one", "two", "three" * 1000, "fragmented"]
    # binary messages and the disconnect still come through ASGI
    assert after_handler == ["websocket.receive", "websocket.disconnect"]
