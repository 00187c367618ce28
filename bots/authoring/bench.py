"""Measure the sandbox's costs side by side: ``python -m bots bench``.

- start-up: from spawning a Python bot until its first line arrives (a bare ``subprocess`` pipe, the ``none``
  backend, the ``bwrap`` backend with everything: slot, copy, cgroups, uid switch, namespaces, seccomp, rlimits);
- round trip: one JSON line to the bot and one back, as the runner does per move (median and p99), on the same
  three kinds of process.
"""

from __future__ import annotations

import json
import os
import select
import statistics
import subprocess
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bots.sandbox import SYSTEM_PYTHON, BotProcess, Limits, get_sandbox

ECHO_BOT = """import sys
sys.stdout.write('{"type": "ready"}\\n')
sys.stdout.flush()
for line in sys.stdin:
    sys.stdout.write('{"type": "action", "action": {"card": 1}}\\n')
    sys.stdout.flush()
"""

# A typical act message (about 600 bytes).
ACT = (
    json.dumps(
        {
            "type": "act",
            "obs": {"seat": 0, "hand": [1, 5], "discards": [[3, 4], [2], [], [8]], "tokens": [0, 1, 0, 2]},
            "legal": [{"card": 1, "target": t, "guess": g} for t in (1, 2) for g in range(2, 9)],
            "time_left_ms": 10000,
        }
    )
    + "\n"
).encode()


class BotPipe:
    """The runner's view of any of the three kinds of process."""

    def __init__(self, stdin_fd: int, stdout_fd: int, close: Callable[[], None]) -> None:
        self.stdin_fd, self.stdout_fd, self.close = stdin_fd, stdout_fd, close
        self.buffer = b""

    def line(self, timeout: float = 10.0) -> bytes:
        while b"\n" not in self.buffer:
            ready, _, _ = select.select([self.stdout_fd], [], [], timeout)
            if not ready:
                raise TimeoutError("no reply from the bot")
            try:
                data = os.read(self.stdout_fd, 65536)
            except BlockingIOError:
                continue
            if not data:
                raise EOFError("the bot closed its stdout")
            self.buffer += data
        line, _, self.buffer = self.buffer.partition(b"\n")
        return line


def _bare(code: Path) -> BotPipe:
    popen = subprocess.Popen(
        [SYSTEM_PYTHON, str(code / "main.py")], stdin=subprocess.PIPE, stdout=subprocess.PIPE, env={}
    )
    stdin, stdout = popen.stdin, popen.stdout
    assert stdin and stdout

    def close() -> None:
        popen.kill()
        popen.wait()
        stdin.close()
        stdout.close()

    return BotPipe(stdin.fileno(), stdout.fileno(), close)


def _backend(name: str) -> Callable[[Path], BotPipe]:
    def start(code: Path) -> BotPipe:
        proc: BotProcess = get_sandbox(name).start(code, Limits())
        pipe = BotPipe(proc.stdin_fd, proc.stdout_fd, proc.close)
        if proc.setup_marker is not None:
            pipe.line()  # the sandbox's set-up marker
        return pipe

    return start


def measure(
    starts: int = 20, round_trips: int = 2000, backends: tuple[str, ...] = ("bare", "none", "bwrap")
) -> dict[str, Any]:
    """Figures in milliseconds: {"startup": {kind: {"median", "p90"}}, "round_trip": {kind: {"median", "p99"}}}."""
    import logging

    logging.getLogger("bots.sandbox").setLevel(logging.ERROR)  # the none backend's warning, once per start
    kinds: dict[str, Callable[[Path], BotPipe]] = {"bare": _bare, "none": _backend("none"), "bwrap": _backend("bwrap")}
    figures: dict[str, Any] = {"startup": {}, "round_trip": {}, "starts": starts, "round_trips": round_trips}
    with tempfile.TemporaryDirectory(prefix="parlour-bench-") as tmp:
        code = Path(tmp)
        code.chmod(0o755)
        (code / "main.py").write_text(ECHO_BOT)
        for kind in backends:
            start = kinds[kind]
            start(code).close()  # warm the page cache
            times = []
            for _ in range(starts):
                began = time.perf_counter()
                pipe = start(code)
                pipe.line()
                times.append((time.perf_counter() - began) * 1000)
                pipe.close()
            figures["startup"][kind] = {"median": statistics.median(times), "p90": _quantile(times, 0.9)}
            pipe = start(code)
            pipe.line()
            trips = []
            for _ in range(round_trips):
                began = time.perf_counter()
                os.write(pipe.stdin_fd, ACT)
                pipe.line()
                trips.append((time.perf_counter() - began) * 1000)
            pipe.close()
            figures["round_trip"][kind] = {"median": statistics.median(trips), "p99": _quantile(trips, 0.99)}
    return figures


def _quantile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def report(figures: dict[str, Any]) -> str:
    lines = [f"start-up of a Python bot until its first line (ms, {figures['starts']} starts each):"]
    for kind, value in figures["startup"].items():
        lines.append(f"  {kind:6s} median {value['median']:7.1f}   p90 {value['p90']:7.1f}")
    lines.append(f"JSON-line round trip, ~{len(ACT)} bytes out (µs, {figures['round_trips']} each):")
    for kind, value in figures["round_trip"].items():
        lines.append(f"  {kind:6s} median {value['median'] * 1000:7.1f}   p99 {value['p99'] * 1000:7.1f}")
    return "\n".join(lines)
