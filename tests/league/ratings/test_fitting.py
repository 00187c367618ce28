"""Fitted Elo (league.ratings.fitting) and the matchmaking that settles the order (league.ladder.settling), on simulated
leagues with fixed seeds: outcomes are drawn from the Elo model itself, so the true ratings are known."""

from __future__ import annotations

import random

import numpy as np
import pytest

from league.ladder.pairing import Candidate, Policy
from league.ladder.settling import plan_settling_tables, settle_score
from league.ratings import fitting
from league.ratings.elo import PROVISIONAL_GAMES


def _league(truth: np.ndarray, matches: int, seed: int, players: int = 2) -> list[tuple[list[int], list[int]]]:
    """Random tables; ranks from a Plackett-Luce race, whose pairs keep the Elo probability."""
    rng = np.random.default_rng(seed)
    results = []
    for _ in range(matches):
        seats = [int(b) for b in rng.choice(len(truth), players, replace=False)]
        finish = rng.exponential(1.0 / 10 ** (truth[seats] / 400.0))
        ranks = np.empty(players, dtype=int)
        ranks[np.argsort(finish)] = np.arange(1, players + 1)
        results.append((seats, [int(r) for r in ranks]))
    return results


TRUTH = 1500.0 + 60.0 * (np.arange(16) - 7.5)  # mean 1500, as the anchor defines the scale


@pytest.mark.parametrize("players", [2, 4])
def test_recovers_known_strengths_within_the_interval(players: int) -> None:
    result = fitting.fit(fitting.pair_counts(_league(TRUTH, 3000, seed=1, players=players), 16))
    assert result.converged
    inside = np.abs(result.ratings - TRUTH) <= fitting.Z95 * result.sigmas
    assert inside.sum() >= 14  # 95% intervals: 15.2 of 16 expected
    assert np.all(result.sigmas < 40) and np.all(result.sigmas > 10)
    assert np.corrcoef(result.ratings, TRUTH)[0, 1] > 0.98


def test_the_anchor_holds_the_league_mean_at_1500() -> None:
    strong = TRUTH + 300.0  # everyone stronger: the scale is relative, the mean stays 1500
    for truth in (TRUTH, strong):
        result = fitting.fit(fitting.pair_counts(_league(truth, 800, seed=2), 16))
        assert result.ratings.mean() == pytest.approx(1500.0, abs=1e-6)
    # A newcomer joining does not move the mean either.
    counts = fitting.pair_counts(_league(TRUTH, 800, seed=2), 17)
    counts = fitting.pair_counts([([16, 0], [1, 2])] * 5, 17, counts)
    assert fitting.fit(counts).ratings.mean() == pytest.approx(1500.0, abs=1e-6)


def test_a_bot_with_one_game_or_only_wins_stays_finite() -> None:
    counts = fitting.pair_counts([([0, 1], [1, 2])], 2)
    result = fitting.fit(counts)
    assert np.all(np.isfinite(result.ratings)) and np.all(np.isfinite(result.sigmas))
    assert 1500 < result.ratings[0] < 1700 and result.ratings[1] == pytest.approx(3000 - result.ratings[0])
    # One game says little: a little narrower than the prior of a rating relative to the mean of two, 350/√2 = 247.
    assert 120 < result.sigmas[0] < 247
    unbeaten = fitting.fit(fitting.pair_counts([([0, 1], [1, 2])] * 30, 2))
    assert np.all(np.isfinite(unbeaten.ratings)) and unbeaten.ratings[0] < 2500


def test_ties_count_as_half() -> None:
    counts = fitting.pair_counts([([0, 1], [1, 1]), ([2, 0], [1, 2])], 3)
    scores = {(int(a), int(b)): (float(g), float(s)) for a, b, g, s in zip(*_columns(counts), strict=True)}
    assert scores == {(0, 1): (1.0, 0.5), (0, 2): (1.0, 0.0)}
    # Two draws fit exactly like a win and a loss.
    draws = fitting.fit(fitting.pair_counts([([0, 1], [1, 1])] * 2, 2))
    split = fitting.fit(fitting.pair_counts([([0, 1], [1, 2]), ([0, 1], [2, 1])], 2))
    assert np.allclose(draws.ratings, 1500.0) and np.allclose(split.ratings, draws.ratings)


def test_a_multiplayer_table_is_its_pairs_weighted_one_over_n_minus_one() -> None:
    counts = fitting.pair_counts([([4, 2, 0, 7], [1, 2, 2, 4])], 8)
    pairs = {(int(a), int(b)): (float(g), float(s)) for a, b, g, s in zip(*_columns(counts), strict=True)}
    third = 1 / 3
    expected = {
        (2, 4): (third, 0.0),  # 4 ranked first: the smaller index (2) lost
        (0, 4): (third, 0.0),
        (4, 7): (third, third),
        (0, 2): (third, third / 2),  # tied for second
        (2, 7): (third, third),
        (0, 7): (third, third),
    }
    assert pairs.keys() == expected.keys()
    assert all(pairs[key] == pytest.approx(value) for key, value in expected.items())
    # A bot's total weight per match is 1 whatever the table size.
    assert sum(g for (a, b), (g, _) in pairs.items() if 4 in (a, b)) == pytest.approx(1.0)
    # The information weight: weight² x (n+1)/3, the variance of a seat's points in one ranking (5/9 of the weight).
    assert np.allclose(counts.information, counts.games * 5 / 9)


def test_warm_start_gives_the_same_fit_in_fewer_iterations() -> None:
    results = _league(TRUTH, 2000, seed=3)
    before = fitting.fit(fitting.pair_counts(results[:-10], 16))
    counts = fitting.pair_counts(results, 16)
    cold = fitting.fit(counts)
    warm = fitting.fit(counts, warm_start=before)
    assert np.allclose(warm.ratings, cold.ratings, atol=0.05) and np.allclose(warm.sigmas, cold.sigmas, rtol=1e-3)
    assert warm.iterations < cold.iterations
    # A bot that joined since the last fit starts at 1500.
    grown = fitting.pair_counts([([16, 3], [1, 2])], 17, counts)
    assert fitting.fit(grown, warm_start=cold).converged


def test_the_propagated_sigma_of_large_leagues_is_close_to_the_exact_one() -> None:
    rng = np.random.default_rng(4)
    truth = rng.normal(1500, 200, 300)
    counts = fitting.pair_counts(_league(truth, 15000, seed=4), 300)
    exact = fitting.fit(counts)
    approx = fitting.fit(counts, warm_start=exact, dense_limit=0)
    assert approx.covariance is None and exact.covariance is not None
    ratio = approx.sigmas / exact.sigmas
    assert 0.95 < np.median(ratio) < 1.05 and ratio.min() > 0.85 and ratio.max() < 1.15


def test_rank_ranges_contain_the_true_rank() -> None:
    result = fitting.fit(fitting.pair_counts(_league(TRUTH, 1500, seed=5), 16))
    ranges = fitting.rank_ranges(result, 2000, np.random.default_rng(5))
    true_rank = fitting.ranks(TRUTH)
    inside = (ranges[:, 0] <= true_rank) & (true_rank <= ranges[:, 1])
    assert inside.sum() >= 15
    assert np.all(ranges[:, 0] <= fitting.ranks(result.ratings)) and np.all(
        fitting.ranks(result.ratings) <= ranges[:, 1]
    )
    assert np.all(ranges[:, 1] - ranges[:, 0] <= 6)  # informative: not "anywhere"
    # Bots 60 apart after ~190 games each are not separable one by one: most ranges span more than one rank.
    assert np.sum(ranges[:, 1] > ranges[:, 0]) >= 8


def test_rank_ranges_are_the_lower_and_higher_quantiles_of_the_drawn_ranks() -> None:
    result = fitting.fit(fitting.pair_counts(_league(TRUTH, 600, seed=8), 16), dense_limit=0)
    ranges = fitting.rank_ranges(result, 401, np.random.default_rng(8))
    # The same draws, ranked and summarised the plain way.
    samples = result.ratings + np.random.default_rng(8).standard_normal((401, 16)) * result.sigmas
    drawn = np.array([fitting.ranks(row) for row in samples])
    low = np.quantile(drawn, 0.025, axis=0, method="lower")
    high = np.quantile(drawn, 0.975, axis=0, method="higher")
    assert np.array_equal(ranges, np.stack([low, high], axis=1))
    assert np.any(ranges[:, 0] < ranges[:, 1])  # not all ranges collapsed: the comparison says something


def test_the_propagated_variances_solve_their_recurrence() -> None:
    counts = fitting.pair_counts(_league(TRUTH, 300, seed=9, players=3), 16)
    curvature, spread, tau2 = counts.games * 0.2, counts.information * 0.2, 2.0
    variances, rounds = fitting._propagated_variances(counts, curvature, spread, tau2, rounds=200)
    # v_i = J_ii/H_ii² + Σ_j (H_ij/H_ii)² v_j, from the dense matrices.
    hessian, noise = np.diag(np.full(16, 1 / tau2)), np.diag(np.full(16, 1 / tau2))
    for a, b, c, j in zip(counts.first, counts.second, curvature, spread, strict=True):
        hessian[[a, b, a, b], [a, b, b, a]] += [c, c, -c, -c]
        noise[[a, b], [a, b]] += j
    own = np.diag(hessian)
    leak = (hessian - np.diag(own)) ** 2 / own[:, None] ** 2
    assert rounds < 200
    assert np.allclose(variances, np.diag(noise) / own**2 + leak @ variances, rtol=1e-3)


def test_the_objective_keeps_its_precision_near_the_optimum_of_a_large_league() -> None:
    small = fitting.pair_counts(_league(TRUTH, 400, seed=10), 16)
    # Every result 10⁵ times over: the objective's whole value is ~10⁷, as with millions of pairs.
    counts = fitting.PairCounts(16, small.first, small.second, small.games * 1e5, small.score * 1e5, small.information)
    x = fitting.C * (fitting.fit(counts).ratings - 1500.0)
    tau2 = (fitting.C * fitting.PRIOR_SIGMA) ** 2
    # Started near the optimum, as a warm refit is.
    objective, hessp = fitting._objective(fitting._incidence(counts), counts, tau2, x + 0.01)
    value, gradient = objective(x)
    step = np.random.default_rng(10).standard_normal(16) * 1e-7
    modelled = gradient @ step + step @ hessp(x, step) / 2
    # A change of ~10⁻⁸ on a value of ~10⁷: taken whole, the value's rounding put it a third off (measured).
    assert abs(modelled) < 1e-6 and objective(x + step)[0] - value == pytest.approx(modelled, rel=1e-2)


def _settled(elos: list[float], sigmas: list[float]) -> list[Candidate]:
    return [
        Candidate(bot_id=i, version=None, elo=e, sigma=s, games=PROVISIONAL_GAMES + 30)
        for i, (e, s) in enumerate(zip(elos, sigmas, strict=True))
    ]


def test_pairing_prefers_overlapping_neighbours_with_few_games_together() -> None:
    # 0-1 overlap a lot, 2-3 overlap less, 4 is far from everyone.
    elos, sigmas = [1500, 1510, 1700, 1760, 2100], [30, 30, 30, 30, 30]
    tables = plan_settling_tables(_settled(elos, sigmas), {}, 1, Policy(table_sizes=(2,)), random.Random(0))
    assert sorted(c.bot_id for c in tables[0]) == [0, 1]
    # After many games together the less certain but less played pair comes first.
    tables = plan_settling_tables(
        _settled(elos, sigmas), {(0, 1): 400.0}, 1, Policy(table_sizes=(2,)), random.Random(0)
    )
    assert sorted(c.bot_id for c in tables[0]) == [2, 3]
    # A table of three takes the next most uncertain neighbour of the pair.
    tables = plan_settling_tables(_settled(elos, sigmas), {}, 1, Policy(table_sizes=(3,)), random.Random(0))
    assert sorted(c.bot_id for c in tables[0]) == [0, 1, 2]
    bots = _settled(elos, sigmas)
    assert settle_score(bots[0], bots[1], {}) > 0.3 > 1e-6 > settle_score(bots[3], bots[4], {})


def test_pairing_keeps_the_per_bot_limit_and_rotates_seats() -> None:
    candidates = _settled([1500, 1505, 1800, 2100], [30] * 4)
    policy = Policy(table_sizes=(2,), max_in_flight=2)
    tables = plan_settling_tables(candidates, {}, 6, policy, random.Random(1))
    in_flight: dict[int, int] = {}
    for table in tables:
        for c in table:
            in_flight[c.bot_id] = in_flight.get(c.bot_id, 0) + 1
    assert max(in_flight.values()) <= 2
    assert [sorted(c.bot_id for c in t) for t in tables[:2]] == [[0, 1], [0, 1]]
    assert [c.bot_id for c in tables[0]] != [c.bot_id for c in tables[1]]  # seats swapped the second time


def test_placement_and_starving_bots_are_planned_as_today() -> None:
    candidates = _settled([1500, 1505, 1800, 2100], [30] * 4)
    candidates[3].games = 0  # a newcomer
    for seed in range(10):
        fresh = [Candidate(**{**vars(c), "seats": {}}) for c in candidates]
        tables = plan_settling_tables(fresh, {}, 1, Policy(table_sizes=(2,)), random.Random(seed))
        assert 3 in [c.bot_id for c in tables[0]]
    candidates[3].games = PROVISIONAL_GAMES + 30
    candidates[3].idle_seconds = 10_000.0
    tables = plan_settling_tables(candidates, {}, 1, Policy(table_sizes=(2,)), random.Random(0))
    assert 3 in [c.bot_id for c in tables[0]]


def _columns(counts: fitting.PairCounts) -> tuple[np.ndarray, ...]:
    return counts.first, counts.second, counts.games, counts.score
