"""TEN's settings of the house ``search`` player (games/search_player.py, ``search_knobs``)."""

from typing import Any

# The heuristic takes about 1 ms a decision and a game is some 160 decisions: one playout by it would spend the
# whole 100 ms of a move, so playouts are random. They fit only a few dozen a move, too few to overrule the
# heuristic's move (and its good fills of payments) on that evidence: it starts with 30 virtual visits at an even
# reward (docs/benchmarks.md, "Search bots": 0 of 100 two-player games won without).
KNOBS: dict[str, Any] = {"heuristic_playouts": False, "seed_visits": 30}
