"""A test that stalls fails, with its stack, after the configured timeout (pytest-timeout; docs/decisions.md, "A
timeout on every test"), instead of holding the run until CI gives up without saying where."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def test_every_test_runs_under_a_timeout(pytestconfig: pytest.Config) -> None:
    assert pytestconfig.pluginmanager.hasplugin("timeout")
    assert float(pytestconfig.getini("timeout")) >= 300  # above the slowest honest test, with room for a busy box


def test_a_stalled_test_fails_with_its_stack(tmp_path: Path) -> None:
    (tmp_path / "test_stalled.py").write_text("import time\n\n\ndef test_stalls():\n    time.sleep(120)\n")
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-c", str(ROOT / "pyproject.toml")]
    run = subprocess.run(
        [*command, "--rootdir", str(tmp_path), "--timeout", "2", "test_stalled.py"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 1, run.stdout + run.stderr
    assert "Timeout (>2.0s) from pytest-timeout" in run.stdout and "time.sleep(120)" in run.stdout
