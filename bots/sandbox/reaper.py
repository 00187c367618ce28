"""Teardown off the critical path: the process-wide background closer of bots (``close_later``, ``wait_closed``) and
the retries of cgroups the kernel does not let go of at once (``remove_cgroup``). Both wait for their work at exit.

This is the sandbox's only global state; a forked child forgets the parent's queue."""

from __future__ import annotations

import atexit
import errno
import logging
import os
import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from bots.sandbox.process import BotProcess

__all__ = ["close_later", "remove_cgroup", "wait_closed"]

log = logging.getLogger("bots.sandbox")


# A just-emptied cgroup can refuse rmdir with EBUSY for a while: retry in the background, and once more at exit.
_pending_lock = threading.Lock()
_pending: list[tuple[Path, float]] = []
_reaper: threading.Thread | None = None


def remove_cgroup(path: Path) -> None:
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
# exiting normally leaves at most empty cgroups, which the next start-up on the machine sweeps (``Slot.sweep_all``),
# as after a crash.
_closing_lock = threading.Condition()
_closing: list[BotProcess] = []
_closing_count = 0
_closer: threading.Thread | None = None


def close_later(proc: BotProcess) -> None:
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
