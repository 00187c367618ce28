"""A started bot (``BotProcess``): its pipes for the runner's selector, a pidfd, CPU accounting, throttling and
teardown, the same whichever backend started it."""

from __future__ import annotations

import contextlib
import fcntl
import os
import select
import signal
import subprocess
import time
from collections.abc import Callable

from bots.sandbox.cgroups import Cgroups
from bots.sandbox.reaper import close_later

__all__ = ["BotProcess"]

_F_SETPIPE_SZ = 1031
_PIPE_SIZE = 1 << 20


class BotProcess:
    """A started bot: non-blocking pipe fds for the runner's selector, a pidfd, CPU accounting and teardown."""

    def __init__(
        self,
        popen: subprocess.Popen[bytes],
        *,
        setup_marker: bytes | None = None,
        cgroups: Cgroups | None = None,
        cleanup: list[Callable[[], object]] | None = None,
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

    def wait_exit(self, timeout: float) -> None:
        """Give a bot that stopped talking up to ``timeout`` seconds to exit, for its exit status to say why."""
        with contextlib.suppress(Exception):
            self.popen.wait(timeout=timeout)

    def close_stdin(self) -> None:
        """No further request: the bot reads the end of its input."""
        if self.popen.stdin is not None:
            with contextlib.suppress(OSError):
                self.popen.stdin.close()

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
        close_later(self)

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
            if pipe is not None:
                with contextlib.suppress(OSError):
                    pipe.close()
        if self.pidfd is not None:
            os.close(self.pidfd)
        for item in reversed(self._cleanup):
            with contextlib.suppress(Exception):
                item()
