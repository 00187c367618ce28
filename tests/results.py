"""Runner results for tests that record a match without playing it: ``runner_result`` turns the result's JSON
(``bots.results.MatchResult.to_json()``, or the few keys a test cares about) into the typed ``MatchResult`` the league
records, every missing key at its neutral value."""

from __future__ import annotations

from typing import Any

from bots.results import Fault, FaultCause, MatchResult, SeatResult
from games.base import Outcome


def _seat(data: dict[str, Any]) -> SeatResult:
    fault = data.get("fault")
    return SeatResult(
        label=data.get("label", ""),
        rank=data["rank"],
        score=data["score"],
        fault=Fault(FaultCause(fault["cause"]), fault.get("detail", ""), fault.get("move")) if fault else None,
        stderr=data.get("stderr") or "",
        moves=data.get("moves", 0),
        time_ms=data.get("time_ms", 0),
        cpu_ms=data.get("cpu_ms"),
        startup_ms=data.get("startup_ms"),
    )


def runner_result(data: dict[str, Any] | MatchResult) -> MatchResult:
    if isinstance(data, MatchResult):
        return data
    seats = [_seat(seat) for seat in data["seats"]]
    outcome = data.get("outcome") or {"scores": [s.score for s in seats], "ranks": [s.rank for s in seats]}
    return MatchResult(
        game=data.get("game", ""),
        seed=data.get("seed", 0),
        outcome=Outcome(scores=list(outcome["scores"]), ranks=list(outcome["ranks"])),
        seats=seats,
        replay=data.get("replay", {}),
        wall_ms=data.get("wall_ms", 0),
    )
