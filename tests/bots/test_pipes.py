"""The runner's pipes, on real processes: a line a bot wrote when no reply was expected is caught before the next
request goes out."""

from __future__ import annotations

import select
import subprocess
import sys
import time
from collections.abc import Iterator

import pytest

from bots.limits import Limits
from bots.results import Fault
from bots.runner.pipes import Conn, Pipes
from bots.sandbox import BotProcess


@pytest.fixture
def opened() -> Iterator[list[BotProcess]]:
    procs: list[BotProcess] = []
    yield procs
    for proc in procs:
        proc.close()


def _bot(opened: list[BotProcess], program: str) -> tuple[Pipes, Conn, list[Fault]]:
    popen = subprocess.Popen(
        [sys.executable, "-c", program],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )
    proc = BotProcess(popen)
    opened.append(proc)
    faults: list[Fault] = []
    pipes = Pipes(lambda conn, fault: faults.append(fault))
    conn = Conn(0, proc, Limits())
    pipes.add(conn)
    return pipes, conn, faults


def test_a_line_written_between_requests_is_caught_by_the_read_before_the_next_request(
    opened: list[BotProcess],
) -> None:
    # One write, so that the whole line is in the pipe once it is readable (print may write it in two).
    pipes, conn, faults = _bot(opened, 'import os, time; os.write(1, b\'{"type": "ready"}\\n\'); time.sleep(30)')
    assert select.select([conn.proc.stdout_fd], [], [], 10)[0]  # written, not read yet
    pipes.read_stdout_now(conn)  # no request outstanding (conn.awaiting is None)
    assert len(faults) == 1 and faults[0].cause == "malformed"
    assert "no reply was expected" in faults[0].detail


def test_the_read_before_a_request_does_not_wait_when_nothing_was_written(opened: list[BotProcess]) -> None:
    pipes, conn, faults = _bot(opened, "import time; time.sleep(30)")
    began = time.monotonic()
    pipes.read_stdout_now(conn)
    assert time.monotonic() - began < 0.5
    assert faults == [] and not conn.replies and not conn.out_eof
