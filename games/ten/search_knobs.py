"""TEN's settings of the house ``search`` player (games/search_player.py, ``search_knobs``)."""

from typing import Any

# The heuristic takes about 1 ms a decision and a game is some 160 decisions: one playout by it would spend the
# whole 100 ms of a move. Random playouts fit dozens.
KNOBS: dict[str, Any] = {"heuristic_playouts": False}
