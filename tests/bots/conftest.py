"""Fixtures for the bot runtime tests: a throwaway game, hostile bots in fresh directories, fast time limits.

Every test here runs real processes (sandboxed unless it says otherwise); nothing is mocked."""

from __future__ import annotations

import os
import shutil
import signal
from collections.abc import Callable, Iterator
from dataclasses import replace
from pathlib import Path

import pytest

from bots.sandbox import BwrapConfig, Limits
from games import registry

HOSTILE = Path(__file__).parent / "hostile"
# The game-agnostic example bots; each game's own example is in its folder (games.registry.example_dir).
EXAMPLES = Path(__file__).resolve().parents[2] / "bots" / "examples"
PILE = "parlour_test_pile"


def example_bot(name: str) -> Path:
    """An example bot's folder: a game's own (``love_letter``) or a game-agnostic one (``sdk_bot``, ``node_bot``)."""
    return registry.example_dir(name) if name in registry.GAMES else EXAMPLES / name


# Short clocks keep the suite fast: a hung bot is caught within (move_ms + bank_ms) * wall_factor (the league's own
# wall_factor, so that the tests hold the rule the league plays by). No grace after `end` (the default): bots are
# killed as soon as the match is over, as on the league's workers.
FAST = Limits(startup_ms=8000, move_ms=300, bank_ms=300)
# A grace period after `end`, for the tests of what a bot does when the match is over.
GRACE = replace(FAST, end_grace_ms=2000)


def _bwrap_problem() -> str | None:
    if os.geteuid() != 0:
        return "the bwrap sandbox needs root"
    if not shutil.which("bwrap"):
        return "bubblewrap is not installed"
    if not os.path.exists("/sys/fs/cgroup/memory/cgroup.procs"):
        return "no cgroup v1 memory controller"
    return None


requires_bwrap = pytest.mark.skipif(_bwrap_problem() is not None, reason=_bwrap_problem() or "")


TEST_TIME_LIMIT_S = 60


@pytest.fixture(autouse=True)
def _bounded_in_time() -> Iterator[None]:
    """Every test here gets at most TEST_TIME_LIMIT_S seconds (SIGALRM), so a runner bug cannot hang the suite."""

    def expired(signum: int, frame: object) -> None:
        raise TimeoutError(f"test took longer than {TEST_TIME_LIMIT_S} s")

    previous = signal.signal(signal.SIGALRM, expired)
    signal.alarm(TEST_TIME_LIMIT_S)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


@pytest.fixture
def pile() -> Iterator[str]:
    """Registers the tiny test game (take 1-3 counters, last counter wins) for one test."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setitem(registry._ENGINES, PILE, "tests.bots.tinygame")
        yield PILE


@pytest.fixture(scope="module")
def pile_module() -> Iterator[str]:
    with pytest.MonkeyPatch.context() as patch:
        patch.setitem(registry._ENGINES, PILE, "tests.bots.tinygame")
        yield PILE


def make_bot(root: Path, name: str, **placeholders: str) -> Path:
    """Copy tests/bots/hostile/<name>.py (or .txt) into ``root/<name>/main.py``, filling ``{PLACEHOLDERS}``."""
    source = HOSTILE / f"{name}.py"
    if not source.exists():
        source = HOSTILE / f"{name}.txt"
    text = source.read_text()
    for key, value in placeholders.items():
        text = text.replace("{" + key + "}", value)
    directory = root / name
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "main.py").write_text(text)
    return directory


@pytest.fixture
def bot(tmp_path: Path) -> Callable[..., Path]:
    return lambda name, **placeholders: make_bot(tmp_path, name, **placeholders)


def slot_uid_processes() -> list[tuple[int, int, str]]:
    """Processes on the host running as any sandbox slot uid: (pid, uid, cmdline). Must be empty after a match."""
    config = BwrapConfig.from_env()
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            status = Path(f"/proc/{entry}/status").read_text()
            uid = int(next(line for line in status.splitlines() if line.startswith("Uid:")).split()[1])
            if config.uid_base <= uid < config.uid_base + config.slots:
                cmdline = Path(f"/proc/{entry}/cmdline").read_bytes().replace(b"\0", b" ").decode()
                found.append((int(entry), uid, cmdline))
        except OSError:
            continue
    return found
