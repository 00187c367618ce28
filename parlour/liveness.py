"""A worker's heartbeat file: proof, for the supervisor (parlour/supervise.py), that the worker still takes work.

The file is touched every WORKER_HEARTBEAT_SECONDS by a timer of the worker's consumer, which runs in the same event
loop that fetches messages and hands them to the pool: a worker whose loop is stuck (a hung broker connection, a
deadlock, a process stopped by a signal) stops touching it, while one that is merely busy playing matches does not
(the matches run in the pool's processes). Nor is it touched while a task the worker has taken waits more than
START_WAIT_SECONDS for a pool process to start it: with acks-late and a prefetch of one per process, a task is taken
only when a process is free, so such a wait means the pool has stopped taking work (a prefork pool whose processes
were SIGKILLed can be left like that, its main loop running and its tasks never started).

The file is named by the worker option ``--heartbeat-file`` or the setting WORKER_HEARTBEAT_FILE; without either,
nothing is written.

Under systemd (deploy/systemd/: ``Type=notify``, ``WatchdogSec=``) each heartbeat is also sent to systemd as
``READY=1`` and ``WATCHDOG=1`` on the socket named by NOTIFY_SOCKET, so systemd restarts a worker that stops taking
work as the supervisor does: the first heartbeat ends the start-up, a missing one fires the watchdog.
"""

from __future__ import annotations

import logging
import os
import socket
import time
from pathlib import Path
from typing import Any

import click
from celery import Celery, bootsteps

log = logging.getLogger(__name__)
# A taken task normally starts within milliseconds (a replaced pool process within a second or two).
START_WAIT_SECONDS = 5.0


def touch(path: Path) -> None:
    """Mark the worker alive now (an atomic replace: a reader never sees the file missing)."""
    partial = path.with_name(f".{path.name}.{os.getpid()}")
    partial.write_text(f"{os.getpid()} {time.time():.3f}\n")
    os.replace(partial, path)


def age(path: Path, started: float) -> float:
    """Seconds since the worker last proved alive: since its file's last touch, or since ``started`` (a wall-clock
    time, e.g. the worker's start) if the file is older than that or missing."""
    try:
        touched = path.stat().st_mtime
    except FileNotFoundError:
        touched = started
    return time.time() - max(touched, started)


def notify_systemd(state: str) -> bool:
    """Send ``state`` (e.g. ``READY=1``) to systemd's notification socket if this process was started by a unit
    that listens (NOTIFY_SOCKET is set); True if sent."""
    address = os.environ.get("NOTIFY_SOCKET", "")
    if not address:
        return False
    if address.startswith("@"):  # an abstract socket
        address = "\0" + address[1:]
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as notify:
        notify.sendto(state.encode(), address)
    return True


class WorkerHeartbeat(bootsteps.StartStopStep):
    """A consumer step: touches the heartbeat file from the consumer's timer while the consumer runs."""

    requires = ("celery.worker.consumer.tasks:Tasks",)  # started once the worker consumes its queues

    def __init__(self, parent: Any, heartbeat_file: str | None = None, **kwargs: Any) -> None:
        from django.conf import settings

        super().__init__(parent, **kwargs)
        name = heartbeat_file or settings.WORKER_HEARTBEAT_FILE
        self.path = Path(name) if name else None
        self.interval = float(settings.WORKER_HEARTBEAT_SECONDS)
        self.timer_ref: Any = None
        self.notifying = False  # the last heartbeat reached systemd
        self.waiting: dict[str, float] = {}  # task id -> when a beat first saw it taken but not started

    def start(self, parent: Any) -> None:
        if self.path is None and not os.environ.get("NOTIFY_SOCKET"):
            return
        if self.path is not None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        self._beat()
        self.timer_ref = parent.timer.call_repeatedly(self.interval, self._beat, priority=10)
        where = " and ".join([*([str(self.path)] if self.path else []), *(["systemd"] if self.notifying else [])])
        log.info("heartbeat: to %s every %.0f s", where, self.interval)

    def stop(self, parent: Any) -> None:
        if self.timer_ref is not None:
            self.timer_ref.cancel()
            self.timer_ref = None

    def _beat(self) -> None:
        if stuck := self._stuck_tasks():
            log.warning(
                "heartbeat: withheld: %d taken tasks not started by the pool for %.0f s", stuck, START_WAIT_SECONDS
            )
            return
        if self.path is not None:
            try:
                touch(self.path)
            except OSError as error:  # a full disk must not stop the worker; the supervisor will notice the silence
                log.warning("heartbeat: cannot touch %s: %s", self.path, error)
        try:
            self.notifying = notify_systemd("READY=1\nWATCHDOG=1")  # READY again is harmless: systemd ignores it
        except OSError as error:  # systemd restarting: its watchdog decides, as the supervisor does on a silence
            log.warning("heartbeat: cannot notify systemd: %s", error)

    def _stuck_tasks(self) -> int:
        """How many taken tasks have waited more than START_WAIT_SECONDS for a pool process to start them."""
        from celery.worker import state

        now = time.monotonic()
        unstarted = {request.id for request in list(state.reserved_requests) if request.time_start is None}
        self.waiting = {task: self.waiting.get(task, now) for task in unstarted}
        return sum(1 for since in self.waiting.values() if now - since > START_WAIT_SECONDS)


def install(app: Celery) -> None:
    """Add the ``--heartbeat-file`` worker option and the heartbeat step to the app."""
    app.user_options["worker"].add(
        click.Option(
            ["--heartbeat-file"],
            default=None,
            help="Touch this file every WORKER_HEARTBEAT_SECONDS while the worker takes work (parlour/liveness.py).",
        )
    )
    app.steps["consumer"].add(WorkerHeartbeat)
