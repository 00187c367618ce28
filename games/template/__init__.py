"""The template game, High Card: a complete small game to copy when adding a game (docs/adding-a-game.md).

It is not registered in ``games/registry.py``, so the league, the API and the tools never offer it; the tests
register it for themselves and run it through the conformance suite every game passes.
"""

from games.base import LadderDefaults

# The league's ladder for this game unless its settings say otherwise (parlour/settings.py merges LADDER_GAMES over it).
LADDER: LadderDefaults = {"table_sizes": [2, 3, 4], "games_per_hour": 600, "series": 8}
