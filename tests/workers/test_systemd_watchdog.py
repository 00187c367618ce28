"""A worker run by systemd (deploy/systemd/: ``Type=notify``, ``WatchdogSec=``) tells systemd with each heartbeat that
it is ready and alive, and falls silent when it stops taking work, so that systemd's watchdog restarts it as the
supervisor does from the heartbeat file (parlour/liveness.py). A real worker process; the test listens where systemd
would."""

from __future__ import annotations

import os
import signal
import socket
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.workers.conftest import Workers

pytestmark = pytest.mark.e2e

HEARTBEAT_SECONDS = 1


@pytest.fixture
def notify_socket(tmp_path: Path) -> Iterator[socket.socket]:
    """A datagram socket like systemd's NOTIFY_SOCKET (a path short enough for AF_UNIX: tmp_path may not be)."""
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    path = Path(f"/tmp/parlour-notify-{os.getpid()}")
    path.unlink(missing_ok=True)
    listener.bind(str(path))
    yield listener
    listener.close()
    path.unlink(missing_ok=True)


def _receive(listener: socket.socket, workers: Workers, timeout: float) -> bytes | None:
    """The next notification within ``timeout`` s, or None; fails at once if the worker died."""
    deadline = time.monotonic() + timeout
    while (left := deadline - time.monotonic()) > 0:
        listener.settimeout(min(left, 0.5))
        try:
            return listener.recv(4096)
        except TimeoutError:
            for process, log in workers.processes:
                assert process.poll() is None, f"the worker exited ({process.returncode}): {log}"
    return None


def test_a_worker_notifies_systemd_at_each_heartbeat_and_falls_silent_when_it_stops(
    celery_workers: Workers, notify_socket: socket.socket
) -> None:
    worker = celery_workers.start(
        concurrency=1,
        NOTIFY_SOCKET=notify_socket.getsockname(),
        WORKER_HEARTBEAT_SECONDS=str(HEARTBEAT_SECONDS),
        WORKER_STALL_SECONDS="5",
    )
    assert _receive(notify_socket, celery_workers, 90) == b"READY=1\nWATCHDOG=1", "ready once it takes work"
    began = time.monotonic()
    for _ in range(3):
        assert _receive(notify_socket, celery_workers, 5 * HEARTBEAT_SECONDS) == b"READY=1\nWATCHDOG=1"
    assert time.monotonic() - began >= 2 * HEARTBEAT_SECONDS, "one a heartbeat, not a flood"

    os.kill(worker.pid, signal.SIGSTOP)  # its loop stops, as a stuck worker's does
    try:
        while _receive(notify_socket, celery_workers, 0.2) is not None:  # what was sent before the stop
            pass
        assert _receive(notify_socket, celery_workers, 4 * HEARTBEAT_SECONDS) is None, "silent while it is stopped"
    finally:
        os.kill(worker.pid, signal.SIGCONT)
    assert _receive(notify_socket, celery_workers, 10) == b"READY=1\nWATCHDOG=1", "alive again"
