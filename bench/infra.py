"""Throwaway PostgreSQL databases, Django set-up and real Celery worker processes for the league and site benchmarks.

Only loopback services: PostgreSQL on 127.0.0.1:5432 (trust auth, user postgres) and Redis on 127.0.0.1:6379,
database 14 (kept apart from a running league, 0, and the tests, 15).
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

from bench.common import ROOT

PG_SERVER = "postgres://postgres@127.0.0.1:5432"
REDIS_URL = os.environ.get("BENCH_REDIS_URL", "redis://127.0.0.1:6379/14")


def database_url(name: str) -> str:
    return f"{PG_SERVER}/{name}"


def create_database(name: str) -> None:
    """Drop ``name`` if it exists, then create it empty."""
    import psycopg

    with psycopg.connect(database_url("postgres"), autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{name}"')


def drop_database(name: str) -> None:
    import psycopg

    with contextlib.suppress(Exception), psycopg.connect(database_url("postgres"), autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def database_exists(name: str) -> bool:
    import psycopg

    with psycopg.connect(database_url("postgres"), autocommit=True) as conn:
        return conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", [name]).fetchone() is not None


def environment(db_name: str, **extra: str) -> dict[str, str]:
    """What the league's processes read: the throwaway database, Redis db 14, no ladder scheduling."""
    return {
        "DATABASE_URL": database_url(db_name),
        "REDIS_URL": REDIS_URL,
        "SECRET_KEY": "bench-only-not-a-secret",
        "LADDER_ENABLED": "false",
        "DEBUG": "0",
        "DJANGO_SETTINGS_MODULE": "parlour.settings",
        "PYTHONPATH": str(ROOT),  # this tree's code, whatever the virtualenv has installed
        **extra,
    }


def setup_django(db_name: str, migrate: bool = True) -> None:
    """Point this process at the database (before Django reads its settings), then migrate."""
    os.environ.update(environment(db_name))
    import django

    django.setup()
    if migrate:
        from django.core.management import call_command

        call_command("migrate", verbosity=0, interactive=False)


def flush_redis() -> None:
    import redis

    redis.Redis.from_url(REDIS_URL).flushdb()


class Worker:
    """One ``celery -A parlour.celery worker`` process (prefork, ``concurrency`` children)."""

    def __init__(
        self,
        db_name: str,
        concurrency: int,
        log_dir: Path,
        name: str = "bench",
        cwd: Path = ROOT,
        queue: str | None = None,
        env: dict[str, str] | None = None,
        own_session: bool = True,
    ) -> None:
        """``cwd``, ``queue``, ``env``: another checkout's code on its own queue (bench/league.py --trees).
        ``own_session=False``: a process group of its own (still stopped, or killed, whole) in the benchmark's
        session. With the kernel's autogroups (sched_autogroup_enabled) a busy machine shares the CPU between
        sessions, not processes, so workers in sessions of their own get more of it the more sessions they are."""
        self.log = log_dir / f"worker-{name}-{concurrency}.log"
        command = [
            str(Path(sys.executable).parent / "celery"),
            "-A",
            "parlour.celery",
            "worker",
            "--loglevel",
            "WARNING",
            "--concurrency",
            str(concurrency),
            "--hostname",
            f"{name}{concurrency}@%h",
            "--without-mingle",
            "--without-gossip",
            "--without-heartbeat",
            *(["--queues", queue] if queue else []),
        ]
        self.process = subprocess.Popen(
            command,
            cwd=cwd,
            env={**os.environ, **environment(db_name), **(env or {})},
            stdout=self.log.open("wb"),
            stderr=subprocess.STDOUT,
            start_new_session=own_session,
            process_group=None if own_session else 0,
        )
        self.hostname = f"{name}{concurrency}@"

    def wait_ready(self, timeout: float = 60.0) -> None:
        from parlour.celery import app

        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise SystemExit(f"the worker exited: see {self.log}")
            replies = app.control.ping(timeout=0.5)
            if any(name.startswith(self.hostname) for reply in replies for name in reply):
                return
        raise SystemExit(f"the worker did not answer within {timeout:.0f} s: see {self.log}")

    def stop(self) -> None:
        stop_group(self.process, 20)


def stop_group(process: subprocess.Popen[bytes], grace: float = 15) -> None:
    """Stop a process started in a session of its own, its children too: SIGTERM, then SIGKILL after ``grace`` s."""
    if process.poll() is None:
        os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(grace)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()


def wait_serving(process: subprocess.Popen[bytes], port: int, what: str, log: Path, seconds: float = 60) -> None:
    """Wait until the web server ``process`` answers the API's game list on ``port``; exit the bench if it dies or
    does not answer in ``seconds``."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/api/games/", timeout=5).read()
            return
        except OSError:
            if process.poll() is not None:
                raise SystemExit(f"{what} exited: see {log}") from None
            time.sleep(0.2)
    raise SystemExit(f"{what} did not answer: see {log}")


@contextlib.contextmanager
def worker(db_name: str, concurrency: int, log_dir: Path, env: dict[str, str] | None = None) -> Iterator[Worker]:
    started = Worker(db_name, concurrency, log_dir, env=env)
    try:
        started.wait_ready()
        yield started
    finally:
        started.stop()
