"""Helpers of the fault-injection tests: a private Redis server that a test may restart, real worker processes that a
test may kill, slow bots, and the league's invariant check."""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import time
from pathlib import Path

import redis
from celery import Celery
from django.contrib.auth.models import User

from bots.packaging import package_upload
from league.bots.models import Bot, BotVersion
from league.play.invariants import check_league
from league.ratings.models import Rating
from tests.workers.conftest import Workers

SLOW_BOT = Path(__file__).parent / "bots" / "slow.py"
# Short leases, a sweeper every second, quick resends and back-offs: a fault is recovered from in seconds.
FAST_RECOVERY = {
    "LADDER_ENABLED": "0",
    "MATCH_STALE_SECONDS": "3",
    "MATCH_SWEEP_SECONDS": "1",
    "MATCH_RESEND_SECONDS": "3",
    "MATCH_RETRY_SECONDS": "1",
}


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class PrivateRedis:
    """A ``redis-server`` of our own on a free port, keeping nothing on disk (like the machine's): restarting it loses
    every message, and no other test shares it."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.port = _free_port()
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.process: subprocess.Popen | None = None
        self.restarts = 0

    def start(self) -> None:
        binary = shutil.which("redis-server") or "/usr/bin/redis-server"
        command = [binary, "--port", str(self.port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"]
        log = (self.folder / "redis.log").open("ab")
        self.process = subprocess.Popen(command, cwd=self.folder, stdout=log, stderr=subprocess.STDOUT)
        client = redis.Redis.from_url(self.url)
        deadline = time.monotonic() + 10
        while True:
            try:
                client.ping()
                return
            except redis.ConnectionError:
                if time.monotonic() > deadline or self.process.poll() is not None:
                    raise
                time.sleep(0.05)

    def stop(self) -> None:
        if self.process and self.process.poll() is None:
            self.process.kill()  # SIGKILL: no chance to save anything (nor is it asked to)
            self.process.wait()

    def restart(self) -> None:
        self.stop()
        self.start()
        self.restarts += 1

    def app(self) -> Celery:
        """A Celery app that sends to this server (the test process's league sends through it)."""
        app = Celery("parlour-fault-tests", broker=self.url, set_as_current=False)
        app.conf.broker_connection_retry_on_startup = True
        return app


class FaultWorkers(Workers):
    """Worker processes on the private Redis, with fast recovery settings; a test may SIGKILL one."""

    def __init__(self, tmp_path: Path, broker: PrivateRedis) -> None:
        super().__init__(tmp_path)
        self.broker = broker

    def start(self, beat: bool = False, concurrency: int = 1, **env: str) -> subprocess.Popen:
        settings = {**FAST_RECOVERY, "REDIS_URL": self.broker.url, **env}
        process = super().start(beat=beat, concurrency=concurrency, **settings)
        self.wait_for(lambda: " ready." in self.log(process), 60, "the worker to start")
        return process

    def log(self, process: subprocess.Popen) -> str:
        return next(log for started, log in self.processes if started is process).read_text(errors="replace")

    def name(self, process: subprocess.Popen) -> str:
        """The host name it claims matches with (``Match.claimed_by`` starts with it)."""
        return f"test{[started for started, _log in self.processes].index(process)}@"

    def kill(self, process: subprocess.Popen) -> None:
        """SIGKILL the worker and its pool children at once, as the kernel's OOM killer or a lost machine would."""
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()
        self.killed.add(process.pid)

    def stop_all(self) -> None:
        for process, log in self.processes:
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGTERM)
                try:
                    process.wait(15)
                except subprocess.TimeoutExpired:
                    os.killpg(process.pid, signal.SIGKILL)
                    process.wait()
            print(f"--- {log.name} (last lines)\n" + "\n".join(log.read_text(errors="replace").splitlines()[-40:]))


def league_bot(owner: User, name: str, builtin: str = "", source: Path | None = None) -> BotVersion:
    """A ready Love Letter bot: a built-in player, or uploaded code (run in the sandbox)."""
    bot = Bot.objects.create(owner=owner, game="love_letter", name=name, is_builtin=bool(builtin))
    Rating.objects.create(bot=bot)
    if builtin:
        return BotVersion.objects.create(bot=bot, number=1, builtin=builtin, status=BotVersion.Status.READY)
    package = package_upload(source.read_bytes(), "main.py") if source else None
    assert package is not None
    return BotVersion.objects.create(
        bot=bot,
        number=1,
        archive=package.archive,
        language=package.language,
        archive_size=len(package.archive),
        status=BotVersion.Status.READY,
    )


def assert_league_consistent() -> None:
    report = check_league()
    assert report.ok, "invariant violations:\n" + "\n".join(str(violation) for violation in report.violations)
