"""Play one match between bots (sandboxed programs) and built-in players.

``play_match`` is what the workers call. It starts every bot process at once, then drives the game, talking to the
bots through one selector (no threads, no busy-waiting): it enforces the time control (per-move limit + bank, charged
by CPU time where the sandbox measures it), caps output, and turns every misbehaviour into a ``Fault`` on that seat —
never an exception. Only infrastructure failures (``SandboxError``) and caller errors (unknown game or player, bad
options, wrong number of seats: ``ValueError``) raise.

``run_series`` plays several games in order on the same bot processes (``series``: each game its own result, a
fault ends the series, no seed twice).

One job per module: ``api`` (play_match, prepare_match), ``series`` (run_series, prepare_series), ``match``
(driving a game), ``pipes`` (the bots' I/O), ``clock`` (the time control), ``faults`` (classifying faults),
``cores`` (the one core a series' runner and bots share). The seats
it takes and the results it returns are plain data in ``bots.results``; the replay format is ``games.replay``'s.
"""

from __future__ import annotations

from bots.limits import Limits
from bots.results import BotSeat, Fault, FaultCause, MatchResult, SeatResult
from bots.runner.api import PreparedMatch, play_match, prepare_match
from bots.runner.match import MoveObserver
from bots.runner.series import GameObserver, PreparedSeries, SeriesGame, SeriesResult, prepare_series, run_series
from bots.sandbox import SandboxError
from games.replay import REPLAY_FORMAT

__all__ = [
    "REPLAY_FORMAT",
    "BotSeat",
    "Fault",
    "FaultCause",
    "GameObserver",
    "Limits",
    "MatchResult",
    "MoveObserver",
    "PreparedMatch",
    "PreparedSeries",
    "SandboxError",
    "SeatResult",
    "SeriesGame",
    "SeriesResult",
    "play_match",
    "prepare_match",
    "prepare_series",
    "run_series",
]
