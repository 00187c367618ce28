"""What the workers and the author tools call: ``play_match``, or ``prepare_match`` then ``PreparedMatch.play``.

A series of games on the same bot processes is ``bots.runner.series`` (``run_series``, ``prepare_series``)."""

from __future__ import annotations

from typing import Any

from bots.limits import Limits
from bots.results import BotSeat, MatchResult
from bots.runner.match import Match, MoveObserver
from bots.sandbox import get_sandbox
from games.base import State
from games.registry import UnknownGame, builtin_players, get_game

__all__ = ["PreparedMatch", "check_request", "play_match", "prepare_match"]


def play_match(
    game_id: str,
    seats: list[BotSeat],
    seed: int,
    options: dict[str, Any] | None = None,
    *,
    sandbox: str = "bwrap",
    limits: Limits | None = None,
    observer: MoveObserver | None = None,
) -> MatchResult:
    """Play one match to the end and return its result and replay.

    Raises ``ValueError`` (``UnknownGame``, ``InvalidOptions``, unknown built-in player, wrong seat count) for a bad
    request and ``SandboxError`` for infrastructure failures; a bot's misbehaviour is always a ``Fault``."""
    return prepare_match(game_id, seats, seed, options, sandbox=sandbox, limits=limits, observer=observer).play()


def prepare_match(
    game_id: str,
    seats: list[BotSeat],
    seed: int,
    options: dict[str, Any] | None = None,
    *,
    sandbox: str = "bwrap",
    limits: Limits | None = None,
    observer: MoveObserver | None = None,
) -> PreparedMatch:
    """Start a match's bot processes now and play it later: ``play_match`` in two halves.

    The sandboxes are set up and the bots' interpreters start while the caller does something else (e.g. records the
    previous match); they wait for their ``start`` message, which ``PreparedMatch.play`` sends. Their start-up clock
    runs from that message (the CPU they used before it still counts). Always ``play`` or ``close`` what this returns.
    Raises as ``play_match`` does."""
    state = check_request(game_id, seats, seed, options)
    limits = limits or Limits.for_game(game_id)
    backend = get_sandbox(sandbox) if any(seat.code_dir is not None for seat in seats) else None
    spawn = backend is not None or any(seat.remote is not None for seat in seats)
    match = Match(game_id, state, seats, seed, dict(options or {}), limits, observer=observer)
    try:
        if spawn:
            match.spawn_bots(backend)
    except BaseException:
        match.close()
        raise
    return PreparedMatch(match)


def check_request(game_id: str, seats: list[BotSeat], seed: int, options: dict[str, Any] | None) -> State:
    """The game's initial state, once the request is known to be valid; ``ValueError`` (unknown game or built-in
    player, bad options, wrong seat count) otherwise."""
    try:
        game = get_game(game_id)
    except UnknownGame as exc:
        raise ValueError(str(exc)) from None
    state = game.new_state(len(seats), seed, options)  # InvalidOptions is a ValueError
    known = builtin_players(game_id)
    for seat in seats:
        if seat.builtin is not None and seat.builtin not in known:
            raise ValueError(f"{game_id} has no built-in player {seat.builtin!r}; known: {', '.join(sorted(known))}")
    return state


class PreparedMatch:
    """A match whose bots are started and wait for ``start`` (``prepare_match``): ``play`` it once, or ``close`` it.

    Usable as a context manager (closed on exit, played or not)."""

    def __init__(self, match: Match) -> None:
        self._match: Match | None = match

    def play(self) -> MatchResult:
        """Play the match to the end (as ``play_match``); the bots are torn down whatever happens."""
        match = self._match
        if match is None:
            raise RuntimeError("this match was already played or closed")
        self._match = None
        try:
            return match.play()
        finally:
            match.close()

    def close(self) -> None:
        """Discard the match unplayed: its bots are killed and cleaned up (in the background). Idempotent."""
        if self._match is not None:
            self._match.close()
            self._match = None

    def __enter__(self) -> PreparedMatch:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
