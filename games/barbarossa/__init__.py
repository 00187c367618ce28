"""Barbarossa: a digital adaptation of Klaus Teuber's clay-riddle game (the rules: games/barbarossa/RULES.md)."""

from games.base import LadderDefaults

# The league's ladder for this game unless its settings say otherwise (parlour/settings.py merges LADDER_GAMES over it).
LADDER: LadderDefaults = {"games_per_hour": 300}
