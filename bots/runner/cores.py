"""One core for a series: its runner thread and its bots run on the same core from the bots' start to the series' end.

Every decision wakes a bot and then the runner again. On a machine whose idle cores halt (VMs: a halted virtual CPU
must be woken by its host), a wake-up on another core costs tens of µs and one on the same core a few; the scheduler
sends a woken task to an idle core, so on a quiet machine a decision often paid two wake-ups across cores
(docs/benchmarks.md, section 10, ``bench/series.py --one-core``). A series therefore claims one core of the machine
before it starts its bots: the runner's thread is pinned to it, and the bots, started by that thread, inherit it
(pinning them once they run was measured to give only part of the gain). The bots' start-up then runs on that one
core too: it is paid once per series.

Each core is claimed with an exclusive ``flock`` on a file of its own, so two series on one machine never share a core
while another idles; when every core is claimed (more series than cores) a series runs unpinned, as before. Pinning
is not a limit: a bot's time is charged by CPU time wherever it runs, and a bot that moves its own threads elsewhere
only loses the short wake-ups.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
from pathlib import Path

from bots.sandbox import BwrapConfig

__all__ = ["CoreClaim", "current_core"]


def current_core() -> int | None:
    """The core the calling thread runs on now (field 39 of /proc/thread-self/stat), or None if unreadable."""
    try:
        stat = Path("/proc/thread-self/stat").read_text()
        return int(stat[stat.rindex(")") + 2 :].split()[36])
    except (OSError, ValueError, IndexError):
        return None


class CoreClaim:
    """``claim`` one core and pin the calling thread to it (what it starts inherits it); ``release`` unpins the
    thread and frees the core. ``core`` is the claimed core, or None (none was free, or there is nothing to gain)."""

    def __init__(self, lock_dir: Path | None = None) -> None:
        self.lock_dir = lock_dir or BwrapConfig.from_env().state_dir / "cores"
        self.core: int | None = None
        self._fd: int | None = None
        self._previous: set[int] | None = None

    def claim(self) -> None:
        if self.core is not None:
            return
        allowed = os.sched_getaffinity(0)
        here = current_core()
        if len(allowed) < 2 or here not in allowed:
            return
        try:
            self.lock_dir.mkdir(mode=0o700, parents=True, exist_ok=True)
        except OSError:
            return
        for core in [here, *sorted(allowed - {here})]:  # this thread's own core first: its caches are warm
            fd = self._lock(core)
            if fd is not None:
                self.core, self._fd, self._previous = core, fd, allowed
                os.sched_setaffinity(0, {core})
                return

    def _lock(self, core: int) -> int | None:
        try:
            fd = os.open(self.lock_dir / f"core-{core}.lock", os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
        except OSError:
            return None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)  # flock: also exclusive between this process's threads
        except OSError:
            os.close(fd)
            return None
        return fd

    def release(self) -> None:
        """Idempotent; call it on the thread that claimed (affinity is per thread)."""
        if self._previous is not None:
            with contextlib.suppress(OSError):
                os.sched_setaffinity(0, self._previous)
        if self._fd is not None:
            os.close(self._fd)  # releases the lock
        self.core = self._fd = self._previous = None
