"""What a match is asked to play (``BotSeat``) and what it returns (``MatchResult``, ``SeatResult``, ``Fault`` with its
``FaultCause``): plain data, shared by the runner that fills it, the workers that carry it and the league that
records it. Nothing here reaches the sandbox or the runner, so the league may import it (tests/test_layering.py)."""

from __future__ import annotations

import copy
from dataclasses import dataclass, replace
from enum import StrEnum
from pathlib import Path
from typing import Any

from bots.text import DETAIL_MAX_CHARS, clean_text
from games.base import Outcome

__all__ = ["BotSeat", "Fault", "FaultCause", "MatchResult", "RemoteChannel", "SeatResult"]


class FaultCause(StrEnum):
    """What a faulting bot did (docs/protocol.md, Faults). The values are stored and published: never rename them."""

    STARTUP = "startup"  # anything before its ready message (the detail says what)
    TIMEOUT = "timeout"  # no reply within its move limit and bank
    CRASH = "crash"  # killed by a signal, out of memory, or a non-zero exit status
    EXIT = "exit"  # exited cleanly, or closed its stdin/stdout, before the end
    MALFORMED = "malformed"  # a reply that is not a protocol message, or an unsolicited line
    OVERSIZED = "oversized"  # more output than the limits allow
    ILLEGAL = "illegal"  # an action the engine refuses

    @property
    def label(self) -> str:
        """For people: what the bot did ("ran out of time")."""
        return _FAULT_LABELS[self]


_FAULT_LABELS = {
    FaultCause.STARTUP: "did not start",
    FaultCause.TIMEOUT: "ran out of time",
    FaultCause.CRASH: "crashed",
    FaultCause.EXIT: "exited early",
    FaultCause.MALFORMED: "sent malformed output",
    FaultCause.OVERSIZED: "sent too much output",
    FaultCause.ILLEGAL: "played an illegal action",
}


@dataclass(frozen=True)
class Fault:
    """Why a seat was ranked last. ``move`` is the index (in the replay's move list) of the decision at which the
    fault was noticed; ``None`` for start-up faults. ``detail`` may quote what the bot wrote: it is cleaned and
    bounded here (``bots.text``), whoever builds the fault."""

    cause: FaultCause
    detail: str
    move: int | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "detail", clean_text(self.detail, DETAIL_MAX_CHARS))

    def to_json(self) -> dict[str, Any]:
        return {"cause": self.cause.value, "detail": self.detail, "move": self.move}


@dataclass(frozen=True)
class RemoteChannel:
    """Where a remote bot's seat is played (docs/remote.md): the Redis holding the channel, the channel's id (key
    names: ``bots.remote``), and the bot whose seat it is (its games in play are marked under its id)."""

    redis_url: str
    channel: str
    bot_id: int | None = None


@dataclass(frozen=True)
class BotSeat:
    """Who sits in one seat: a built-in player of the game, an unpacked bot directory (main.py or bot.toml), or a
    remote bot reached through a channel."""

    label: str
    builtin: str | None = None
    code_dir: Path | None = None
    remote: RemoteChannel | None = None

    def __post_init__(self) -> None:
        if [self.builtin, self.code_dir, self.remote].count(None) != 2:
            raise ValueError(f"seat {self.label!r} needs exactly one of builtin, code_dir and remote")


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

    def with_output_fault(self, seat: int, detail: str) -> MatchResult:
        """This result with ``seat`` charged a ``malformed`` fault because what its bot wrote could not be stored:
        its own text (stderr, its fault's detail, its notes) is dropped, and it is ranked last as a fault ranks a seat
        in the runner (``Outcome.with_faults``), the other seats keeping their order. The result itself is unchanged."""
        moves = self.replay.get("moves", [])
        fault = Fault(FaultCause.MALFORMED, detail, max(0, len(moves) - 1))
        faulted = sorted({index for index, played in enumerate(self.seats) if played.fault} | {seat})
        outcome = self.outcome.with_faults(faulted)
        seats = []
        for index, played in enumerate(self.seats):
            charged = replace(played, fault=fault, stderr="") if index == seat else played
            seats.append(replace(charged, rank=outcome.ranks[index], score=outcome.scores[index]))
        replay = copy.deepcopy(self.replay)
        for move in replay.get("moves", []):
            if move.get("seat") == seat and move.get("note") is not None:
                move["note"] = None
        faults = {index: played.fault.to_json() for index, played in enumerate(seats) if played.fault}
        replay["faults"] = [{"seat": index, **faults[index]} for index in sorted(faults)]
        replay["outcome"] = outcome.to_json()
        return replace(self, outcome=outcome, seats=seats, replay=replay)

    def to_json(self) -> dict[str, Any]:
        return {
            "game": self.game,
            "seed": self.seed,
            "outcome": self.outcome.to_json(),
            "seats": [seat.to_json() for seat in self.seats],
            "replay": self.replay,
            "wall_ms": self.wall_ms,
        }


def fault_text(fault: Fault) -> str:
    """A fault in plain words for the bot's author: what it did, when, and the runner's detail ("crashed at move 12:
    exit status 1"). A fault before the first move says "at start-up", never "at move None"."""
    what = fault.cause.label
    if fault.cause is not FaultCause.STARTUP:  # "did not start" says when already
        what += " at start-up" if fault.move is None else f" at move {fault.move}"
    return f"{what}: {fault.detail}" if fault.detail else what
