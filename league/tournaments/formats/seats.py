"""How each game at a table is set up: who sits in which seat (seats rotate in every format; with ``duplicate``
every game is played once per rotation), and the game's engine seed."""

from __future__ import annotations

import hashlib
import itertools
from collections import Counter
from collections.abc import Mapping, Sequence


def seat_orders(
    table: Sequence[int], seat_counts: Counter[tuple[int, int]], games: int, duplicate: bool, planned: bool = False
) -> list[list[list[int]]]:
    """Seat orders for ``games`` games at one table: per game, one order per match (every rotation in duplicate
    mode). Each game's order is the one that seats everybody where they have sat least so far in the tournament
    (``seat_counts[(entry, seat)]``, updated here), so seats rotate within a table and across the rounds; with
    ``planned`` the first game keeps the table's own order (a two-player round robin's schedule sets the seats)."""
    result = []
    size = len(table)
    for game in range(games):
        shift = game % size
        base = [*table[shift:], *table[:shift]] if planned else _least_used(table, seat_counts)
        orders = [base[s:] + base[:s] for s in range(size)] if duplicate else [base]
        for order in orders:
            for seat, entry in enumerate(order):
                seat_counts[(entry, seat)] += 1
        result.append(orders)
    return result


def _least_used(table: Sequence[int], seat_counts: Mapping[tuple[int, int], int]) -> list[int]:
    if len(table) <= 6:
        return list(
            min(
                itertools.permutations(table),
                key=lambda order: sum(seat_counts.get((entry, seat), 0) for seat, entry in enumerate(order)),
            )
        )
    order: list[int] = []
    for seat in range(len(table)):  # greedy for tables too large to try every order
        order.append(min((e for e in table if e not in order), key=lambda e: seat_counts.get((e, seat), 0)))
    return order


def match_seed(tournament_seed: int, round_number: int, table: int, game: int) -> int:
    """The engine seed of one game: fixed by the tournament's seed and the game's place, the same for all of its
    duplicate rotations. One way (SHA-256): a published game seed reveals neither the tournament's secret seed nor
    any other game's deal."""
    place = f"{tournament_seed}:{round_number}:{table}:{game}".encode()
    return int.from_bytes(hashlib.sha256(place).digest()[:4], "big") % 2**31
