"""The sandbox, attacked by real hostile bots (tests/bots/hostile/). Every abuse is contained, the match completes
for the other seats, and the host is checked afterwards."""

from __future__ import annotations

import json
import os
import re
import secrets
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from bots import limits as limits_module
from bots.runner import BotSeat, MatchResult, play_match
from bots.sandbox import (
    BotSetupError,
    BwrapConfig,
    BwrapSandbox,
    Limits,
    SandboxError,
    get_sandbox,
    resolve_command,
)
from bots.sandbox import backends as sandbox_module
from bots.sandbox.cgroups import cgroup_bases as _cgroup_bases
from bots.sandbox.mounts import shareable_tree as _shareable_tree
from bots.seccomp import build_filter, denied_syscalls
from bots.selftest import self_test
from tests.bots.conftest import FAST, make_bot, requires_bwrap, slot_uid_processes

REPO = Path(__file__).resolve().parents[2]
RANDOM = BotSeat("builtin:random", builtin="random")
WRITE_PATHS_HOST = ["/x", "/etc/x", "/usr/x", "/usr/local/x"]


# ----- pure parts ------------------------------------------------------------------------------------------------
def test_limits_have_defaults_and_refuse_nonsense() -> None:
    limits = Limits()
    assert limits.move_ms > 0 and limits.memory_mb >= 256 and limits.pids >= 16
    with pytest.raises(ValueError, match="move_ms"):
        Limits(move_ms=0)
    with pytest.raises(ValueError, match="pids"):
        Limits(pids=-1)


def test_limits_can_be_overridden_per_game(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(limits_module.GAME_LIMITS, "love_letter", {"move_ms": 2500})
    assert Limits.for_game("love_letter").move_ms == 2500
    assert Limits.for_game("love_letter", bank_ms=7).bank_ms == 7
    assert Limits.for_game("unknown_game") == Limits()


def test_the_command_comes_from_bot_toml_or_main_py(tmp_path: Path) -> None:
    with pytest.raises(BotSetupError, match=r"neither main\.py nor bot\.toml"):
        resolve_command(tmp_path)
    (tmp_path / "main.py").write_text("")
    assert resolve_command(tmp_path).argv == ("/usr/bin/python3", "/bot/main.py")
    (tmp_path / "bot.toml").write_text('command = ["node", "main.js"]\n')
    assert resolve_command(tmp_path).argv == ("node", "main.js")
    assert not resolve_command(tmp_path).python
    (tmp_path / "bot.toml").write_text('command = ["python3", "-O", "bot.py"]\n')
    command = resolve_command(tmp_path)
    assert command.argv == ("/usr/bin/python3", "-O", "bot.py") and command.python
    for bad in ("command = []", 'command = "node main.js"', "command = [1]", "not toml ["):
        (tmp_path / "bot.toml").write_text(bad)
        with pytest.raises(BotSetupError, match=r"bot\.toml"):
            resolve_command(tmp_path)


@pytest.mark.parametrize("arch", ["x86_64", "aarch64"])
def test_the_seccomp_filter_assembles(arch: str) -> None:
    program = build_filter(arch)
    assert len(program) % 8 == 0 and 40 < len(program) // 8 < 255
    assert {"ptrace", "mount", "unshare", "setns", "bpf", "perf_event_open", "keyctl", "clone3"} <= set(
        denied_syscalls(arch)
    )


def test_an_unknown_backend_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown sandbox"):
        get_sandbox("docker")


def test_the_none_backend_runs_bots_but_warns(
    pile: str, bot: Callable[..., Path], caplog: pytest.LogCaptureFixture
) -> None:
    monkey_warned = sandbox_module.NoSandbox._warned
    sandbox_module.NoSandbox._warned = False
    try:
        result = play_match(pile, [BotSeat("echo", code_dir=bot("echo_start")), RANDOM], 1, sandbox="none", limits=FAST)
    finally:
        sandbox_module.NoSandbox._warned = monkey_warned
    assert result.seats[0].fault is None and result.seats[0].moves > 0
    assert "SANDBOX DISABLED" in caplog.text


# ----- isolation: two probe bots in one match --------------------------------------------------------------------
SECRET = "parlour-fake-secret-" + secrets.token_hex(8)


@pytest.fixture(scope="module")
def listener() -> Iterator[socket.socket]:
    server = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    server.bind(("127.0.0.1", 0))
    server.listen(8)
    server.setblocking(False)
    yield server
    server.close()


@pytest.fixture(scope="module")
def probed(
    pile_module: str, listener: socket.socket, tmp_path_factory: pytest.TempPathFactory
) -> tuple[MatchResult, list[dict[str, Any]], list[Path]]:
    if (problem := _skip_reason()) is not None:
        pytest.skip(problem)
    root = tmp_path_factory.mktemp("probes")
    port = str(listener.getsockname()[1])
    other_dirs = [root / "a" / "probe", root / "b" / "probe"]
    dirs = []
    for index in range(2):
        host_paths = [
            str(REPO / "league" / "settings.py"),
            str(REPO),
            "/run/parlour-sandbox",
            str(other_dirs[1 - index]),
            "/sys/fs/cgroup",
        ]
        write_paths = [str(other_dirs[1 - index] / "x"), "/proc/sys/kernel/hostname"]
        dirs.append(
            make_bot(
                root / "ab"[index],
                "probe",
                PORT=port,
                SECRET=SECRET,
                HOST_PATHS=json.dumps(host_paths).encode().hex(),
                WRITE_PATHS=json.dumps(write_paths).encode().hex(),
            )
        )
    os.environ["PARLOUR_FAKE_SECRET"] = SECRET
    try:
        seats = [BotSeat("probe-a", code_dir=dirs[0]), RANDOM, BotSeat("probe-b", code_dir=dirs[1])]
        result = play_match(pile_module, seats, 5, limits=replace(FAST, move_ms=2000))
    finally:
        del os.environ["PARLOUR_FAKE_SECRET"]
    reports = []
    for seat in (0, 2):
        lines = [line for line in result.seats[seat].stderr.splitlines() if line.startswith("PROBE ")]
        assert lines, (result.seats[seat].fault, result.seats[seat].stderr[-3000:])
        line = lines[0]
        reports.append(json.loads(line.removeprefix("PROBE ")))
    return result, reports, dirs


def _skip_reason() -> str | None:
    from tests.bots.conftest import _bwrap_problem

    return _bwrap_problem()


@requires_bwrap
def test_probe_bots_still_play_their_match(probed: tuple[MatchResult, list[dict[str, Any]], list[Path]]) -> None:
    result, _, _ = probed
    assert [seat.fault for seat in result.seats] == [None, None, None]


@requires_bwrap
def test_bots_run_as_distinct_unprivileged_uids(probed: tuple[MatchResult, list[dict[str, Any]], list[Path]]) -> None:
    _, reports, _ = probed
    config = BwrapConfig.from_env()
    uids = [report["uid"] for report in reports]
    assert all(config.uid_base <= uid < config.uid_base + config.slots for uid in uids)
    assert uids[0] != uids[1]
    for report in reports:
        assert report["euid"] == report["uid"] and report["gid"] == report["uid"] and report["groups"] == []
        assert report["setuid0"] != "ok"  # uid 0 is not even mapped in the bot's user namespace


@requires_bwrap
def test_bots_have_no_network(
    probed: tuple[MatchResult, list[dict[str, Any]], list[Path]], listener: socket.socket
) -> None:
    _, reports, _ = probed
    for report in reports:
        for key in ("inet", "inet6", "netlink", "connect_redis", "connect_listener"):
            assert "Address family not supported" in report[key], (key, report[key])
        assert report["unix"] == "ok"  # socketpair(AF_UNIX) is how some runtimes talk to themselves
    with pytest.raises(BlockingIOError):
        listener.accept()  # nobody connected


@requires_bwrap
def test_bots_cannot_read_host_files_secrets_or_each_other(
    probed: tuple[MatchResult, list[dict[str, Any]], list[Path]],
) -> None:
    _, reports, dirs = probed
    for index, report in enumerate(reports):
        assert "No such file" in report["read:/etc/shadow"]
        assert "No such file" in report["read:/root"]
        assert "No such file" in report[f"read:{REPO / 'league' / 'settings.py'}"]
        assert "No such file" in report[f"read:{REPO}"]
        assert "No such file" in report["read:/run/parlour-sandbox"]
        assert "No such file" in report["read:/sys/fs/cgroup"]
        assert "No such file" in report[f"read:{dirs[1 - index]}"]
        assert SECRET not in report["read:/proc/1/environ"] and SECRET not in report["read:/proc/self/environ"]
        assert report["env_secret"] is False
        # only the sandbox's own processes are visible (bwrap's init, the shell it exec'd into the bot)
        assert len(report["processes"]) <= 3


@requires_bwrap
def test_bots_can_write_only_their_private_tmp(probed: tuple[MatchResult, list[dict[str, Any]], list[Path]]) -> None:
    _, reports, dirs = probed
    for index, report in enumerate(reports):
        assert report["write:/tmp/x"] == "ok"
        for path in ("/x", "/bot/x", "/etc/x", "/usr/x", "/usr/local/x", "/parlour/x"):
            assert report[f"write:{path}"].startswith("OSError: [Errno 30] Read-only file system"), path
        assert report["write:/proc/sys/kernel/hostname"].startswith("PermissionError")
        assert "No such file" in report[f"write:{dirs[1 - index] / 'x'}"]
        assert re.match(r"stopped at \d+ MB: No space left on device", report["fill_tmp"]), report["fill_tmp"]
        assert FAST.tmp_mb - 2 <= int(report["fill_tmp"].split()[2]) <= FAST.tmp_mb
        assert report["big_file"] == "OSError: [Errno 27] File too large"  # RLIMIT_FSIZE
    for path in WRITE_PATHS_HOST:
        assert not Path(path).exists()
    for directory in dirs:
        assert sorted(p.name for p in directory.iterdir()) == ["main.py"]


@requires_bwrap
def test_ptrace_unshare_and_mount_are_refused(probed: tuple[MatchResult, list[dict[str, Any]], list[Path]]) -> None:
    _, reports, _ = probed
    for report in reports:
        assert report["ptrace_traceme"] == "EPERM"
        assert report["ptrace_attach_1"] == "EPERM"
        assert report["unshare_user"] == "EPERM"
        assert report["unshare_net"] == "EPERM"
        assert report["mount"] == "EPERM"


@requires_bwrap
def test_python_bots_have_numpy(probed: tuple[MatchResult, list[dict[str, Any]], list[Path]]) -> None:
    _, reports, _ = probed
    assert all(re.match(r"\d+\.\d+", report["numpy"]) for report in reports)


# ----- resource abuse --------------------------------------------------------------------------------------------
def _uid_from(stderr: str, pattern: str) -> int:
    match = re.search(pattern, stderr)
    assert match, stderr[-2000:]
    return int(match.group(1))


def _no_processes_of(uid: int, timeout_s: float = 3.0) -> bool:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if not [p for p in slot_uid_processes() if p[1] == uid]:
            return True
        time.sleep(0.05)
    return False


def _cgroups_removed(uid: int, timeout_s: float = 8.0) -> bool:
    prefix = f"parlour-slot-{uid - BwrapConfig.from_env().uid_base}-"
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        left = [entry for base in _cgroup_bases().values() for entry in os.listdir(base) if entry.startswith(prefix)]
        if not left:
            return True
        time.sleep(0.1)
    return False


@requires_bwrap
def test_a_fork_bomb_is_contained_and_cleaned_up(pile: str, bot: Callable[..., Path]) -> None:
    began = time.monotonic()
    result = play_match(
        pile, [BotSeat("bomb", code_dir=bot("fork_bomb")), RANDOM], 2, limits=replace(FAST, move_ms=3000)
    )
    assert time.monotonic() - began < 15
    stderr = result.seats[0].stderr
    assert "fork refused: Resource temporarily unavailable" in stderr, stderr[-2000:]
    assert result.seats[0].fault is None  # the main process still answered every move
    uid = _uid_from(stderr, r"BOMB uid=(\d+)")
    assert _no_processes_of(uid)
    assert _cgroups_removed(uid)


@requires_bwrap
def test_a_2_gb_allocation_fails(pile: str, bot: Callable[..., Path]) -> None:
    result = play_match(pile, [BotSeat("alloc", code_dir=bot("alloc")), RANDOM], 2, limits=FAST)
    assert "ALLOC MemoryError" in result.seats[0].stderr
    assert result.seats[0].fault is None


@requires_bwrap
def test_touching_more_memory_than_the_cgroup_allows_kills_the_bot(pile: str, bot: Callable[..., Path]) -> None:
    limits = replace(FAST, memory_mb=128, move_ms=5000)
    result = play_match(pile, [BotSeat("hog", code_dir=bot("memory_hog")), RANDOM], 2, limits=limits)
    fault = result.seats[0].fault
    assert fault is not None and fault.cause == "crash" and "out of memory" in fault.detail, fault
    assert _no_processes_of(_uid_from(result.seats[0].stderr, r"UID (\d+)"))


@requires_bwrap
def test_a_daemonised_grandchild_does_not_outlive_the_match(pile: str, bot: Callable[..., Path]) -> None:
    token = f"{secrets.randbelow(10**6) + 10**6}.{secrets.randbelow(1000)}"
    result = play_match(pile, [BotSeat("daemon", code_dir=bot("daemon", TOKEN=token)), RANDOM], 2, limits=FAST)
    assert result.seats[0].fault is None
    deadline = time.monotonic() + 3
    while time.monotonic() < deadline:
        alive = [p for p in slot_uid_processes() if token in p[2]]
        if not alive:
            break
        time.sleep(0.05)
    assert not alive


@requires_bwrap
def test_a_bot_gets_almost_no_cpu_while_others_think(pile: str, bot: Callable[..., Path]) -> None:
    seats = [BotSeat("ponder", code_dir=bot("ponder")), BotSeat("sleepy", code_dir=bot("sleepy", SLEEP_MS="150"))]
    result = play_match(pile, seats, 3, limits=replace(FAST, move_ms=1000))
    assert [seat.fault for seat in result.seats] == [None, None], result.seats[0].stderr
    idle = [tuple(map(int, re.findall(r"=(\d+)", line))) for line in result.seats[0].stderr.splitlines()]
    assert idle and all(wall >= 140 for _, wall in idle)
    # The pondering thread ran only during the bot's own moves (a fraction of a millisecond each), not for 150 ms.
    assert all(cpu < 40 for cpu, _ in idle), idle


@requires_bwrap
def test_an_infrastructure_failure_raises_sandbox_error(
    pile: str, bot: Callable[..., Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    broken = BwrapSandbox(BwrapConfig(state_dir=Path("/proc/parlour-cannot-be-here")))
    monkeypatch.setitem(sandbox_module._instances, "bwrap", broken)
    with pytest.raises(SandboxError, match="state directory"):
        play_match(pile, [BotSeat("x", code_dir=bot("echo_start")), RANDOM], 1, limits=FAST)


@requires_bwrap
def test_the_self_test_passes_here() -> None:
    assert self_test() == []


def test_only_trees_others_can_read_are_shared_without_a_copy() -> None:
    base = Path(tempfile.mkdtemp(prefix="parlour-shareable-"))  # under /tmp, which others can search
    try:
        base.chmod(0o755)
        shared = base / "shared"
        shared.mkdir(mode=0o755)
        (shared / "main.py").write_text("")
        (shared / "main.py").chmod(0o644)
        (shared / "link").symlink_to("/etc/shadow")  # resolved inside the sandbox, where there is no such file
        assert _shareable_tree(shared)
        (shared / "main.py").chmod(0o600)
        assert not _shareable_tree(shared)
        (shared / "main.py").chmod(0o4755)
        assert not _shareable_tree(shared)
        (shared / "main.py").chmod(0o644)
        os.mkfifo(shared / "pipe")
        assert not _shareable_tree(shared)
        (shared / "pipe").unlink()
        base.chmod(0o700)
        assert not _shareable_tree(shared)
    finally:
        shutil.rmtree(base)


@requires_bwrap
def test_a_bot_only_root_can_read_still_runs_from_a_private_copy(pile: str, tmp_path: Path) -> None:
    code = tmp_path / "secretive"
    code.mkdir(mode=0o700)
    (code / "main.py").write_text((Path(__file__).parent / "hostile" / "echo_start.py").read_text())
    (code / "main.py").chmod(0o600)
    assert not _shareable_tree(code)
    result = play_match(pile, [BotSeat("secretive", code_dir=code), RANDOM], 1, limits=FAST)
    assert result.seats[0].fault is None and result.seats[0].moves > 0
    assert (code / "main.py").stat().st_mode & 0o777 == 0o600  # the caller's files are left as they were


@requires_bwrap
def test_concurrent_matches_never_share_a_uid(pile: str, bot: Callable[..., Path]) -> None:
    from concurrent.futures import ThreadPoolExecutor

    code = bot("slow_uid")  # reports its uid; slow enough that the three matches overlap
    seats = [BotSeat("a", code_dir=code), BotSeat("b", code_dir=code)]
    with ThreadPoolExecutor(max_workers=3) as pool:
        results = list(pool.map(lambda seed: play_match(pile, seats, seed, limits=FAST), range(3)))
    uids = [_uid_from(seat.stderr, r"UID (\d+)") for result in results for seat in result.seats]
    assert all(seat.fault is None for result in results for seat in result.seats)
    assert len(set(uids)) == 6


@requires_bwrap
def test_bots_die_with_their_runner(tmp_path: Path) -> None:
    tokens = [f"{secrets.randbelow(10**6) + 10**6}.{index}" for index in range(2)]
    dirs = [make_bot(tmp_path / str(index), "sleeper", TOKEN=token) for index, token in enumerate(tokens)]
    script = (
        "import sys; from pathlib import Path; from games import registry; "
        "registry._ENGINES['parlour_test_pile'] = 'tests.bots.tinygame'; "
        "from bots.runner import play_match, BotSeat; from bots.sandbox import Limits; "
        "play_match('parlour_test_pile', [BotSeat('a', code_dir=Path(sys.argv[1])),"
        " BotSeat('b', code_dir=Path(sys.argv[2]))], 1, limits=Limits(move_ms=60000))"
    )
    runner = subprocess.Popen([sys.executable, "-c", script, *map(str, dirs)], cwd=REPO)
    try:
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline:
            running = [p for p in slot_uid_processes() if any(token in p[2] for token in tokens)]
            if len(running) == 2:
                break
            time.sleep(0.05)
        assert len(running) == 2, running  # one bot is thinking (hung), the other idle (throttled)
    finally:
        runner.kill()
        runner.wait()
    deadline = time.monotonic() + 3
    while time.monotonic() < deadline:
        running = [p for p in slot_uid_processes() if any(token in p[2] for token in tokens)]
        if not running:
            break
        time.sleep(0.05)
    assert not running
