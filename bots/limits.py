"""The limits a bot runs under: plain data, shared by the sandbox, the runner and the pages that describe them."""

from __future__ import annotations

import contextlib
from dataclasses import dataclass, fields, replace
from typing import Any


# ----- limits -------------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Limits:
    """Every limit a bot runs under. Defaults suit a card game; games override a few (see ``Limits.for_game``)."""

    # Time control, enforced by the runner. A move may take move_ms plus whatever is left of bank_ms; the time
    # charged for a move is its CPU time, but at least its wall time divided by wall_factor: waiting counts (a bot
    # blocked or sleeping holds a worker as surely as one computing), and the 10 % tolerance is all a busy worker's
    # noisy neighbours may cost a bot (docs/decisions.md, "Time and worker budget").
    startup_ms: int = 10_000
    move_ms: int = 1_000
    bank_ms: int = 10_000
    wall_factor: float = 1.1
    # After the end message, how long a bot may take to exit before it is killed. 0 (the default): killed at once,
    # which takes the bots' exit off every match's wall time; what they react to `end` is then not waited for.
    end_grace_ms: int = 0
    # Output, enforced by the runner (killed on breach).
    max_line_bytes: int = 64 * 1024
    max_stdout_bytes: int = 16 * 1024 * 1024
    stderr_keep_bytes: int = 64 * 1024  # the tail kept as the bot's log
    max_stderr_bytes: int = 16 * 1024 * 1024
    # OS limits, enforced by the sandbox.
    memory_mb: int = 512  # memory cgroup (RAM, no swap), tmpfs pages included
    address_space_mb: int = 1024  # RLIMIT_AS, Python bots only (breaks V8, the JVM and Go)
    pids: int = 64  # pids cgroup (processes and threads) and RLIMIT_NPROC for the slot uid
    tmp_mb: int = 32  # size of the private /tmp
    file_size_mb: int = 16  # RLIMIT_FSIZE
    open_files: int = 256  # RLIMIT_NOFILE
    cpu_s: int = 600  # RLIMIT_CPU: a backstop only; the runner's clock is the real limit
    # While it is not its move, a bot may use at most this share of one core (cpu cgroup quota; 100 = unthrottled):
    # no computing on the other players' time, no CPU stolen from the seat that is thinking or from other matches.
    idle_cpu_percent: float = 1.0

    def __post_init__(self) -> None:
        for f in fields(self):
            value = getattr(self, f.name)
            zero_ok = f.name in _MAY_BE_ZERO
            number = isinstance(value, int | float) and not isinstance(value, bool)
            if not number or value < 0 or (value == 0 and not zero_ok):
                what = "zero or a positive number" if zero_ok else "a positive number"
                raise ValueError(f"Limits.{f.name} must be {what}, got {value!r}")
        if self.idle_cpu_percent > 100:
            raise ValueError(f"Limits.idle_cpu_percent must be at most 100, got {self.idle_cpu_percent!r}")

    @classmethod
    def for_game(cls, game_id: str, **overrides: Any) -> Limits:
        """Defaults, then the game's ``bot_limits`` (a plain dict on its Game class), then ``GAME_LIMITS``."""
        merged: dict[str, Any] = {}
        with contextlib.suppress(Exception):
            from games.registry import get_game

            merged.update(getattr(get_game(game_id), "bot_limits", None) or {})
        merged.update(GAME_LIMITS.get(game_id, {}))
        merged.update(overrides)
        return replace(cls(), **merged)

    @classmethod
    def for_validation(cls, game_id: str) -> Limits:
        """The smoke match's limits: the game's, with a bank of at most one move. A bot slow on every move is then
        out of time by its second move, whatever the game's length (a validation game can be four decisions long),
        while one slow first move still passes."""
        limits = cls.for_game(game_id)
        return replace(limits, bank_ms=min(limits.bank_ms, limits.move_ms))

    def time_control(self) -> dict[str, Any]:
        """The ``time`` field of the protocol's start message."""
        return {
            "move_ms": self.move_ms,
            "bank_ms": self.bank_ms,
            "startup_ms": self.startup_ms,
            "wall_factor": self.wall_factor,
        }


_MAY_BE_ZERO = frozenset({"end_grace_ms"})

# Per-game overrides kept on the runtime side (a game may also set ``bot_limits`` on its Game class).
GAME_LIMITS: dict[str, dict[str, Any]] = {}
