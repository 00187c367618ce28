"""The time control: what a bot is charged for a decision, and how long the runner may wait before it could be over.

Charged time is CPU time where the sandbox measures it (the bot's own cgroup), but at least wall time divided by
``Limits.wall_factor`` (a bot cannot sleep through its turn); wall time alone where CPU is not measured."""

from __future__ import annotations

import os
import time

from bots.limits import Limits
from bots.sandbox import BotProcess

__all__ = ["MIN_POLL_S", "charge"]

_NCPU = max(1, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1))
MIN_POLL_S = 0.002  # the shortest wait between two looks at a bot's clock


def charge(
    proc: BotProcess, limits: Limits, began: float, cpu_begin: float | None, allowance_ms: float
) -> tuple[float, float, float]:
    """(charged ms, allowance ms, seconds until the allowance could next be exceeded) of a decision (or start-up) that
    began at monotonic time ``began`` with the process's CPU clock at ``cpu_begin`` (None: not measured)."""
    wall_ms = (time.monotonic() - began) * 1000
    cpu_now = proc.cpu_ms() if cpu_begin is not None else None
    if cpu_now is None or cpu_begin is None:
        charged = wall_ms
        wait_ms = allowance_ms - wall_ms
    else:
        cpu_ms = cpu_now - cpu_begin
        factor = limits.wall_factor
        charged = max(cpu_ms, wall_ms / factor)
        # The wall clock runs out at allowance * factor; CPU cannot grow faster than the cores allow.
        wait_ms = min(allowance_ms * factor - wall_ms, (allowance_ms - cpu_ms) / _NCPU)
    return charged, allowance_ms, max(wait_ms / 1000 + 0.0005, MIN_POLL_S)
