from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.test.utils import override_settings

from tests.workers.conftest import ROOT
from workers.startup import SandboxUnavailable, check_sandbox


def test_the_real_sandbox_passes_its_self_test() -> None:
    check_sandbox()


@override_settings(BOT_SANDBOX="none", ALLOW_UNSANDBOXED_BOTS=False)
def test_an_unsandboxed_worker_is_refused_unless_explicitly_allowed() -> None:
    with pytest.raises(SandboxUnavailable, match="ALLOW_UNSANDBOXED_BOTS"):
        check_sandbox()


@override_settings(BOT_SANDBOX="none", ALLOW_UNSANDBOXED_BOTS=True)
def test_an_explicitly_allowed_unsandboxed_worker_starts() -> None:
    check_sandbox()


def test_a_worker_process_without_isolation_exits_saying_why(tmp_path) -> None:
    env = {"PATH": "/usr/bin:/bin", "BOT_SANDBOX": "none", "SECRET_KEY": "x", "PARLOUR_VAR_DIR": str(tmp_path)}
    process = subprocess.run(
        [sys.executable, "-m", "celery", "-A", "parlour.celery", "worker", "--pool", "solo"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert process.returncode != 0
    assert "ALLOW_UNSANDBOXED_BOTS" in process.stdout + process.stderr


def _niceness(pid: int) -> int:
    return os.getpriority(os.PRIO_PROCESS, pid)


def _children(pid: int) -> list[int]:
    children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    return [int(child) for child in children]


def test_a_worker_lowers_its_own_and_its_pools_priority_by_worker_nice(celery_workers) -> None:
    """The production settings run workers at niceness 10 (.env.production.example): pages before matches."""
    worker = celery_workers.start(concurrency=2, WORKER_NICE="7")
    pool = celery_workers.wait_for(lambda: len(_children(worker.pid)) >= 2 and _children(worker.pid), 60, "the pool")
    assert _niceness(worker.pid) == _niceness(os.getpid()) + 7
    assert [_niceness(child) for child in pool] == [_niceness(os.getpid()) + 7] * len(pool)
