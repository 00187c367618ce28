"""The pure rating function: one match's effect on a bot's Elo, uncertainty, counts and provisional status."""

from __future__ import annotations

import itertools
import math
import random

import pytest

from league.ratings import elo as ratings
from league.ratings.elo import BotRating, RatedSeat, rate_match


def _seats(*ranks: int, version: int = 1) -> list[RatedSeat]:
    return [RatedSeat(rank=rank, version=version) for rank in ranks]


def test_rate_match_moves_elo_exactly_as_the_design_says() -> None:
    before = [BotRating(elo=1600, games=30, games_since_version=30, version=1), BotRating(elo=1450, version=0)]
    after = rate_match(before, _seats(2, 1))
    deltas = ratings.elo_deltas([1600, 1450], [2, 1], [ratings.K_ESTABLISHED, ratings.K_PROVISIONAL])
    assert [a.elo for a in after] == [b.elo + d for b, d in zip(before, deltas, strict=True)]


def test_a_rating_counts_wins_losses_and_draws_by_first_place() -> None:
    after = rate_match([BotRating()] * 4, _seats(1, 1, 3, 4))
    assert [(a.wins, a.draws, a.losses) for a in after] == [(0, 1, 0), (0, 1, 0), (0, 0, 1), (0, 0, 1)]
    after = rate_match([BotRating()] * 3, _seats(2, 1, 3))
    assert [a.wins for a in after] == [0, 1, 0] and all(a.games == 1 for a in after)


def test_the_uncertainty_shrinks_with_games_and_settles_where_elo_noise_settles() -> None:
    state, opponent = BotRating(), BotRating(variance=40.0**2, games=100, games_since_version=100, version=1)
    sigmas = []
    for game in range(300):
        state = rate_match([state, opponent], _seats(1 + game % 2, 2 - game % 2))[0]
        sigmas.append(state.sigma)
    assert sigmas[0] < ratings.INITIAL_SIGMA and all(b <= a + 1e-9 for a, b in itertools.pairwise(sigmas[:60]))
    # Established Elo with K=24 wanders about sqrt(K/2c) ≈ 46 around the truth: the interval must not claim better.
    assert 40 < sigmas[-1] < 55
    low, high = state.interval
    assert high - low == pytest.approx(2 * ratings.Z95 * state.sigma)


def test_a_new_version_is_provisional_again_and_less_certain() -> None:
    settled = BotRating(elo=1700, variance=45.0**2, games=200, games_since_version=200, version=1)
    old = rate_match([settled, BotRating()], _seats(1, 2, version=1))[0]
    new = rate_match([settled, BotRating()], _seats(1, 2, version=2))[0]
    assert (old.games_since_version, old.provisional) == (201, False)
    assert (new.games_since_version, new.version, new.provisional) == (1, 2, True)
    assert new.variance > old.variance and new.elo - settled.elo > old.elo - settled.elo  # provisional K: 48


def test_a_late_result_of_an_older_version_does_not_reset_the_newer_one() -> None:
    current = BotRating(games=50, games_since_version=5, version=3)
    after = rate_match([current, BotRating()], [RatedSeat(1, 2), RatedSeat(2, 1)])[0]
    assert (after.version, after.games_since_version) == (3, 6)


def test_the_sparkline_keeps_the_last_elo_values() -> None:
    state = BotRating()
    for _ in range(ratings.RECENT + 5):
        state = rate_match([state, BotRating()], _seats(1, 2))[0]
    assert len(state.recent) == ratings.RECENT and state.recent[-1] == round(state.elo, 1)


def test_a_table_needs_one_rating_per_seat() -> None:
    with pytest.raises(ValueError):
        rate_match([BotRating()], _seats(1))


def _league_coverage(table_size: int, games_per_bot: int, bots: int = 200, seed: int = 3) -> tuple[float, float]:
    """Play a league of bots with known true ratings (outcomes drawn from the Elo model itself: each seat performs
    at its true rating plus Gumbel noise, so every pair follows the logistic curve); returns the share of bots
    whose 95% interval contains the truth, and the mean sigma."""
    rng = random.Random(seed)
    truth = [rng.gauss(1500, 200) for _ in range(bots)]
    shift = 1500 - sum(truth) / bots
    truth = [t + shift for t in truth]
    states = [BotRating() for _ in range(bots)]
    scale = 400 / math.log(10)
    for _ in range(games_per_bot):
        order = list(range(bots))
        rng.shuffle(order)
        for start in range(0, bots - table_size + 1, table_size):
            table = order[start : start + table_size]
            performance = [truth[b] - scale * math.log(-math.log(rng.random())) for b in table]
            ranks = [1 + sum(1 for other in performance if other > mine) for mine in performance]
            for b, state in zip(table, rate_match([states[b] for b in table], _seats(*ranks)), strict=True):
                states[b] = state
    centre = 1500 - sum(state.elo for state in states) / bots
    covered = sum(1 for b, state in enumerate(states) if abs(state.elo + centre - truth[b]) <= 1.96 * state.sigma)
    return covered / bots, sum(state.sigma for state in states) / bots


@pytest.mark.parametrize("table_size", [2, 4])
def test_the_95_percent_interval_covers_the_true_rating_about_95_percent_of_the_time(table_size: int) -> None:
    early, early_sigma = _league_coverage(table_size, games_per_bot=8)
    settled, settled_sigma = _league_coverage(table_size, games_per_bot=120)
    assert early >= 0.95 and early_sigma > 150  # a handful of games: wide, and honest about it
    assert 0.88 <= settled <= 0.99 and settled_sigma < 60
