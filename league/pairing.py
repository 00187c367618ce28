"""Ladder matchmaking. Pure: no database.

The bot with the fewest games gets a seat first (new bots climb fast, nobody starves); its opponents are the bots
nearest in rating, blurred by random noise so that pairings vary; the seat order is shuffled.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

# Standard deviation, in Elo points, of the noise that keeps opponents varied.
RATING_NOISE = 150.0


@dataclass
class Candidate:
    bot_id: int
    version: Any  # whatever the caller needs back to seat this bot (a BotVersion)
    elo: float
    games: int


def pick_table(candidates: list[Candidate], min_players: int, max_players: int, rng: random.Random) -> list[int] | None:
    """Bot ids for one table, in seat order; None when there are too few candidates."""
    if len(candidates) < min_players:
        return None
    size = rng.randint(min_players, min(max_players, len(candidates)))
    fewest = min(candidate.games for candidate in candidates)
    first = rng.choice([candidate for candidate in candidates if candidate.games == fewest])
    others = sorted(
        (candidate for candidate in candidates if candidate is not first),
        key=lambda candidate: abs(candidate.elo - first.elo + rng.gauss(0, RATING_NOISE)),
    )
    table = [first.bot_id] + [candidate.bot_id for candidate in others[: size - 1]]
    rng.shuffle(table)
    return table
