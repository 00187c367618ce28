"""Tables and rounds shared by every format: a round's plan, how entrants split into tables, and the local
search that swaps entrants between tables."""

from __future__ import annotations

import itertools
from collections.abc import Iterable
from dataclasses import dataclass, field

Pair = frozenset[int]


@dataclass
class RoundPlan:
    """One round: its tables (entry ids in seed order) and the entrants who sit it out (byes).

    For a knockout, ``bracket`` lists every group in bracket order, a bye being a group of one."""

    tables: list[list[int]]
    byes: list[int] = field(default_factory=list)
    bracket: list[list[int]] | None = None

    def entrants(self) -> list[int]:
        return [entry for table in self.tables for entry in table] + list(self.byes)


def table_sizes(entrants: int, table_size: int, min_players: int) -> tuple[list[int], int]:
    """How ``entrants`` sit at tables of ``table_size``: (sizes, byes).

    Tables one seat smaller absorb the remainder where the game allows it (7 at tables of 4: 4 + 3); otherwise the
    remainder sits out (5 at tables of 4: one table and one bye; two-player tables: one bye when odd)."""
    if entrants < min_players:
        return [], entrants
    small = table_size - 1
    if small >= min_players:
        for smaller in range(table_size):
            rest = entrants - smaller * small
            if rest >= 0 and rest % table_size == 0:
                return [table_size] * (rest // table_size) + [small] * smaller, 0
    full = entrants // table_size
    if full == 0:
        return [entrants], 0
    return [table_size] * full, entrants - full * table_size


def pairs_of(table: Iterable[int]) -> list[Pair]:
    return [frozenset(pair) for pair in itertools.combinations(table, 2)]


def improve_by_swaps(tables: list[list[int]], cost) -> list[list[int]]:  # type: ignore[no-untyped-def]
    """Swap entrants between tables while that lowers the total cost (first improvement, to a local minimum)."""
    costs = [cost(table) for table in tables]
    improved = True
    while improved:
        improved = False
        for a, b in itertools.combinations(range(len(tables)), 2):
            for i, j in itertools.product(range(len(tables[a])), range(len(tables[b]))):
                new_a = [*tables[a][:i], tables[b][j], *tables[a][i + 1 :]]
                new_b = [*tables[b][:j], tables[a][i], *tables[b][j + 1 :]]
                ca, cb = cost(new_a), cost(new_b)
                if ca + cb < costs[a] + costs[b]:
                    tables[a], tables[b], costs[a], costs[b] = new_a, new_b, ca, cb
                    improved = True
    return tables
