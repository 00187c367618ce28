"""Round robin: two-player tables by the circle method (every pairing exactly once); larger tables by a seeded
local search that spreads meetings so that every pair meets at least once and about equally often."""

from __future__ import annotations

import math
import random
from collections import Counter
from collections.abc import Mapping, Sequence

from league.tournaments.formats.settings import FormatError
from league.tournaments.formats.tables import Pair, RoundPlan, improve_by_swaps, pairs_of, table_sizes


def _meetings_cost(table: Sequence[int], met: Mapping[Pair, int]) -> int:
    return sum(_next_meeting(met.get(pair, 0)) for pair in pairs_of(table))


def _next_meeting(count: int) -> int:
    # What one more meeting of a pair that has met ``count`` times costs: 2c + 1 (the growth of c², which spreads
    # meetings evenly and prefers unmet pairs), and steeply more from the fourth meeting on, so that no pair sticks
    # together round after round in a local minimum. Steeper costs from the start need more rounds to cover every
    # pair (measured over many seeds and sizes; see tests/league/tournaments/test_tournament_formats.py).
    return 2 * count + 1 + (20 * (count - 2) if count >= 3 else 0)


def _sit_out(entrants: Sequence[int], count: int, byes: Mapping[int, int], rng: random.Random) -> list[int]:
    """``count`` entrants to sit a round out: those with the fewest byes so far, at random among equals."""
    if count == 0:
        return []
    order = list(entrants)
    rng.shuffle(order)
    order.sort(key=lambda entry: byes.get(entry, 0))
    return order[:count]


def round_robin_schedule(
    entrants: Sequence[int], table_size: int, min_players: int, rng: random.Random
) -> list[RoundPlan]:
    """Every round of a round robin. Two-player: each pairing exactly once (circle method). Larger tables: rounds
    until every pair has met at least once, meetings spread as evenly as a local search finds; when entrants sit
    out, whole cycles of rounds are played so that everyone sits out equally often."""
    entrants = list(entrants)
    if len(entrants) < table_size:
        raise FormatError(f"a round robin at tables of {table_size} needs at least {table_size} entrants")
    if table_size == 2:
        return _circle(entrants)
    # Greedy round by round; a few independent tries, keeping the shortest schedule with the most even meetings.
    count = max(2, min(RR_TRIES, 128 // len(entrants)))  # big fields: each try is slower, and matters less
    tries = [_greedy_schedule(entrants, table_size, min_players, rng) for _ in range(count)]
    return min(tries, key=lambda schedule: (len(schedule), _spread(schedule)))


RR_TRIES = 8


def _spread(schedule: list[RoundPlan]) -> int:
    met: Counter[Pair] = Counter()
    for plan in schedule:
        for table in plan.tables:
            met.update(pairs_of(table))
    return max(met.values()) - min(met.values())


def _greedy_schedule(entrants: list[int], table_size: int, min_players: int, rng: random.Random) -> list[RoundPlan]:
    sizes, bye_count = table_sizes(len(entrants), table_size, min_players)
    block = 1 if bye_count == 0 else len(entrants) // math.gcd(len(entrants), bye_count)
    met: Counter[Pair] = Counter()
    byes: Counter[int] = Counter()
    everyone = set(pairs_of(entrants))
    rounds: list[RoundPlan] = []
    # Every pair meets within a few cycles; the bound only guards against a bug looping forever.
    while not everyone <= set(met) and len(rounds) < 50 * len(entrants):
        for _ in range(block):
            out = _sit_out(entrants, bye_count, byes, rng)
            playing = [entry for entry in entrants if entry not in out]
            tables = _spread_tables(playing, sizes, met, rng)
            for entry in out:
                byes[entry] += 1
            for table in tables:
                met.update(pairs_of(table))
            rounds.append(RoundPlan(tables=[sorted(t, key=entrants.index) for t in tables], byes=out))
    return rounds


def _circle(entrants: list[int]) -> list[RoundPlan]:
    players: list[int | None] = list(entrants)
    if len(players) % 2:
        players.append(None)  # whoever meets None sits the round out
    n = len(players)
    rounds = []
    for number in range(n - 1):
        tables, byes = [], []
        for i in range(n // 2):
            a, b = players[i], players[n - 1 - i]
            if a is None or b is None:
                byes.append(a if b is None else b)
            else:
                # Berger's colours: the top row sits first, the fixed player alternates; everyone ends within one
                # game of even between the two seats.
                tables.append([b, a] if i == 0 and number % 2 else [a, b])
        rounds.append(RoundPlan(tables=tables, byes=[entry for entry in byes if entry is not None]))
        players = [players[0], players[-1], *players[1:-1]]  # rotate all but the first
    return rounds


def _spread_tables(
    playing: list[int], sizes: list[int], met: Mapping[Pair, int], rng: random.Random, restarts: int = 4
) -> list[list[int]]:
    best: list[list[int]] | None = None
    best_cost = math.inf
    for _ in range(restarts):
        order = list(playing)
        rng.shuffle(order)
        tables, start = [], 0
        for size in sizes:
            tables.append(order[start : start + size])
            start += size
        tables = improve_by_swaps(tables, lambda table: _meetings_cost(table, met))
        total = sum(_meetings_cost(table, met) for table in tables)
        if total < best_cost:
            best, best_cost = tables, total
    assert best is not None
    return best
