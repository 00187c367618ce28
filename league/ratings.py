"""Elo for 2 to 5 players (DESIGN.md, Ratings). Pure functions: no database.

Every pair of seats is one Elo game scored by their ranks (win 1, tie ½, loss 0), with K divided by (players - 1),
so a multiplayer match moves a rating about as much as one two-player game.
"""

from __future__ import annotations

from collections.abc import Sequence

INITIAL_ELO = 1500.0
K_ESTABLISHED = 24.0
K_PROVISIONAL = 48.0
# A bot is provisional for its first games, and again for the first games after each new version goes live.
PROVISIONAL_GAMES = 20


def k_factor(games_since_version: int) -> float:
    return K_PROVISIONAL if games_since_version < PROVISIONAL_GAMES else K_ESTABLISHED


def expected_score(rating: float, opponent: float) -> float:
    return 1.0 / (1.0 + 10 ** ((opponent - rating) / 400.0))


def pair_score(rank: int, opponent_rank: int) -> float:
    if rank < opponent_rank:
        return 1.0
    return 0.5 if rank == opponent_rank else 0.0


def elo_deltas(ratings: Sequence[float], ranks: Sequence[int], k_factors: Sequence[float]) -> list[float]:
    """The Elo change of each seat. Each seat uses its own K (provisional bots move faster)."""
    players = len(ratings)
    if not players == len(ranks) == len(k_factors) or players < 2:
        raise ValueError("ratings, ranks and k_factors need one entry per seat, at least two seats")
    deltas = []
    for seat in range(players):
        total = sum(
            pair_score(ranks[seat], ranks[other]) - expected_score(ratings[seat], ratings[other])
            for other in range(players)
            if other != seat
        )
        deltas.append(k_factors[seat] / (players - 1) * total)
    return deltas
