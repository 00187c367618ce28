"""The ``bwrap`` backend: real isolation, needs root and Debian's ``bubblewrap`` (see docs/sandbox.md).

Each bot gets its own slot (``slots``) — and with it its own unprivileged uid and its own memory/pids/cpuacct/cpu/
freezer cgroups (``cgroups``, v1). The process chain is::

    sh (root: joins the bot's cgroups)
      → setpriv (drops to the slot uid, clears groups, no_new_privs, then sets PDEATHSIG)
        → bwrap (new user/mount/pid/net/ipc/uts/cgroup namespaces, read-only runtime, seccomp filter)
          → sh (inside: rlimits, then prints the set-up marker on stdout)
            → the bot
"""

from __future__ import annotations

import contextlib
import logging
import os
import secrets
import shlex
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

from bots.limits import Limits
from bots.sandbox.base import Sandbox
from bots.sandbox.cgroups import Cgroups, cgroup_bases
from bots.sandbox.command import ENGINES_DIR, SDK_DIR, SYSTEM_PYTHON, BotCommand, bot_environment, resolve_command
from bots.sandbox.config import BwrapConfig
from bots.sandbox.errors import SandboxError
from bots.sandbox.mounts import (
    ETC_FILES,
    Mounts,
    compiled_engines,
    compiled_sdk,
    copy_files,
    copy_tree,
    engine_files,
    shareable_tree,
)
from bots.sandbox.process import BotProcess
from bots.sandbox.slots import Slot
from bots.seccomp import build_filter

__all__ = ["BwrapSandbox"]

log = logging.getLogger("bots.sandbox")


class BwrapSandbox(Sandbox):
    """Real isolation with bubblewrap, a per-slot uid, seccomp, cgroups v1 and rlimits."""

    name = "bwrap"

    def __init__(self, config: BwrapConfig | None = None) -> None:
        self.config = config or BwrapConfig.from_env()
        self._filter: bytes | None = None
        self._checked = False
        self._sdk: Path | None = None  # the SDK with its bytecode, made by check()
        self._engines: Path | None = None  # the engines with their bytecode, made by check()

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
                cgroup_bases()
            except SandboxError as exc:
                problems.append(
                    f"{exc} (set PARLOUR_SANDBOX_REQUIRE_CGROUPS=0 to run without memory/pids cgroups, "
                    "relying on rlimits only)"
                )
        if problems:
            raise SandboxError("the bwrap sandbox is unavailable: " + "; ".join(problems))
        self._checked = True
        with contextlib.suppress(OSError, SandboxError):
            Slot.prepare(self.config)
            Slot.sweep_all(self.config)
        self._sdk = compiled_sdk(self.config)
        self._engines = compiled_engines(self.config)

    # -- start a bot --
    def start(self, code_dir: Path, limits: Limits) -> BotProcess:
        self.check()
        code_dir = Path(code_dir).resolve()  # bwrap runs from /
        command = resolve_command(code_dir)
        cleanup: list[Callable[[], object]] = []
        try:
            slot = Slot.acquire(self.config)
            cleanup.append(slot.release)
            mounts = Mounts(
                code=code_dir, sdk=self._sdk or SDK_DIR, etc=slot.etc_dir(), engines=self._engines or ENGINES_DIR
            )
            share_code, share_sdk = shareable_tree(code_dir), self._sdk is not None or shareable_tree(SDK_DIR)
            if not (share_code and share_sdk and self._engines is not None):
                # Something the slot uid could not read (or should not see as it is): give it a private copy.
                work = slot.make_work_dir()
                cleanup.append(lambda: shutil.rmtree(work, ignore_errors=True))
                if not share_code:
                    mounts.code = work / "bot"
                    copy_tree(code_dir, mounts.code)
                if not share_sdk:
                    mounts.sdk = work / "parlour_sdk"
                    copy_tree(SDK_DIR, mounts.sdk)
                if (
                    self._engines is None
                ):  # no compiled copy: the engines' files, copied (bytecode compiled by each bot)
                    mounts.engines = work / "engines"
                    copy_files(engine_files(), mounts.engines)
            cgroups = None
            try:
                cgroups = Cgroups.create(slot, limits)
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
        slot: Slot,
        mounts: Mounts,
        cgroups: Cgroups | None,
        cleanup: list[Callable[[], object]],
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

    def _bwrap_args(self, limits: Limits, mounts: Mounts, seccomp_fd: int) -> list[str]:
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
        for key, value in bot_environment("/parlour", "/tmp").items():
            args += ["--setenv", key, value]
        args += ["--ro-bind", "/usr", "/usr", "--tmpfs", "/usr/local", "--remount-ro", "/usr/local"]
        for top in ("/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"):
            if os.path.islink(top):
                args += ["--symlink", os.readlink(top), top]
            elif os.path.isdir(top):
                args += ["--ro-bind", top, top]
        for path in ETC_FILES:
            args += ["--ro-bind-try", path, path]
        args += [
            "--ro-bind", str(mounts.etc / "passwd"), "/etc/passwd",
            "--ro-bind", str(mounts.etc / "group"), "/etc/group",
            "--proc", "/proc",
            "--dev", "/dev",
            "--size", str(limits.tmp_mb * 1024 * 1024), "--tmpfs", "/tmp",
            "--ro-bind", str(mounts.code), "/bot",
            "--ro-bind", str(mounts.sdk), "/parlour/parlour_sdk",
            "--ro-bind", str(mounts.engines), "/parlour/engines/games",
            "--remount-ro", "/",
            "--chdir", "/bot",
            "--seccomp", str(seccomp_fd),
        ]  # fmt: skip
        return args


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
