"""The replay format, ``parlour-replay/1``, in one place: the runner writes it; ``games.frames`` and the league read it.

A replay is a JSON object: a header (format, game id, engine version, players, seed, options, seat labels), the move
list — the moves *are* the replay (docs/design.md): replaying them through the same engine version rebuilds every
state — then the faults and the outcome::

    {"format": "parlour-replay/1", "game": "love_letter", "version": "1", "players": 2, "seed": 7, "options": {},
     "seats": ["a", "b"],
     "moves": [{"seat": 0, "action": {...}, "ms": 0.412, "note": null, "auto": false, "cpu_ms": 0.301}, ...],
     "faults": [{"seat": 1, "cause": "timeout", "detail": "...", "move": 12}],
     "outcome": {"scores": [1, 0], "ranks": [1, 2]}}

``cpu_ms`` is present only where the sandbox measures CPU time; ``auto`` marks a move played by the built-in random
player for a seat whose bot faulted. Pure: imports nothing outside ``games``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from games.base import Outcome

REPLAY_FORMAT = "parlour-replay/1"

__all__ = ["REPLAY_FORMAT", "ReplayFormatError", "ReplayWriter", "check_format"]


class ReplayFormatError(ValueError):
    """A document that is not a ``parlour-replay/1`` replay."""


def check_format(document: Mapping[str, Any]) -> None:
    """Raise ``ReplayFormatError`` unless ``document`` says it is a replay of this format (the version check)."""
    if not isinstance(document, Mapping):
        raise ReplayFormatError("a replay is a JSON object")
    if document.get("format") != REPLAY_FORMAT:
        raise ReplayFormatError(f"not a {REPLAY_FORMAT} document (format is {document.get('format')!r})")


class ReplayWriter:
    """Builds one match's replay move by move (``add_move``), then as a whole (``finish``)."""

    __slots__ = ("_header", "moves")

    def __init__(
        self, game_id: str, version: str, seed: int, options: Mapping[str, Any], seat_labels: list[str]
    ) -> None:
        self._header: dict[str, Any] = {
            "format": REPLAY_FORMAT,
            "game": game_id,
            "version": version,
            "players": len(seat_labels),
            "seed": seed,
            "options": dict(options),
            "seats": list(seat_labels),
        }
        self.moves: list[dict[str, Any]] = []

    def add_move(self, seat: int, action: Any, ms: float, cpu_ms: float | None, note: str | None, auto: bool) -> None:
        """One decision, in play order: who, what, the wall (and CPU) time it took, the bot's note, auto-played?"""
        move: dict[str, Any] = {"seat": seat, "action": action, "ms": round(ms, 3), "note": note, "auto": auto}
        if cpu_ms is not None:
            move["cpu_ms"] = round(cpu_ms, 3)
        self.moves.append(move)

    def finish(self, faults: Mapping[int, Mapping[str, Any]], outcome: Outcome) -> dict[str, Any]:
        """The replay document: the header, the moves, ``faults`` (seat → its fault's JSON), the outcome."""
        return {
            **self._header,
            "moves": self.moves,
            "faults": [{"seat": seat, **faults[seat]} for seat in sorted(faults)],
            "outcome": outcome.to_json(),
        }
