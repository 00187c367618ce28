"""One bot's cgroups (v1): memory, pids, CPU accounting, the idle CPU quota and the freezer, made inside the runner's
own cgroups so that whatever bounds the worker still bounds its bots."""

from __future__ import annotations

import contextlib
import os
import secrets
import signal
import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING

from bots.limits import Limits
from bots.sandbox.errors import SandboxError
from bots.sandbox.reaper import remove_cgroup

if TYPE_CHECKING:
    from bots.sandbox.slots import Slot

__all__ = ["Cgroups", "cgroup_bases", "write_file"]

_CONTROLLERS_REQUIRED = ("memory", "pids")
_CONTROLLERS_OPTIONAL = ("cpuacct", "cpu", "freezer")
_bases_lock = threading.Lock()
_bases_cache: dict[str, Path] | None = None


def cgroup_bases() -> dict[str, Path]:
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


class Cgroups:
    """One bot's cgroups, one directory per controller."""

    def __init__(self, paths: dict[str, Path]) -> None:
        self.paths = paths
        self._cpu_fd: int | None = None
        self._quota_fd: int | None = None
        self._idle_quota = b"-1"
        self.throttled = False  # what cpu.cfs_quota_us says: a new cgroup is unthrottled
        self.idle_window_s = 0.0

    @classmethod
    def create(cls, slot: Slot, limits: Limits) -> Cgroups:
        bases = cgroup_bases()
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
            write_file(memory / "memory.limit_in_bytes", limit)
            if (memory / "memory.memsw.limit_in_bytes").exists():
                write_file(memory / "memory.memsw.limit_in_bytes", limit)  # RAM + swap = RAM: no swapping
            write_file(group.paths["pids"] / "pids.max", str(limits.pids + 8))  # + sh, setpriv/bwrap and its monitor
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
                write_file(freezer / "freezer.state", "FROZEN")
        delay = 0.0005
        deadline = time.monotonic() + 5
        while True:
            tasks = self._tasks()
            for pid in tasks:
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.kill(pid, signal.SIGKILL)
            if freezer is not None:
                with contextlib.suppress(OSError):
                    write_file(freezer / "freezer.state", "THAWED")  # SIGKILL is delivered once thawed
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
            remove_cgroup(path)
        self.paths = {}


def write_file(path: Path, value: str) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_CLOEXEC)
    try:
        os.write(fd, value.encode())
    finally:
        os.close(fd)
