"""High Society (Reiner Knizia): bid money cards for guests, avoid scandals, and never end up the poorest."""

from games.base import LadderDefaults

# The league's ladder for this game unless its settings say otherwise (parlour/settings.py merges LADDER_GAMES over it).
LADDER: LadderDefaults = {"games_per_hour": 600, "series": 6}
