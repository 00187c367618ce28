"""Request bodies on the production server: one the limits refuse is answered from its headers, before any of it is
read (Django's ASGI handler reads a whole body into a temporary file before the middleware runs)."""

from __future__ import annotations

import socket
import time

import pytest

from tests.serve.conftest import Server


def _answer_without_sending_the_body(server: Server, path: str, headers: str) -> tuple[bytes, float]:
    """Send only the request's head, then wait for the answer: it can only come if the server decided without the
    body."""
    with socket.create_connection((server.host, server.port), timeout=10) as connection:
        began = time.monotonic()
        connection.sendall(f"POST {path} HTTP/1.1\r\nHost: {server.host}\r\n{headers}\r\n".encode())
        answer = b""
        while b"\r\n\r\n" not in answer:
            chunk = connection.recv(65536)
            if not chunk:
                break
            answer += chunk
        head = answer.split(b"\r\n\r\n", 1)[0]
        length = int(
            next(
                (line.split(b":")[1] for line in head.split(b"\r\n") if line.lower().startswith(b"content-length:")),
                b"0",
            )
        )
        while len(answer.split(b"\r\n\r\n", 1)[1]) < length:
            answer += connection.recv(65536)
        return answer, time.monotonic() - began


@pytest.mark.parametrize(
    ("path", "headers", "status", "code"),
    [
        ("/api/v1/bots/", "Content-Length: 300000000\r\nContent-Type: application/json\r\n", b"413", b"too_large"),
        (
            "/api/v1/bots/",
            "Transfer-Encoding: chunked\r\nContent-Type: application/json\r\n",
            b"411",
            b"length_required",
        ),
        ("/accounts/login/", "Content-Length: 300000000\r\nContent-Type: text/plain\r\n", b"413", b"too large"),
    ],
)
def test_a_refused_body_is_answered_before_it_is_sent(asgi_server, path, headers, status, code) -> None:
    server = asgi_server()
    answer, seconds = _answer_without_sending_the_body(server, path, headers)
    assert answer.startswith(b"HTTP/1.1 " + status), answer[:300]
    assert code in answer.lower()
    assert seconds < 5
    if path.startswith("/api/"):
        assert b"application/json" in answer.split(b"\r\n\r\n", 1)[0]
