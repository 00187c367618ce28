"""Play one match between bots (sandboxed programs) and built-in players.

``run_match`` is what the workers call. It starts every bot process at once, then drives the game, talking to the
bots through one selector (no threads, no busy-waiting): it enforces the time control (per-move limit + bank, charged
by CPU time where the sandbox measures it), caps output, and turns every misbehaviour into a ``Fault`` on that seat —
never an exception. Only infrastructure failures (``SandboxError``) and caller errors (unknown game or player, bad
options, wrong number of seats: ``ValueError``) raise.
"""

from __future__ import annotations

import contextlib
import logging
import os
import selectors
import signal
import time
from collections import deque
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bots import protocol
from bots.protocol import ProtocolError
from bots.sandbox import BotProcess, BotSetupError, Limits, SandboxError, get_sandbox
from games.base import IllegalAction, Outcome, Player, State
from games.registry import UnknownGame, builtin_players, get_game, make_player
from games.simulate import MAX_DECISIONS

log = logging.getLogger("bots.runner")

REPLAY_FORMAT = "parlour-replay/1"
FAULT_CAUSES = ("startup", "timeout", "crash", "exit", "malformed", "oversized", "illegal")

__all__ = [
    "FAULT_CAUSES",
    "REPLAY_FORMAT",
    "Fault",
    "Limits",
    "MatchResult",
    "PreparedMatch",
    "SandboxError",
    "Seat",
    "SeatResult",
    "prepare_match",
    "run_match",
]


# ----- the API ------------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Seat:
    """Who sits in one seat: a built-in player of the game, or an unpacked bot directory (main.py or bot.toml)."""

    label: str
    builtin: str | None = None
    code_dir: Path | None = None

    def __post_init__(self) -> None:
        if (self.builtin is None) == (self.code_dir is None):
            raise ValueError(f"seat {self.label!r} needs exactly one of builtin and code_dir")


@dataclass(frozen=True)
class Fault:
    """Why a seat was ranked last. ``move`` is the index (in the replay's move list) of the decision at which the
    fault was noticed; ``None`` for start-up faults."""

    cause: str
    detail: str
    move: int | None = None

    def to_json(self) -> dict[str, Any]:
        return {"cause": self.cause, "detail": self.detail, "move": self.move}


@dataclass
class SeatResult:
    label: str
    rank: int
    score: float
    fault: Fault | None
    stderr: str
    moves: int  # decisions the seat's own bot/player made (auto-played moves not included)
    time_ms: int  # wall time of those decisions
    cpu_ms: int | None = None  # CPU time of those decisions, where the sandbox measures it
    startup_ms: int | None = None  # from start to the ready message (bots only)

    def to_json(self) -> dict[str, Any]:
        return {
            "label": self.label,
            "rank": self.rank,
            "score": self.score,
            "fault": self.fault.to_json() if self.fault else None,
            "stderr": self.stderr,
            "moves": self.moves,
            "time_ms": self.time_ms,
            "cpu_ms": self.cpu_ms,
            "startup_ms": self.startup_ms,
        }


@dataclass
class MatchResult:
    game: str
    seed: int
    outcome: Outcome  # faults applied: a faulting seat ranks last
    seats: list[SeatResult]
    replay: dict[str, Any]
    wall_ms: int

    @property
    def faults(self) -> list[Fault | None]:
        return [seat.fault for seat in self.seats]

    def to_json(self) -> dict[str, Any]:
        return {
            "game": self.game,
            "seed": self.seed,
            "outcome": self.outcome.to_json(),
            "seats": [seat.to_json() for seat in self.seats],
            "replay": self.replay,
            "wall_ms": self.wall_ms,
        }


def run_match(
    game_id: str,
    seats: list[Seat],
    seed: int,
    options: dict[str, Any] | None = None,
    *,
    sandbox: str = "bwrap",
    limits: Limits | None = None,
) -> MatchResult:
    """Play one match to the end and return its result and replay.

    Raises ``ValueError`` (``UnknownGame``, ``InvalidOptions``, unknown built-in player, wrong seat count) for a bad
    request and ``SandboxError`` for infrastructure failures; a bot's misbehaviour is always a ``Fault``."""
    return prepare_match(game_id, seats, seed, options, sandbox=sandbox, limits=limits).play()


def prepare_match(
    game_id: str,
    seats: list[Seat],
    seed: int,
    options: dict[str, Any] | None = None,
    *,
    sandbox: str = "bwrap",
    limits: Limits | None = None,
) -> PreparedMatch:
    """Start a match's bot processes now and play it later: ``run_match`` in two halves.

    The sandboxes are set up and the bots' interpreters start while the caller does something else (e.g. records the
    previous match); they wait for their ``start`` message, which ``PreparedMatch.play`` sends. Their start-up clock
    runs from that message (the CPU they used before it still counts). Always ``play`` or ``close`` what this returns.
    Raises as ``run_match`` does."""
    try:
        game = get_game(game_id)
    except UnknownGame as exc:
        raise ValueError(str(exc)) from None
    state = game.new_state(len(seats), seed, options)  # InvalidOptions is a ValueError
    known = builtin_players(game_id)
    for seat in seats:
        if seat.builtin is not None and seat.builtin not in known:
            raise ValueError(f"{game_id} has no built-in player {seat.builtin!r}; known: {', '.join(sorted(known))}")
    limits = limits or Limits.for_game(game_id)
    backend = get_sandbox(sandbox) if any(seat.code_dir is not None for seat in seats) else None
    match = _Match(game_id, state, seats, seed, dict(options or {}), limits)
    try:
        if backend is not None:
            match.spawn_bots(backend)
    except BaseException:
        match.close()
        raise
    return PreparedMatch(match)


class PreparedMatch:
    """A match whose bots are started and wait for ``start`` (``prepare_match``): ``play`` it once, or ``close`` it.

    Usable as a context manager (closed on exit, played or not)."""

    def __init__(self, match: _Match) -> None:
        self._match: _Match | None = match

    def play(self) -> MatchResult:
        """Play the match to the end (as ``run_match``); the bots are torn down whatever happens."""
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


# ----- internals ----------------------------------------------------------------------------------------------------
_NCPU = max(1, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1))
_MIN_POLL_S = 0.002
_EXIT_WAIT_S = 0.2


class _Conn:
    """The runner's side of one bot process."""

    def __init__(self, seat: int, proc: BotProcess, limits: Limits) -> None:
        self.seat = seat
        self.proc = proc
        self.limits = limits
        self.marker_pending = proc.setup_marker is not None
        self.partial = bytearray()
        self.replies: deque[bytes] = deque()
        self.stdout_total = 0
        self.stderr_head = bytearray()
        self.stderr_tail = bytearray()
        self.stderr_total = 0
        self.out_eof = False
        self.err_eof = False
        self.exited = False
        self.outbox = bytearray()
        self.stdin_broken = False
        self.close_stdin_when_sent = False
        self.awaiting: str | None = None
        self.fault: Fault | None = None
        self.bank_ms = float(limits.bank_ms)
        self.moves = 0
        self.time_ms = 0.0
        self.cpu_ms: float | None = 0.0 if proc.cpu_ms() is not None else None
        self.startup_ms: int | None = None
        self.start_sent_at = proc.started_at
        self.registered: set[int] = set()

    def stderr_text(self) -> str:
        data = bytes(self.stderr_head)
        dropped = self.stderr_total - len(self.stderr_head) - len(self.stderr_tail)
        if dropped > 0:
            data += f"\n[... {dropped} bytes of stderr dropped ...]\n".encode()
        data += bytes(self.stderr_tail)
        return data.decode("utf-8", "replace")


class _Match:
    def __init__(
        self, game_id: str, state: State, seats: list[Seat], seed: int, options: dict[str, Any], limits: Limits
    ) -> None:
        self.game_id = game_id
        self.game = state.game
        self.state = state
        self.seats = seats
        self.seed = seed
        self.options = options
        self.limits = limits
        self.players = len(seats)
        self.selector = selectors.DefaultSelector()
        self.conns: dict[int, _Conn] = {}
        self.by_fd: dict[int, tuple[_Conn, str]] = {}
        self.builtins: dict[int, Player] = {}
        self.fallbacks: dict[int, Player] = {}
        self.faults: dict[int, Fault] = {}
        self.moves: list[dict[str, Any]] = []
        self.own_moves = [0] * self.players
        self.own_ms = [0.0] * self.players

    # -- lifecycle --
    def play(self) -> MatchResult:
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
        self._finish(outcome)
        return self._result(outcome, started)

    def close(self) -> None:
        # Stop watching the fds first: the background closer closes them, and their numbers may then be reused.
        self.selector.close()
        self.by_fd.clear()
        # Reaping and cgroup removal do not hold up the result: the trees are dying (killed now if not yet), the rest
        # happens in the background.
        for conn in self.conns.values():
            conn.proc.close_soon()

    def _player_seed(self, seat: int) -> int:
        return self.seed * 100 + seat  # as games.simulate does

    # -- start-up --
    def spawn_bots(self, backend: Any) -> None:
        """Start every bot's process (all of them first, so that their slowest part, the interpreter's start-up, runs
        concurrently); they wait for their start message."""
        for seat, spec in enumerate(self.seats):
            if spec.code_dir is None:
                continue
            try:
                proc = backend.start(Path(spec.code_dir), self.limits)
            except BotSetupError as exc:
                self._fault_seat(seat, Fault("startup", str(exc)))
                continue
            conn = _Conn(seat, proc, self.limits)
            self.conns[seat] = conn
            self._register(conn)

    def _start_bots(self) -> None:
        start_info = self.game.start_info(self.players, self.state.options)
        time_control = self.limits.time_control()
        for seat, conn in self.conns.items():
            message = protocol.start_message(
                self.game_id, seat, self.players, self.state.options, time_control, start_info
            )
            conn.awaiting = "ready"
            conn.start_sent_at = time.monotonic()
            self._send(conn, message)
        waiting = {seat: conn for seat, conn in self.conns.items() if conn.fault is None}
        while waiting:
            now = time.monotonic()
            timeout: float | None = None
            for seat, conn in list(waiting.items()):
                if conn.fault is not None:
                    del waiting[seat]
                    continue
                if conn.replies:
                    line = conn.replies.popleft()
                    try:
                        protocol.parse_reply(line, "ready", self.limits.max_line_bytes)
                    except ProtocolError as exc:
                        self._fault_conn(conn, Fault("startup", f"{exc.cause}: {exc.detail}"))
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
                    self._fault_conn(conn, self._exit_fault(conn, "startup", None))
                    del waiting[seat]
                    continue
                # From the start message (a prepared bot may have waited long for it), CPU from the process's start.
                charged, allowance, wait_s = self._clock(conn, conn.start_sent_at, 0.0, self.limits.startup_ms)
                if charged > allowance:
                    if conn.marker_pending:
                        raise SandboxError(f"the sandbox did not start within {self.limits.startup_ms} ms")
                    self._fault_conn(
                        conn, Fault("startup", f"no ready message within the start-up limit of {allowance} ms")
                    )
                    del waiting[seat]
                    continue
                timeout = wait_s if timeout is None else min(timeout, wait_s)
            if waiting:
                self._pump(timeout)

    def _setup_failed(self, conn: _Conn) -> None:
        # The bot never ran: what is on stderr came from sh, setpriv or bwrap.
        deadline = time.monotonic() + _EXIT_WAIT_S
        while not conn.err_eof and time.monotonic() < deadline:
            self._pump(deadline - time.monotonic())
        detail = conn.stderr_text().strip() or f"exit status {conn.proc.poll()}"
        raise SandboxError(f"the sandbox failed to start: {detail[:2000]}")

    # -- the game --
    def _play_game(self) -> None:
        state = self.state
        for _ in range(MAX_DECISIONS):
            seat = state.to_move()
            if seat is None:
                return
            self._throttle_rested(skip=seat)  # not the seat about to move: it would be woken again at once
            obs = state.observation(seat)
            legal = state.legal_actions()
            if seat in self.builtins:
                began = time.monotonic()
                action = self.builtins[seat].act(obs, legal)
                ms = (time.monotonic() - began) * 1000
                state.apply(action)
                self.own_moves[seat] += 1
                self.own_ms[seat] += ms
                self._record(seat, ms, None, None, auto=False)
                continue
            conn = self.conns.get(seat)
            if conn is not None and conn.fault is None and seat not in self.faults and self._bot_move(conn, obs, legal):
                continue
            began = time.monotonic()
            action = self._fallback(seat).act(obs, legal)
            ms = (time.monotonic() - began) * 1000
            state.apply(action)
            self._record(seat, ms, None, None, auto=True)
        raise RuntimeError(f"{self.game_id} seed {self.seed}: no end after {MAX_DECISIONS} decisions")

    def _bot_move(self, conn: _Conn, obs: dict[str, Any], legal: list[dict[str, Any]]) -> bool:
        """Ask the bot for this decision; True if it made a legal move, False if it faulted."""
        move_index = len(self.moves)
        conn.proc.wake()  # first, so that the pump below does not throttle it just before
        # Anything the bot wrote since its last reply is unsolicited: catch it now, or it would pass for this reply.
        self._pump(0)
        if conn.fault is not None:
            return False
        allowance_ms = self.limits.move_ms + conn.bank_ms
        conn.awaiting = "action"
        began = time.monotonic()
        cpu_begin = conn.proc.cpu_ms()
        self._send(conn, protocol.act_message(obs, legal, int(allowance_ms)))
        while True:
            if conn.fault is not None:
                return False
            if conn.replies:
                line = conn.replies.popleft()
                charged, allowance, _ = self._clock(conn, began, cpu_begin, allowance_ms)
                wall_ms = (time.monotonic() - began) * 1000
                break
            if conn.out_eof or conn.exited or conn.stdin_broken:
                self._fault_conn(conn, self._exit_fault(conn, None, move_index))
                return False
            charged, allowance, wait_s = self._clock(conn, began, cpu_begin, allowance_ms)
            if charged > allowance:
                self._fault_conn(conn, self._timeout_fault(allowance, move_index))
                return False
            self._pump(wait_s)
        conn.awaiting = None
        conn.proc.rest()
        if charged > allowance:
            self._fault_conn(conn, self._timeout_fault(allowance, move_index))
            return False
        cpu_end = conn.proc.cpu_ms()
        cpu_ms = None if cpu_begin is None or cpu_end is None else cpu_end - cpu_begin
        try:
            reply = protocol.parse_reply(line, "action", self.limits.max_line_bytes)
        except ProtocolError as exc:
            self._fault_conn(conn, Fault(exc.cause, exc.detail, move_index))
            return False
        try:
            self.state.apply(reply["action"])
        except IllegalAction as exc:
            shown = protocol.encode(reply["action"])[:300].decode().strip()
            self._fault_conn(conn, Fault("illegal", f"{shown}: {exc.reason}", move_index))
            return False
        except Exception as exc:  # an engine that chokes on a strange action must not end the match
            log.exception("%s: engine error on a bot's action", self.game_id)
            detail = f"the engine rejected the action: {type(exc).__name__}"
            self._fault_conn(conn, Fault("illegal", detail, move_index))
            return False
        conn.bank_ms -= max(0.0, charged - self.limits.move_ms)
        conn.moves += 1
        conn.time_ms += wall_ms
        if conn.cpu_ms is not None and cpu_ms is not None:
            conn.cpu_ms += cpu_ms
        self.own_moves[conn.seat] += 1
        self.own_ms[conn.seat] += wall_ms
        self._record(conn.seat, wall_ms, cpu_ms, reply["note"], auto=False)
        return True

    def _clock(
        self, conn: _Conn, began: float, cpu_begin: float | None, allowance_ms: float
    ) -> tuple[float, float, float]:
        """(charged ms, allowance ms, seconds until the allowance could next be exceeded).

        Charged time is CPU time, but at least wall time / wall_factor; wall time alone where CPU is not measured."""
        wall_ms = (time.monotonic() - began) * 1000
        cpu_now = conn.proc.cpu_ms() if cpu_begin is not None else None
        if cpu_now is None or cpu_begin is None:
            charged = wall_ms
            wait_ms = allowance_ms - wall_ms
        else:
            cpu_ms = cpu_now - cpu_begin
            factor = self.limits.wall_factor
            charged = max(cpu_ms, wall_ms / factor)
            # The wall clock runs out at allowance * factor; CPU cannot grow faster than the cores allow.
            wait_ms = min(allowance_ms * factor - wall_ms, (allowance_ms - cpu_ms) / _NCPU)
        return charged, allowance_ms, max(wait_ms / 1000 + 0.0005, _MIN_POLL_S)

    def _timeout_fault(self, allowance: float, move: int) -> Fault:
        return Fault(
            "timeout",
            f"no action within {allowance:.0f} ms (per-move {self.limits.move_ms} ms + bank left)",
            move,
        )

    def _exit_fault(self, conn: _Conn, cause: str | None, move: int | None) -> Fault:
        popen = conn.proc.popen
        with contextlib.suppress(Exception):
            popen.wait(timeout=_EXIT_WAIT_S)
        status = popen.poll()
        if conn.proc.memory_exhausted():
            detail = f"killed: out of memory (limit {self.limits.memory_mb} MB)"
            kind = "crash"
        elif status is None:
            closed = "stdin" if conn.stdin_broken and not conn.out_eof else "stdout"
            detail, kind = f"closed its {closed}", "exit"
        elif status == 0:
            detail, kind = "exited (status 0) before the end of the match", "exit"
        elif status < 0:
            detail, kind = f"killed by signal {_signal_name(-status)}", "crash"
        elif status > 128 and conn.proc.setup_marker is not None:
            detail, kind = f"killed by signal {_signal_name(status - 128)}", "crash"
        else:
            detail, kind = f"exited with status {status}", "crash"
        if cause == "startup":
            return Fault("startup", f"{kind}: {detail}", move)
        return Fault(kind, detail, move)

    def _fallback(self, seat: int) -> Player:
        if seat not in self.fallbacks:
            player = make_player(self.game_id, "random", self._player_seed(seat))
            player.start(seat, self.players, self.state.options)
            self.fallbacks[seat] = player
        return self.fallbacks[seat]

    def _record(self, seat: int, ms: float, cpu_ms: float | None, note: str | None, auto: bool) -> None:
        move: dict[str, Any] = {
            "seat": seat,
            "action": self.state.history[-1],
            "ms": round(ms, 3),
            "note": note,
            "auto": auto,
        }
        if cpu_ms is not None:
            move["cpu_ms"] = round(cpu_ms, 3)
        self.moves.append(move)

    # -- faults --
    def _fault_seat(self, seat: int, fault: Fault) -> None:
        if seat not in self.faults:
            self.faults[seat] = fault

    def _fault_conn(self, conn: _Conn, fault: Fault) -> None:
        """Record the first fault of a bot and kill it at once (its remaining moves are played automatically)."""
        if conn.fault is not None:
            return
        if conn.startup_ms is None and fault.cause != "startup":
            fault = Fault("startup", f"{fault.cause}: {fault.detail}")  # anything before ready is a start-up fault
        elif fault.move is None and conn.startup_ms is not None:
            fault = Fault(fault.cause, fault.detail, len(self.moves))
        conn.fault = fault
        self._fault_seat(conn.seat, fault)
        conn.proc.kill()
        # Keep draining stderr briefly for the log; stop listening to everything else.
        for fd in list(conn.registered):
            if self.by_fd.get(fd, (None, ""))[1] != "stderr":
                self._unregister(fd)
        conn.outbox.clear()

    # -- the end --
    def _finish(self, outcome: Outcome) -> None:
        """Tell every live bot the outcome and kill the trees: at once by default (``end_grace_ms`` = 0), or once
        they have exited or the grace period has run out. Teardown itself happens in ``close``, off the result's
        critical path."""
        live = [conn for conn in self.conns.values() if conn.fault is None]
        grace_s = self.limits.end_grace_ms / 1000
        for conn in live:
            if grace_s:
                conn.proc.wake()  # it may use its grace period at full speed
            conn.awaiting = "end"
            self._send(conn, protocol.end_message(outcome, self.state.observation(conn.seat)), close_after=True)
        deadline = time.monotonic() + grace_s
        while grace_s and any(not conn.exited and not conn.out_eof for conn in live):
            left = deadline - time.monotonic()
            if left <= 0:
                break
            self._pump(left)
        for conn in self.conns.values():
            conn.proc.kill(cgroup=False)  # the kernel does the rest; the background close sweeps the cgroup
        # Whatever a bot wrote to stderr before it died is in the pipe now: take it without waiting for the end of
        # file, which only comes once every process of the sandbox chain is gone.
        for conn in self.conns.values():
            self._drain_stderr(conn)

    def _drain_stderr(self, conn: _Conn) -> None:
        fd = conn.proc.stderr_fd
        for _ in range(conn.limits.max_stderr_bytes // (1 << 16) + 2):  # bounded even against a dying flood
            if fd not in conn.registered:
                return
            before = conn.stderr_total
            self._read_stderr(conn)
            if conn.stderr_total == before:
                return

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
        replay = {
            "format": REPLAY_FORMAT,
            "game": self.game_id,
            "version": self.game.version,
            "players": self.players,
            "seed": self.seed,
            "options": self.options,
            "seats": [spec.label for spec in self.seats],
            "moves": self.moves,
            "faults": [{"seat": seat, **self.faults[seat].to_json()} for seat in sorted(self.faults)],
            "outcome": outcome.to_json(),
        }
        return MatchResult(
            game=self.game_id,
            seed=self.seed,
            outcome=outcome,
            seats=results,
            replay=replay,
            wall_ms=round((time.monotonic() - started) * 1000),
        )

    # -- I/O --
    def _register(self, conn: _Conn) -> None:
        proc = conn.proc
        for fd, kind in ((proc.stdout_fd, "stdout"), (proc.stderr_fd, "stderr"), (proc.pidfd, "exit")):
            if fd is None:
                continue
            self.selector.register(fd, selectors.EVENT_READ, None)
            self.by_fd[fd] = (conn, kind)
            conn.registered.add(fd)

    def _unregister(self, fd: int) -> None:
        conn, _ = self.by_fd.pop(fd, (None, ""))
        if conn is not None:
            conn.registered.discard(fd)
            with contextlib.suppress(KeyError, ValueError):
                self.selector.unregister(fd)

    def _send(self, conn: _Conn, message: dict[str, Any], close_after: bool = False) -> None:
        conn.outbox += protocol.encode(message)
        conn.close_stdin_when_sent = close_after
        self._flush(conn)
        fd = conn.proc.stdin_fd
        if conn.outbox and not conn.stdin_broken and fd not in conn.registered:
            self.selector.register(fd, selectors.EVENT_WRITE, None)
            self.by_fd[fd] = (conn, "stdin")
            conn.registered.add(fd)

    def _flush(self, conn: _Conn) -> None:
        fd = conn.proc.stdin_fd
        try:
            while conn.outbox:
                written = os.write(fd, conn.outbox)
                del conn.outbox[:written]
        except BlockingIOError:
            return
        except (BrokenPipeError, OSError):
            conn.stdin_broken = True
            conn.outbox.clear()
        if fd in conn.registered:
            self._unregister(fd)
        if conn.close_stdin_when_sent and not conn.outbox:
            with contextlib.suppress(OSError):
                conn.proc.popen.stdin.close()  # type: ignore[union-attr]
            conn.close_stdin_when_sent = False

    def _throttle_rested(self, skip: int | None = None) -> float | None:
        """Throttle the bots that have rested long enough since their last reply; when the next one is due."""
        now = time.monotonic()
        due: float | None = None
        for conn in self.conns.values():
            if conn.fault is None and conn.awaiting is None and conn.seat != skip:
                when = conn.proc.throttle_if_rested(now)
                if when is not None and (due is None or when < due):
                    due = when
        return due

    def _pump(self, timeout: float | None) -> None:
        """Wait for (at most ``timeout`` seconds) and handle I/O of every bot: this is the only place that blocks.

        It also wakes up in time to throttle the bots resting between their moves (``_throttle_rested``)."""
        due = self._throttle_rested()
        if due is not None:
            until_due = max(0.0, due - time.monotonic())
            timeout = until_due if timeout is None else min(timeout, until_due)
        if not self.by_fd:
            if timeout:
                time.sleep(min(timeout, 0.05))
            return
        events = self.selector.select(timeout)
        if due is not None:
            self._throttle_rested()
        for key, _ in events:
            entry = self.by_fd.get(key.fd)
            if entry is None:
                continue
            conn, kind = entry
            if kind == "stdout":
                self._read_stdout(conn)
            elif kind == "stderr":
                self._read_stderr(conn)
            elif kind == "stdin":
                self._flush(conn)
            elif kind == "exit":
                conn.exited = True
                self._unregister(key.fd)

    def _read_stdout(self, conn: _Conn) -> None:
        fd = conn.proc.stdout_fd
        data = _read_available(fd)
        if data is None:
            return
        if not data:
            conn.out_eof = True
            self._unregister(fd)
            return
        limits = conn.limits
        conn.stdout_total += len(data)
        if conn.stdout_total > limits.max_stdout_bytes and not conn.marker_pending:
            self._fault_conn(conn, Fault("oversized", f"wrote more than {limits.max_stdout_bytes} bytes to stdout"))
            return
        conn.partial += data
        while True:
            newline = conn.partial.find(b"\n")
            if newline < 0:
                break
            line = bytes(conn.partial[: newline + 1])
            del conn.partial[: newline + 1]
            self._on_line(conn, line)
            if conn.fault is not None:
                return
        if len(conn.partial) > limits.max_line_bytes:
            self._fault_conn(
                conn, Fault("oversized", f"a line longer than {limits.max_line_bytes} bytes (without a newline)")
            )

    def _on_line(self, conn: _Conn, line: bytes) -> None:
        if conn.marker_pending:
            if line.rstrip(b"\n") != conn.proc.setup_marker:
                raise SandboxError(f"the sandbox printed {line[:200]!r} instead of its set-up marker")
            conn.marker_pending = False
            conn.stdout_total = 0
            return
        if not line.strip():
            return  # blank lines are tolerated
        if conn.awaiting in ("ready", "action") and not conn.replies:
            conn.replies.append(line)
        elif conn.awaiting == "end":
            return
        else:
            what = line[:80].decode("utf-8", "replace")
            self._fault_conn(conn, Fault("malformed", f"wrote a line when no reply was expected: {what!r}"))

    def _read_stderr(self, conn: _Conn) -> None:
        fd = conn.proc.stderr_fd
        data = _read_available(fd)
        if data is None:
            return
        if not data:
            conn.err_eof = True
            self._unregister(fd)
            return
        conn.stderr_total += len(data)
        half = conn.limits.stderr_keep_bytes // 2
        room = half - len(conn.stderr_head)
        if room > 0:
            conn.stderr_head += data[:room]
            data = data[room:]
        if data:
            conn.stderr_tail += data
            if len(conn.stderr_tail) > half:
                del conn.stderr_tail[: len(conn.stderr_tail) - half]
        if conn.stderr_total > conn.limits.max_stderr_bytes and conn.fault is None:
            self._fault_conn(
                conn, Fault("oversized", f"wrote more than {conn.limits.max_stderr_bytes} bytes to stderr")
            )
            self._unregister(fd)


def _read_available(fd: int) -> bytes | None:
    """What a non-blocking pipe holds now: None when nothing yet, b"" at end of file (or a broken pipe)."""
    try:
        return os.read(fd, 1 << 16)
    except BlockingIOError:
        return None
    except OSError:
        return b""


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return str(number)
