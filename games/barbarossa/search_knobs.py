"""Barbarossa's settings of the house ``search`` player (games/search_player.py, ``search_knobs``)."""

from typing import Any

# The reasoner takes about 4 ms a decision and a game is over a hundred decisions: one playout by it would take
# several moves' time. Random playouts fit.
KNOBS: dict[str, Any] = {"heuristic_playouts": False}
