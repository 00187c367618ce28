"""Love Letter (classic 16-card edition): rules engine and built-in players."""

from games.base import LadderDefaults

# The league's ladder for this game unless its settings say otherwise (parlour/settings.py merges LADDER_GAMES over it).
LADDER: LadderDefaults = {"table_sizes": [2, 3, 4], "games_per_hour": 1200, "series": 12}
