"""TEN (AEG, 2021): flip cards, stop before the total passes ten, and collect runs of numbers in four colours."""

from games.base import LadderDefaults

# The league's ladder for this game unless its settings say otherwise (parlour/settings.py merges LADDER_GAMES over it).
LADDER: LadderDefaults = {"games_per_hour": 600}
