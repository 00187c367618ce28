"""A match where some seats are played from outside (a person at the league's table): ``play_table``.

The bots run sandboxed exactly as in a ladder match (``bots.runner.match``); an *outside* seat's decision is asked of
an ``Outside`` source (the worker feeds it from the database), which blocks until the action arrives or the seat's
clock runs out. A seat whose clock ran out forfeits: it faults with ``timeout`` (ranked last, as a bot that timed out)
and the built-in random player plays its remaining moves, so the game still reaches its end and its replay.
After every decision the source is told the moves so far (``moved``), so that the outside world can follow live.
No Django here: the source is a plain object.
"""

from __future__ import annotations

import time
from typing import Any, Protocol

from bots.limits import Limits
from bots.results import BotSeat, Fault, FaultCause, MatchResult
from bots.runner.api import check_request
from bots.runner.match import Match
from bots.sandbox import get_sandbox
from games.base import Action, IllegalAction
from games.simulate import MAX_DECISIONS

__all__ = ["Outside", "TableMatch", "play_table"]


class Outside(Protocol):
    """Where the outside seats' actions come from, and where the moves go as they are made."""

    def wait(self, seat: int, move_index: int, obs: dict[str, Any], legal: list[Action]) -> Action | None:
        """Block until ``seat``'s action for the decision at ``move_index`` (its observation and legal actions);
        None when its clock ran out."""

    def moved(self, moves: list[dict[str, Any]]) -> None:
        """Called after every decision with the replay's moves so far (the same list, grown)."""


class TableMatch(Match):
    """A ``Match`` whose ``outside`` seats are played by the ``source``; their ``BotSeat`` names the built-in player
    that takes over after a forfeit (``random``)."""

    def __init__(self, *args: Any, outside: set[int], source: Outside, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.outside = outside
        self.source = source

    def _play_game(self) -> None:
        state = self.state
        for _ in range(MAX_DECISIONS):
            seat = state.to_move()
            if seat is None:
                return
            if seat in self.outside and seat not in self.faults:
                self._outside_move(seat)
            else:
                self._inside_move(seat)
            self.source.moved(self.moves)
        raise RuntimeError(f"{self.game_id} seed {self.seed}: no end after {MAX_DECISIONS} decisions")

    def _outside_move(self, seat: int) -> None:
        move_index = len(self.moves)
        obs, legal = self.state.observation(seat), self.state.legal_actions()
        # The bots rest (throttled) while the person thinks: nobody is charged for it.
        self.pipes.throttle_rested()
        began = time.monotonic()
        action = self.source.wait(seat, move_index, obs, legal)
        ms = (time.monotonic() - began) * 1000
        if action is None:
            self._fault_seat(seat, Fault(FaultCause.TIMEOUT, "the person's clock ran out", move_index))
            self._auto_move(seat)
            return
        try:
            self.state.apply(action)
        except IllegalAction as exc:  # the league checks actions before it passes them on: a bug, but not a crash
            self._fault_seat(seat, Fault(FaultCause.ILLEGAL, exc.reason, move_index))
            self._auto_move(seat)
            return
        self.own_moves[seat] += 1
        self.own_ms[seat] += ms
        self.replay.add_move(seat, self.state.history[-1], ms, None, None, auto=False)

    def _inside_move(self, seat: int) -> None:
        """One decision of a bot or built-in player: ``Match._play_game``'s loop body."""
        state = self.state
        self.pipes.throttle_rested(skip=seat)
        obs = state.observation(seat)
        legal = state.legal_actions()
        if seat in self.builtins and seat not in self.outside:
            self._builtin_move(seat, obs, legal)
            return
        conn = self.conns.get(seat)
        if conn is not None and conn.fault is None and seat not in self.faults and self._bot_move(conn, obs, legal):
            return
        self._auto_move(seat)

    def _auto_move(self, seat: int) -> None:
        state = self.state
        began = time.monotonic()
        action = self._fallback(seat).act(state.observation(seat), state.legal_actions())
        ms = (time.monotonic() - began) * 1000
        state.apply(action)
        self.replay.add_move(seat, state.history[-1], ms, None, None, auto=True)


def play_table(
    game_id: str,
    seats: list[BotSeat],
    seed: int,
    options: dict[str, Any] | None,
    outside: set[int],
    source: Outside,
    *,
    sandbox: str = "bwrap",
    limits: Limits | None = None,
) -> MatchResult:
    """Play one game with ``outside`` seats to the end (as ``bots.runner.play_match``; raises as it does)."""
    if not outside or any(not 0 <= seat < len(seats) for seat in outside):
        raise ValueError(f"outside seats {sorted(outside)} are not seats of a {len(seats)}-seat table")
    state = check_request(game_id, seats, seed, options)
    limits = limits or Limits.for_game(game_id)
    backend = get_sandbox(sandbox) if any(seat.code_dir is not None for seat in seats) else None
    spawn = backend is not None or any(seat.remote is not None for seat in seats)
    match = TableMatch(game_id, state, seats, seed, dict(options or {}), limits, outside=outside, source=source)
    try:
        if spawn:
            match.spawn_bots(backend)
        return match.play()
    finally:
        match.close()
