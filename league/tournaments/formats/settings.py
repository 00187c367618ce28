"""A tournament's formats and settings: which formats exist, and checking a settings dict into ``Settings``."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

ROUND_ROBIN, SWISS, KNOCKOUT = "round_robin", "swiss", "knockout"
FORMATS = (ROUND_ROBIN, SWISS, KNOCKOUT)


class FormatError(ValueError):
    """Settings or entrants a format cannot work with; the message says what to change."""


SETTING_KEYS = {
    "table_size",
    "games_per_pairing",
    "rounds",
    "best_of",
    "advance",
    "duplicate",
    "time_control",
    "forfeit_after",
    "bye_points",
    "options",
}


@dataclass(frozen=True)
class Settings:
    """A tournament's settings, checked. ``to_json`` gives back the full dict with defaults filled in."""

    table_size: int
    games_per_pairing: int = 1  # round robin and Swiss: games each table plays per round
    rounds: int | None = None  # Swiss: None means ceil(log2(entrants))
    best_of: int = 1  # knockout: games per series (decided early once certain)
    advance: int = 1  # knockout: how many of each table go through
    duplicate: bool = False  # every game once per seat rotation, same seed
    time_control: Mapping[str, int] = field(default_factory=dict)  # {"move_ms", "bank_ms"}; empty: the runtime's
    forfeit_after: int = 3  # faults in a row that make an entry forfeit; 0: never
    bye_points: float = 1.0  # points of a Swiss bye, per game
    options: Mapping[str, Any] = field(default_factory=dict)  # the game's options for every match

    def to_json(self) -> dict[str, Any]:
        return {
            "table_size": self.table_size,
            "games_per_pairing": self.games_per_pairing,
            "rounds": self.rounds,
            "best_of": self.best_of,
            "advance": self.advance,
            "duplicate": self.duplicate,
            "time_control": dict(self.time_control),
            "forfeit_after": self.forfeit_after,
            "bye_points": self.bye_points,
            "options": dict(self.options),
        }

    def rotations(self, seats: int) -> int:
        """Matches per game at a table of ``seats``: one per rotation in duplicate mode."""
        return seats if self.duplicate else 1


def _int(data: Mapping[str, Any], key: str, default: int | None, low: int, high: int) -> int | None:
    value: object = data.get(key, default)
    if value is None and default is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise FormatError(f"{key} must be a whole number from {low} to {high}, not {value!r}")
    return value


def parse_settings(data: Mapping[str, Any] | None, fmt: str, min_players: int, max_players: int) -> Settings:
    """Check a settings dict for a game played by ``min_players``..``max_players``; fill in the defaults."""
    data = dict(data or {})
    if fmt not in FORMATS:
        raise FormatError(f"format must be one of {', '.join(FORMATS)}, not {fmt!r}")
    if unknown := sorted(set(data) - SETTING_KEYS):
        raise FormatError(f"unknown settings {unknown}; known: {sorted(SETTING_KEYS)}")
    table_size = _int(data, "table_size", min_players, min_players, max_players)
    assert table_size is not None
    advance_default = 1 if table_size == 2 else table_size // 2
    advance = _int(data, "advance", advance_default, 1, table_size - 1)
    duplicate = data.get("duplicate", False)
    if not isinstance(duplicate, bool):
        raise FormatError(f"duplicate must be true or false, not {duplicate!r}")
    time_control = data.get("time_control") or {}
    if (
        not isinstance(time_control, dict)
        or set(time_control) - {"move_ms", "bank_ms"}
        or not all(isinstance(v, int) and not isinstance(v, bool) and v > 0 for v in time_control.values())
    ):
        raise FormatError('time_control takes positive whole move_ms and bank_ms, e.g. {"move_ms": 1000}')
    bye_points = data.get("bye_points", 1.0 if table_size == 2 else 0.5)
    if isinstance(bye_points, bool) or not isinstance(bye_points, int | float) or not 0 <= bye_points <= 1:
        raise FormatError(f"bye_points must be a number from 0 to 1, not {bye_points!r}")
    options = data.get("options") or {}
    if not isinstance(options, dict):
        raise FormatError("options must be an object of the game's options")
    return Settings(
        table_size=table_size,
        games_per_pairing=_int(data, "games_per_pairing", 1, 1, 50) or 1,
        rounds=_int(data, "rounds", None, 1, 100),
        best_of=_int(data, "best_of", 1, 1, 21) or 1,
        advance=advance or 1,
        duplicate=duplicate,
        time_control=time_control,
        forfeit_after=_int(data, "forfeit_after", 3, 0, 100) or 0,
        bye_points=float(bye_points),
        options=options,
    )


def minimum_entrants(fmt: str, settings: Settings) -> int:
    """Fewest entrants the format can run with: one full table, and a real contest (two tables) for Swiss."""
    if fmt == SWISS:
        return max(settings.table_size + 1, 3)
    return settings.table_size
