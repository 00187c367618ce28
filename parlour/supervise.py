"""The league's supervisor (``bin/run-league`` execs it): starts every process, keeps them running, stops them all.

Processes (docs/operations.md, "Processes"): the web server (uvicorn on parlour.asgi: one process that reloads on
code changes for `make run`, ``--web-processes`` of them for `make serve`); Celery beat on its own; a match worker
(queue ``celery``, WORKERS processes); a lane worker (queue ``validation``, one process), so that an upload is
validated at once however many matches are queued. A process that exits is started again, at once the first time
and then after a back-off that doubles up to BACKOFF_MAX_SECONDS (reset once it has run for STABLE_SECONDS). A worker
whose heartbeat file (parlour/liveness.py) is older than WORKER_STALL_SECONDS has stopped taking work: it is killed and
started again; so is a web server that has not answered the supervisor's request for its home page for as long (its
heartbeat file is touched by each answer, whatever its status).
SIGINT (Ctrl-C) or SIGTERM stops every process: SIGTERM to each main process first (a worker finishes its current
tasks), SIGKILL to each whole process group after STOP_GRACE_SECONDS. Each process runs in its own session, so a
terminal's Ctrl-C reaches the supervisor only.

Works on both brokers: the filesystem default and Redis (REDIS_URL); the children inherit the environment.
"""

from __future__ import annotations

import argparse
import contextlib
import http.client
import logging
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from types import FrameType

from parlour import liveness

log = logging.getLogger("parlour.supervise")

ROOT = Path(__file__).resolve().parent.parent
BACKOFF_MAX_SECONDS = 30.0
STABLE_SECONDS = 60.0
STOP_GRACE_SECONDS = 10.0
# A worker's first heartbeat comes once it is ready (Django, the sandbox's self-test, the broker): until then it may
# take this long, however short WORKER_STALL_SECONDS is.
START_GRACE_SECONDS = 120.0
TICK_SECONDS = 0.25
PROBE_SECONDS = 5.0  # the web server is asked for its home page this often
PROBE_TIMEOUT_SECONDS = 10.0
# `make run` reloads the web server when the project's code changes (only these folders: not .venv).
RELOAD_DIRS = ("parlour", "league", "games", "bots", "workers", "templates")


@dataclass
class Service:
    """One supervised process: how to start it and, for a worker, its heartbeat file."""

    name: str
    command: list[str]
    heartbeat: Path | None = None
    probe: str | None = None  # a URL whose answer proves the service alive (it touches the heartbeat file)
    process: subprocess.Popen[bytes] | None = None
    started: float = 0.0  # wall clock (compared with the heartbeat file's mtime)
    failures: int = 0  # exits in a row without STABLE_SECONDS of running
    due: float = 0.0  # monotonic time of the next start
    restarts: int = 0

    def start(self) -> None:
        if self.heartbeat is not None:
            self.heartbeat.unlink(missing_ok=True)  # a file from the previous process proves nothing
        self.started = time.time()
        # A session of its own: a terminal's Ctrl-C reaches only the supervisor, and the process's whole group (a
        # worker and its pool) can be signalled at once.
        self.process = subprocess.Popen(self.command, cwd=ROOT, start_new_session=True)
        log.info("%s: started (pid %d)", self.name, self.process.pid)

    def ask(self) -> None:
        """One liveness request (in a thread of its own: a stuck server must not stall the supervisor's loop)."""
        if self.probe is None or self.heartbeat is None:
            return
        heartbeat, host, port, path = self.heartbeat, *_split(self.probe)

        def request() -> None:
            connection = http.client.HTTPConnection(host, port, timeout=PROBE_TIMEOUT_SECONDS)
            try:
                connection.request("GET", path)
                connection.getresponse().read()
            except OSError:
                return
            finally:
                connection.close()
            liveness.touch(heartbeat)

        threading.Thread(target=request, name=f"probe-{self.name}", daemon=True).start()


def _split(url: str) -> tuple[str, int, str]:
    rest = url.removeprefix("http://")
    where, _, path = rest.partition("/")
    host, _, port = where.partition(":")
    return host, int(port or 80), "/" + path


def web_command(python: str, port: int, processes: int, reload: bool) -> list[str]:
    """uvicorn serving parlour.asgi on 127.0.0.1 (a reverse proxy in front for anything public). Its own reading of
    X-Forwarded-For is off: the site applies TRUSTED_PROXY_COUNT itself (league/accounts/views.py)."""
    command = [
        python,
        "-m",
        "uvicorn",
        "parlour.asgi:application",
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
        "--no-proxy-headers",
        "--timeout-graceful-shutdown",
        "5",
    ]
    if reload:
        return [*command, "--reload", *(f"--reload-dir={ROOT / folder}" for folder in RELOAD_DIRS)]
    return [*command, "--workers", str(processes), "--no-access-log"]


def services(
    python: str, port: int, workers: int, run_dir: Path, web_processes: int = 1, reload: bool = False
) -> list[Service]:
    celery = [python, "-m", "celery", "-A", "parlour.celery"]

    def worker(name: str, queue: str, concurrency: int) -> Service:
        heartbeat = run_dir / f"{name}.alive"
        command = [
            *celery,
            "worker",
            "-Q",
            queue,
            "--concurrency",
            str(concurrency),
            "--hostname",
            f"{name}@%h",
            "--heartbeat-file",
            str(heartbeat),
            "--without-mingle",
            "--without-gossip",
            "--loglevel",
            "INFO",
        ]
        return Service(name, command, heartbeat)

    return [
        Service(
            "web",
            web_command(python, port, web_processes, reload),
            heartbeat=run_dir / "web.alive",
            probe=f"http://127.0.0.1:{port}/",
        ),
        Service("beat", [*celery, "beat", "--schedule", str(run_dir / "celerybeat-schedule"), "--loglevel", "INFO"]),
        worker("match", "celery,sweep", workers),
        worker("lane", "validation,sweep", 1),
    ]


class Supervisor:
    def __init__(self, services: Sequence[Service], stall_seconds: float) -> None:
        self.services = list(services)
        self.stall_seconds = stall_seconds
        self.stopping = False

    def request_stop(self, signum: int, frame: FrameType | None) -> None:
        log.info("supervise: %s received, stopping everything", signal.Signals(signum).name)
        self.stopping = True

    def run(self) -> int:
        signal.signal(signal.SIGINT, self.request_stop)
        signal.signal(signal.SIGTERM, self.request_stop)
        next_probe = time.monotonic()
        try:
            while not self.stopping:
                for service in self.services:
                    self.check(service)
                if time.monotonic() >= next_probe:
                    next_probe = time.monotonic() + PROBE_SECONDS
                    for service in self.services:
                        if service.process is not None:
                            service.ask()
                time.sleep(TICK_SECONDS)
        finally:
            self.stop_all()
        return 0

    def check(self, service: Service) -> None:
        now = time.monotonic()
        process = service.process
        if process is None:
            if now >= service.due:
                service.start()
            return
        code = process.poll()
        if code is not None:
            _signal_group(process, signal.SIGKILL)  # what it leaves behind (a dead worker's pool) goes too
            self.schedule_restart(service, f"exited with {code}")
        elif self.stalled(service):
            log.warning(
                "%s: no heartbeat for %.0f s: it has stopped taking work; restarting it",
                service.name,
                self.stall_seconds,
            )
            self.kill(service, grace=2.0)  # a stalled worker would not finish its tasks: their leases bring them back
            self.schedule_restart(service, "stalled")

    def stalled(self, service: Service) -> bool:
        if service.heartbeat is None:
            return False
        limit = self.stall_seconds if service.heartbeat.exists() else max(self.stall_seconds, START_GRACE_SECONDS)
        return liveness.age(service.heartbeat, service.started) > limit

    def schedule_restart(self, service: Service, why: str) -> None:
        if time.time() - service.started >= STABLE_SECONDS:
            service.failures = 0
        delay = 0.0 if service.failures == 0 else min(BACKOFF_MAX_SECONDS, 2.0 ** (service.failures - 1))
        service.failures += 1
        service.restarts += 1
        service.process = None
        service.due = time.monotonic() + delay
        log.warning("%s: %s; starting it again in %.0f s", service.name, why, delay)

    def kill(self, service: Service, grace: float) -> None:
        """SIGTERM the service's main process, then SIGKILL its whole process group (at once if it is still there
        after ``grace`` seconds, and in any case for what it leaves behind)."""
        process = service.process
        if process is None or process.poll() is not None:
            return
        process.terminate()  # the main process only: a worker stops its own pool (a warm shutdown)
        try:
            process.wait(grace)
        except subprocess.TimeoutExpired:
            _signal_group(process, signal.SIGKILL)
            process.wait()
        _signal_group(process, signal.SIGKILL)  # leftovers of the group (pool processes) go too

    def stop_all(self) -> None:
        running = [s.process for s in self.services if s.process is not None and s.process.poll() is None]
        for process in running:
            process.terminate()  # the main process only: a worker stops its own pool (a warm shutdown)
        deadline = time.monotonic() + STOP_GRACE_SECONDS
        for process in running:
            try:
                process.wait(max(0.0, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                log.warning("supervise: pid %d did not stop in %.0f s; killing it", process.pid, STOP_GRACE_SECONDS)
        for process in running:
            _signal_group(process, signal.SIGKILL)
            process.wait()
        log.info("supervise: everything stopped")


def _signal_group(process: subprocess.Popen[bytes], signum: int) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signum)


def main(argv: Sequence[str] | None = None) -> int:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "parlour.settings")
    from django.conf import settings

    parser = argparse.ArgumentParser(prog="python -m parlour.supervise", description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=int(os.environ.get("PORT") or 8000))
    parser.add_argument("--workers", type=int, default=settings.WORKERS, help="match worker processes")
    parser.add_argument("--web-processes", type=int, default=1, help="web server processes (`make serve`)")
    parser.add_argument("--reload", action="store_true", help="restart the web server when the code changes")
    arguments = parser.parse_args(argv)
    if not 1 <= arguments.workers <= 64 or not 1 <= arguments.port <= 65535 or not 1 <= arguments.web_processes <= 64:
        parser.error("--workers and --web-processes must be 1 to 64 and --port 1 to 65535")
    logging.basicConfig(level=logging.INFO, format="%(asctime)s supervise %(levelname)s %(message)s")
    run_dir = Path(settings.VAR_DIR) / "run"
    run_dir.mkdir(parents=True, exist_ok=True)
    supervised = services(
        sys.executable, arguments.port, arguments.workers, run_dir, arguments.web_processes, arguments.reload
    )
    return Supervisor(supervised, float(settings.WORKER_STALL_SECONDS)).run()


if __name__ == "__main__":
    sys.exit(main())
