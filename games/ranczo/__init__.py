"""Ranczo Party (Sylvie Barc's "Dragon"): build a 7x7 grid of farm animals and score the lines you complete."""

from games.base import LadderDefaults

# The league's ladder for this game unless its settings say otherwise (parlour/settings.py merges LADDER_GAMES over it).
LADDER: LadderDefaults = {"games_per_hour": 600, "series": 6}
