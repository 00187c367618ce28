"""Matchmaking (league.ladder.pairing), pure: who plays, against whom, in which seat."""

from __future__ import annotations

import random
import statistics
from collections import Counter

import pytest

from league.ladder.pairing import Candidate, Policy, plan_tables, seat_spread

TWO_TO_FOUR = Policy(table_sizes=(2, 3, 4))


def _settled(n: int, spread: float = 40.0) -> list[Candidate]:
    return [Candidate(bot_id=i, version=None, elo=1200 + spread * i, games=200, sigma=45.0) for i in range(n)]


def _finish(tables: list[list[Candidate]]) -> None:
    """The tables have been played: nothing is in flight any more."""
    for table in tables:
        for candidate in table:
            candidate.in_flight = 0


def test_a_newcomer_gets_a_seat_at_once_and_keeps_playing_while_uncertain() -> None:
    league = [*_settled(20), Candidate(bot_id=99, version=None)]
    rng = random.Random(1)
    seated = 0
    for _ in range(10):
        tables = plan_tables(league, 2, TWO_TO_FOUR, rng)
        seated += any(c.bot_id == 99 for table in tables for c in table)
        _finish(tables)
    assert seated == 10


def test_without_uncertainty_a_newcomer_plays_only_its_random_share() -> None:
    league = [*_settled(20), Candidate(bot_id=99, version=None)]
    rng = random.Random(1)
    seated = 0
    for _ in range(50):
        tables = plan_tables(league, 1, Policy(table_sizes=(2,), uncertainty=False), rng)
        seated += any(c.bot_id == 99 for table in tables for c in table)
        _finish(tables)
    assert seated < 20


def test_opponents_are_near_in_rating_but_not_always_the_same() -> None:
    league = _settled(40, spread=25.0)  # 1200 .. 2175
    rng = random.Random(2)
    gaps, pairs = [], Counter()
    for _ in range(400):
        (table,) = plan_tables(league, 1, Policy(table_sizes=(2,), starve_seconds=1e9), rng)
        gaps.append(abs(table[0].elo - table[1].elo))
        pairs[frozenset(c.bot_id for c in table)] += 1
        _finish([table])
    # A random opponent would be ~325 points away on average; ours are a few steps away, and they vary.
    assert statistics.mean(gaps) < 150
    assert len(pairs) > 100


def test_nobody_starves_and_nobody_hogs() -> None:
    league = [*_settled(30), *(Candidate(bot_id=100 + i, version=None, games=i) for i in range(3))]
    rng = random.Random(3)
    policy = Policy(table_sizes=(2, 3, 4), max_in_flight=2, starve_seconds=60)
    last_played = {c.bot_id: 0 for c in league}
    longest_wait = 0
    for tick in range(1, 301):
        tables = plan_tables(league, 3, policy, rng)
        for table in tables:
            for candidate in table:
                longest_wait = max(longest_wait, tick - last_played[candidate.bot_id])
                last_played[candidate.bot_id] = tick
        assert max(c.in_flight for c in league) <= policy.max_in_flight
        _finish(tables)
        for candidate in league:  # ten seconds between scheduler runs
            candidate.idle_seconds += 10
    assert longest_wait <= 15  # even the settled bot farthest from everyone plays every couple of minutes
    games = Counter({c.bot_id: c.games - (200 if c.bot_id < 100 else 0) for c in league})
    assert max(games.values()) < 3 * statistics.mean(games.values())


def test_the_in_flight_cap_holds_within_one_round() -> None:
    league = _settled(3)
    tables = plan_tables(league, 10, Policy(table_sizes=(2,), max_in_flight=1), random.Random(4))
    assert len(tables) == 1  # three bots, one match each at most: one table of two


@pytest.mark.parametrize("uncertainty", [True, False])
def test_seats_rotate_so_each_bot_plays_every_seat_about_equally(uncertainty: bool) -> None:
    league = _settled(7)
    rng = random.Random(5)
    policy = Policy(table_sizes=(2, 3, 4), uncertainty=uncertainty)
    for _ in range(600):
        _finish(plan_tables(league, 1, policy, rng))
    for candidate in league:
        assert seat_spread(candidate.seats) <= 2, candidate.seats
        assert set(candidate.seats) == {"2", "3", "4"}


def test_tables_have_distinct_bots_and_allowed_sizes() -> None:
    league = _settled(9)
    policy = Policy(table_sizes=(3, 5), max_in_flight=5)
    for table in plan_tables(league, 6, policy, random.Random(6)):
        assert len(table) in (3, 5) and len({c.bot_id for c in table}) == len(table)


def test_a_policy_refuses_nonsense() -> None:
    with pytest.raises(ValueError):
        Policy(table_sizes=(1,))
    with pytest.raises(ValueError):
        Policy(table_sizes=(2,), max_in_flight=0)
