"""The runner's side of the bots' pipes: one selector for every bot (no threads, no busy-waiting), bounded reads.

``Pipes.pump`` is the only place a match blocks. It writes what is queued for each bot's stdin, splits stdout into
lines (one reply is kept until the match takes it; an unsolicited line is a fault), keeps the head and tail of stderr,
notices exits through a pidfd, and throttles the bots that rest between their moves. Output beyond the limits is a
fault, reported to the match through ``on_fault``; a sandbox that does not print its set-up marker first raises
``SandboxError``.
"""

from __future__ import annotations

import contextlib
import os
import selectors
import time
from collections import deque
from collections.abc import Callable
from typing import Any, Literal

from bots import protocol
from bots.limits import Limits
from bots.results import Fault, FaultCause
from bots.sandbox import BotProcess, SandboxError
from bots.text import clean_text

__all__ = ["Conn", "Pipes", "read_available"]

Awaiting = Literal["ready", "action", "end"]
_Kind = Literal["stdin", "stdout", "stderr", "exit"]


class Conn:
    """One bot process as the runner sees it: its buffers, what it is expected to say next, its clock and fault."""

    def __init__(self, seat: int, proc: BotProcess, limits: Limits) -> None:
        self.seat = seat
        self.proc = proc
        self.limits = limits
        self.marker_pending = proc.setup_marker is not None
        self.partial = bytearray()
        self.replies: deque[bytes] = deque()
        self.stdout_total = 0
        self.stderr_head = bytearray()
        self.stderr_tail = bytearray()
        self.stderr_total = 0
        self.out_eof = False
        self.err_eof = False
        self.exited = False
        self.outbox = bytearray()
        self.stdin_broken = False
        self.close_stdin_when_sent = False
        self.awaiting: Awaiting | None = None
        self.fault: Fault | None = None
        self.bank_ms = float(limits.bank_ms)
        self.moves = 0
        self.time_ms = 0.0
        self.cpu_ms: float | None = 0.0 if proc.cpu_ms() is not None else None
        self.startup_ms: int | None = None
        self.start_sent_at = proc.started_at
        self.start_cpu_ms = 0.0  # the process's CPU clock when its start message was sent (0: a fresh process)
        self.registered: set[int] = set()
        self.games = 0  # games this process has been sent a start message for (a series reuses it)

    def new_game(self) -> None:
        """A series' next game on the same process: a fresh clock, bank, output caps and log (the previous game's
        stderr went into that game's result)."""
        self.bank_ms = float(self.limits.bank_ms)
        self.moves = 0
        self.time_ms = 0.0
        self.cpu_ms = 0.0 if self.cpu_ms is not None else None
        self.startup_ms = None
        self.stdout_total = 0
        self.stderr_head.clear()
        self.stderr_tail.clear()
        self.stderr_total = 0
        self.replies.clear()

    def ended(self) -> bool:
        """The process stopped talking: it exited, or closed its stdout or stdin."""
        return self.out_eof or self.exited or self.stdin_broken

    def stderr_text(self) -> str:
        """What the bot wrote to stderr (its head and tail), as text any database stores (``bots.text``)."""
        data = bytes(self.stderr_head)
        dropped = self.stderr_total - len(self.stderr_head) - len(self.stderr_tail)
        if dropped > 0:
            data += f"\n[... {dropped} bytes of stderr dropped ...]\n".encode()
        data += bytes(self.stderr_tail)
        return clean_text(data, len(data))  # (bounded already: the limits' head and tail, and the note between)


class Pipes:
    """Every bot's pipes behind one selector. ``conns`` maps seats to their bots."""

    def __init__(self, on_fault: Callable[[Conn, Fault], None]) -> None:
        self.selector = selectors.DefaultSelector()
        self.conns: dict[int, Conn] = {}
        self.by_fd: dict[int, tuple[Conn, _Kind]] = {}
        self.on_fault = on_fault  # a series hands its pipes from one game's match to the next: each sets its own

    def add(self, conn: Conn) -> None:
        """Watch a new bot's stdout, stderr and exit."""
        self.conns[conn.seat] = conn
        proc = conn.proc
        watched: tuple[tuple[int | None, _Kind], ...] = (
            (proc.stdout_fd, "stdout"),
            (proc.stderr_fd, "stderr"),
            (proc.pidfd, "exit"),
        )
        for fd, kind in watched:
            if fd is None:
                continue
            self.selector.register(fd, selectors.EVENT_READ, None)
            self.by_fd[fd] = (conn, kind)
            conn.registered.add(fd)

    def remove(self, conn: Conn) -> None:
        """Stop watching a bot that is being replaced (a series restarts a bot that exited after ``end``)."""
        for fd in list(conn.registered):
            self.unregister(fd)
        if self.conns.get(conn.seat) is conn:
            del self.conns[conn.seat]

    def close(self) -> None:
        # Stop watching the fds first: the background closer closes them, and their numbers may then be reused.
        self.selector.close()
        self.by_fd.clear()

    def unregister(self, fd: int) -> None:
        entry = self.by_fd.pop(fd, None)
        if entry is not None:
            entry[0].registered.discard(fd)
            with contextlib.suppress(KeyError, ValueError):
                self.selector.unregister(fd)

    def silence(self, conn: Conn) -> None:
        """A faulted bot: keep draining its stderr briefly for the log, stop listening to everything else."""
        for fd in list(conn.registered):
            entry = self.by_fd.get(fd)
            if entry is None or entry[1] != "stderr":
                self.unregister(fd)
        conn.outbox.clear()

    # -- writing --
    def send(self, conn: Conn, message: dict[str, Any], close_after: bool = False) -> None:
        conn.outbox += protocol.encode(message)
        conn.close_stdin_when_sent = close_after
        self.flush(conn)
        fd = conn.proc.stdin_fd
        if conn.outbox and not conn.stdin_broken and fd not in conn.registered:
            self.selector.register(fd, selectors.EVENT_WRITE, None)
            self.by_fd[fd] = (conn, "stdin")
            conn.registered.add(fd)

    def flush(self, conn: Conn) -> None:
        fd = conn.proc.stdin_fd
        try:
            while conn.outbox:
                written = os.write(fd, conn.outbox)
                del conn.outbox[:written]
        except BlockingIOError:
            return
        except OSError:  # BrokenPipeError included
            conn.stdin_broken = True
            conn.outbox.clear()
        if fd in conn.registered:
            self.unregister(fd)
        if conn.close_stdin_when_sent and not conn.outbox:
            conn.proc.close_stdin()
            conn.close_stdin_when_sent = False

    # -- waiting --
    def throttle_rested(self, skip: int | None = None) -> float | None:
        """Throttle the bots that have rested long enough since their last reply; when the next one is due."""
        now = time.monotonic()
        due: float | None = None
        for conn in self.conns.values():
            if conn.fault is None and conn.awaiting is None and conn.seat != skip:
                when = conn.proc.throttle_if_rested(now)
                if when is not None and (due is None or when < due):
                    due = when
        return due

    def pump(self, timeout: float | None) -> None:
        """Wait for (at most ``timeout`` seconds) and handle I/O of every bot: this is the only place that blocks.

        It also wakes up in time to throttle the bots resting between their moves (``throttle_rested``)."""
        due = self.throttle_rested()
        if due is not None:
            until_due = max(0.0, due - time.monotonic())
            timeout = until_due if timeout is None else min(timeout, until_due)
        if not self.by_fd:
            if timeout:
                time.sleep(min(timeout, 0.05))
            return
        events = self.selector.select(timeout)
        if due is not None:
            self.throttle_rested()
        for key, _ in events:
            entry = self.by_fd.get(key.fd)
            if entry is None:
                continue
            conn, kind = entry
            if kind == "stdout":
                self._read_stdout(conn)
            elif kind == "stderr":
                self.read_stderr(conn)
            elif kind == "stdin":
                self.flush(conn)
            else:  # exit
                conn.exited = True
                self.unregister(key.fd)

    # -- reading --
    def read_stdout_now(self, conn: Conn) -> None:
        """Take what the bot has written to stdout so far, without waiting: one read, and none of ``pump``'s other
        work (the runner does this before every request, to catch a line written when none was expected)."""
        if conn.proc.stdout_fd in conn.registered:
            self._read_stdout(conn)

    def _read_stdout(self, conn: Conn) -> None:
        fd = conn.proc.stdout_fd
        data = read_available(fd)
        if data is None:
            return
        if not data:
            conn.out_eof = True
            self.unregister(fd)
            return
        limits = conn.limits
        conn.stdout_total += len(data)
        if conn.stdout_total > limits.max_stdout_bytes and not conn.marker_pending:
            detail = f"wrote more than {limits.max_stdout_bytes} bytes to stdout"
            self.on_fault(conn, Fault(FaultCause.OVERSIZED, detail))
            return
        conn.partial += data
        while True:
            newline = conn.partial.find(b"\n")
            if newline < 0:
                break
            line = bytes(conn.partial[: newline + 1])
            del conn.partial[: newline + 1]
            self._on_line(conn, line)
            if conn.fault is not None:
                return
        if len(conn.partial) > limits.max_line_bytes:
            detail = f"a line longer than {limits.max_line_bytes} bytes (without a newline)"
            self.on_fault(conn, Fault(FaultCause.OVERSIZED, detail))

    def _on_line(self, conn: Conn, line: bytes) -> None:
        if conn.marker_pending:
            if line.rstrip(b"\n") != conn.proc.setup_marker:
                raise SandboxError(f"the sandbox printed {line[:200]!r} instead of its set-up marker")
            conn.marker_pending = False
            conn.stdout_total = 0
            return
        if not line.strip():
            return  # blank lines are tolerated
        if conn.awaiting in ("ready", "action") and not conn.replies:
            conn.replies.append(line)
        elif conn.awaiting == "end":
            return
        else:
            what = line[:80].decode("utf-8", "replace")
            self.on_fault(conn, Fault(FaultCause.MALFORMED, f"wrote a line when no reply was expected: {what!r}"))

    def read_stderr(self, conn: Conn) -> None:
        fd = conn.proc.stderr_fd
        data = read_available(fd)
        if data is None:
            return
        if not data:
            conn.err_eof = True
            self.unregister(fd)
            return
        conn.stderr_total += len(data)
        half = conn.limits.stderr_keep_bytes // 2
        room = half - len(conn.stderr_head)
        if room > 0:
            conn.stderr_head += data[:room]
            data = data[room:]
        if data:
            conn.stderr_tail += data
            if len(conn.stderr_tail) > half:
                del conn.stderr_tail[: len(conn.stderr_tail) - half]
        if conn.stderr_total > conn.limits.max_stderr_bytes and conn.fault is None:
            detail = f"wrote more than {conn.limits.max_stderr_bytes} bytes to stderr"
            self.on_fault(conn, Fault(FaultCause.OVERSIZED, detail))
            self.unregister(fd)

    def drain_stderr(self, conn: Conn) -> None:
        """Take what a (killed) bot left in its stderr pipe, without waiting for the end of file."""
        fd = conn.proc.stderr_fd
        for _ in range(conn.limits.max_stderr_bytes // (1 << 16) + 2):  # bounded even against a dying flood
            if fd not in conn.registered:
                return
            before = conn.stderr_total
            self.read_stderr(conn)
            if conn.stderr_total == before:
                return


def read_available(fd: int) -> bytes | None:
    """What a non-blocking pipe holds now: None when nothing yet, b"" at end of file (or a broken pipe)."""
    try:
        return os.read(fd, 1 << 16)
    except BlockingIOError:
        return None
    except OSError:
        return b""
