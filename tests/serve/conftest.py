"""A real ASGI server process (uvicorn on parlour.asgi, as `make serve` runs it) on the test database and Redis."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
import redis
import requests
from django.conf import settings

from league.site import stream_caps
from tests.real_redis import delete_keys, real_redis_url
from tests.workers.conftest import _database_url

ROOT = Path(__file__).resolve().parents[2]


@dataclass
class Server:
    host: str
    port: int
    process: subprocess.Popen[bytes]
    log: Path

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}"

    def queries(self) -> int:
        """Database queries the server process has run so far (one process only: tests/serve/counting_asgi.py)."""
        return int(requests.get(f"{self.url}/__queries__", timeout=10).json()["queries"])


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture(scope="session")
def collected_static(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The static files collected as `make serve` does (the production path serves them from a manifest), once per
    run, in a folder of the run's own (the SQLite and PostgreSQL passes run side by side)."""
    root = tmp_path_factory.mktemp("staticfiles")
    subprocess.run(
        [sys.executable, "manage.py", "collectstatic", "--noinput", "--verbosity", "0"],
        cwd=ROOT,
        env={**os.environ, "STATIC_ROOT": str(root), "SECRET_KEY": settings.SECRET_KEY, "DEBUG": "0"},
        check=True,
        timeout=300,
    )
    return root


@pytest.fixture
def asgi_server(transactional_db, tmp_path: Path, collected_static: Path) -> Iterator[Callable[..., Server]]:
    """``asgi_server(processes=1, app=..., **env)``: uvicorn serving the site on the production path (ASGI, Redis
    pub/sub, the test database: PostgreSQL when the run is on it), stopped at the end of the test."""
    # Places under the site-wide stream caps that an earlier test's stopped server left to lapse by themselves
    delete_keys(redis.Redis.from_url(real_redis_url()), stream_caps.PREFIX)
    started: list[Server] = []

    def start(processes: int = 1, app: str = "tests.serve.counting_asgi:application", **env: str) -> Server:
        port = _free_port()
        log = tmp_path / f"uvicorn-{port}.log"
        environment = {
            **os.environ,
            "DATABASE_URL": _database_url(),
            "REDIS_URL": settings.REDIS_URL,
            "SECRET_KEY": settings.SECRET_KEY,
            "DEBUG": "0",
            "STATIC_ROOT": str(collected_static),
            "LOG_LEVEL": "WARNING",
            **env,
        }
        command = [
            sys.executable,
            "-m",
            "uvicorn",
            app,
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
            "--workers",
            str(processes),
            "--no-proxy-headers",
            "--no-access-log",
        ]
        process = subprocess.Popen(
            command, cwd=ROOT, env=environment, stdout=log.open("wb"), stderr=subprocess.STDOUT, start_new_session=True
        )
        server = Server("127.0.0.1", port, process, log)
        started.append(server)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            assert process.poll() is None, f"the server exited: {log.read_text(errors='replace')[-3000:]}"
            try:
                if requests.get(f"{server.url}/__queries__", timeout=2).ok:
                    return server
            except requests.RequestException:
                time.sleep(0.2)
        raise AssertionError(f"the server did not answer in 60 s: {log}")

    yield start
    for server in started:
        server.process.terminate()
        try:
            server.process.wait(15)
        except subprocess.TimeoutExpired:
            os.killpg(server.process.pid, 9)
            server.process.wait()
        print(
            f"--- {server.log.name} (last lines)\n"
            + "\n".join(server.log.read_text(errors="replace").splitlines()[-30:])
        )
