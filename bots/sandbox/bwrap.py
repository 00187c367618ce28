"""Run an untrusted bot as an isolated process (see docs/sandbox.md).

Backends:

``bwrap`` (real isolation, needs root and Debian's ``bubblewrap``): each bot gets its own slot — an exclusive
``flock`` on ``<state dir>/slots/<n>.lock`` — and with it its own unprivileged uid (``uid_base + n``) and its own
memory/pids/cpuacct/cpu/freezer cgroups (v1). The process chain is::

    sh (root: joins the bot's cgroups)
      → setpriv (drops to the slot uid, clears groups, no_new_privs, then sets PDEATHSIG)
        → bwrap (new user/mount/pid/net/ipc/uts/cgroup namespaces, read-only runtime, seccomp filter)
          → sh (inside: rlimits, then prints the set-up marker on stdout)
            → the bot

``none`` (local development only): the bot runs as a plain child process with no isolation at all. It says so loudly.

Infrastructure failures raise ``SandboxError`` (the worker retries); a bot that cannot be run (no entry point, bad
``bot.toml``) raises ``BotSetupError`` (the runner records a ``startup`` fault).
"""

from __future__ import annotations

import atexit
import contextlib
import errno
import fcntl
import hashlib
import logging
import os
import random
import re
import secrets
import select
import shlex
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import threading
import time
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

from bots.limits import Limits
from bots.seccomp import build_filter

log = logging.getLogger("bots.sandbox")

SDK_DIR = Path(__file__).resolve().parent / "sdk"
SYSTEM_PYTHON = "/usr/bin/python3"
NODE = "/usr/bin/node"

NONE_WARNING = (
    "!!! SANDBOX DISABLED (--sandbox none): bots run as ordinary processes with YOUR user's rights, network and "
    "files. Use this only for your own bots during local development, never for code you did not write. !!!"
)

_F_SETPIPE_SZ = 1031
_PIPE_SIZE = 1 << 20


class SandboxError(RuntimeError):
    """The sandbox could not be set up or is unavailable. An infrastructure error: never the bot's fault."""


class BotSetupError(Exception):
    """The bot directory cannot be run (no entry point, bad ``bot.toml``): the bot's fault."""


# ----- what to run --------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class BotCommand:
    argv: tuple[str, ...]
    python: bool  # RLIMIT_AS applies to Python bots only


_PYTHON_NAME = re.compile(r"python3?(\.\d+)?$")


def resolve_command(code_dir: Path, python: str = SYSTEM_PYTHON, root: str = "/bot") -> BotCommand:
    """The command that runs the bot in ``code_dir``: ``bot.toml``'s ``command`` if present, else ``main.py``.

    ``root`` is where the code is seen by the bot (``/bot`` in the sandbox); relative commands run from there."""
    manifest = code_dir / "bot.toml"
    if manifest.is_file():
        try:
            data = tomllib.loads(manifest.read_text(encoding="utf-8"))
        except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
            raise BotSetupError(f"bot.toml is not valid TOML: {exc}") from None
        command = data.get("command")
        if (
            not isinstance(command, list)
            or not command
            or len(command) > 64
            or not all(isinstance(part, str) and part and "\0" not in part for part in command)
        ):
            raise BotSetupError('bot.toml needs command = ["program", "arg", ...] (a non-empty list of strings)')
        argv = list(command)
        if _PYTHON_NAME.match(os.path.basename(argv[0])):
            argv[0] = python
            return BotCommand(tuple(argv), python=True)
        return BotCommand(tuple(argv), python=False)
    if (code_dir / "main.py").is_file():
        return BotCommand((python, f"{root}/main.py"), python=True)
    raise BotSetupError("the bot has neither main.py nor bot.toml")


def _bot_environment(pythonpath: str, home: str) -> dict[str, str]:
    return {
        "PATH": "/usr/bin:/bin",
        "HOME": home,
        "TMPDIR": home,
        "LANG": "C.UTF-8",
        "PYTHONPATH": pythonpath,
        "PYTHONUNBUFFERED": "1",
        "PYTHONDONTWRITEBYTECODE": "1",
        # One core per bot: BLAS thread pools would only fight over the worker's cores.
        "OPENBLAS_NUM_THREADS": "1",
        "OMP_NUM_THREADS": "1",
        "MKL_NUM_THREADS": "1",
        "PARLOUR_BOT": "1",
    }


# ----- a running bot ------------------------------------------------------------------------------------------------
class BotProcess:
    """A started bot: non-blocking pipe fds for the runner's selector, a pidfd, CPU accounting and teardown."""

    def __init__(
        self,
        popen: subprocess.Popen[bytes],
        *,
        setup_marker: bytes | None = None,
        cgroups: _Cgroups | None = None,
        cleanup: list[Any] | None = None,
        uid: int | None = None,
    ) -> None:
        self.popen = popen
        self.uid = uid  # the slot uid the bot runs as (None: the caller's own, no sandbox)
        self.pid = popen.pid
        assert popen.stdin and popen.stdout and popen.stderr
        self.stdin_fd = popen.stdin.fileno()
        self.stdout_fd = popen.stdout.fileno()
        self.stderr_fd = popen.stderr.fileno()
        for fd in (self.stdin_fd, self.stdout_fd, self.stderr_fd):
            os.set_blocking(fd, False)
        for fd in (self.stdin_fd, self.stdout_fd):
            with contextlib.suppress(OSError):
                fcntl.fcntl(fd, _F_SETPIPE_SZ, _PIPE_SIZE)
        # The first stdout line of a sandboxed bot is this marker, printed inside the sandbox just before the bot's
        # own program starts: it proves the set-up worked, and nothing the bot writes can come before it.
        self.setup_marker = setup_marker
        self.pidfd: int | None = None
        with contextlib.suppress(AttributeError, OSError):
            self.pidfd = os.pidfd_open(self.pid)
        self._cgroups = cgroups
        self._cleanup = cleanup or []
        self._closed = False
        self._resting_since: float | None = None
        self._killed = False
        self.started_at = time.monotonic()

    def cpu_ms(self) -> float | None:
        """CPU time used so far by the whole process tree, or None where it cannot be measured."""
        return self._cgroups.cpu_ms() if self._cgroups else None

    def poll(self) -> int | None:
        return self.popen.poll()

    def throttle(self) -> None:
        """Hold the bot to ``Limits.idle_cpu_percent`` of a core until ``unthrottle`` (no-op without the cpu cgroup).

        Not the freezer: a frozen v1 task cannot even die, so a bot frozen when its worker dies would linger."""
        self._resting_since = None
        if self._cgroups:
            self._cgroups.set_throttled(True)

    def unthrottle(self) -> None:
        self._resting_since = None
        if self._cgroups:
            self._cgroups.set_throttled(False)

    # The runner's per-move policy: ``wake`` before a request, ``rest`` after the reply, and ``throttle_if_rested``
    # whenever it gets the chance (at least by the returned deadline). A bot is throttled only once it has rested
    # for ``idle_window_s`` — as long as the idle quota itself, so the bot gains at most that much CPU per core
    # over an eager throttle — and a bot asked again before then costs no cgroup write at all (see docs/sandbox.md).
    def wake(self) -> None:
        """About to ask the bot something: lift the idle quota if (and only if) it is in force."""
        self._resting_since = None
        if self._cgroups and self._cgroups.throttled:
            self._cgroups.set_throttled(False)

    def rest(self, now: float | None = None) -> None:
        """The bot answered: it is idle from ``now`` on, and is throttled ``idle_window_s`` later."""
        if self._cgroups and self._cgroups.can_throttle and not self._cgroups.throttled:
            self._resting_since = time.monotonic() if now is None else now

    def throttle_if_rested(self, now: float | None = None) -> float | None:
        """Throttle the bot if it has rested long enough; else the monotonic time at which it should be (or None)."""
        if self._resting_since is None or self._cgroups is None:
            return None
        due = self._resting_since + self._cgroups.idle_window_s
        if (time.monotonic() if now is None else now) < due:
            return due
        self.throttle()
        return None

    def memory_exhausted(self) -> bool:
        return bool(self._cgroups and self._cgroups.oom_events())

    def kill(self, *, cgroup: bool = True) -> None:
        """Start killing the whole process tree (does not wait).

        ``cgroup=False`` only signals the sandbox's outer process (~0.05 ms instead of ~0.5 ms for the freezer's
        round): the kernel then takes the rest down (PDEATHSIG on bwrap's init, then its pid namespace), and ``close``
        still sweeps the cgroup before the slot is freed. For the end of a match, where nothing waits on the corpses."""
        self._killed = True
        if self._cgroups and cgroup:
            self._cgroups.kill_all(wait=False)
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.pid, signal.SIGKILL)
        with contextlib.suppress(ProcessLookupError):
            self.popen.kill()

    def close_soon(self) -> None:
        """Kill the tree now; reap it and clean up (``close``) on a background thread, off the caller's critical path.

        The slot lock is released by ``close`` only once the cgroup is empty, so its uid is never reused while a
        process of this bot may still run. ``wait_closed`` waits for every pending close."""
        if not self._killed:
            self.kill()
        _close_later(self)

    def close(self) -> None:
        """Kill the tree, reap it, close every fd and remove the cgroups, work directory and slot lock."""
        if self._closed:
            return
        self._closed = True
        self.kill()
        if self.pidfd is not None and self.popen.returncode is None:
            select.select([self.pidfd], [], [], 5)  # woken the moment it exits (Popen.wait(timeout) polls)
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.popen.wait(timeout=5)
        if self._cgroups:
            self._cgroups.kill_all(wait=True)
            self._cgroups.remove()
        for pipe in (self.popen.stdin, self.popen.stdout, self.popen.stderr):
            with contextlib.suppress(OSError):
                pipe.close()  # type: ignore[union-attr]
        if self.pidfd is not None:
            os.close(self.pidfd)
        for item in reversed(self._cleanup):
            with contextlib.suppress(Exception):
                item()


# ----- backends -----------------------------------------------------------------------------------------------------
class Sandbox:
    name: ClassVar[str] = ""

    def start(self, code_dir: Path, limits: Limits) -> BotProcess:
        """Start the bot in ``code_dir``. Raises ``BotSetupError`` (bot's fault) or ``SandboxError`` (ours)."""
        raise NotImplementedError

    def check(self) -> None:
        """Raise ``SandboxError`` saying what is missing and how to install it, if this backend cannot run."""


class NoSandbox(Sandbox):
    """No isolation: for developing your own bot on your own machine."""

    name = "none"
    _warned = False

    def start(self, code_dir: Path, limits: Limits) -> BotProcess:
        if not NoSandbox._warned:
            log.warning(NONE_WARNING)
            NoSandbox._warned = True
        code_dir = Path(code_dir).resolve()
        command = resolve_command(code_dir, python=sys.executable, root=str(code_dir))
        # parlour_sdk must be importable by that name: a temporary directory with a link to bots/sdk.
        sdk_parent = Path(tempfile.mkdtemp(prefix="parlour-sdk-"))
        (sdk_parent / "parlour_sdk").symlink_to(SDK_DIR, target_is_directory=True)
        env = _bot_environment(str(sdk_parent), os.environ.get("HOME", "/tmp"))
        env["PATH"] = os.environ.get("PATH", env["PATH"])
        try:
            popen = subprocess.Popen(
                list(command.argv),
                cwd=code_dir,
                env=env,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                start_new_session=True,
            )
        except OSError as exc:
            shutil.rmtree(sdk_parent, ignore_errors=True)
            raise BotSetupError(f"cannot start {command.argv[0]}: {exc.strerror}") from None
        return BotProcess(popen, cleanup=[lambda: shutil.rmtree(sdk_parent, ignore_errors=True)])


@dataclass(frozen=True)
class BwrapConfig:
    """Where the bwrap backend keeps its state, and the uids it may use. Read from the environment by default."""

    state_dir: Path = Path("/run/parlour-sandbox")
    uid_base: int = 61000
    slots: int = 256
    require_cgroups: bool = True

    @classmethod
    def from_env(cls) -> BwrapConfig:
        def integer(name: str, default: int) -> int:
            raw = os.environ.get(name)
            if raw is None:
                return default
            try:
                value = int(raw)
            except ValueError:
                raise SandboxError(f"{name} must be an integer, got {raw!r}") from None
            if value <= 0:
                raise SandboxError(f"{name} must be positive, got {raw!r}")
            return value

        raw_cg = os.environ.get("PARLOUR_SANDBOX_REQUIRE_CGROUPS", "1").strip().lower()
        if raw_cg not in {"0", "1", "true", "false", "yes", "no"}:
            raise SandboxError(f"PARLOUR_SANDBOX_REQUIRE_CGROUPS must be 0 or 1, got {raw_cg!r}")
        return cls(
            state_dir=Path(os.environ.get("PARLOUR_SANDBOX_DIR", str(cls.state_dir))),
            uid_base=integer("PARLOUR_SANDBOX_UID_BASE", cls.uid_base),
            slots=integer("PARLOUR_SANDBOX_SLOTS", cls.slots),
            require_cgroups=raw_cg in {"1", "true", "yes"},
        )


class BwrapSandbox(Sandbox):
    """Real isolation with bubblewrap, a per-slot uid, seccomp, cgroups v1 and rlimits."""

    name = "bwrap"

    def __init__(self, config: BwrapConfig | None = None) -> None:
        self.config = config or BwrapConfig.from_env()
        self._filter: bytes | None = None
        self._checked = False
        self._sdk: Path | None = None  # the SDK with its bytecode, made by check()

    # -- availability --
    def check(self) -> None:
        if self._checked:
            return
        problems = []
        if not sys.platform.startswith("linux"):
            problems.append("the bwrap sandbox needs Linux")
        if os.geteuid() != 0:
            problems.append("the bwrap sandbox must be started as root (it switches each bot to its own uid)")
        for tool, package in (("bwrap", "bubblewrap"), ("setpriv", "util-linux"), ("sh", "dash")):
            if shutil.which(tool, path="/usr/bin:/bin") is None:
                problems.append(f"{tool} is missing: apt-get install {package}")
        if not os.access(SYSTEM_PYTHON, os.X_OK):
            problems.append(f"{SYSTEM_PYTHON} is missing: apt-get install python3 python3-numpy")
        try:
            self._filter = build_filter()
        except Exception as exc:
            problems.append(f"cannot build the seccomp filter: {exc}")
        if self.config.require_cgroups:
            try:
                _cgroup_bases()
            except SandboxError as exc:
                problems.append(
                    f"{exc} (set PARLOUR_SANDBOX_REQUIRE_CGROUPS=0 to run without memory/pids cgroups, "
                    "relying on rlimits only)"
                )
        if problems:
            raise SandboxError("the bwrap sandbox is unavailable: " + "; ".join(problems))
        self._checked = True
        with contextlib.suppress(OSError, SandboxError):
            _Slot.prepare(self.config)
            _Slot.sweep_all(self.config)
        self._sdk = _compiled_sdk(self.config)

    # -- start a bot --
    def start(self, code_dir: Path, limits: Limits) -> BotProcess:
        self.check()
        code_dir = Path(code_dir).resolve()  # bwrap runs from /
        command = resolve_command(code_dir)
        cleanup: list[Any] = []
        try:
            slot = _Slot.acquire(self.config)
            cleanup.append(slot.release)
            mounts = _Mounts(code=code_dir, sdk=self._sdk or SDK_DIR, etc=slot.etc_dir())
            share_code, share_sdk = _shareable_tree(code_dir), self._sdk is not None or _shareable_tree(SDK_DIR)
            if not (share_code and share_sdk):
                # Something the slot uid could not read (or should not see as it is): give it a private copy.
                work = slot.make_work_dir()
                cleanup.append(lambda: shutil.rmtree(work, ignore_errors=True))
                if not share_code:
                    mounts.code = work / "bot"
                    _copy_tree(code_dir, mounts.code)
                if not share_sdk:
                    mounts.sdk = work / "parlour_sdk"
                    _copy_tree(SDK_DIR, mounts.sdk)
            cgroups = None
            try:
                cgroups = _Cgroups.create(slot, limits)
            except SandboxError:
                if self.config.require_cgroups:
                    raise
                log.warning("running bot without cgroups (PARLOUR_SANDBOX_REQUIRE_CGROUPS=0)")
            if cgroups:
                cleanup.append(cgroups.remove)
            return self._spawn(command, limits, slot, mounts, cgroups, cleanup)
        except BaseException:
            for item in reversed(cleanup):
                with contextlib.suppress(Exception):
                    item()
            raise

    def _spawn(
        self,
        command: BotCommand,
        limits: Limits,
        slot: _Slot,
        mounts: _Mounts,
        cgroups: _Cgroups | None,
        cleanup: list[Any],
    ) -> BotProcess:
        assert self._filter is not None
        marker = f"parlour-sandbox-ready {secrets.token_hex(8)}"
        seccomp_read, seccomp_write = os.pipe()
        try:
            os.write(seccomp_write, self._filter)  # a few hundred bytes: fits in the pipe buffer
            os.close(seccomp_write)
            seccomp_write = -1
            argv = [
                "/bin/sh",
                "-c",
                _OUTER_SCRIPT,
                "parlour-sandbox",
                *(cgroups.procs_files() if cgroups else []),
                "--",
                "/usr/bin/setpriv",
                f"--reuid={slot.uid}",
                f"--regid={slot.uid}",
                "--clear-groups",
                "--no-new-privs",
                "--pdeathsig=KILL",  # set by setpriv after the uid switch (setuid clears PDEATHSIG)
                "--",
                *self._bwrap_args(limits, mounts, seccomp_read),
                "--",
                "/bin/sh",
                "-c",
                _inner_script(limits, command.python, marker),
                "parlour-bot",
                *command.argv,
            ]
            popen = subprocess.Popen(
                argv,
                # bwrap itself stays readable as /proc/1/environ inside: give it nothing worth reading.
                env={"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"},
                cwd="/",
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                pass_fds=(seccomp_read,),
                start_new_session=True,
            )
        except OSError as exc:
            raise SandboxError(f"cannot start the sandbox: {exc}") from exc
        finally:
            os.close(seccomp_read)
            if seccomp_write >= 0:
                os.close(seccomp_write)
        return BotProcess(popen, setup_marker=marker.encode(), cgroups=cgroups, cleanup=cleanup, uid=slot.uid)

    def _bwrap_args(self, limits: Limits, mounts: _Mounts, seccomp_fd: int) -> list[str]:
        args = [
            "/usr/bin/bwrap",
            "--unshare-all",
            "--unshare-user",
            "--disable-userns",
            "--die-with-parent",
            "--new-session",
            "--hostname",
            "parlour",
            "--clearenv",
        ]
        for key, value in _bot_environment("/parlour", "/tmp").items():
            args += ["--setenv", key, value]
        args += ["--ro-bind", "/usr", "/usr", "--tmpfs", "/usr/local", "--remount-ro", "/usr/local"]
        for top in ("/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"):
            if os.path.islink(top):
                args += ["--symlink", os.readlink(top), top]
            elif os.path.isdir(top):
                args += ["--ro-bind", top, top]
        for path in _ETC_FILES:
            args += ["--ro-bind-try", path, path]
        args += [
            "--ro-bind", str(mounts.etc / "passwd"), "/etc/passwd",
            "--ro-bind", str(mounts.etc / "group"), "/etc/group",
            "--proc", "/proc",
            "--dev", "/dev",
            "--size", str(limits.tmp_mb * 1024 * 1024), "--tmpfs", "/tmp",
            "--ro-bind", str(mounts.code), "/bot",
            "--ro-bind", str(mounts.sdk), "/parlour/parlour_sdk",
            "--remount-ro", "/",
            "--chdir", "/bot",
            "--seccomp", str(seccomp_fd),
        ]  # fmt: skip
        return args


# Only what the runtimes need from /etc (the dynamic loader's cache, Debian's alternatives used by BLAS, time zone).
_ETC_FILES = ("/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/ld.so.conf.d", "/etc/alternatives", "/etc/localtime")

# Outer (root): join each cgroup given before "--", then exec the rest (setpriv ... bwrap ...).
_OUTER_SCRIPT = (
    'while [ "$#" -gt 0 ] && [ "$1" != "--" ]; do '
    'echo "$$" > "$1" || { echo "parlour-sandbox: cannot join cgroup $1" >&2; exit 125; }; shift; done; '
    'shift; exec "$@"'
)


def _inner_script(limits: Limits, python: bool, marker: str) -> str:
    # Inside the sandbox, as the slot uid: set the rlimits (hard and soft), announce that the set-up worked, then
    # become the bot. dash's ulimit takes one resource per call; -f is in 512-byte blocks, -v in KiB.
    ulimits = [
        "ulimit -c 0",
        f"ulimit -f {limits.file_size_mb * 2048}",
        f"ulimit -n {limits.open_files}",
        f"ulimit -t {limits.cpu_s}",
        f"ulimit -p {limits.pids + 8}",
    ]
    if python:
        ulimits.append(f"ulimit -v {limits.address_space_mb * 1024}")
    return " && ".join([*ulimits, f"echo {shlex.quote(marker)}", 'exec "$@"']) + " || exit 125"


# ----- the SDK, compiled ahead -----------------------------------------------------------------------------------
def _compiled_sdk(config: BwrapConfig) -> Path | None:
    """A copy of the SDK with its bytecode, compiled by the bots' own Python, once per machine and SDK version.

    Bots cannot write bytecode (``PYTHONDONTWRITEBYTECODE``, and the SDK is read-only), so without this every bot that
    imports the SDK compiles it again at start-up. The copy is made world-readable under the state directory; None
    (use the SDK as it is) if that fails."""
    try:
        sources = sorted(SDK_DIR.glob("*.py"))
        digest = hashlib.sha256()
        for source in sources:
            digest.update(source.name.encode() + b"\0" + source.read_bytes() + b"\0")
        parent = config.state_dir / "sdk"
        target = parent / digest.hexdigest()[:16]
        if (target / "__pycache__").is_dir():
            return target
        _ensure_dir(parent, 0o711)
        building = Path(tempfile.mkdtemp(prefix=".building-", dir=parent))
        try:
            building.chmod(0o755)
            for source in sources:
                shutil.copy2(source, building / source.name)  # keeps the mtime the bytecode is checked against
                (building / source.name).chmod(0o644)
            subprocess.run(
                [SYSTEM_PYTHON, "-m", "compileall", "-q", str(building)],
                env={"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"},
                check=True,
                capture_output=True,
                timeout=60,
            )
            for path in building.rglob("*"):
                path.chmod(0o755 if path.is_dir() else 0o644)
            try:
                building.rename(target)
            except OSError:  # another worker made it first
                shutil.rmtree(building, ignore_errors=True)
        except BaseException:
            shutil.rmtree(building, ignore_errors=True)
            raise
        return target if (target / "__pycache__").is_dir() else None
    except (OSError, subprocess.SubprocessError) as exc:
        log.warning("bots will compile the SDK at each start-up: cannot prepare its bytecode: %s", exc)
        return None


# ----- slots: one uid per concurrent bot -----------------------------------------------------------------------------
class _Slot:
    def __init__(self, config: BwrapConfig, index: int, fd: int) -> None:
        self.config = config
        self.index = index
        self.uid = config.uid_base + index
        self.name = f"parlour-slot-{index}"
        self._fd: int | None = fd

    @staticmethod
    def prepare(config: BwrapConfig) -> None:
        try:
            _ensure_dir(config.state_dir, 0o711)
            _ensure_dir(config.state_dir / "slots", 0o700)
            _ensure_dir(config.state_dir / "work", 0o711)
        except OSError as exc:
            raise SandboxError(f"cannot create the sandbox state directory {config.state_dir}: {exc}") from exc

    @classmethod
    def acquire(cls, config: BwrapConfig) -> _Slot:
        cls.prepare(config)
        start = random.randrange(config.slots)
        for step in range(config.slots):
            slot = cls.try_take(config, (start + step) % config.slots)
            if slot is not None:
                return slot
        raise SandboxError(f"all {config.slots} sandbox slots are busy (PARLOUR_SANDBOX_SLOTS)")

    @classmethod
    def try_take(cls, config: BwrapConfig, index: int) -> _Slot | None:
        """The slot ``index`` if no one holds it (swept clean of anything a dead runner left), else None."""
        fd = os.open(config.state_dir / "slots" / f"{index}.lock", os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
        try:
            # flock (not lockf): it also excludes other threads and fds of this very process.
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            return None
        slot = cls(config, index, fd)
        slot._sweep()
        return slot

    @classmethod
    def sweep_all(cls, config: BwrapConfig) -> None:
        """Clean every slot that has leftovers (cgroups, maybe with processes) but no holder: a runner died."""
        indexes: set[int] = set()
        with contextlib.suppress(SandboxError):
            for base in _cgroup_bases().values():
                with contextlib.suppress(OSError):
                    for entry in os.scandir(base):
                        found = _SLOT_CGROUP.match(entry.name)
                        if found and int(found.group(1)) < config.slots:
                            indexes.add(int(found.group(1)))
        for index in sorted(indexes):
            with contextlib.suppress(OSError):
                slot = cls.try_take(config, index)
                if slot is not None:
                    slot.release()

    def _sweep(self) -> None:
        """Remove what a crashed runner may have left for this slot: cgroups (and their processes), work dirs."""
        prefix = self.name + "-"
        with contextlib.suppress(OSError):
            for entry in os.scandir(self.config.state_dir / "work"):
                if entry.name.startswith(prefix):
                    shutil.rmtree(entry.path, ignore_errors=True)
        stale: dict[str, dict[str, Path]] = {}
        with contextlib.suppress(SandboxError):
            for controller, base in _cgroup_bases().items():
                with contextlib.suppress(OSError):
                    for entry in os.scandir(base):
                        if entry.is_dir() and entry.name.startswith(prefix):
                            stale.setdefault(entry.name, {})[controller] = Path(entry.path)
        for paths in stale.values():
            group = _Cgroups(paths)  # all controllers at once: the freezer's thaw lets the others' kills land
            group.kill_all(wait=True)
            group.remove()

    def etc_dir(self) -> Path:
        """passwd and group files naming the slot uid (so getpwuid() and os.userInfo() work), made once per slot."""
        path = self.config.state_dir / "etc" / str(self.index)
        if not (path / "group").exists():
            _ensure_dir(self.config.state_dir / "etc", 0o711)
            _ensure_dir(path, 0o755)
            for name, text in (
                ("passwd", f"bot:x:{self.uid}:{self.uid}:parlour bot:/tmp:/usr/sbin/nologin\n"),
                ("group", f"bot:x:{self.uid}:\n"),
            ):
                temporary = path / f".{name}.tmp"
                temporary.write_text(text)
                temporary.chmod(0o644)
                temporary.replace(path / name)
        return path

    def make_work_dir(self) -> Path:
        path = self.config.state_dir / "work" / f"{self.name}-{secrets.token_hex(6)}"
        path.mkdir(mode=0o755)
        path.chmod(0o755)  # readable by the slot uid (bwrap resolves the binds as that uid)
        return path

    def release(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None


_SLOT_CGROUP = re.compile(r"parlour-slot-(\d+)-[0-9a-f]+$")


def _ensure_dir(path: Path, mode: int) -> None:
    try:
        path.mkdir(mode=mode, parents=True)
        path.chmod(mode)
    except FileExistsError:
        pass


@dataclass
class _Mounts:
    code: Path  # bound read-only at /bot
    sdk: Path  # bound read-only at /parlour/parlour_sdk
    etc: Path  # passwd and group


_SHAREABLE_MAX_ENTRIES = 2000


def _shareable_tree(root: Path) -> bool:
    """True if ``root`` can be bound into the sandbox as it is: every ancestor searchable by others, and below it only
    directories (others: r-x), regular files (others: r--) and symlinks (resolved inside the sandbox, so harmless).
    Otherwise the bot gets a copy. Uploads unpacked by bots.packaging qualify: no copy, no cost."""
    try:
        root = root.resolve(strict=True)
        for parent in root.parents:
            if not os.stat(parent).st_mode & 0o001:
                return False
        entries = 0
        for current, dirs, files in os.walk(root):
            mode = os.lstat(current).st_mode
            if not stat.S_ISDIR(mode) or mode & 0o005 != 0o005:
                return False
            for name in files + [d for d in dirs if os.path.islink(os.path.join(current, d))]:
                entries += 1
                mode = os.lstat(os.path.join(current, name)).st_mode
                if stat.S_ISLNK(mode):
                    continue
                if not stat.S_ISREG(mode) or not mode & 0o004 or mode & (stat.S_ISUID | stat.S_ISGID):
                    return False
            entries += len(dirs)
            if entries > _SHAREABLE_MAX_ENTRIES:
                return False
    except OSError:
        return False
    return True


def _copy_tree(src: Path, dst: Path) -> None:
    """Copy a bot's files so the slot uid can read (not write) them: regular files, directories and symlinks only.

    Symlinks are copied as links: inside the sandbox they can only point at what the sandbox shows."""
    dst.mkdir(mode=0o755, parents=True)
    dst.chmod(0o755)
    for root, dirs, files in os.walk(src):
        rel = os.path.relpath(root, src)
        target_root = dst if rel == "." else dst / rel
        for name in dirs + files:
            source = os.path.join(root, name)
            target = target_root / name
            st = os.lstat(source)
            if stat.S_ISLNK(st.st_mode):
                target.symlink_to(os.readlink(source))
            elif stat.S_ISDIR(st.st_mode):
                target.mkdir(mode=0o755)
                target.chmod(0o755)
            elif stat.S_ISREG(st.st_mode) and name != "__pycache__":
                shutil.copyfile(source, target, follow_symlinks=False)
                target.chmod(0o755 if st.st_mode & 0o111 else 0o644)
        dirs[:] = [d for d in dirs if not os.path.islink(os.path.join(root, d))]


# ----- cgroups (v1) -------------------------------------------------------------------------------------------------
_CONTROLLERS_REQUIRED = ("memory", "pids")
_CONTROLLERS_OPTIONAL = ("cpuacct", "cpu", "freezer")
_bases_lock = threading.Lock()
_bases_cache: dict[str, Path] | None = None


def _cgroup_bases() -> dict[str, Path]:
    """For each controller, the runner's own cgroup directory: bots' cgroups are created inside it, so whatever
    bounds the worker (a systemd unit, a container) still bounds its bots, and nothing is left outside it."""
    global _bases_cache
    with _bases_lock:
        if _bases_cache is not None:
            return _bases_cache
        own: dict[str, str] = {}
        try:
            for line in Path("/proc/self/cgroup").read_text().splitlines():
                _, controllers, path = line.split(":", 2)
                for controller in controllers.split(","):
                    own[controller] = path
        except OSError as exc:
            raise SandboxError(f"cannot read /proc/self/cgroup: {exc}") from exc
        bases: dict[str, Path] = {}
        for controller in _CONTROLLERS_REQUIRED + _CONTROLLERS_OPTIONAL:
            mount = Path("/sys/fs/cgroup") / controller
            if controller not in own or not (mount / "cgroup.procs").exists():
                if controller in _CONTROLLERS_REQUIRED:
                    raise SandboxError(
                        f"the cgroup v1 {controller} controller is not mounted at {mount} "
                        "(cgroup v2-only hosts are not supported yet)"
                    )
                continue
            base = mount / own[controller].lstrip("/")
            if not os.access(base, os.W_OK):
                raise SandboxError(f"cannot create cgroups under {base} (run as root)")
            bases[controller] = base
        _bases_cache = bases
        return bases


class _Cgroups:
    """One bot's cgroups, one directory per controller."""

    def __init__(self, paths: dict[str, Path]) -> None:
        self.paths = paths
        self._cpu_fd: int | None = None
        self._quota_fd: int | None = None
        self._idle_quota = b"-1"
        self.throttled = False  # what cpu.cfs_quota_us says: a new cgroup is unthrottled
        self.idle_window_s = 0.0

    @classmethod
    def create(cls, slot: _Slot, limits: Limits) -> _Cgroups:
        bases = _cgroup_bases()
        name = f"{slot.name}-{secrets.token_hex(6)}"
        group = cls({})
        try:
            made: dict[Path, Path] = {}
            for controller, base in bases.items():
                real = base.resolve()  # e.g. cpu and cpuacct mounted together as cpu,cpuacct
                if real not in made:
                    made[real] = real / name
                    made[real].mkdir()
                group.paths[controller] = made[real]
            memory = group.paths["memory"]
            limit = str(limits.memory_mb * 1024 * 1024)
            _write(memory / "memory.limit_in_bytes", limit)
            if (memory / "memory.memsw.limit_in_bytes").exists():
                _write(memory / "memory.memsw.limit_in_bytes", limit)  # RAM + swap = RAM: no swapping
            _write(group.paths["pids"] / "pids.max", str(limits.pids + 8))  # + sh, setpriv/bwrap and its monitor
            if "cpuacct" in group.paths:
                group._cpu_fd = os.open(group.paths["cpuacct"] / "cpuacct.usage", os.O_RDONLY | os.O_CLOEXEC)
            if "cpu" in group.paths and limits.idle_cpu_percent < 100:
                cpu = group.paths["cpu"]
                period = int((cpu / "cpu.cfs_period_us").read_text())
                quota_us = max(1000, int(period * limits.idle_cpu_percent / 100))
                group._idle_quota = str(quota_us).encode()
                group.idle_window_s = quota_us / 1e6
                group._quota_fd = os.open(cpu / "cpu.cfs_quota_us", os.O_WRONLY | os.O_CLOEXEC)
        except OSError as exc:
            group.remove()
            raise SandboxError(f"cannot set up cgroups for a bot: {exc}") from exc
        return group

    def procs_files(self) -> list[str]:
        return [str(path / "cgroup.procs") for path in dict.fromkeys(self.paths.values())]

    def cpu_ms(self) -> float | None:
        if self._cpu_fd is None:
            return None
        try:
            return int(os.pread(self._cpu_fd, 64, 0)) / 1e6
        except (OSError, ValueError):
            return None

    def oom_events(self) -> int:
        try:
            text = (self.paths["memory"] / "memory.oom_control").read_text()
        except (OSError, KeyError):
            return 0
        for line in text.splitlines():
            key, _, value = line.partition(" ")
            if key == "oom_kill":
                return int(value)
        return 0

    def _tasks(self) -> list[int]:
        for controller in ("pids", "memory", "freezer", "cpuacct"):
            path = self.paths.get(controller)
            if path is not None:
                try:
                    return [int(pid) for pid in (path / "cgroup.procs").read_text().split()]
                except OSError:
                    continue
        return []

    @property
    def can_throttle(self) -> bool:
        return self._quota_fd is not None

    def set_throttled(self, throttled: bool) -> None:
        if self._quota_fd is None:
            return
        with contextlib.suppress(OSError):
            os.pwrite(self._quota_fd, self._idle_quota if throttled else b"-1", 0)
            self.throttled = throttled

    def kill_all(self, wait: bool) -> None:
        """SIGKILL every process in the group. With the freezer, the group is frozen first so that nothing can fork
        between reading the list and the kill; without it, the pids limit bounds the loop."""
        freezer = self.paths.get("freezer")
        if freezer is not None:
            with contextlib.suppress(OSError):
                _write(freezer / "freezer.state", "FROZEN")
        delay = 0.0005
        deadline = time.monotonic() + 5
        while True:
            tasks = self._tasks()
            for pid in tasks:
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.kill(pid, signal.SIGKILL)
            if freezer is not None:
                with contextlib.suppress(OSError):
                    _write(freezer / "freezer.state", "THAWED")  # SIGKILL is delivered once thawed
            if not tasks or not wait or time.monotonic() > deadline:
                return
            time.sleep(delay)
            delay = min(delay * 2, 0.02)

    def remove(self) -> None:
        for fd in (self._cpu_fd, self._quota_fd):
            if fd is not None:
                os.close(fd)
        self._cpu_fd = self._quota_fd = None
        for path in dict.fromkeys(self.paths.values()):
            _remove_cgroup(path)
        self.paths = {}


def _write(path: Path, value: str) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_CLOEXEC)
    try:
        os.write(fd, value.encode())
    finally:
        os.close(fd)


# A just-emptied cgroup can refuse rmdir with EBUSY for a while: retry in the background, and once more at exit.
_pending_lock = threading.Lock()
_pending: list[tuple[Path, float]] = []
_reaper: threading.Thread | None = None


def _remove_cgroup(path: Path) -> None:
    try:
        path.rmdir()
    except FileNotFoundError:
        pass
    except OSError as exc:
        if exc.errno not in (errno.EBUSY, errno.ENOTEMPTY):
            log.warning("cannot remove cgroup %s: %s", path, exc)
            return
        global _reaper
        with _pending_lock:
            _pending.append((path, time.monotonic() + 30))
            if _reaper is None or not _reaper.is_alive():
                _reaper = threading.Thread(target=_reap_pending, name="parlour-cgroup-reaper", daemon=True)
                _reaper.start()


def _reap_pending(final: bool = False) -> None:
    while True:
        with _pending_lock:
            if not _pending:
                return
            items = list(_pending)
        still: list[tuple[Path, float]] = []
        for path, give_up in items:
            try:
                path.rmdir()
            except FileNotFoundError:
                pass
            except OSError as exc:
                if time.monotonic() < give_up:
                    still.append((path, give_up))
                else:
                    log.warning("giving up removing cgroup %s: %s", path, exc)
        with _pending_lock:
            _pending[:] = still + [item for item in _pending if item not in items]
            if not _pending:
                return
        if final and time.monotonic() > _final_deadline:
            return
        time.sleep(0.1)


_final_deadline = 0.0


@atexit.register
def _reap_at_exit() -> None:
    global _final_deadline
    _final_deadline = time.monotonic() + 5
    _reap_pending(final=True)


# ----- closing in the background -----------------------------------------------------------------------------------
# A match's result must not wait for its bots' teardown (reaping, cgroup removal: milliseconds per bot). The trees are
# killed at once by ``BotProcess.close_soon``; one long-lived thread does the rest (started once: starting a thread
# per match would wait for it to be scheduled, milliseconds on a busy worker). It is a daemon so that it never holds
# the interpreter up by itself, and an exit hook waits for the pending closes instead. A process that dies without
# exiting normally leaves at most empty cgroups, which the next start-up on the machine sweeps (``_Slot.sweep_all``),
# as after a crash.
_closing_lock = threading.Condition()
_closing: list[BotProcess] = []
_closing_count = 0
_closer: threading.Thread | None = None


def _close_later(proc: BotProcess) -> None:
    global _closer, _closing_count
    with _closing_lock:
        _closing.append(proc)
        _closing_count += 1
        if _closer is None:
            _closer = threading.Thread(target=_close_pending, name="parlour-bot-closer", daemon=True)
            _closer.start()
        _closing_lock.notify_all()


def _close_pending() -> None:
    global _closing_count
    while True:
        with _closing_lock:
            _closing_lock.wait_for(lambda: bool(_closing))
            proc = _closing.pop(0)
        try:
            proc.close()
        except Exception:
            log.exception("closing a bot process failed")
        finally:
            with _closing_lock:
                _closing_count -= 1
                _closing_lock.notify_all()


def wait_closed(timeout: float | None = None) -> bool:
    """Wait until every bot handed to ``BotProcess.close_soon`` is reaped and cleaned up; False on timeout."""
    with _closing_lock:
        return _closing_lock.wait_for(lambda: _closing_count == 0, timeout)


@atexit.register  # registered after _reap_at_exit, so it runs before it: the cgroups it leaves are then retried
def _close_at_exit() -> None:
    if not wait_closed(30):
        log.warning("exiting with bot processes still being closed")


def _forget_closing_in_child() -> None:
    # A forked child inherits the queue but not the thread: the parent closes those bots, the child must not.
    global _closing_lock, _closing, _closing_count, _closer
    _closing_lock, _closing, _closing_count, _closer = threading.Condition(), [], 0, None


os.register_at_fork(after_in_child=_forget_closing_in_child)


# ----- lookup -------------------------------------------------------------------------------------------------------
_BACKENDS: dict[str, type[Sandbox]] = {"bwrap": BwrapSandbox, "none": NoSandbox}
_instances: dict[str, Sandbox] = {}
_instances_lock = threading.Lock()


def get_sandbox(name: str) -> Sandbox:
    """The backend called ``name`` (``bwrap`` or ``none``), shared per process."""
    if name not in _BACKENDS:
        raise ValueError(f"unknown sandbox {name!r}; choose one of: {', '.join(_BACKENDS)}")
    with _instances_lock:
        if name not in _instances:
            _instances[name] = _BACKENDS[name]()
        return _instances[name]
