"""Single elimination (knockout): a seeded bracket (1 v 16, 8 v 9, ... byes to the top seeds); for larger tables
the top ``advance`` of each table go through, seeds spread snake-wise over the tables. Each table plays a
best-of series, decided as soon as it is certain."""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from league.tournaments.formats.settings import FormatError, Settings
from league.tournaments.formats.tables import RoundPlan


def bracket_order(size: int) -> list[int]:
    """Seed numbers (1-based) in bracket order for a bracket of ``size`` (a power of two): 1, 16, 8, 9, 5, 12, ...
    so that seeds 1 and 2 can only meet in the final, 1-4 only in the semi-finals, and so on."""
    order = [1]
    while len(order) < size:
        n = len(order) * 2
        order = [seed for s in order for seed in (s, n + 1 - s)]
    return order


def knockout_first_round(seeded: Sequence[int], settings: Settings, min_players: int) -> RoundPlan:
    """Round one of a knockout, ``seeded`` best first. Two-player: a bracket of the next power of two, the top
    seeds drawing the byes. Larger tables: see ``knockout_groups``."""
    seeded = list(seeded)
    knockout_round_sizes(len(seeded), settings.table_size, settings.advance, min_players)  # feasible?
    if settings.table_size == 2:
        size = 1 << max(1, (len(seeded) - 1).bit_length())
        slots = [seeded[s - 1] if s <= len(seeded) else None for s in bracket_order(size)]
        groups = [[e for e in slots[i : i + 2] if e is not None] for i in range(0, size, 2)]
        return _bracket_plan(groups)
    return _bracket_plan(knockout_groups(seeded, settings.table_size, settings.advance, min_players))


def knockout_next_round(
    previous: RoundPlan,
    advancers: Mapping[int, Sequence[int]],
    seeded: Sequence[int],
    settings: Settings,
    min_players: int,
) -> RoundPlan | None:
    """The next knockout round from who went through each group of ``previous`` ({group index in its bracket:
    entries}); None when ``previous`` was the final. Two-player: winners of neighbouring groups meet. Larger
    tables: the survivors are seeded again by their original seeds."""
    bracket = previous.bracket or [*previous.tables, *([e] for e in previous.byes)]
    through = [entry for index in range(len(bracket)) for entry in advancers.get(index, [])]
    if len(bracket) == 1 or len(through) <= 1:
        return None
    if settings.table_size == 2:
        return _bracket_plan([through[i : i + 2] for i in range(0, len(through), 2)])
    rank = {entry: i for i, entry in enumerate(seeded)}
    again = sorted(through, key=rank.__getitem__)
    return _bracket_plan(knockout_groups(again, settings.table_size, settings.advance, min_players))


def _bracket_plan(groups: list[list[int]]) -> RoundPlan:
    return RoundPlan(
        tables=[group for group in groups if len(group) > 1],
        byes=[group[0] for group in groups if len(group) == 1],
        bracket=groups,
    )


def knockout_groups(seeded: Sequence[int], table_size: int, advance: int, min_players: int) -> list[list[int]]:
    """Tables for one knockout round at tables of up to ``table_size`` (``seeded`` best first).

    All at one table if they fit (the final). Otherwise balanced tables if they all keep at least the game's
    minimum and more than ``advance`` seats; else full tables and byes for the top seeds. Seeds are dealt
    snake-wise (1, 2, 3, 4 to tables A, B, C, D, then 5 to D, 6 to C ...) so the strongest meet late."""
    seeded = list(seeded)
    n = len(seeded)
    if n <= table_size:
        return [seeded]
    count = math.ceil(n / table_size)
    base = n // count
    if base >= max(min_players, advance + 1):
        sizes = [base + 1] * (n % count) + [base] * (count - n % count)
        byes: list[int] = []
        playing = seeded
    else:
        full = n // table_size
        sizes = [table_size] * full
        byes, playing = seeded[: n - full * table_size], seeded[n - full * table_size :]
    tables: list[list[int]] = [[] for _ in sizes]
    order = list(range(len(sizes)))
    snake = itertools.cycle([*order, *reversed(order)])
    for entry in playing:
        index = next(snake)
        while len(tables[index]) >= sizes[index]:
            index = next(snake)
        tables[index].append(entry)
    return [[entry] for entry in byes] + tables


def knockout_round_sizes(entrants: int, table_size: int, advance: int, min_players: int) -> list[int]:
    """Entrants in each round of a knockout, first round first; FormatError if a round could not be played."""
    if entrants < max(2, min_players):
        raise FormatError(f"a knockout needs at least {max(2, min_players)} entrants")
    sizes = []
    n = entrants
    while True:
        sizes.append(n)
        if table_size == 2:
            if n <= 2:
                return sizes
            n = 1 << ((n - 1).bit_length() - 1)  # the bracket of the next power of two halves each round
            continue
        groups = knockout_groups(list(range(n)), table_size, advance, min_players)
        if len(groups) == 1:
            if n < min_players:
                raise FormatError(
                    f"with {entrants} entrants at tables of {table_size} and the top {advance} of each table going "
                    f"through, the final would have {n} players, fewer than the game's {min_players}: let more go "
                    "through each table, or change the number of entrants"
                )
            return sizes
        n = sum(1 if len(group) == 1 else advance for group in groups)


# ----- knockout series ----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Series:
    """Where one knockout table stands: points so far, games counted, legs created (void ones included)."""

    entries: Sequence[int]  # seed order
    points: Mapping[int, float]
    legs_played: float
    legs_created: int
    eligible: Sequence[int]  # entrants who have not forfeited


@dataclass(frozen=True)
class SeriesDecision:
    decided: bool
    advancers: list[int] = field(default_factory=list)  # best first
    legs_to_create: int = 0


def decide_series(series: Series, best_of: int, advance: int, min_players: int) -> SeriesDecision:
    """Who goes through a best-of-``best_of`` series at one table, or how many more games to create.

    Decided as soon as no result of the games left can change who is in the top ``advance`` (each game moves a
    gap by at most one point). A tie at the boundary after ``best_of`` games is broken by more games, up to
    ``best_of + 2`` more (void games included); then by seed. Entrants who forfeit cannot go through."""
    rank = {entry: i for i, entry in enumerate(series.entries)}
    eligible = sorted(series.eligible, key=lambda e: (-series.points.get(e, 0.0), rank[e]))
    if len(eligible) <= advance:
        return SeriesDecision(True, eligible)
    cap = 2 * best_of + 2
    if len(eligible) < min_players or series.legs_created >= cap:
        return SeriesDecision(True, eligible[:advance])  # no more games can be played: points, then seed
    if series.legs_created == 0:
        return SeriesDecision(False, legs_to_create=(best_of + 1) // 2)
    remaining = max(0.0, best_of - series.legs_played)
    inside, outside = eligible[:advance], eligible[advance:]
    weakest_in = min(series.points.get(e, 0.0) for e in inside)
    strongest_out = max(series.points.get(e, 0.0) for e in outside)
    if weakest_in - strongest_out > remaining + 1e-9:
        return SeriesDecision(True, inside)
    return SeriesDecision(False, legs_to_create=1)
