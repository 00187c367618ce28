"""Faults: classifying why a seat is ranked last. The causes are one enum (``bots.results.FaultCause``); a bot's
misbehaviour is always one of them, never an exception."""

from __future__ import annotations

import signal

from bots.limits import Limits
from bots.results import Fault, FaultCause
from bots.sandbox import BotProcess

__all__ = ["EXIT_WAIT_S", "exit_fault", "in_match", "timeout_fault"]

EXIT_WAIT_S = 0.2  # how long a bot that stopped talking gets to exit, for its exit status to say why


def in_match(fault: Fault, started: bool, move_index: int) -> Fault:
    """The fault as the match records it: anything before the bot's ready message is a start-up fault (its cause goes
    into the detail); a fault noticed after it without a move is placed at the current move."""
    if not started and fault.cause is not FaultCause.STARTUP:
        return Fault(FaultCause.STARTUP, f"{fault.cause}: {fault.detail}")
    if fault.move is None and started:
        return Fault(fault.cause, fault.detail, move_index)
    return fault


def timeout_fault(limits: Limits, allowance_ms: float, move: int) -> Fault:
    return Fault(
        FaultCause.TIMEOUT, f"no action within {allowance_ms:.0f} ms (per-move {limits.move_ms} ms + bank left)", move
    )


def exit_fault(
    proc: BotProcess, limits: Limits, *, stdin_broken: bool, out_eof: bool, startup: bool, move: int | None
) -> Fault:
    """Classify a bot that stopped talking: closed a pipe (``exit``), exited (status 0: ``exit``, else ``crash``),
    killed by a signal or out of memory (``crash``). During start-up it is a ``startup`` fault saying which."""
    proc.wait_exit(EXIT_WAIT_S)
    status = proc.poll()
    cause: FaultCause
    if proc.memory_exhausted():
        detail, cause = f"killed: out of memory (limit {limits.memory_mb} MB)", FaultCause.CRASH
    elif status is None:
        closed = "stdin" if stdin_broken and not out_eof else "stdout"
        detail, cause = f"closed its {closed}", FaultCause.EXIT
    elif status == 0:
        detail, cause = "exited (status 0) before the end of the match", FaultCause.EXIT
    elif status < 0:
        detail, cause = f"killed by signal {_signal_name(-status)}", FaultCause.CRASH
    elif status > 128 and proc.setup_marker is not None:
        # A sandboxed bot runs under sh, which reports the bot's death by signal N as status 128 + N.
        detail, cause = f"killed by signal {_signal_name(status - 128)}", FaultCause.CRASH
    else:
        detail, cause = f"exited with status {status}", FaultCause.CRASH
    if startup:
        return Fault(FaultCause.STARTUP, f"{cause}: {detail}", move)
    return Fault(cause, detail, move)


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return str(number)
