"""Ranczo Party's settings of the house ``search`` player (games/search_player.py, ``search_knobs``)."""

from typing import Any

# A move has many candidates (each card of the hand in each row) and a 100 ms search gets about a hundred
# iterations: too few to tell them apart, so the heuristic's move starts with 30 virtual visits at an even reward and
# is left only for a move the playouts clearly prefer (docs/benchmarks.md, "Search bots": 25% of 2-player games won
# with random playouts, 39% with heuristic playouts, 59% with this head start besides).
KNOBS: dict[str, Any] = {"seed_visits": 30}
