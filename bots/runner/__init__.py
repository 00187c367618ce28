"""Play one match between bots (sandboxed programs) and built-in players.

``run_match`` is what the workers call. It starts every bot process at once, then drives the game, talking to the
bots through one selector (no threads, no busy-waiting): it enforces the time control (per-move limit + bank, charged
by CPU time where the sandbox measures it), caps output, and turns every misbehaviour into a ``Fault`` on that seat —
never an exception. Only infrastructure failures (``SandboxError``) and caller errors (unknown game or player, bad
options, wrong number of seats: ``ValueError``) raise.

One job per module: ``api`` (run_match, prepare_match), ``match`` (driving the game), ``pipes`` (the bots' I/O),
``clock`` (the time control), ``faults`` (the causes and their classification), ``results`` (the typed results).
The replay format is ``games.replay``'s.
"""

from __future__ import annotations

from bots.limits import Limits
from bots.runner.api import PreparedMatch, prepare_match, run_match
from bots.runner.faults import FAULT_CAUSES, Fault, FaultCause
from bots.runner.results import MatchResult, Seat, SeatResult
from bots.sandbox import SandboxError
from games.replay import REPLAY_FORMAT

__all__ = [
    "FAULT_CAUSES",
    "REPLAY_FORMAT",
    "Fault",
    "FaultCause",
    "Limits",
    "MatchResult",
    "PreparedMatch",
    "SandboxError",
    "Seat",
    "SeatResult",
    "prepare_match",
    "run_match",
]
