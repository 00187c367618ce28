"""The time control: what a bot is charged for a decision, and how long the runner may wait before it could be over.

Charged time is CPU time where the sandbox measures it (the bot's own cgroup), but at least wall time divided by
``Limits.wall_factor`` (1.1 by default: a bot cannot sleep through its turn, waiting costs it all but a 10 %
tolerance for a busy machine); wall time alone where CPU is not measured."""

from __future__ import annotations

import os
import time

from bots.limits import Limits
from bots.sandbox import BotProcess

__all__ = ["MIN_POLL_S", "charge", "charged_ms", "wait_s"]

_NCPU = max(1, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1))
MIN_POLL_S = 0.002  # the shortest wait between two looks at a bot's clock


def charged_ms(limits: Limits, wall_ms: float, cpu_ms: float | None) -> float:
    """What a decision of ``wall_ms`` wall time and ``cpu_ms`` CPU time (None: not measured) is charged."""
    return wall_ms if cpu_ms is None else max(cpu_ms, wall_ms / limits.wall_factor)


def wait_s(limits: Limits, allowance_ms: float, wall_ms: float, cpu_ms: float | None) -> float:
    """Seconds until a decision that has used ``wall_ms`` and ``cpu_ms`` so far could exceed ``allowance_ms``."""
    if cpu_ms is None:
        wait_ms = allowance_ms - wall_ms
    else:
        # The wall clock runs out at allowance * factor; CPU cannot grow faster than the cores allow.
        wait_ms = min(allowance_ms * limits.wall_factor - wall_ms, (allowance_ms - cpu_ms) / _NCPU)
    return max(wait_ms / 1000 + 0.0005, MIN_POLL_S)


def charge(
    proc: BotProcess, limits: Limits, began: float, cpu_begin: float | None, allowance_ms: float
) -> tuple[float, float, float]:
    """(charged ms, allowance ms, seconds until the allowance could next be exceeded) of a decision (or start-up) that
    began at monotonic time ``began`` with the process's CPU clock at ``cpu_begin`` (None: not measured)."""
    wall_ms = (time.monotonic() - began) * 1000
    cpu_now = proc.cpu_ms() if cpu_begin is not None else None
    cpu_ms = None if cpu_now is None or cpu_begin is None else cpu_now - cpu_begin
    return charged_ms(limits, wall_ms, cpu_ms), allowance_ms, wait_s(limits, allowance_ms, wall_ms, cpu_ms)
