"""High Society's settings of the house ``search`` player (games/search_player.py, ``search_knobs``)."""

from typing import Any

# A bid is any set of one's money cards (up to 2,048 candidates) and a 100 ms search at a full table gets some twenty
# iterations: a bid with one lucky playout would win the count. The heuristic's move starts with 30 virtual visits
# at an even reward, so the search leaves it only for a move the playouts clearly prefer (docs/benchmarks.md,
# "Search bots": 1.5% of 200 five-player games won without it).
KNOBS: dict[str, Any] = {"seed_visits": 30}
