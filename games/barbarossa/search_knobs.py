"""Barbarossa's settings of the house ``search`` player (games/search_player.py, ``search_knobs``)."""

from typing import Any

# The reasoner takes about 4 ms a decision and a game is over a hundred decisions: one playout by it would take
# several moves' time, so playouts are random. Even so a move gets under ten iterations, far too few to overrule the
# reasoner's move on evidence that thin: it starts with 30 virtual visits at an even reward (docs/benchmarks.md,
# "Search bots": 0 of 100 four-player games won without).
KNOBS: dict[str, Any] = {"heuristic_playouts": False, "seed_visits": 30}
