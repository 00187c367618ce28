"""Elo for 2 to 5 players (docs/design.md, Ratings), with an uncertainty. Pure functions: no database.

Every pair of seats is one Elo game scored by their ranks (win 1, tie ½, loss 0), with K divided by (players - 1),
so a multiplayer match moves a rating about as much as one two-player game.

``rate_match`` is the one way a rating changes: the services call it when a match is recorded, and the
``recompute_ratings`` command calls it again over the whole match history, in the same order, to prove that the
stored ratings are exactly what the history says. Its only inputs are the bots' states before the match and, per
seat, the rank and the version number that played; nothing depends on the clock or on the database.

The uncertainty (docs/ratings.md) is the variance of the Elo estimate itself around the bot's true strength,
carried through each Elo update by linearising it: a rating with K moves by ``K·w·Σ(S - E)``, so its error shrinks by
the factor ``1 - K·w·Σ c·E(1-E)`` and gains the noise of the results, ``(K·w)²·Σ E(1-E)`` (plus the opponents' own
errors, which leak in through E). Unlike the Fisher information of all games, which would shrink towards zero, this
settles where Elo itself settles (about ±45 for K = 24): an interval that says how far the number shown may be off.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace

INITIAL_ELO = 1500.0
K_ESTABLISHED = 24.0
K_PROVISIONAL = 48.0
# A bot is provisional for its first games, and again for the first games after each new version goes live.
PROVISIONAL_GAMES = 20

# Slope of the expected score: dE/d(elo) = C·E·(1-E).
C = math.log(10) / 400.0
# A new bot's strength is unknown: Glicko's starting deviation of 350 (95%: ±686 around 1500).
INITIAL_SIGMA = 350.0
INITIAL_VARIANCE = INITIAL_SIGMA**2
# A new version may be much better or worse than the last one: its variance grows by this (capped at the initial).
NEW_VERSION_VARIANCE = 200.0**2
Z95 = 1.959963984540054
# Elo values kept for the leaderboard's sparkline.
RECENT = 30


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


def variance_updates(ratings: Sequence[float], variances: Sequence[float], k_factors: Sequence[float]) -> list[float]:
    """Each seat's variance after one match at this table (linearised Elo error propagation, see the module doc)."""
    players = len(ratings)
    weight = 1.0 / (players - 1)
    # A seat's pair results in one match are not independent (one performance decides them all): for equal players
    # the number of seats it beats is uniform on 0..n-1, variance (n²-1)/12 instead of (n-1)/4, a factor (n+1)/3.
    correlation = (players + 1) / 3.0
    updated = []
    for seat in range(players):
        step = k_factors[seat] * weight
        pull = 0.0  # Σ c·E(1-E): how strongly the result pulls the rating towards the truth
        noise = 0.0  # Σ E(1-E) + (c·E(1-E))²·σ²(opponent): the randomness the update adds
        for other in range(players):
            if other == seat:
                continue
            e = expected_score(ratings[seat], ratings[other])
            slope = C * e * (1.0 - e)
            pull += slope
            noise += e * (1.0 - e) + slope * slope * variances[other]
        updated.append((1.0 - step * pull) ** 2 * variances[seat] + step * step * correlation * noise)
    return updated


def interval(elo: float, variance: float) -> tuple[float, float]:
    """The 95% interval of a rating."""
    half = Z95 * math.sqrt(variance)
    return (elo - half, elo + half)


def is_provisional(games_since_version: int) -> bool:
    return games_since_version < PROVISIONAL_GAMES


@dataclass(frozen=True)
class BotRating:
    """Everything the rating of one bot in one game is made of. The ``Rating`` row stores exactly these fields."""

    elo: float = INITIAL_ELO
    variance: float = INITIAL_VARIANCE
    games: int = 0
    wins: int = 0
    draws: int = 0
    losses: int = 0
    games_since_version: int = 0
    version: int = 0  # the newest version number that has played a rated match
    recent: tuple[float, ...] = ()  # the last RECENT Elo values, rounded to 0.1, oldest first

    @property
    def sigma(self) -> float:
        return math.sqrt(self.variance)

    @property
    def interval(self) -> tuple[float, float]:
        return interval(self.elo, self.variance)

    @property
    def provisional(self) -> bool:
        return is_provisional(self.games_since_version)


@dataclass(frozen=True)
class RatedSeat:
    """What a match says about one seat: its rank (1 = best; ties share) and the version number of its bot."""

    rank: int
    version: int


def outcome_kind(rank: int, ranks: Sequence[int]) -> str:
    """``win`` (first alone), ``draw`` (first, shared) or ``loss`` (anything else) — the leaderboard's W/L/D."""
    if rank != 1:
        return "loss"
    return "draw" if sum(1 for other in ranks if other == 1) > 1 else "win"


def rate_match(before: Sequence[BotRating], seats: Sequence[RatedSeat]) -> list[BotRating]:
    """The ratings of the bots at one table after their match, in seat order. The bots must be distinct."""
    if len(before) != len(seats) or len(seats) < 2:
        raise ValueError("one rating per seat, at least two seats")
    current = []
    for state, seat in zip(before, seats, strict=True):
        if seat.version > state.version:
            # A newer version has started to play: its rating moves fast again and is less certain.
            state = replace(
                state,
                version=seat.version,
                games_since_version=0,
                variance=min(state.variance + NEW_VERSION_VARIANCE, INITIAL_VARIANCE)
                if state.games
                else state.variance,
            )
        current.append(state)
    elos = [state.elo for state in current]
    ranks = [seat.rank for seat in seats]
    ks = [k_factor(state.games_since_version) for state in current]
    deltas = elo_deltas(elos, ranks, ks)
    variances = variance_updates(elos, [state.variance for state in current], ks)
    after = []
    for state, seat, delta, variance in zip(current, seats, deltas, variances, strict=True):
        kind = outcome_kind(seat.rank, ranks)
        elo = state.elo + delta
        after.append(
            replace(
                state,
                elo=elo,
                variance=variance,
                games=state.games + 1,
                wins=state.wins + (kind == "win"),
                draws=state.draws + (kind == "draw"),
                losses=state.losses + (kind == "loss"),
                games_since_version=state.games_since_version + 1,
                recent=(*state.recent, round(elo, 1))[-RECENT:],
            )
        )
    return after
