from __future__ import annotations

import pytest

from league.ratings import elo as ratings


def test_two_equal_players_move_by_half_k() -> None:
    assert ratings.elo_deltas([1500, 1500], [1, 2], [24, 24]) == pytest.approx([12, -12])


def test_a_draw_between_equals_changes_nothing() -> None:
    assert ratings.elo_deltas([1500, 1500], [1, 1], [24, 24]) == pytest.approx([0, 0])


def test_multiplayer_divides_k_by_players_minus_one() -> None:
    # 4 equal players ranked 1..4: the winner scores 3 of 3 pair games, expected 1.5 → +K/3 * 1.5
    deltas = ratings.elo_deltas([1500] * 4, [1, 2, 3, 4], [24] * 4)
    assert deltas == pytest.approx([12, 4, -4, -12])


def test_ratings_are_zero_sum_when_k_is_equal() -> None:
    deltas = ratings.elo_deltas([1600, 1450, 1500], [2, 1, 2], [24, 24, 24])
    assert sum(deltas) == pytest.approx(0)


def test_provisional_bots_have_a_higher_k() -> None:
    assert ratings.k_factor(0) > ratings.k_factor(ratings.PROVISIONAL_GAMES)


def test_an_upset_moves_ratings_more_than_an_expected_result() -> None:
    upset = ratings.elo_deltas([1400, 1600], [1, 2], [24, 24])[0]
    expected = ratings.elo_deltas([1600, 1400], [1, 2], [24, 24])[0]
    assert upset > expected > 0


def test_mismatched_inputs_are_refused() -> None:
    with pytest.raises(ValueError):
        ratings.elo_deltas([1500], [1], [24])
