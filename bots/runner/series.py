"""A series: several games played in order by the same bot processes in the same sandboxes (docs/protocol.md,
"Series").

Each game has its own ``start`` (seed-independent information only, as for one match), time bank, outcome, faults
and replay: its ``MatchResult`` has exactly the form ``play_match`` returns. After a game's ``end`` the bots are kept
running and the next game's ``start`` is sent on the same pipes; a bot that exits after ``end`` instead is started
again, which is not a fault. Start-up of the processes is paid once per series, not once per game.

Two rules keep a series fair:

- **A fault ends the series.** The game in which a bot faults is recorded as in one match (the faulting seat ranked
  last, its remaining moves played by the built-in random player); the series' later games are not played and come
  back in ``SeriesResult.unplayed``, for the caller to reschedule (on fresh processes). No result is invented for a
  game nobody played: a forfeit would rate the other bots on a game they did not win.
- **No seed twice.** A series whose games repeat a seed is refused (``ValueError``): the same processes must never
  see a deal they have seen before (duplicate deals are played by fresh processes, in another series or match).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from bots.limits import Limits
from bots.results import BotSeat, MatchResult
from bots.runner.api import check_request
from bots.runner.cores import CoreClaim
from bots.runner.match import Match, MoveObserver
from bots.sandbox import get_sandbox
from games.base import State

__all__ = ["GameObserver", "PreparedSeries", "SeriesGame", "SeriesResult", "prepare_series", "run_series"]

# Told of each game as soon as it is played (its index in the series and its result), on the series' own thread,
# before the next game starts (the bots wait for their start message meanwhile, their clocks stopped): the worker
# records finished games as it goes, so a series cut short keeps them. What it raises ends the series (bots torn down);
# returning False ends it too, after this game, its rest unplayed (the worker yields to a fairer claim: no fault).
GameObserver = Callable[[int, MatchResult], bool | None]


@dataclass(frozen=True)
class SeriesGame:
    """One game of a series: its seed and the game's options (None: the defaults)."""

    seed: int
    options: dict[str, Any] | None = None


@dataclass
class SeriesResult:
    """What a series played: one ``MatchResult`` per game played, in order, and the games it did not play.

    ``unplayed`` is empty unless a bot faulted before the last game, or the ``GameObserver`` asked to stop: the series
    stops after that game (``stopped_by`` is its index in ``games``), and its remaining games are left for the caller
    to reschedule. ``restarts[seat]`` counts the games for which that seat's bot had exited after the previous ``end``
    and was started again."""

    games: list[MatchResult]
    unplayed: list[SeriesGame]
    restarts: list[int]
    stopped_by: int | None = None
    wall_ms: int = 0

    @property
    def complete(self) -> bool:
        return not self.unplayed

    def to_json(self) -> dict[str, Any]:
        return {
            "games": [game.to_json() for game in self.games],
            "unplayed": [{"seed": spec.seed, "options": spec.options} for spec in self.unplayed],
            "restarts": self.restarts,
            "stopped_by": self.stopped_by,
            "wall_ms": self.wall_ms,
        }


def run_series(
    game_id: str,
    seats: list[BotSeat],
    games: list[SeriesGame],
    *,
    sandbox: str = "bwrap",
    limits: Limits | None = None,
) -> SeriesResult:
    """Play ``games`` in order with the same bot processes (see the module's docstring for the rules).

    Raises ``ValueError`` for a bad request (as ``play_match``, and for an empty series or a repeated seed) and
    ``SandboxError`` for infrastructure failures; a bot's misbehaviour is a ``Fault`` in the game where it happened."""
    return prepare_series(game_id, seats, games, sandbox=sandbox, limits=limits).play()


def prepare_series(
    game_id: str,
    seats: list[BotSeat],
    games: list[SeriesGame],
    *,
    sandbox: str = "bwrap",
    limits: Limits | None = None,
    observers: list[MoveObserver | None] | None = None,
) -> PreparedSeries:
    """Start the series' bot processes now and play it later (as ``prepare_match``). Always ``play`` or ``close``
    what this returns. Raises as ``run_series`` does, before starting anything. ``observers``: one per game (live
    spectators, ``Match``'s ``observer``)."""
    if not games:
        raise ValueError("a series needs at least one game")
    seen: set[int] = set()
    for spec in games:
        if spec.seed in seen:
            raise ValueError(
                f"seed {spec.seed} appears twice in the series: the same bot processes must not see a deal twice"
            )
        seen.add(spec.seed)
    states = [check_request(game_id, seats, spec.seed, spec.options) for spec in games]  # all options checked now
    limits = limits or Limits.for_game(game_id)
    backend = get_sandbox(sandbox) if any(seat.code_dir is not None for seat in seats) else None
    spawn = backend is not None or any(seat.remote is not None for seat in seats)
    watching = list(observers or [])
    watching += [None] * (len(games) - len(watching))
    first = Match(game_id, states[0], seats, games[0].seed, dict(games[0].options or {}), limits, observer=watching[0])
    # Claimed before the bots start, so that they inherit the core (bots.runner.cores): pinning them afterwards was
    # measured to give only part of the gain.
    core = CoreClaim()
    if backend is not None:
        core.claim()
    try:
        if spawn:
            first.spawn_bots(backend)
    except BaseException:
        first.close()
        core.release()
        raise
    return PreparedSeries(first, games, states, watching, core)


class PreparedSeries:
    """A series whose bots are started and wait for their first ``start``: ``play`` it once, or ``close`` it.

    Usable as a context manager (closed on exit, played or not)."""

    def __init__(
        self,
        first: Match,
        games: list[SeriesGame],
        states: list[State],
        observers: list[MoveObserver | None],
        core: CoreClaim,
    ) -> None:
        self._core = core  # the core this thread and the bots hold until the series is over
        self._observers = observers
        self._first: Match | None = first
        self._games = games
        self._states = states

    def play(self, on_game: GameObserver | None = None) -> SeriesResult:
        """Play the games in order; the bots are torn down at the end whatever happens. ``on_game``: told of each
        game as soon as it is played (``GameObserver``)."""
        match = self._first
        if match is None:
            raise RuntimeError("this series was already played or closed")
        self._first = None
        started = time.monotonic()
        results: list[MatchResult] = []
        restarts = [0] * match.players
        try:
            for index, spec in enumerate(self._games):
                if index:
                    match = Match(
                        match.game_id,
                        self._states[index],
                        match.seats,
                        spec.seed,
                        dict(spec.options or {}),
                        match.limits,
                        pipes=match.pipes,
                        backend=match.backend,
                        observer=self._observers[index],
                    )
                results.append(match.play(more=index + 1 < len(self._games)))
                for seat in match.restarted:
                    restarts[seat] += 1
                go_on = on_game(index, results[-1]) if on_game is not None else None
                if not match.kept or go_on is False:
                    break
        finally:
            match.close()
            self._core.release()  # this thread is unpinned once the series is over
        unplayed = list(self._games[len(results) :])
        return SeriesResult(
            games=results,
            unplayed=unplayed,
            restarts=restarts,
            stopped_by=len(results) - 1 if unplayed else None,
            wall_ms=round((time.monotonic() - started) * 1000),
        )

    def close(self) -> None:
        """Discard the series unplayed: its bots are killed and cleaned up (in the background). Idempotent."""
        if self._first is not None:
            self._first.close()
            self._first = None
            self._core.release()

    def __enter__(self) -> PreparedSeries:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
