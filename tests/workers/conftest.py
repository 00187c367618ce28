"""A real Celery worker process (with beat) on a real Redis, sharing the test database."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from urllib.parse import quote

import pytest
import redis
from django.conf import settings
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import connection
from rest_framework.test import APIClient

from tests.real_redis import real_redis_url

ROOT = Path(__file__).resolve().parents[2]


def _database_url() -> str:
    db = connection.settings_dict
    if db["ENGINE"].endswith("sqlite3"):
        return f"sqlite:///{db['NAME']}"
    auth = quote(db["USER"]) + (f":{quote(db['PASSWORD'])}" if db["PASSWORD"] else "")
    return f"postgres://{auth}@{db['HOST'] or 'localhost'}:{db['PORT'] or 5432}/{db['NAME']}"


class Workers:
    """Real Celery worker processes started on demand; ``wait_for`` fails at once if one of them dies (unless the
    test killed it on purpose: ``killed``)."""

    def __init__(self, tmp_path: Path) -> None:
        self.tmp_path = tmp_path
        self.processes: list[tuple[subprocess.Popen, Path]] = []
        self.killed: set[int] = set()

    def start(self, beat: bool = False, concurrency: int = 2, queues: str = "", **env: str) -> subprocess.Popen:
        """``queues``: the worker's -Q (default: every queue, matches and validations)."""
        log = self.tmp_path / f"worker-{len(self.processes)}.log"
        command = [
            sys.executable,
            "-m",
            "celery",
            "-A",
            "parlour.celery",
            "worker",
            "--loglevel",
            "INFO",
            "--concurrency",
            str(concurrency),
            "--hostname",
            f"test{len(self.processes)}@%h",
            "--without-mingle",
            "--without-gossip",
        ]
        if queues:
            command += ["-Q", queues]
        if beat:
            command += ["--beat", "--schedule", str(self.tmp_path / "beat-schedule")]
        environment = {
            **os.environ,
            "DATABASE_URL": _database_url(),
            "REDIS_URL": settings.REDIS_URL,
            "SECRET_KEY": settings.SECRET_KEY,
            "LADDER_INTERVAL_SECONDS": "1",
            "LADDER_QUEUE_DEPTH": "2",
            # Placement bursts only where a test asks for them (tests/workers/test_placement.py): the others count
            # their own matches.
            "PLACEMENT_GAMES": "0",
            **env,
        }
        process = subprocess.Popen(
            command,
            cwd=ROOT,
            env=environment,
            stdout=log.open("wb"),
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        self.processes.append((process, log))
        return process

    def wait_for(self, condition: Callable[[], object], timeout: float, what: str) -> object:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if value := condition():
                return value
            for process, log in self.processes:
                if process.pid not in self.killed and process.poll() is not None:
                    raise AssertionError(f"a worker exited ({process.returncode}) while waiting for {what}: {log}")
            time.sleep(0.1)
        raise AssertionError(f"timed out after {timeout:.0f} s waiting for {what}")


@pytest.fixture
def celery_workers(transactional_db, tmp_path: Path) -> Iterator[Workers]:
    """Real worker processes on a real Redis, sharing the test database; all stopped at the end of the test."""
    redis.Redis.from_url(real_redis_url()).flushdb()
    workers = Workers(tmp_path)
    yield workers
    for process, log in workers.processes:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGTERM)
            try:
                process.wait(15)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()
        print(f"--- {log.name} (last lines)\n" + "\n".join(log.read_text(errors="replace").splitlines()[-40:]))
    redis.Redis.from_url(settings.REDIS_URL).flushdb()


@pytest.fixture
def sent(monkeypatch) -> list[tuple[str, int, float]]:
    """What the services send to the broker (nothing really goes out)."""
    from league.core import outbox

    messages: list[tuple[str, int, float]] = []
    monkeypatch.setattr(outbox, "enqueue", lambda task, object_id: messages.append((task, object_id, 0)))
    monkeypatch.setattr(outbox, "enqueue_later", lambda task, pk, delay: messages.append((task, pk, delay)))
    return messages


def upload_bot(client: APIClient, name: str, source: bytes) -> int:
    """A Love Letter bot uploaded through the API as ``client``'s user (a single main.py); its id."""
    response = client.post(
        "/api/bots/",
        {"game": "love_letter", "name": name, "file": SimpleUploadedFile("main.py", source)},
        format="multipart",
    )
    assert response.status_code == 201, response.content
    return int(response.json()["id"])
