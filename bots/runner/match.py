"""One match, driven: start the bots, play the game decision by decision, end it, and put the result together.

The bots' I/O is ``bots.runner.pipes``, their clocks ``bots.runner.clock``, the faults ``bots.runner.faults`` and the
replay ``games.replay``; this module decides who moves, asks, checks and applies. Built-in players are called in
process; a faulted bot's remaining moves are played by the built-in random player (``auto`` in the replay).

A series (``bots.runner.series``) plays several games on the same bot processes: each game is a ``Match`` that takes
over the previous one's ``Pipes``, sends its own ``start``, and keeps the bots alive after its ``end`` when another
game may follow. A bot that ended after ``end`` (today's bots exit) is started again for the next game.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bots import protocol
from bots.limits import Limits
from bots.protocol import ProtocolError
from bots.results import BotSeat, Fault, FaultCause, MatchResult, SeatResult
from bots.runner.clock import charge, charged_ms, wait_s
from bots.runner.faults import EXIT_WAIT_S, exit_fault, in_match, timeout_fault
from bots.runner.pipes import Conn, Pipes
from bots.sandbox import BotSetupError, Sandbox, SandboxError
from games.base import IllegalAction, Outcome, Player, State
from games.registry import make_player
from games.replay import ReplayWriter
from games.schema import shape_problem
from games.simulate import MAX_DECISIONS

log = logging.getLogger("bots.runner")

__all__ = ["Match", "MoveObserver"]

# Called with the replay's move list after every decision (and once at the start), on the match's own thread: it
# must be quick and must not raise (the worker's live publisher throttles itself; bots.runner stays free of Django).
MoveObserver = Callable[[list[dict[str, Any]]], None]


class Match:
    """A match's whole life: ``spawn_bots`` (may run ahead), then ``play`` once, and always ``close``."""

    def __init__(
        self,
        game_id: str,
        state: State,
        seats: list[BotSeat],
        seed: int,
        options: dict[str, Any],
        limits: Limits,
        *,
        pipes: Pipes | None = None,
        backend: Sandbox | None = None,
        observer: MoveObserver | None = None,
    ) -> None:
        """``pipes`` and ``backend``: the previous game's of a series (its bots were kept after their ``end``).
        ``observer``: told of every move as it is played (live spectators)."""
        self.observer = observer
        self.game_id = game_id
        self.game = state.game
        self.state = state
        self.seats = seats
        self.seed = seed
        self.limits = limits
        self.players = len(seats)
        self.backend = backend
        if pipes is None:
            self.pipes = Pipes(self._fault_conn)
        else:
            self.pipes = pipes
            pipes.on_fault = self._fault_conn
            for conn in pipes.conns.values():
                conn.new_game()
        self.conns = self.pipes.conns
        self.restarted: list[int] = []  # seats whose bot had ended after the previous game's end and was started again
        self.kept = False  # the bots were left running after this game's end, for the next game of a series
        self.builtins: dict[int, Player[Any]] = {}
        self.fallbacks: dict[int, Player[Any]] = {}
        self.faults: dict[int, Fault] = {}
        self.replay = ReplayWriter(game_id, self.game.version, seed, options, [spec.label for spec in seats])
        self.moves = self.replay.moves  # the replay's move list: its length is the index of the next move
        self.own_moves = [0] * self.players
        self.own_ms = [0.0] * self.players

    # -- lifecycle --
    def play(self, *, more: bool = False) -> MatchResult:
        """Play the game. ``more``: another game of a series may follow on these bots, so they are kept running after
        ``end`` unless one of them faulted (``kept`` says which happened)."""
        started = time.monotonic()
        for seat, spec in enumerate(self.seats):
            if spec.builtin is not None:
                player = make_player(self.game_id, spec.builtin, self._player_seed(seat))
                player.start(seat, self.players, self.state.options)
                self.builtins[seat] = player
        if self.conns:
            self._start_bots()
        self._play_game()
        outcome = self.state.outcome().with_faults(sorted(self.faults))
        self._finish(outcome, keep=more and not self.faults)
        return self._result(outcome, started)

    def close(self) -> None:
        self.pipes.close()
        # Reaping and cgroup removal do not hold up the result: the trees are dying (killed now if not yet), the rest
        # happens in the background.
        for conn in self.conns.values():
            conn.proc.close_soon()

    def _player_seed(self, seat: int) -> int:
        return self.seed * 100 + seat  # as games.simulate does

    # -- start-up --
    def spawn_bots(self, backend: Sandbox | None) -> None:
        """Start every bot's process (all of them first, so that their slowest part, the interpreter's start-up, runs
        concurrently), and open every remote seat's channel; they wait for their start message. ``backend``: None
        when no seat has code to run."""
        self.backend = backend
        for seat, spec in enumerate(self.seats):
            if spec.remote is not None:
                # Imported here: it needs redis, which local play (the author kit's wheel) does not install.
                from bots.runner.remote import RemoteProcess

                self.pipes.add(Conn(seat, RemoteProcess(spec.remote), self.limits))
                continue
            if spec.code_dir is None:
                continue
            assert backend is not None
            try:
                proc = backend.start(Path(spec.code_dir), self.limits)
            except BotSetupError as exc:
                self._fault_seat(seat, Fault(FaultCause.STARTUP, str(exc)))
                continue
            self.pipes.add(Conn(seat, proc, self.limits))

    def _start_bots(self) -> None:
        start_info = self.game.start_info(self.players, self.state.options)
        time_control = self.limits.time_control()
        messages = {
            seat: protocol.start_message(self.game_id, seat, self.players, self.state.options, time_control, start_info)
            for seat in self.conns
        }
        for conn in self.conns.values():
            self._send_start(conn, messages[conn.seat])
        waiting = {seat: conn for seat, conn in self.conns.items() if conn.fault is None}
        while waiting:
            now = time.monotonic()
            timeout: float | None = None
            for seat, conn in list(waiting.items()):
                if conn.fault is not None:
                    del waiting[seat]
                    continue
                if conn.games > 1 and conn.ended() and not conn.replies:
                    # It ended after the previous game's end, as a bot that plays one game per process does: not a
                    # fault, it is started again (its start-up clock runs from the new process's start message).
                    waiting[seat] = conn = self._restart(conn)
                    if conn.fault is not None:
                        del waiting[seat]
                        continue
                    self._send_start(conn, messages[seat])
                if conn.replies:
                    line = conn.replies.popleft()
                    try:
                        protocol.parse_reply(line, "ready", self.limits.max_line_bytes)
                    except ProtocolError as exc:
                        self._fault_conn(conn, Fault(FaultCause.STARTUP, f"{exc.cause}: {exc.detail}"))
                        del waiting[seat]
                        continue
                    conn.awaiting = None
                    conn.startup_ms = round((now - conn.start_sent_at) * 1000)
                    conn.proc.rest(now)
                    del waiting[seat]
                    continue
                if conn.out_eof or conn.exited:
                    if conn.marker_pending:
                        self._setup_failed(conn)
                    self._fault_conn(conn, self._exit_fault(conn, startup=True, move=None))
                    del waiting[seat]
                    continue
                # From the start message (a prepared bot may have waited long for it), CPU from the process's start.
                charged, allowance, seat_wait_s = charge(
                    conn.proc, self.limits, conn.start_sent_at, conn.start_cpu_ms, self.limits.startup_ms
                )
                if charged > allowance:
                    if conn.marker_pending:
                        raise SandboxError(f"the sandbox did not start within {self.limits.startup_ms} ms")
                    detail = f"no ready message within the start-up limit of {allowance} ms"
                    self._fault_conn(conn, Fault(FaultCause.STARTUP, detail))
                    del waiting[seat]
                    continue
                timeout = seat_wait_s if timeout is None else min(timeout, seat_wait_s)
            if waiting:
                self.pipes.pump(timeout)

    def _send_start(self, conn: Conn, message: dict[str, Any]) -> None:
        conn.games += 1
        conn.awaiting = "ready"
        conn.start_sent_at = time.monotonic()
        if conn.games > 1:  # a series' next game on this process: it rested (maybe throttled) since its last reply
            conn.proc.wake()
            conn.start_cpu_ms = conn.proc.cpu_ms() or 0.0
        self.pipes.send(conn, message)

    def _restart(self, old: Conn) -> Conn:
        """Replace a bot that ended between two games of a series by a fresh process of the same code."""
        seat = old.seat
        self.pipes.remove(old)
        old.proc.close_soon()
        self.restarted.append(seat)
        code_dir = self.seats[seat].code_dir
        try:
            if code_dir is None or self.backend is None:  # a remote seat's channel broke: nothing to start again
                raise BotSetupError("the remote seat's channel closed between two games")
            proc = self.backend.start(Path(code_dir), self.limits)
        except BotSetupError as exc:
            self._fault_seat(seat, Fault(FaultCause.STARTUP, str(exc)))
            old.fault = self.faults[seat]
            return old
        conn = Conn(seat, proc, self.limits)
        self.pipes.add(conn)
        return conn

    def _setup_failed(self, conn: Conn) -> None:
        # The bot never ran: what is on stderr came from sh, setpriv or bwrap.
        deadline = time.monotonic() + EXIT_WAIT_S
        while not conn.err_eof and time.monotonic() < deadline:
            self.pipes.pump(deadline - time.monotonic())
        detail = conn.stderr_text().strip() or f"exit status {conn.proc.poll()}"
        raise SandboxError(f"the sandbox failed to start: {detail[:2000]}")

    # -- the game --
    def _play_game(self) -> None:
        state = self.state
        observer = self.observer
        for _ in range(MAX_DECISIONS):
            if observer is not None:
                observer(self.moves)
            seat = state.to_move()
            if seat is None:
                return
            self.pipes.throttle_rested(skip=seat)  # not the seat about to move: it would be woken again at once
            obs = state.observation(seat)
            legal = state.legal_actions()
            if seat in self.builtins:
                self._builtin_move(seat, obs, legal)
                continue
            conn = self.conns.get(seat)
            if conn is not None and conn.fault is None and seat not in self.faults and self._bot_move(conn, obs, legal):
                continue
            began = time.monotonic()
            action = self._fallback(seat).act(obs, legal)
            ms = (time.monotonic() - began) * 1000
            state.apply(action)
            self.replay.add_move(seat, state.history[-1], ms, None, None, auto=True)
        raise RuntimeError(f"{self.game_id} seed {self.seed}: no end after {MAX_DECISIONS} decisions")

    def _builtin_move(self, seat: int, obs: dict[str, Any], legal: list[dict[str, Any]]) -> None:
        """A built-in player's move, in process: timed, applied and recorded like a bot's."""
        state = self.state
        began = time.monotonic()
        action = self.builtins[seat].act(obs, legal)
        ms = (time.monotonic() - began) * 1000
        state.apply(action)
        self.own_moves[seat] += 1
        self.own_ms[seat] += ms
        self.replay.add_move(seat, state.history[-1], ms, None, None, auto=False)

    def _bot_move(self, conn: Conn, obs: dict[str, Any], legal: list[dict[str, Any]]) -> bool:
        """Ask the bot for this decision; True if it made a legal move, False if it faulted.

        This runs at every decision, so it reads each clock as few times as it can: the CPU clock when the request
        goes out and when the reply is in, and in between only when the wait for the reply runs out."""
        move_index = len(self.moves)
        pipes, limits, proc = self.pipes, self.limits, conn.proc
        proc.wake()  # first, so that no pump throttles it just before
        # Anything the bot wrote since its last reply is unsolicited: catch it now, or it would pass for this reply.
        pipes.read_stdout_now(conn)
        if conn.fault is not None:
            return False
        allowance_ms = limits.move_ms + conn.bank_ms
        conn.awaiting = "action"
        began = time.monotonic()
        cpu_begin = proc.cpu_ms()
        pipes.send(conn, protocol.act_message(obs, legal, int(allowance_ms)))
        waiting_s = wait_s(limits, allowance_ms, 0.0, None if cpu_begin is None else 0.0)  # nothing used yet
        while True:
            if conn.fault is not None:
                return False
            if conn.replies:
                break
            if conn.out_eof or conn.exited or conn.stdin_broken:
                self._fault_conn(conn, self._exit_fault(conn, startup=False, move=move_index))
                return False
            pipes.pump(waiting_s)
            if conn.replies or conn.fault is not None:
                continue  # the reply (or the fault) is handled above, the clock read once below
            charged, _, waiting_s = charge(proc, limits, began, cpu_begin, allowance_ms)
            if charged > allowance_ms:
                self._fault_conn(conn, timeout_fault(limits, allowance_ms, move_index))
                return False
        line = conn.replies.popleft()
        wall_ms = (time.monotonic() - began) * 1000
        cpu_end = proc.cpu_ms() if cpu_begin is not None else None
        cpu_ms = None if cpu_begin is None or cpu_end is None else cpu_end - cpu_begin
        conn.awaiting = None
        proc.rest()
        charged = charged_ms(limits, wall_ms, cpu_ms)
        if charged > allowance_ms:
            self._fault_conn(conn, timeout_fault(limits, allowance_ms, move_index))
            return False
        try:
            reply = protocol.parse_reply(line, "action", limits.max_line_bytes)
        except ProtocolError as exc:
            self._fault_conn(conn, Fault(FaultCause(exc.cause), exc.detail, move_index))
            return False
        # The declared shape first (games/schema.py), then the rules: the engine only sees actions of a known form.
        problem = shape_problem(self.game_id, reply["action"])
        if problem is not None:
            self._illegal(conn, reply["action"], problem, move_index)
            return False
        try:
            self.state.apply(reply["action"])
        except IllegalAction as exc:
            self._illegal(conn, reply["action"], exc.reason, move_index)
            return False
        except Exception as exc:  # an engine that chokes on a strange action must not end the match
            log.exception("%s: engine error on a bot's action", self.game_id)
            detail = f"the engine rejected the action: {type(exc).__name__}"
            self._fault_conn(conn, Fault(FaultCause.ILLEGAL, detail, move_index))
            return False
        conn.bank_ms -= max(0.0, charged - limits.move_ms)
        conn.moves += 1
        conn.time_ms += wall_ms
        if conn.cpu_ms is not None and cpu_ms is not None:
            conn.cpu_ms += cpu_ms
        self.own_moves[conn.seat] += 1
        self.own_ms[conn.seat] += wall_ms
        self.replay.add_move(conn.seat, self.state.history[-1], wall_ms, cpu_ms, reply["note"], auto=False)
        return True

    def _illegal(self, conn: Conn, action: dict[str, Any], reason: str, move_index: int) -> None:
        shown = protocol.encode(action)[:300].decode().strip()
        self._fault_conn(conn, Fault(FaultCause.ILLEGAL, f"{shown}: {reason}", move_index))

    def _exit_fault(self, conn: Conn, *, startup: bool, move: int | None) -> Fault:
        return exit_fault(
            conn.proc, self.limits, stdin_broken=conn.stdin_broken, out_eof=conn.out_eof, startup=startup, move=move
        )

    def _fallback(self, seat: int) -> Player[Any]:
        if seat not in self.fallbacks:
            player = make_player(self.game_id, "random", self._player_seed(seat))
            player.start(seat, self.players, self.state.options)
            self.fallbacks[seat] = player
        return self.fallbacks[seat]

    # -- faults --
    def _fault_seat(self, seat: int, fault: Fault) -> None:
        if seat not in self.faults:
            self.faults[seat] = fault

    def _fault_conn(self, conn: Conn, fault: Fault) -> None:
        """Record the first fault of a bot and kill it at once (its remaining moves are played automatically)."""
        if conn.fault is not None:
            return
        fault = in_match(fault, started=conn.startup_ms is not None, move_index=len(self.moves))
        conn.fault = fault
        self._fault_seat(conn.seat, fault)
        conn.proc.kill()
        self.pipes.silence(conn)

    # -- the end --
    def _finish(self, outcome: Outcome, *, keep: bool = False) -> None:
        """Tell every live bot the outcome and kill the trees: at once by default (``end_grace_ms`` = 0), or once
        they have exited or the grace period has run out. Teardown itself happens in ``close``, off the result's
        critical path. ``keep``: leave the bots running for the next game of a series (stdin stays open)."""
        live = [conn for conn in self.conns.values() if conn.fault is None]
        if keep:
            self.kept = True
            for conn in live:
                conn.proc.wake()  # read the end (or exit, for a one-game bot) at full speed; throttled if it lingers
                conn.awaiting = "end"
                self.pipes.send(conn, protocol.end_message(outcome, self.state.observation(conn.seat)))
                conn.proc.rest()
                self.pipes.drain_stderr(conn)  # what it logged during this game goes into this game's result
            return
        grace_s = self.limits.end_grace_ms / 1000
        for conn in live:
            if grace_s:
                conn.proc.wake()  # it may use its grace period at full speed
            conn.awaiting = "end"
            message = protocol.end_message(outcome, self.state.observation(conn.seat))
            self.pipes.send(conn, message, close_after=True)
        deadline = time.monotonic() + grace_s
        while grace_s and any(not conn.exited and not conn.out_eof for conn in live):
            left = deadline - time.monotonic()
            if left <= 0:
                break
            self.pipes.pump(left)
        for conn in self.conns.values():
            conn.proc.kill(cgroup=False)  # the kernel does the rest; the background close sweeps the cgroup
        # Whatever a bot wrote to stderr before it died is in the pipe now: take it without waiting for the end of
        # file, which only comes once every process of the sandbox chain is gone.
        for conn in self.conns.values():
            self.pipes.drain_stderr(conn)

    def _result(self, outcome: Outcome, started: float) -> MatchResult:
        results = []
        for seat, spec in enumerate(self.seats):
            conn = self.conns.get(seat)
            results.append(
                SeatResult(
                    label=spec.label,
                    rank=outcome.ranks[seat],
                    score=outcome.scores[seat],
                    fault=self.faults.get(seat),
                    stderr=conn.stderr_text() if conn else "",
                    moves=self.own_moves[seat],
                    time_ms=round(self.own_ms[seat]),
                    cpu_ms=round(conn.cpu_ms) if conn and conn.cpu_ms is not None else None,
                    startup_ms=conn.startup_ms if conn else None,
                )
            )
        faults = {seat: fault.to_json() for seat, fault in self.faults.items()}
        return MatchResult(
            game=self.game_id,
            seed=self.seed,
            outcome=outcome,
            seats=results,
            replay=self.replay.finish(faults, outcome),
            wall_ms=round((time.monotonic() - started) * 1000),
        )
