"""What a match is asked to play (``Seat``) and what it returns (``SeatResult``, ``MatchResult``)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bots.runner.faults import Fault
from games.base import Outcome

__all__ = ["MatchResult", "Seat", "SeatResult"]


@dataclass(frozen=True)
class Seat:
    """Who sits in one seat: a built-in player of the game, or an unpacked bot directory (main.py or bot.toml)."""

    label: str
    builtin: str | None = None
    code_dir: Path | None = None

    def __post_init__(self) -> None:
        if (self.builtin is None) == (self.code_dir is None):
            raise ValueError(f"seat {self.label!r} needs exactly one of builtin and code_dir")


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
    replay: dict[str, Any]  # a games.replay document
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
