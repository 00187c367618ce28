"""What makes a sandboxed match cheap without loosening the sandbox: teardown off the critical path (the trees die at
once, reaping and cgroup removal follow in the background, the slot is freed last), the lazy idle throttle, and
matches prepared ahead (bots started, waiting for their start message)."""

from __future__ import annotations

import fcntl
import os
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import pytest

from bots import sandbox as sandbox_module
from bots.runner import BotSeat, play_match, prepare_match
from bots.sandbox import BwrapConfig, get_sandbox, wait_closed
from bots.sandbox.cgroups import Cgroups
from bots.sandbox.cgroups import cgroup_bases as _cgroup_bases
from games.registry import example_dir
from tests.bots.conftest import FAST, make_bot, requires_bwrap, slot_uid_processes

pytestmark = requires_bwrap

REPO = Path(__file__).resolve().parents[2]
RANDOM = BotSeat("builtin:random", builtin="random")


def _processes_of(uid: int) -> list[tuple[int, int, str]]:
    """Live processes of ``uid``. Not zombies: a killed sandbox's pid 1 is reaped by the host's init, in its own time
    (it was so before teardown moved to the background too); a zombie runs nothing and holds no memory."""
    found = []
    for pid, owner, cmdline in slot_uid_processes():
        if owner == uid:
            try:
                status = Path(f"/proc/{pid}/status").read_text()
            except OSError:
                continue
            if "(zombie)" not in status:
                found.append((pid, owner, cmdline))
    return found


def _cgroups_of(uid: int) -> list[str]:
    prefix = f"parlour-slot-{uid - BwrapConfig.from_env().uid_base}-"
    return [entry for base in _cgroup_bases().values() for entry in os.listdir(base) if entry.startswith(prefix)]


def _slot_is_free(uid: int) -> bool:
    config = BwrapConfig.from_env()
    fd = os.open(config.state_dir / "slots" / f"{uid - config.uid_base}.lock", os.O_RDWR | os.O_CLOEXEC)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    finally:
        os.close(fd)  # closing the fd drops the lock at once, should we have taken it
    return True


def _wait_for_processes(uid: int, at_least: int, timeout_s: float = 10.0) -> None:
    deadline = time.monotonic() + timeout_s
    while len(_processes_of(uid)) < at_least:
        assert time.monotonic() < deadline, _processes_of(uid)
        time.sleep(0.02)


# ----- teardown ------------------------------------------------------------------------------------------------------
def test_a_slot_is_freed_only_once_no_process_of_its_uid_is_left(tmp_path: Path) -> None:
    proc = get_sandbox("bwrap").start(make_bot(tmp_path, "fork_bomb"), FAST)
    assert proc.uid is not None
    _wait_for_processes(proc.uid, at_least=10)  # the bomb is going off: dozens of processes to kill
    proc.close_soon()
    deadline = time.monotonic() + 10
    while not wait_closed(0) and time.monotonic() < deadline:
        if _slot_is_free(proc.uid):
            assert not _processes_of(proc.uid), "the slot was freed while processes of its uid still ran"
    assert wait_closed(10)
    assert not _processes_of(proc.uid) and not _cgroups_of(proc.uid)
    assert _slot_is_free(proc.uid)


def test_the_result_comes_first_and_the_teardown_always_follows(pile: str, tmp_path: Path) -> None:
    token = f"{os.getpid()}.17"
    seats = [
        BotSeat("a", code_dir=make_bot(tmp_path / "a", "slow_uid")),
        BotSeat("b", code_dir=make_bot(tmp_path / "b", "daemon", TOKEN=token)),
    ]
    result = play_match(pile, seats, 1, limits=FAST)
    assert [seat.fault for seat in result.seats] == [None, None]
    uid = int(result.seats[0].stderr.split("UID ")[1].split()[0])
    assert wait_closed(10)
    # Once the background closer is done, nothing is left: no process, no cgroup, a free slot.
    assert not _processes_of(uid) and not _cgroups_of(uid) and _slot_is_free(uid)
    assert not [p for p in slot_uid_processes() if token in p[2]]


def test_pending_teardowns_finish_before_the_runner_exits(tmp_path: Path) -> None:
    code = make_bot(tmp_path, "slow_uid")
    script = (
        "import sys; from pathlib import Path; from games import registry; "
        "registry._ENGINES['parlour_test_pile'] = 'tests.bots.tinygame'; "
        "from bots.runner import play_match, BotSeat; from bots.sandbox import Limits; "
        "r = play_match('parlour_test_pile', [BotSeat('a', code_dir=Path(sys.argv[1])),"
        " BotSeat('b', builtin='random')], 1, limits=Limits(move_ms=5000));"
        " print(r.seats[0].stderr.split()[1], flush=True)"
    )
    done = subprocess.run([sys.executable, "-c", script, str(code)], cwd=REPO, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    uid = int(done.stdout.split()[0])
    # Checked at once, without waiting: the interpreter did not exit before its closer thread had finished.
    assert not _processes_of(uid) and not _cgroups_of(uid) and _slot_is_free(uid)


# ----- the idle throttle ---------------------------------------------------------------------------------------------
def _quota(proc: sandbox_module.BotProcess) -> int:
    assert proc._cgroups is not None
    return int((proc._cgroups.paths["cpu"] / "cpu.cfs_quota_us").read_text())


def test_a_resting_bot_is_throttled_only_after_the_idle_window(tmp_path: Path) -> None:
    proc = get_sandbox("bwrap").start(make_bot(tmp_path, "echo_start"), FAST)
    try:
        window = proc._cgroups.idle_window_s  # type: ignore[union-attr]
        assert window > 0 and _quota(proc) == -1
        now = time.monotonic()
        proc.rest(now)
        assert proc.throttle_if_rested(now) == pytest.approx(now + window)
        assert _quota(proc) == -1  # asked again within the window, it would cost no cgroup write at all
        assert proc.throttle_if_rested(now + window) is None
        assert _quota(proc) == round(window * 1e6)
        proc.wake()
        assert _quota(proc) == -1
        assert proc.throttle_if_rested() is None  # awake: nothing to throttle
    finally:
        proc.close()


def test_a_fast_match_needs_far_fewer_cgroup_writes_than_two_per_move(
    pile: str, bot: Callable[..., Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    writes: list[bool] = []
    real = Cgroups.set_throttled

    def counted(self: Cgroups, throttled: bool) -> None:
        writes.append(throttled)
        real(self, throttled)

    monkeypatch.setattr(Cgroups, "set_throttled", counted)
    seats = [BotSeat("a", code_dir=bot("echo_start")), BotSeat("b", code_dir=bot("ignore_end"))]
    result = play_match(pile, seats, 5, {"pile": 40}, limits=replace(FAST, move_ms=2000))
    assert [seat.fault for seat in result.seats] == [None, None]
    moves = sum(seat.moves for seat in result.seats)
    assert moves >= 10
    # The eager throttle wrote twice per move; lazily, only a bot left waiting longer than the window costs writes.
    assert len(writes) < moves, (len(writes), moves)


# ----- pre-started matches -------------------------------------------------------------------------------------------
def test_a_prepared_match_is_the_same_game_with_its_start_up_clock_from_the_start_message() -> None:
    seats = [BotSeat("a", code_dir=example_dir("love_letter")), BotSeat("b", code_dir=example_dir("love_letter"))]
    limits = replace(FAST, startup_ms=500)
    prepared = prepare_match("love_letter", seats, 7, limits=limits)
    time.sleep(0.8)  # the worker records the previous match; the bots wait for their start message meanwhile
    result = prepared.play()
    assert [seat.fault for seat in result.seats] == [None, None]  # waiting longer than startup_ms is not a fault
    assert all(seat.startup_ms is not None and seat.startup_ms < 500 for seat in result.seats)
    again = play_match("love_letter", seats, 7, limits=limits)
    assert [m["action"] for m in result.replay["moves"]] == [m["action"] for m in again.replay["moves"]]
    with pytest.raises(RuntimeError, match="already played"):
        prepared.play()


def test_a_prepared_match_can_be_discarded_without_leaving_anything(pile: str, tmp_path: Path) -> None:
    token = f"{os.getpid()}.23"
    seats = [BotSeat("daemon", code_dir=make_bot(tmp_path, "daemon", TOKEN=token)), RANDOM]
    with prepare_match(pile, seats, 1, limits=FAST):
        deadline = time.monotonic() + 10
        while not [p for p in slot_uid_processes() if token in p[2]]:  # started before any start message
            assert time.monotonic() < deadline
            time.sleep(0.02)
    assert wait_closed(10)
    assert not [p for p in slot_uid_processes() if token in p[2]]
