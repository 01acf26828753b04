"""The in-process server the tests play against (``server/harness.py``) answers as
``baohuang serve`` does: no message waits on the peer's delayed acknowledgement."""

from __future__ import annotations

import asyncio
import socket

from baohuang.server.harness import listening_socket


def test_the_harness_s_connections_send_without_nagle() -> None:
    """Every connection accepted on the harness's listening socket has Nagle's algorithm
    off, as asyncio leaves those of ``baohuang serve`` (a frame written in two parts
    waited 40 ms for the peer's delayed ACK: every server test's round trips)."""
    async def accepted_nodelay() -> int:
        seen: asyncio.Future[int] = asyncio.get_running_loop().create_future()

        class Probe(asyncio.Protocol):
            def connection_made(self, transport: asyncio.BaseTransport) -> None:
                sock = transport.get_extra_info("socket")
                seen.set_result(sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY))
                transport.close()

        sock = listening_socket()
        server = await asyncio.get_running_loop().create_server(Probe, sock=sock)
        async with server:
            _reader, writer = await asyncio.open_connection(*sock.getsockname())
            result = await seen
            writer.close()
        return result

    assert asyncio.run(accepted_nodelay()) != 0
