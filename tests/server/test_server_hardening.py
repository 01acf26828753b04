"""Hardening, second round (issue 37), tried as an attacker would against a real
server: bounded request heads, creation limits per address, weak passwords, and
private tables that stay private (SECURITY.md)."""

from __future__ import annotations

import socket
import threading
from pathlib import Path

import httpx
import pytest
import websockets.sync.client
from server_support import error_of, shared_server
from websockets.exceptions import InvalidStatus

from baohuang.server.harness import ServerProcess


@pytest.fixture(scope="module")
def server() -> ServerProcess:
    return shared_server("sqlite")


# -- request heads ----------------------------------------------------------------------------
def _rss(pid: int) -> int:
    """The resident memory of process ``pid`` in bytes."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    raise AssertionError("no VmRSS")


def _huge_head(port: int, size: int) -> bytes:
    """Send a request whose headers run to ``size`` bytes (as fast as the server takes
    them, until it answers or closes) and return everything it answered."""
    sock = socket.create_connection(("127.0.0.1", port), timeout=30)
    answer = bytearray()

    def read() -> None:
        try:
            while chunk := sock.recv(65536):
                answer.extend(chunk)
        except OSError:
            pass
    reader = threading.Thread(target=read)
    reader.start()
    line = b"X-Pad: " + b"a" * 1000 + b"\r\n"
    chunk = b"GET /api/rules HTTP/1.1\r\nHost: 127.0.0.1\r\n" + line * 60
    try:
        sent = 0
        while sent < size and not answer:
            sock.sendall(chunk)
            sent += len(chunk)
            chunk = line * 60
    except OSError:
        pass                            # (the server closed: it read what it needed)
    sock.shutdown(socket.SHUT_WR) if not answer else None
    reader.join(30)
    sock.close()
    return bytes(answer)


def test_oversized_request_heads_are_refused_without_growing_memory(
        server: ServerProcess) -> None:
    """Megabytes of headers get a 400 once the head passes ``max_header_bytes`` (16 KiB)
    and the process does not grow; one header line or request line over
    ``max_header_line`` (8 KiB) gets 431 ``header_too_large``, on a WebSocket handshake
    too; an ordinary request still works."""
    assert server.process is not None
    before = _rss(server.process.pid)
    for _ in range(3):
        answer = _huge_head(server.port, 16 * 1024 * 1024)
        status = answer.split(b"\r\n", 1)[0]
        assert status.startswith((b"HTTP/1.1 400", b"HTTP/1.1 431")), answer[:200]
    grown = _rss(server.process.pid) - before
    assert grown < 8 * 1024 * 1024, f"the server grew by {grown} bytes"

    long_line = httpx.get(server.url + "/api/rules", headers={"X-Pad": "a" * 9000})
    assert long_line.status_code == 431, long_line.text
    assert error_of(long_line)["code"] == "header_too_large"
    assert "'x-pad'" in error_of(long_line)["message"]
    long_target = httpx.get(server.url + "/api/rules?" + "a" * 9000)
    assert long_target.status_code == 431
    assert "request line" in error_of(long_target)["message"]
    with pytest.raises(InvalidStatus) as refused:
        websockets.sync.client.connect(server.url.replace("http", "ws", 1) + "/ws",
                                       additional_headers={"X-Pad": "a" * 7000 + "b" * 2000})
    assert refused.value.response.status_code in (400, 431)
    fine = httpx.get(server.url + "/api/rules", headers={"X-Pad": "a" * 4000})
    assert fine.status_code == 200


# -- passwords --------------------------------------------------------------------------------
def test_whitespace_and_trivially_weak_passwords_are_refused(server: ServerProcess) -> None:
    """Registration and a password change refuse a password of spaces, one short once
    its end spaces are taken off, one of few different characters and a common one
    with spaces around it, each with ``bad_password`` and a message naming the rule;
    nothing is made or changed."""
    weak = {"      ": "at least 8", " " * 12: "at least 8", "  ab12cd  ": "at least 8",
            "\t\n abc\u3000": "at least 8", "aaaaaaaaaa": "different",
            "abababab": "different", "  password1  ": "common"}
    for number, (password, rule) in enumerate(weak.items()):
        refused = httpx.post(server.url + "/api/register",
                             json={"name": f"weakling {number}", "password": password})
        assert refused.status_code == 400, (password, refused.text)
        assert error_of(refused)["code"] == "bad_password"
        assert rule in error_of(refused)["message"], (password, error_of(refused))
        login = httpx.post(server.url + "/api/login",
                           json={"name": f"weakling {number}", "password": password})
        assert login.status_code == 401                  # no account was made
    made = httpx.post(server.url + "/api/register",
                      json={"name": "strong one", "password": "plum rain 9"})
    assert made.status_code == 201
    auth = {"Authorization": f"Bearer {made.json()['token']}"}
    for password, rule in weak.items():
        refused = httpx.post(server.url + "/api/password", headers=auth,
                             json={"password": "plum rain 9", "new_password": password})
        assert (refused.status_code, error_of(refused)["code"]) == (400, "bad_password")
        assert rule in error_of(refused)["message"]
    again = httpx.post(server.url + "/api/login",
                       json={"name": "strong one", "password": "plum rain 9"})
    assert again.status_code == 200                      # the password is unchanged
