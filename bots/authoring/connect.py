"""``python -m bots connect --token T --url U path/to/bot``: play a local bot program in the league as a remote bot.

The bot runs here, unsandboxed (it is its author's own machine), exactly as ``python -m bots play --sandbox none``
runs it: the same program plays the same JSON-lines protocol (docs/protocol.md) with no change. This tool relays:
it follows the bot's event stream for the games it is seated in, and for each game reads the seat's messages
(``start``, ``act``, ``end``), hands each to the program, and posts the program's reply line back with the sequence
number of the request it answers. A dropped connection is opened again from the last sequence number read, so no
message is lost or read twice (docs/remote.md). Stopped (Ctrl-C, SIGTERM, ``Connection.stop``), it tells the league
goodbye first: a clean exit is never counted as a dropped connection. Standard library only.
"""

from __future__ import annotations

import contextlib
import http.client
import json
import logging
import os
import select
import signal
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, Protocol

from bots.authoring.args import UsageError, parse_seat
from bots.limits import Limits
from bots.runner.pipes import read_available
from bots.sandbox import BotProcess, BotSetupError, NoSandbox

__all__ = ["Connection", "GameBot", "LocalBot", "connect_command"]

log = logging.getLogger("bots.connect")

STREAM_READ_S = 60.0  # the server sends a heartbeat line well within this: silence this long is a dead connection
RETRY_S = (0.05, 0.2, 0.5, 1.0, 2.0)  # waits between attempts to reconnect, the last one repeated
LINE_MAX = 1 << 16
THROTTLED_WAIT_S = 0.05  # a reply refused for the token's rate (429) is sent again this much later
GOODBYE_S = 5.0  # the goodbye on stopping waits at most this long for the league


class GameBot(Protocol):
    """What plays one game's messages (and a series' next games): the local program, or anything else."""

    def handle(self, message: dict[str, Any]) -> bytes | None:
        """The reply line to a message that asks for one (None if there is none)."""

    def close(self) -> None: ...


class Connection:
    """One bot connected to the league: ``run`` until ``stop`` (or for ever). ``new_bot`` makes what plays each
    announced game (``LocalBot``: the author's program)."""

    def __init__(self, url: str, token: str, new_bot: Callable[[], GameBot]) -> None:
        self.url = url.rstrip("/")
        self.token = token
        self.new_bot = new_bot
        self.stopping = threading.Event()
        self.games: dict[str, threading.Thread] = {}
        self.last_event = ""
        self.drops = 0  # connections that broke and were opened again (event streams and game streams)

    # -- HTTP --
    def _open(self, path: str, body: bytes | None = None, timeout: float = STREAM_READ_S) -> Any:
        request = urllib.request.Request(self.url + path, data=body, method="GET" if body is None else "POST")
        request.add_header("Authorization", f"Bearer {self.token}")
        if body is not None:
            request.add_header("Content-Type", "application/x-ndjson")
        return urllib.request.urlopen(request, timeout=timeout)

    def _lines(self, path: str) -> Iterator[dict[str, Any]]:
        """The NDJSON lines of a stream, heartbeats skipped; ends when the server ends the response."""
        with self._open(path) as response:
            for raw in response:
                if self.stopping.is_set():
                    return
                line = json.loads(raw)
                if "ping" not in line:
                    yield line

    def _retrying(self, attempt: int) -> None:
        self.stopping.wait(RETRY_S[min(attempt, len(RETRY_S) - 1)])

    # -- the bot's games --
    def run(self) -> None:
        """Follow the event stream; every announced game is played on a thread of its own."""
        attempt = 0
        while not self.stopping.is_set():
            try:
                query = urllib.parse.urlencode({"after": self.last_event}) if self.last_event else ""
                for event in self._lines("/api/remote/events/" + (f"?{query}" if query else "")):
                    attempt = 0
                    self.last_event = str(event.get("id", self.last_event))
                    channel = event.get("channel")
                    if event.get("type") == "game" and isinstance(channel, str) and channel not in self.games:
                        thread = threading.Thread(target=self._play, args=(channel,), daemon=True)
                        self.games[channel] = thread
                        thread.start()
            except urllib.error.HTTPError as exc:
                if 400 <= exc.code < 500 and exc.code not in (408, 429):
                    log.error("the league refused the connection: %s %s", exc.code, exc.read()[:500].decode())
                    return
            except (OSError, ValueError) as exc:
                log.info("event stream dropped (%s); reconnecting", exc)
            if not self.stopping.is_set():
                self.drops += 1
                self._retrying(attempt)
                attempt += 1

    def stop(self) -> None:
        """Stop on purpose: the league is told goodbye first, while the event stream is still open, so that the bot is
        offline at once and its leaving is not counted as a dropped connection (docs/remote.md)."""
        if self.stopping.is_set():
            return
        self.stopping.set()
        self.goodbye()

    def goodbye(self) -> None:
        """``DELETE /api/remote/events/``: best effort (a league that cannot be reached will see the connection end)."""
        request = urllib.request.Request(self.url + "/api/remote/events/", method="DELETE")
        request.add_header("Authorization", f"Bearer {self.token}")
        try:
            with urllib.request.urlopen(request, timeout=GOODBYE_S):
                pass
        except (OSError, ValueError) as exc:
            log.info("goodbye not heard by the league (%s)", exc)

    def _play(self, channel: str) -> None:
        bot = self.new_bot()
        replies = _Replies(self.url, self.token)
        seq, attempt = 0, 0
        try:
            while not self.stopping.is_set():
                try:
                    for item in self._lines(f"/api/remote/channels/{channel}/messages/?after={seq}"):
                        attempt = 0
                        if item.get("closed"):
                            return
                        seq = int(item["seq"])
                        reply = bot.handle(item["message"])
                        if reply is not None:
                            self._reply(replies, channel, seq, reply)
                    return  # the server ended the stream: the channel is over
                except urllib.error.HTTPError as exc:
                    if exc.code in (403, 404, 410):
                        return
                except (OSError, ValueError) as exc:
                    log.info("game %s: stream dropped at message %s (%s); resuming", channel[:6], seq, exc)
                self.drops += 1
                self._retrying(attempt)
                attempt += 1
        finally:
            bot.close()
            replies.close()

    def _reply(self, replies: _Replies, channel: str, seq: int, line: bytes) -> None:
        """Post the reply to request ``seq`` until the server has it (a retry of a reply it took is harmless)."""
        for attempt in range(len(RETRY_S) * 4):
            try:
                status, body = replies.post(f"/api/remote/channels/{channel}/replies/{seq}/", line)
            except OSError:
                self._retrying(attempt)
                continue
            if status == 429:  # over the token's rate: this second's budget is spent, the next one comes soon
                self.stopping.wait(THROTTLED_WAIT_S)
                continue
            if status < 500:
                if status != 200:  # too late, or not a reply the server can take: the server's clock has decided
                    log.info("game %s: reply to %s refused: %s %s", channel[:6], seq, status, body[:300])
                return
            self._retrying(attempt)


class _Replies:
    """One game's replies over one kept-alive HTTP connection (opened again after a failure): a reply costs no new
    connection."""

    def __init__(self, url: str, token: str) -> None:
        parts = urllib.parse.urlsplit(url)
        self.secure = parts.scheme == "https"
        self.host, self.port, self.base = parts.hostname or "localhost", parts.port, parts.path.rstrip("/")
        self.headers = {"Authorization": f"Bearer {token}", "Content-Type": "application/x-ndjson"}
        self.conn: http.client.HTTPConnection | None = None

    def post(self, path: str, body: bytes) -> tuple[int, bytes]:
        """The answer's status and body; OSError when the server cannot be reached (twice)."""
        try:
            return self._send(path, body)
        except (OSError, http.client.HTTPException):
            self.close()  # a kept connection the server closed meanwhile: once more on a new one
        try:
            return self._send(path, body)
        except (OSError, http.client.HTTPException) as exc:
            self.close()
            raise OSError(str(exc)) from None

    def _send(self, path: str, body: bytes) -> tuple[int, bytes]:
        if self.conn is None:
            kind = http.client.HTTPSConnection if self.secure else http.client.HTTPConnection
            self.conn = kind(self.host, self.port, timeout=10)
        self.conn.request("POST", self.base + path, body=body, headers=self.headers)
        response = self.conn.getresponse()
        return response.status, response.read()

    def close(self) -> None:
        if self.conn is not None:
            self.conn.close()
            self.conn = None


class LocalBot:
    """The bot program, started on the first ``start`` (and again for a series' next game if it exited after
    ``end``, as a bot of one game per process does); its stderr goes to ours."""

    def __init__(self, code_dir: Path) -> None:
        self.code_dir = code_dir
        self.proc: BotProcess | None = None
        self.partial = b""

    def handle(self, message: dict[str, Any]) -> bytes | None:
        """Give the program one message; its reply line when the message asks for one (None if it gave none in
        time: the server's clock has decided)."""
        kind = message.get("type")
        if kind == "start" and (self.proc is None or self.proc.poll() is not None):
            self.close()
            try:
                self.proc = NoSandbox().start(self.code_dir, Limits())
            except BotSetupError as exc:
                log.error("cannot start the bot: %s", exc)
                return None
        if self.proc is None:
            return None
        self._write((json.dumps(message, separators=(",", ":")) + "\n").encode())
        if kind == "start":
            return self._read_line(message.get("time", {}).get("startup_ms", 10000) / 1000 + 1)
        if kind == "act":
            return self._read_line(int(message.get("time_left_ms", 1000)) / 1000 + 1)
        return None

    def _write(self, data: bytes) -> None:
        assert self.proc is not None
        with contextlib.suppress(OSError):
            while data:
                select.select([], [self.proc.stdin_fd], [], 5)
                written = os.write(self.proc.stdin_fd, data)
                data = data[written:]

    def _read_line(self, within_s: float) -> bytes | None:
        assert self.proc is not None
        deadline = time.monotonic() + within_s
        fds = [self.proc.stdout_fd, self.proc.stderr_fd]
        while b"\n" not in self.partial:
            left = deadline - time.monotonic()
            if left <= 0 or len(self.partial) > LINE_MAX:
                return None
            ready, _, _ = select.select(fds, [], [], left)
            if self.proc.stderr_fd in ready:
                self._pass_stderr()
            if self.proc.stdout_fd in ready:
                data = read_available(self.proc.stdout_fd)
                if data == b"":
                    return None  # it exited or closed its stdout: the server's clock will say so
                self.partial += data or b""
        line, _, self.partial = self.partial.partition(b"\n")
        return line if line.strip() else self._read_line(deadline - time.monotonic())

    def _pass_stderr(self) -> None:
        assert self.proc is not None
        data = read_available(self.proc.stderr_fd)
        if data:
            sys.stderr.buffer.write(data)
            sys.stderr.flush()

    def close(self) -> None:
        if self.proc is not None:
            with contextlib.suppress(OSError):
                self._pass_stderr()
            self.proc.close()
            self.proc = None
        self.partial = b""


def connect_command(url: str, token: str, bot: str) -> int:
    """``python -m bots connect``: run until interrupted. Exit status 2 for a bad bot path."""
    if bot.startswith("builtin:"):
        raise UsageError(f"{bot}: connect plays a bot program (a .py, a .zip or a directory), not a built-in player")
    workdir = Path(tempfile.mkdtemp(prefix="parlour-connect-"))
    seat = parse_seat("", bot, workdir)
    if seat.code_dir is None:
        raise UsageError(f"{bot}: connect plays a bot program (a .py, a .zip or a directory)")
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s")
    code_dir = seat.code_dir
    connection = Connection(url, token, lambda: LocalBot(code_dir))

    def interrupted(signum: int, frame: object) -> None:
        # Goodbye first, while the event stream is still open: a stop is then never counted as a drop.
        connection.stop()
        raise KeyboardInterrupt

    signal.signal(signal.SIGINT, interrupted)
    signal.signal(signal.SIGTERM, interrupted)  # (a service manager's stop is a clean exit too)
    try:
        connection.run()
    except KeyboardInterrupt:
        connection.stop()
        return 130
    return 1  # run returns only when the league refused the token
