"""Nothing stalls (docs/operations.md, "Processes"): the supervisor (parlour/supervise.py, what `make run` runs) on the
embedded default's filesystem broker, end to end. While a queue of matches is played, the match worker's pool
processes are SIGKILLed 8 times, the whole match worker once, and the lane worker is frozen (SIGSTOP: it stops
taking work without exiting). Every match is still played and counted once, the upload made while the lane was frozen
is validated, and the league passes its invariant check. Real processes, a real sandbox, the test database."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from celery import Celery
from django.conf import settings
from django.contrib.auth.models import User

from league.models import BotVersion, Match, RatingChange
from league.services import outbox
from league.services.bots import do_create_bot
from league.services.matches import do_create_match
from parlour.broker import filesystem_options
from tests.workers.conftest import ROOT, _database_url
from tests.workers.fault_helpers import FAST_RECOVERY, SLOW_BOT, assert_league_consistent, league_bot
from tests.workers.test_validation_lane import QUICK_BOT

pytestmark = pytest.mark.e2e

MATCHES = 8
POOL_KILLS = 8
KILL_EVERY_SECONDS = 2.0  # 8 kills in 16 s
STALL_SECONDS = 5


class League:
    """The supervisor and what it runs, in a var folder of its own (broker, heartbeats, beat's schedule)."""

    def __init__(self, tmp_path: Path) -> None:
        self.var = tmp_path / "var"
        self.log = tmp_path / "supervise.log"
        self.process: subprocess.Popen | None = None

    def start(self) -> None:
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            port = probe.getsockname()[1]
        env = {
            **os.environ,
            **FAST_RECOVERY,
            "REDIS_URL": "",  # the embedded default: the filesystem broker
            "PARLOUR_VAR_DIR": str(self.var),
            "DATABASE_URL": _database_url(),
            "SECRET_KEY": settings.SECRET_KEY,
            "WORKER_STALL_SECONDS": str(STALL_SECONDS),
            # Each kill costs the match it interrupts an attempt; ten kills could hit one match three times.
            "MATCH_MAX_ATTEMPTS": "12",
            # The test counts the matches it queued: the upload's placement burst would add more (as in conftest).
            "PLACEMENT_GAMES": "0",
        }
        command = [sys.executable, "-m", "parlour.supervise", "--port", str(port), "--workers", "2"]
        self.process = subprocess.Popen(
            command, cwd=ROOT, env=env, stdout=self.log.open("wb"), stderr=subprocess.STDOUT, start_new_session=True
        )

    def app(self) -> Celery:
        """A Celery app that sends to the supervised league's broker (this process's league sends through it)."""
        broker = self.var / "broker"
        options = filesystem_options(broker, settings.BROKER_POLL_MS)
        for key in ("data_folder_in", "processed_folder", "control_folder"):
            Path(str(options[key])).mkdir(parents=True, exist_ok=True)
        app = Celery("parlour-supervision-tests", broker="filesystem://", set_as_current=False)
        app.conf.broker_transport = "parlour.broker:Transport"
        app.conf.broker_transport_options = options
        app.conf.task_queues = settings.CELERY_TASK_QUEUES
        app.conf.task_routes = settings.CELERY_TASK_ROUTES
        return app

    def main_pid(self, worker: str) -> int | None:
        """The worker's main process, from its heartbeat file (None while it starts)."""
        try:
            return int((self.var / "run" / f"{worker}.alive").read_text().split()[0])
        except (FileNotFoundError, IndexError, ValueError):
            return None

    def text(self) -> str:
        return self.log.read_text(errors="replace")

    def wait_for(
        self, condition: Callable[[], object], timeout: float, what: str, state: Callable[[], object] = str
    ) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if condition():
                return
            assert self.process is not None and self.process.poll() is None, f"the supervisor exited: {self.log}"
            time.sleep(0.1)
        raise AssertionError(f"timed out after {timeout:.0f} s waiting for {what}: {state()}")

    def stop(self) -> int | None:
        if self.process is None or self.process.poll() is not None:
            return None if self.process is None else self.process.returncode
        self.process.send_signal(signal.SIGTERM)
        try:
            return self.process.wait(30)
        except subprocess.TimeoutExpired:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait()
            return None


def _children(pid: int) -> list[int]:
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except (FileNotFoundError, ProcessLookupError, IndexError):
            continue
        if int(fields[1]) == pid:
            found.append(int(stat.parent.name))
    return found


@pytest.fixture
def league(transactional_db, tmp_path: Path, monkeypatch) -> Iterator[League]:
    running = League(tmp_path)
    monkeypatch.setattr(outbox, "current_app", running.app())
    yield running
    running.stop()
    print("--- supervise.log (last lines)\n" + "\n".join(running.text().splitlines()[-60:]))


def test_the_supervisor_keeps_the_league_playing_through_kills_and_a_stall(league: League, alice: User) -> None:
    league.start()
    league.wait_for(lambda: league.main_pid("match") and league.main_pid("lane"), 90, "both workers to be ready")
    slow, rival = league_bot(alice, "slow", source=SLOW_BOT), league_bot(alice, "random", builtin="random")
    matches = [do_create_match("love_letter", [slow, rival], seed=n) for n in range(MATCHES)]

    # The lane worker freezes: it no longer takes work, but it does not exit either. An upload waits for it.
    lane = league.main_pid("lane")
    assert lane is not None
    os.kill(lane, signal.SIGSTOP)
    version = do_create_bot(alice, "love_letter", "fresh", QUICK_BOT, "main.py").versions.get()

    kills, whole_worker_killed, start = 0, False, time.monotonic()
    while kills < POOL_KILLS:
        assert time.monotonic() - start < 30, f"only {kills} pool kills in 30 s"
        time.sleep(KILL_EVERY_SECONDS)
        worker = league.main_pid("match")
        pool = _children(worker) if worker else []
        if not pool:
            continue  # the worker is starting again
        os.kill(pool[kills % len(pool)], signal.SIGKILL)
        kills += 1
        if kills == POOL_KILLS // 2 and not whole_worker_killed and worker:
            os.killpg(worker, signal.SIGKILL)  # the whole worker: main process and pool, as the OOM killer might
            whole_worker_killed = True

    league.wait_for(
        lambda: Match.objects.filter(pk__in=[m.pk for m in matches], status=Match.Status.FINISHED).count() == MATCHES,
        60,
        "every match to be played",
        lambda: sorted(Match.objects.filter(pk__in=[m.pk for m in matches]).values_list("status", "attempts", "error")),
    )
    league.wait_for(lambda: BotVersion.objects.get(pk=version.pk).validated, 30, "the upload's validation")
    elapsed = time.monotonic() - start
    log = league.text()
    print(f"\nsupervision: {MATCHES} matches played through {kills} pool kills and a worker kill in {elapsed:.1f} s")

    assert BotVersion.objects.get(pk=version.pk).status == BotVersion.Status.READY
    assert "lane: no heartbeat" in log, "the frozen lane worker was not restarted"
    assert "match: exited" in log, "the killed match worker was not restarted"
    for match in matches:
        seats = match.seats.count()
        assert RatingChange.objects.filter(match=match).count() == seats  # counted once
    assert_league_consistent()
    assert league.stop() == 0
    assert lane not in _children(1) and not Path(f"/proc/{lane}").exists()
