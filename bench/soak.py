"""Soak test: the ladder runs for N minutes on two real workers while faults are injected at random, then the league's
invariant check must find nothing wrong (issue 12; docs/operations.md, Reliability).

    .venv/bin/python bench/soak.py [--minutes 5] [--seed 1] [--fault-seconds 8 25] [--sqlite] [--keep]

Set-up: a throwaway PostgreSQL database (``parlour_soak``; ``--sqlite`` for a SQLite file instead), a Redis server of
its own on a free port that keeps nothing on disk, the built-in bots of every game, each game's example bot and four
slow Love Letter bots uploaded (so validations run too, and a killed worker is usually in the middle of a sandboxed
match).
Two ``celery worker`` processes (2 children each) and one ``celery beat`` (the ladder every 2 s, the sweeper every
2 s), with short leases (10 s) so that recovery shows within the run.

Every ``--fault-seconds`` (a random time in the range) one fault, chosen at random:

- ``kill``: SIGKILL a worker and its children (mid-match, usually); it is started again 1-5 s later;
- ``redis``: SIGKILL the Redis server and start it again, empty: every queued message is lost;
- ``db``: terminate every database connection of the workers (``pg_terminate_backend``; PostgreSQL only).

At the end the faults stop, the ladder stops scheduling, the league drains (every queued and running match and
pending validation finalised, the sweeper still running), and ``league.play.invariants.check_league`` runs. It prints
the matches played, the faults injected and the violations found (there must be none: the exit status is 1 otherwise).
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench import infra
from bench.common import ROOT, machine

DB_NAME = "parlour_soak"
SLOW_BOT = b"""import json, sys, time
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "start":
        print(json.dumps({"type": "ready"}), flush=True)
    elif message["type"] == "act":
        time.sleep(0.1)
        print(json.dumps({"type": "action", "action": message["legal"][0]}), flush=True)
    else:
        break
"""
LEAGUE = {
    "LADDER_ENABLED": "true",
    "LADDER_INTERVAL_SECONDS": "2",
    "LADDER_WORKER_CAPACITY": "8",
    "LADDER_QUEUE_DEPTH": "2",
    "MATCH_STALE_SECONDS": "10",
    "MATCH_SWEEP_SECONDS": "2",
    "MATCH_RESEND_SECONDS": "10",
    "MATCH_RETRY_SECONDS": "2",
    "MATCH_RETRY_MAX_SECONDS": "30",
    "LOG_LEVEL": "INFO",
}
DRAIN_SECONDS = 240
# Sandboxed Love Letter bots that take a few seconds per match: a killed worker is usually in the middle of one.
SLOW_BOTS = 4


class Redis:
    """A private redis-server (no persistence: a restart loses every message, as on this machine)."""

    def __init__(self, folder: Path) -> None:
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            self.port = probe.getsockname()[1]
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.folder = folder
        self.process: subprocess.Popen | None = None

    def start(self) -> None:
        import redis

        binary = shutil.which("redis-server") or "/usr/bin/redis-server"
        log = (self.folder / "redis.log").open("ab")
        self.process = subprocess.Popen(
            [binary, "--port", str(self.port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
            cwd=self.folder,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        deadline = time.monotonic() + 10
        while True:
            try:
                redis.Redis.from_url(self.url).ping()
                return
            except redis.ConnectionError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.05)

    def stop(self) -> None:
        if self.process and self.process.poll() is None:
            self.process.kill()
            self.process.wait()


class Process:
    """A celery worker or beat process, in its own process group (so that SIGKILL takes its children too)."""

    def __init__(self, name: str, command: list[str], env: dict[str, str], log_dir: Path) -> None:
        self.name, self.command, self.env, self.log_dir = name, command, env, log_dir
        self.process: subprocess.Popen | None = None
        self.starts = 0

    def start(self) -> None:
        self.starts += 1
        log = (self.log_dir / f"{self.name}.log").open("ab")
        self.process = subprocess.Popen(
            self.command, cwd=ROOT, env=self.env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
        )

    def kill(self) -> None:
        if self.process and self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait()

    def stop(self) -> None:
        if self.process and self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(30)
            except subprocess.TimeoutExpired:
                self.kill()

    @property
    def alive(self) -> bool:
        return self.process is not None and self.process.poll() is None


def _celery(*args: str) -> list[str]:
    return [str(Path(sys.executable).parent / "celery"), "-A", "parlour.celery", *args]


def _setup_league(database_url: str, redis_url: str) -> None:
    """Django in this process (migrated), the house bots of every game, and the uploads."""
    os.environ.update(infra.environment(DB_NAME, DATABASE_URL=database_url, REDIS_URL=redis_url, **LEAGUE))
    import django

    django.setup()
    from django.contrib.auth.models import User
    from django.core.management import call_command

    from games.registry import GAMES, example_dir
    from league.bots.services import do_create_bot, do_register_builtin_bots

    call_command("migrate", verbosity=0, interactive=False)
    do_register_builtin_bots()
    owner = User.objects.create_user("soak")
    for game_id in GAMES:
        example = example_dir(game_id) / "main.py"
        if example.exists():
            do_create_bot(owner, game_id, "example", example.read_bytes(), "main.py")
    for n in range(SLOW_BOTS):
        do_create_bot(owner, "love_letter", f"slow{n}", SLOW_BOT, "main.py")


def _terminate_connections() -> int:
    """Cut every other connection to the soak database, as a PostgreSQL restart or a network fault would."""
    import psycopg
    from django.db import connection

    with connection.cursor() as cursor:  # this process's own connection is spared
        cursor.execute("SELECT pg_backend_pid()")
        (mine,) = cursor.fetchone()
    with psycopg.connect(infra.database_url("postgres"), autocommit=True) as conn:
        rows = conn.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = %s AND pid <> %s",
            [DB_NAME, mine],
        ).fetchall()
    return len(rows)


def _running_on(worker: Process) -> int:
    from league.play.models import Match

    return Match.objects.filter(status=Match.Status.RUNNING, claimed_by__startswith=f"soak{worker.name[-1]}@").count()


def _in_flight() -> tuple[int, int, int]:
    from league.bots.models import BotVersion
    from league.play.models import Match

    return (
        Match.objects.filter(status=Match.Status.QUEUED).count(),
        Match.objects.filter(status=Match.Status.RUNNING).count(),
        BotVersion.objects.filter(status=BotVersion.Status.PENDING).count(),
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--minutes", type=float, default=5.0, help="how long the ladder runs under faults")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--fault-seconds", type=float, nargs=2, default=(8.0, 25.0), metavar=("MIN", "MAX"))
    parser.add_argument("--sqlite", action="store_true", help="a SQLite file instead of a PostgreSQL database")
    parser.add_argument("--keep", action="store_true", help="keep the database and the logs")
    args = parser.parse_args()
    rng = random.Random(args.seed)
    folder = Path(tempfile.mkdtemp(prefix="parlour-soak-"))
    print(f"soak: {args.minutes:g} minutes; {machine()}")
    print(f"soak: logs in {folder}")

    if args.sqlite:
        database_url = f"sqlite:///{folder / 'soak.sqlite3'}"
    else:
        infra.create_database(DB_NAME)
        database_url = infra.database_url(DB_NAME)
    broker = Redis(folder)
    broker.start()
    _setup_league(database_url, broker.url)
    env = {**os.environ, "PARLOUR_VAR_DIR": str(folder)}
    common = ["--loglevel", "INFO", "--without-mingle", "--without-gossip"]
    workers = [
        Process(
            f"worker{n}", _celery("worker", "--concurrency", "2", "--hostname", f"soak{n}@%h", *common), env, folder
        )
        for n in range(2)
    ]
    schedule = str(folder / "beat-schedule")
    beat = Process("beat", _celery("beat", "--loglevel", "INFO", "--schedule", schedule), env, folder)
    for process in [*workers, beat]:
        process.start()

    from league.play.invariants import check_league
    from league.play.models import Match

    faults: Counter[str] = Counter()
    kinds = ["kill", "kill", "redis"] + ([] if args.sqlite else ["db"])
    restarts: list[tuple[float, Process]] = []
    started = time.monotonic()
    end = started + args.minutes * 60
    next_fault = started + rng.uniform(*args.fault_seconds)
    try:
        while time.monotonic() < end:
            now = time.monotonic()
            for due, process in list(restarts):
                if now >= due:
                    process.start()
                    restarts.remove((due, process))
            for process in [*workers, beat]:
                if not process.alive and all(p is not process for _due, p in restarts):
                    raise SystemExit(f"soak: {process.name} exited by itself: see {folder / process.name}.log")
            if now >= next_fault:
                kind = rng.choice(kinds)
                live = [w for w in workers if w.alive]
                if kind == "kill" and live:
                    busy = {w.name: _running_on(w) for w in live}
                    # Mostly the busier worker: a kill in the middle of a match is the case that matters.
                    victim = (
                        max(live, key=lambda w: (busy[w.name], rng.random()))
                        if rng.random() < 0.8
                        else rng.choice(live)
                    )
                    print(
                        f"  {now - started:6.1f} s  SIGKILL {victim.name} ({busy[victim.name]} matches running on it)"
                    )
                    victim.kill()
                    restarts.append((now + rng.uniform(1, 5), victim))
                elif kind == "redis":
                    print(f"  {now - started:6.1f} s  Redis restarted, empty ({_in_flight()[0]} matches queued)")
                    broker.stop()
                    broker.start()
                else:
                    kind = "db"
                    print(f"  {now - started:6.1f} s  {_terminate_connections()} database connections terminated")
                faults[kind] += 1
                next_fault = now + rng.uniform(*args.fault_seconds)
            time.sleep(0.2)
        for _due, process in restarts:
            process.start()

        played_under_faults = Match.objects.filter(status=Match.Status.FINISHED).count()
        print(f"soak: {time.monotonic() - started:.0f} s under faults; stopping the ladder and draining the queue")
        beat.stop()
        beat.env = {**beat.env, "LADDER_ENABLED": "false"}  # the sweeper goes on, the scheduling stops
        beat.start()
        deadline = time.monotonic() + DRAIN_SECONDS
        while any(_in_flight()) and time.monotonic() < deadline:
            time.sleep(1)
        queued, running, pending = _in_flight()
        report = check_league()
    finally:
        for process in [*workers, beat]:
            process.stop()
        broker.stop()

    matches = Match.objects.all()
    statuses = Counter(matches.values_list("status", flat=True))
    rerun = matches.filter(attempts__gt=1).count()
    games = Counter(matches.filter(status=Match.Status.FINISHED).values_list("game", flat=True))
    print()
    print(f"soak: {args.minutes:g} minutes of ladder under faults, then drained ({DRAIN_SECONDS} s at most)")
    print(
        f"matches played: {statuses[Match.Status.FINISHED]} ({played_under_faults} during the faults); "
        + ", ".join(f"{game} {n}" for game, n in sorted(games.items()))
    )
    print(f"matches played more than once (attempts > 1): {rerun}; failed: {statuses[Match.Status.FAILED]}")
    for error in matches.filter(status=Match.Status.FAILED).values_list("error", flat=True)[:5]:
        print(f"    failed: {error[:200]}")
    print(f"left in flight after draining: {queued} queued, {running} running, {pending} validations pending")
    print(f"faults injected: {sum(faults.values())} (" + ", ".join(f"{k} {n}" for k, n in sorted(faults.items())) + ")")
    print("worker starts: " + ", ".join(f"{w.name} {w.starts}" for w in workers))
    print(f"invariant violations: {len(report.violations)}")
    for violation in report.violations[:30]:
        print(f"    {violation}")
    print("checked: " + ", ".join(f"{rule} {n}" for rule, n in report.checked.items()))
    if not args.keep:
        from django.db import connections

        connections.close_all()
        if not args.sqlite:
            infra.drop_database(DB_NAME)
        shutil.rmtree(folder, ignore_errors=True)
    return 1 if report.violations or queued or running or pending else 0


if __name__ == "__main__":
    sys.exit(main())
