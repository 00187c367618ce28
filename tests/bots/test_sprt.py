"""The SPRT of ``python -m bots compare``: its maths, and its error rates measured on simulated results with known true
Elo differences. The measured figures are printed (``pytest -s``) and recorded in docs/challenges.md."""

from __future__ import annotations

import math
import random

import pytest

from bots.authoring.sprt import SPRT, Tally, _constrained_mle, elo_estimate, elo_to_score, score_to_elo, simulate

# Wide enough bounds to keep the simulation quick in CI (the default [0, 5] takes ~15x more games per run; its
# figures come from `python -m bots.authoring.sprt` and are in docs/challenges.md).
TEST_SPRT = SPRT(elo0=0.0, elo1=30.0, alpha=0.05, beta=0.05)
RUNS = 400


def test_elo_and_expected_score_are_inverse() -> None:
    for elo in (-800, -100, -5, 0, 5, 100, 800):
        assert score_to_elo(elo_to_score(elo)) == pytest.approx(elo)
    assert elo_to_score(0) == 0.5 and elo_to_score(400) == pytest.approx(10 / 11)
    with pytest.raises(ValueError):
        score_to_elo(1.0)


def test_a_tally_counts_games_from_ranks() -> None:
    tally = Tally()
    assert tally.add_ranks(1, 2) == 1.0 and tally.add_ranks(2, 2) == 0.5 and tally.add_ranks(3, 1) == 0.0
    assert str(tally) == "+1 =1 -1" and tally.score == 0.5 and str(tally.flipped()) == "+1 =1 -1"
    with pytest.raises(ValueError):
        tally.add(0.25)


def test_the_constrained_distribution_has_the_asked_mean_and_stays_close_to_the_results() -> None:
    empirical = [0.5, 0.2, 0.3]
    for mean in (0.3, 0.5, 0.6, 0.7):
        p = _constrained_mle(empirical, mean)
        assert sum(p) == pytest.approx(1.0)
        assert p[0] + p[1] / 2 == pytest.approx(mean, abs=1e-12)
    # Already at the asked mean: unchanged.
    assert _constrained_mle(empirical, 0.6) == pytest.approx(empirical)


def test_the_llr_grows_with_evidence_for_the_stronger_side() -> None:
    sprt = SPRT(0, 20)
    assert sprt.llr(0, 0, 0) == 0.0
    assert sprt.llr(60, 10, 30) > sprt.llr(30, 10, 20) > 0
    assert sprt.llr(30, 10, 60) < sprt.llr(20, 10, 30) < 0
    # A handful of wins is weak evidence: no verdict from 3 games (the naive normal approximation would give one).
    assert sprt.verdict(3, 0, 0) is None
    assert sprt.verdict(400, 0, 100) == "H1" and sprt.verdict(100, 0, 400) == "H0"
    assert sprt.lower == pytest.approx(math.log(0.05 / 0.95)) and sprt.upper == pytest.approx(math.log(19))


@pytest.mark.parametrize("bad", [{"elo0": 5, "elo1": 0}, {"alpha": 0}, {"beta": 0.7}, {"elo0": -2000, "elo1": 0}])
def test_nonsense_parameters_are_refused(bad: dict) -> None:
    with pytest.raises(ValueError):
        SPRT(**bad)


def test_the_false_positive_rate_stays_within_alpha_when_there_is_no_difference() -> None:
    result = simulate(TEST_SPRT, true_elo=0.0, runs=RUNS, seed=11)
    print(
        f"\nSPRT [0, 30] at a true difference of 0 Elo: H1 (false positive) {result.h1_rate:.3f}, "
        f"H0 {result.h0_rate:.3f}, mean games {result.mean_games:.0f} over {RUNS} runs"
    )
    assert result.inconclusive == 0
    # alpha = 0.05; the binomial spread of 400 runs is about ±0.011, so 0.08 is a comfortable ceiling.
    assert result.h1_rate <= 0.08


def test_the_false_negative_rate_stays_within_beta_at_the_hypothesised_difference() -> None:
    result = simulate(TEST_SPRT, true_elo=30.0, runs=RUNS, seed=12)
    print(
        f"\nSPRT [0, 30] at a true difference of +30 Elo: H0 (false negative) {result.h0_rate:.3f}, "
        f"H1 {result.h1_rate:.3f}, mean games {result.mean_games:.0f} over {RUNS} runs"
    )
    assert result.h0_rate <= 0.08


def test_clear_differences_are_found_quickly_and_correctly() -> None:
    better = simulate(TEST_SPRT, true_elo=100.0, runs=100, seed=13)
    worse = simulate(TEST_SPRT, true_elo=-100.0, runs=100, seed=14)
    assert better.h1_rate >= 0.99 and worse.h0_rate >= 0.99
    assert better.mean_games < 250 and worse.mean_games < 250


def test_the_elo_interval_covers_the_true_difference_about_95_percent_of_the_time() -> None:
    rng = random.Random(3)
    true_elo, games, trials = 80.0, 300, 300
    score = elo_to_score(true_elo)
    covered = 0
    for _ in range(trials):
        w = d = lo = 0
        for _ in range(games):
            u = rng.random()
            if u < score - 0.05:
                w += 1
            elif u < score + 0.05:
                d += 1
            else:
                lo += 1
        estimate = elo_estimate(w, d, lo)
        covered += estimate.low <= true_elo <= estimate.high
    assert 0.91 <= covered / trials <= 0.99


def test_the_estimate_is_finite_for_a_clean_sweep_and_absent_without_games() -> None:
    assert elo_estimate(0, 0, 0) is None
    sweep = elo_estimate(10, 0, 0)
    assert sweep.elo > 300 and sweep.low > 0 and sweep.high <= 1600
    even = elo_estimate(5, 0, 5)
    assert even.elo == pytest.approx(0) and even.low < 0 < even.high
