"""A minimal asyncio client for server-sent event streams over HTTP/1.1 (chunked), cheap enough to hold a thousand
streams open from one process: bench/crowd.py and tests/serve/ watch with it."""

from __future__ import annotations

import asyncio
import json
import time
from dataclasses import dataclass, field
from typing import Any


@dataclass
class Stream:
    """One open event stream: its status, headers and, once read, its events."""

    reader: asyncio.StreamReader
    writer: asyncio.StreamWriter
    status: int
    headers: dict[str, str]
    body: bytes = b""  # a refusal's body (not a stream)
    buffer: bytes = b""
    chunked: bool = False
    events: list[tuple[float, dict[str, Any]]] = field(default_factory=list)  # (monotonic arrival, data)

    async def next_event(self, timeout: float = 10.0) -> tuple[str, bytes]:
        """The next event as (its ``event:`` name or "message", its data); ("end", b"") when the stream ends."""
        deadline = time.monotonic() + timeout
        while b"\n\n" not in self.buffer:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError("no event in time")
            chunk = await asyncio.wait_for(self._read_chunk(), left)
            if not chunk:
                return "end", b""
            self.buffer += chunk
        raw, self.buffer = self.buffer.split(b"\n\n", 1)
        name, data = "message", b""
        for line in raw.split(b"\n"):
            if line.startswith(b"event: "):
                name = line[7:].decode()
            elif line.startswith(b"data: "):
                data = line[6:]
            elif line.startswith(b"retry: "):
                name = "retry"
        return name, data

    async def next_view(self, timeout: float = 10.0) -> dict[str, Any] | None:
        """The next data event's JSON (skipping ``retry``); None when the stream ends or says it is over."""
        while True:
            name, data = await self.next_event(timeout)
            if name in ("end", "over"):
                return None
            if name == "message":
                view: dict[str, Any] = json.loads(data)
                self.events.append((time.monotonic(), view))
                return view

    async def _read_chunk(self) -> bytes:
        if not self.chunked:
            return await self.reader.read(65536)
        size_line = await self.reader.readline()
        if not size_line:
            return b""
        size = int(size_line.split(b";")[0].strip() or b"0", 16)
        if size == 0:
            return b""
        data = await self.reader.readexactly(size)
        await self.reader.readexactly(2)
        return data

    def close(self) -> None:
        self.writer.close()


async def open_stream(
    host: str, port: int, path: str, headers: dict[str, str] | None = None, timeout: float = 30.0
) -> Stream:
    """GET ``path`` as EventSource does; the stream is open (or refused: read ``status``) when this returns."""
    reader, writer = await asyncio.wait_for(asyncio.open_connection(host, port), timeout)
    extra = "".join(f"{name}: {value}\r\n" for name, value in (headers or {}).items())
    writer.write(f"GET {path} HTTP/1.1\r\nHost: {host}:{port}\r\nAccept: text/event-stream\r\n{extra}\r\n".encode())
    await writer.drain()
    head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), timeout)
    lines = head.decode("latin-1").split("\r\n")
    status = int(lines[0].split()[1])
    found = {k.strip().lower(): v.strip() for k, _, v in (line.partition(":") for line in lines[1:] if line)}
    stream = Stream(reader, writer, status, found, chunked=found.get("transfer-encoding") == "chunked")
    if status != 200:
        length = int(found.get("content-length", "0"))
        stream.body = await asyncio.wait_for(reader.readexactly(length), timeout) if length else b""
        writer.close()
    return stream
