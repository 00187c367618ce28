"""Nothing stalls (docs/operations.md, "Processes"): the supervisor (parlour/supervise.py, what `make run` runs) end to
end, on both brokers: the embedded default's filesystem broker and Redis (REDIS_URL). While a queue of matches is
played, the match worker's pool processes are SIGKILLed again and again, the whole match worker once, and the lane
worker is frozen (SIGSTOP: it stops taking work without exiting). Every match is still played and counted once, the
upload made while the lane was frozen is validated, and the league passes its invariant check. Real processes, a real
sandbox, the test database. The Redis run is shorter (fewer matches and kills of the same kinds): the filesystem
broker is the one whose worker once stalled for good under kills (issue 20)."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
import redis
from celery import Celery
from django.conf import settings
from django.contrib.auth.models import User

from league.bots.models import BotVersion
from league.bots.services import do_create_bot
from league.core import outbox
from league.play.matches import do_create_match
from league.play.models import Match
from league.ratings.models import RatingChange
from parlour.broker import filesystem_options
from tests.real_redis import real_redis_url
from tests.workers.conftest import ROOT, _database_url
from tests.workers.fault_helpers import FAST_RECOVERY, SLOW_BOT, assert_league_consistent, league_bot
from tests.workers.test_validation_lane import QUICK_BOT

pytestmark = pytest.mark.e2e

STALL_SECONDS = 5


@dataclass(frozen=True)
class Run:
    """One broker's run: how many matches are queued and how many times the pool is killed while they play."""

    broker: str  # "filesystem" (the embedded default) or "redis" (settings.REDIS_URL, flushed before and after)
    matches: int
    pool_kills: int
    kill_every_seconds: float


RUNS = [
    Run("filesystem", matches=8, pool_kills=8, kill_every_seconds=2.0),  # 8 kills in 16 s
    Run("redis", matches=4, pool_kills=4, kill_every_seconds=1.5),
]


class League:
    """The supervisor and what it runs, in a var folder of its own (broker, heartbeats, beat's schedule)."""

    def __init__(self, tmp_path: Path, broker: str) -> None:
        self.broker = broker
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
            # "": the embedded default, the filesystem broker (in the var folder).
            "REDIS_URL": settings.REDIS_URL if self.broker == "redis" else "",
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
        if self.broker == "redis":
            app = Celery("parlour-supervision-tests", broker=settings.REDIS_URL, set_as_current=False)
        else:
            options = filesystem_options(self.var / "broker", settings.BROKER_POLL_MS)
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


@pytest.fixture(params=RUNS, ids=lambda run: run.broker)
def run(request: pytest.FixtureRequest) -> Run:
    return request.param


@pytest.fixture
def league(transactional_db, tmp_path: Path, monkeypatch, run: Run) -> Iterator[League]:
    if run.broker == "redis":
        redis.Redis.from_url(real_redis_url()).flushdb()
    running = League(tmp_path, run.broker)
    monkeypatch.setattr(outbox, "current_app", running.app())
    yield running
    running.stop()
    print("--- supervise.log (last lines)\n" + "\n".join(running.text().splitlines()[-60:]))
    if run.broker == "redis":
        redis.Redis.from_url(settings.REDIS_URL).flushdb()


def test_the_supervisor_keeps_the_league_playing_through_kills_and_a_stall(
    league: League, run: Run, alice: User
) -> None:
    league.start()
    league.wait_for(lambda: league.main_pid("match") and league.main_pid("lane"), 90, "both workers to be ready")
    slow, rival = league_bot(alice, "slow", source=SLOW_BOT), league_bot(alice, "random", builtin="random")
    matches = [do_create_match("love_letter", [slow, rival], seed=n) for n in range(run.matches)]

    # The lane worker freezes: it no longer takes work, but it does not exit either. An upload waits for it.
    lane = league.main_pid("lane")
    assert lane is not None
    os.kill(lane, signal.SIGSTOP)
    version = do_create_bot(alice, "love_letter", "fresh", QUICK_BOT, "main.py").versions.get()

    kills, whole_worker_killed, start = 0, False, time.monotonic()
    while kills < run.pool_kills:
        assert time.monotonic() - start < 30, f"only {kills} pool kills in 30 s"
        time.sleep(run.kill_every_seconds)
        worker = league.main_pid("match")
        pool = _children(worker) if worker else []
        if not pool:
            continue  # the worker is starting again
        os.kill(pool[kills % len(pool)], signal.SIGKILL)
        kills += 1
        if kills == run.pool_kills // 2 and not whole_worker_killed and worker:
            os.killpg(worker, signal.SIGKILL)  # the whole worker: main process and pool, as the OOM killer might
            whole_worker_killed = True

    league.wait_for(
        lambda: Match.objects.filter(pk__in=[m.pk for m in matches], status=Match.Status.FINISHED).count()
        == run.matches,
        60,
        "every match to be played",
        lambda: sorted(Match.objects.filter(pk__in=[m.pk for m in matches]).values_list("status", "attempts", "error")),
    )
    league.wait_for(lambda: BotVersion.objects.get(pk=version.pk).validated, 30, "the upload's validation")
    elapsed = time.monotonic() - start
    log = league.text()
    played = f"{run.matches} matches played through {kills} pool kills and a worker kill"
    print(f"\nsupervision ({run.broker}): {played} in {elapsed:.1f} s")

    assert BotVersion.objects.get(pk=version.pk).status == BotVersion.Status.READY
    assert "lane: no heartbeat" in log, "the frozen lane worker was not restarted"
    assert "match: exited" in log, "the killed match worker was not restarted"
    for match in matches:
        seats = match.seats.count()
        assert RatingChange.objects.filter(match=match).count() == seats  # counted once
    assert_league_consistent()
    assert league.stop() == 0
    assert lane not in _children(1) and not Path(f"/proc/{lane}").exists()
