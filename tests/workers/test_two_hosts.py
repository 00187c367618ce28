"""Two worker hosts on one Redis and one database, as a deployment of several machines runs them (docs/deployment.md):
each host is a Celery worker with its own var dir, so its own bot-code cache and its own heartbeat file. While
matches and a series are in play on both, one host is killed whole (SIGKILL of its process group: the Celery parent,
its pool processes and, through them, its sandboxed bots) and Redis is restarted empty. Afterwards every match is
played and counted once, the survivor has played what the dead host held (once that host's lease ran out), and the
league's invariant check is clean. Real parts throughout: worker processes, the bwrap sandbox, a Redis of our own,
the test database (SQLite, and PostgreSQL in the second pass of bin/test)."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

import pytest
import redis
from django.conf import settings
from django.contrib.auth.models import User
from django.utils import timezone

from league.core import outbox
from league.play.matches import do_create_match
from league.play.models import Match, Seat
from league.play.series import do_create_series
from league.ratings.models import Rating, RatingChange
from tests.workers.conftest import ROOT, Workers, _database_url
from tests.workers.fault_helpers import (
    FAST_RECOVERY,
    SLOW_BOT,
    FaultWorkers,
    PrivateRedis,
    assert_league_consistent,
    league_bot,
)
from workers import code_cache

pytestmark = pytest.mark.e2e

SERIES_GAMES = 4
SINGLE_MATCHES = 7


@dataclass
class Host:
    """One worker machine: a Celery worker (two pool processes) whose files live under its own var dir."""

    process: subprocess.Popen
    name: str  # the start of ``Match.claimed_by`` for the matches it claims
    var_dir: Path

    @property
    def heartbeat(self) -> Path:
        return self.var_dir / "run" / "match.alive"

    @property
    def code_cache(self) -> Path:
        return self.var_dir / "bot-code"


class Deployment:
    """Worker hosts and one Celery beat, as separate machines would run them, on the private Redis and the test
    database, with short leases and a sweeper every second (``FAST_RECOVERY``)."""

    def __init__(self, workers: FaultWorkers, tmp_path: Path) -> None:
        self.workers = workers
        self.tmp_path = tmp_path
        self.var_dirs: list[Path] = []

    def launch_host(self) -> Host:
        """A host's worker, started (not yet ready: hosts start side by side)."""
        # Not pytest's tmp_path: its parents are private, and the sandbox binds the code cache as it is only when
        # every ancestor is searchable by others (otherwise each bot gets a copy, and the bots' command lines would
        # no longer name their host's cache).
        var_dir = Path(tempfile.mkdtemp(prefix="parlour-host-"))
        var_dir.chmod(0o755)
        (var_dir / "run").mkdir()
        self.var_dirs.append(var_dir)
        process = Workers.start(  # the plain start: FaultWorkers.start would wait for this host to be ready
            self.workers,
            concurrency=2,
            **FAST_RECOVERY,
            REDIS_URL=self.workers.broker.url,
            PARLOUR_VAR_DIR=str(var_dir),
            WORKER_HEARTBEAT_FILE=str(var_dir / "run" / "match.alive"),
        )
        return Host(process, self.workers.name(process), var_dir)

    def launch_beat(self) -> None:
        """Celery beat on a machine of its own (exactly one in a deployment): it sends the sweeper's ticks."""
        log = self.tmp_path / "beat.log"
        schedule = self.tmp_path / "beat-schedule"
        environment = {
            **os.environ,
            **FAST_RECOVERY,
            "DATABASE_URL": _database_url(),
            "REDIS_URL": self.workers.broker.url,
            "SECRET_KEY": settings.SECRET_KEY,
        }
        command = [sys.executable, "-m", "celery", "-A", "parlour.celery", "beat", "--schedule", str(schedule)]
        process = subprocess.Popen(
            [*command, "--loglevel", "INFO"],
            cwd=ROOT,
            env=environment,
            stdout=log.open("wb"),
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        self.workers.processes.append((process, log))  # watched by wait_for, stopped by stop_all

    def wait_ready(self, *hosts: Host) -> None:
        self.workers.wait_for(
            lambda: all(" ready." in self.workers.log(host.process) for host in hosts), 90, "the hosts to start"
        )

    def kill(self, host: Host) -> None:
        """SIGKILL the host's whole process group at once, as a lost machine would."""
        self.workers.kill(host.process)

    def remove(self) -> None:
        for var_dir in self.var_dirs:
            code_cache._remove(var_dir)  # (the cached code is read-only)


@pytest.fixture(scope="module")
def broker(tmp_path_factory: pytest.TempPathFactory) -> Iterator[PrivateRedis]:
    server = PrivateRedis(tmp_path_factory.mktemp("redis"))
    server.start()
    yield server
    server.stop()


@pytest.fixture
def deployment(transactional_db, broker: PrivateRedis, tmp_path: Path, monkeypatch) -> Iterator[Deployment]:
    """Hosts on the private Redis; this process's league sends its tasks there too."""
    redis.Redis.from_url(broker.url).flushall()
    monkeypatch.setattr(outbox, "current_app", broker.app())
    workers = FaultWorkers(tmp_path, broker)
    started = Deployment(workers, tmp_path)
    yield started
    workers.stop_all()
    started.remove()


def _processes_mentioning(text: str) -> list[int]:
    """Pids of the processes whose command line or environment holds ``text``: a host's Celery processes carry its
    var dir in their environment, its sandboxed bots (bwrap) the path of its code cache on their command line."""
    needle, found = text.encode(), []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit() and entry.name != str(os.getpid()):
            try:
                if needle in (entry / "cmdline").read_bytes() or needle in (entry / "environ").read_bytes():
                    found.append(int(entry.name))
            except OSError:  # gone meanwhile, or not ours to read
                continue
    return found


def _held_by(host: Host, **where: object) -> list[Match]:
    return list(Match.objects.filter(status=Match.Status.RUNNING, claimed_by__startswith=host.name, **where))


def test_two_hosts_share_the_work_and_the_survivor_finishes_what_a_host_killed_whole_held(deployment, broker) -> None:
    owner = User.objects.create(username="league")
    slow = [league_bot(owner, f"slow{n}", source=SLOW_BOT) for n in range(3)]
    rivals = [league_bot(owner, "random", builtin="random"), league_bot(owner, "heuristic", builtin="heuristic")]
    hosts = [deployment.launch_host(), deployment.launch_host()]
    deployment.launch_beat()
    deployment.wait_ready(*hosts)

    series = do_create_series("love_letter", [slow[0], rivals[0]], seeds=list(range(101, 101 + SERIES_GAMES)))
    singles = [do_create_match("love_letter", [slow[n % 3], rivals[n % 2]]) for n in range(SINGLE_MATCHES)]
    games = [*series.matches.all(), *singles]

    def doomed_host() -> Host | None:
        """The host in the middle of the series (some games recorded, some not) and of a single match, while the
        other one plays too."""
        for host, other in (hosts, hosts[::-1]):
            if (
                _held_by(host, series=series)
                and _held_by(host, series__isnull=True)
                and _held_by(other)
                and Match.objects.filter(series=series, status=Match.Status.FINISHED).exists()
                and _processes_mentioning(str(host.code_cache))  # its bots run, from its own code cache
            ):
                return host
        return None

    doomed = deployment.workers.wait_for(doomed_host, 60, "both hosts to play, one in the middle of the series")
    assert isinstance(doomed, Host)
    survivor = next(host for host in hosts if host is not doomed)
    deployment.kill(doomed)
    killed_at = timezone.now()
    # Read at once, before the survivor can take them over: what the dead host held, and until when.
    orphans: dict[int, datetime] = {
        match.pk: match.lease_until for match in _held_by(doomed) if match.lease_until is not None
    }
    deployment.workers.wait_for(
        lambda: not _processes_mentioning(str(doomed.var_dir)), 10, "the killed host's sandboxed bots to die with it"
    )
    recorded_by_doomed = set(
        Match.objects.filter(status=Match.Status.FINISHED, claimed_by__startswith=doomed.name).values_list(
            "pk", flat=True
        )
    )
    assert Match.objects.filter(pk__in=orphans, series=series).exists(), "a series cut short"
    assert Match.objects.filter(pk__in=orphans, series__isnull=True).exists(), "a single match cut short"

    broker.restart()  # SIGKILL, no persistence: every queued message is gone, the survivor reconnects
    deployment.workers.wait_for(
        lambda: not Match.objects.filter(pk__in=[g.pk for g in games]).exclude(status=Match.Status.FINISHED).exists(),
        120,
        "every match to be played",
    )

    # Every match counted once: one rating change per seat, and each bot's count of games is the games it played.
    for match in games:
        match.refresh_from_db()
        seats = sorted(Seat.objects.filter(match=match).values_list("bot_version__bot_id", flat=True))
        assert sorted(RatingChange.objects.filter(match=match).values_list("bot_id", flat=True)) == seats
    played = Counter(
        Seat.objects.filter(match__status=Match.Status.FINISHED).values_list("bot_version__bot_id", flat=True)
    )
    assert {rating.bot_id: rating.games for rating in Rating.objects.all()} == played
    assert sum(played.values()) == 2 * len(games)

    # What the dead host held was played again by the survivor, and only once its lease had run out; what the dead
    # host recorded was kept; nothing else was played twice.
    for match in games:
        if match.pk in orphans:
            assert match.claimed_by.startswith(survivor.name) and match.attempts == 2, (match.pk, match.claimed_by)
            assert match.claimed_at >= orphans[match.pk], "taken over before the dead host's lease ran out"
        else:
            assert match.attempts == 1, (match.pk, match.attempts, match.error)
    assert recorded_by_doomed == {m.pk for m in games if m.claimed_by.startswith(doomed.name)}
    assert Match.objects.filter(series=series, pk__in=recorded_by_doomed).exists(), "the series kept its games"

    # Each host kept its own files: the bots' code unpacked once per machine, and its own heartbeat, which stopped
    # with the dead host and goes on with the survivor.
    digest = hashlib.sha256(bytes(slow[0].archive)).hexdigest()
    assert (doomed.code_cache / digest).is_dir() and (survivor.code_cache / digest).is_dir()
    assert doomed.heartbeat.stat().st_mtime <= killed_at.timestamp()
    assert time.time() - survivor.heartbeat.stat().st_mtime < 10
    assert_league_consistent()
