"""Matchmaking that settles the order (docs/ratings.md, Fitted Elo). Pure: no database.

Beside ``league.ladder.pairing``, with the same ``Candidate``s, ``Policy`` and seat rotation, whose ``elo`` and
``sigma`` are the fitted rating and its sigma (``league.ratings.fitting``). Per table:

1. **Placement first**: while any eligible bot has fewer than ``PROVISIONAL_GAMES`` games, or has waited
   ``starve_seconds``, the table is planned as today (``pairing.plan_tables``: the neediest bot and opponents near in
   rating).
2. **Otherwise the least certain neighbours**: among bots at most ``NEIGHBOURS`` apart in the fitted order, the pair
   with the highest ``swap_probability / sqrt(1 + games together) / (1 + matches in flight)`` — the chance their
   order is wrong (how much their intervals overlap), discounted when they have already met often (an order that
   is still uncertain after many direct games is settled faster through other opponents).
3. **More seats**: each further seat goes to the bot with the highest such score summed over those already seated.

The per-bot limit (``max_in_flight``) holds as today, and seats are assigned by ``pairing.assign_seats``. As in
``league.ladder.pairing``, two bots of one owner never share a table.
"""

from __future__ import annotations

import math
import random
from collections.abc import Mapping, Sequence

from league.ladder.pairing import Candidate, Policy, assign_seats, plan_tables, same_owner, seat_table, seatable
from league.ratings.elo import PROVISIONAL_GAMES
from league.ratings.fitting import swap_probability

# Pairs further apart than this in the fitted order are not considered as the table's first pair.
NEIGHBOURS = 3


def settle_score(a: Candidate, b: Candidate, together: Mapping[tuple[int, int], float]) -> float:
    """How much one game between ``a`` and ``b`` is worth to the order (higher first)."""
    games = together.get((min(a.bot_id, b.bot_id), max(a.bot_id, b.bot_id)), 0.0)
    overlap = swap_probability(a.elo, a.sigma, b.elo, b.sigma)
    return overlap / math.sqrt(1.0 + games) / (1.0 + a.in_flight + b.in_flight)


def plan_settling_tables(
    candidates: Sequence[Candidate],
    together: Mapping[tuple[int, int], float],
    count: int,
    policy: Policy,
    rng: random.Random,
) -> list[list[Candidate]]:
    """Up to ``count`` tables, each a list of distinct candidates in seat order; ``together`` maps a pair of bot ids
    (smaller first) to their weighted games so far. Candidates are updated as by ``pairing.plan_tables``."""
    tables: list[list[Candidate]] = []
    for _ in range(count):
        eligible = [c for c in candidates if c.in_flight < policy.max_in_flight]
        sizes = [size for size in policy.table_sizes if size <= seatable(eligible)]
        if not sizes:
            break
        if any(c.games < PROVISIONAL_GAMES or c.idle_seconds >= policy.starve_seconds for c in eligible):
            planned = plan_tables(candidates, 1, policy, rng)
            tables.extend(planned)
            if not planned:
                break
            continue
        table = assign_seats(_least_certain(eligible, together, rng.choice(sizes), rng), rng)
        seat_table(table)
        tables.append(table)
    return tables


def _least_certain(
    eligible: list[Candidate], together: Mapping[tuple[int, int], float], size: int, rng: random.Random
) -> list[Candidate]:
    # Sorting by rating with a random tie-break, so equal scores do not always favour the same bots.
    ordered = sorted(eligible, key=lambda c: (-c.elo, rng.random()))
    pairs = [
        (ordered[i], ordered[j])
        for i in range(len(ordered))
        for j in range(i + 1, min(len(ordered), i + 1 + NEIGHBOURS))
        if not same_owner(ordered[i], ordered[j])
    ]
    if not pairs:  # every neighbour belongs to the same owner: any two bots of different owners
        pairs = [(a, b) for i, a in enumerate(ordered) for b in ordered[i + 1 :] if not same_owner(a, b)]
    first = max(pairs, key=lambda pair: settle_score(pair[0], pair[1], together) + rng.uniform(0, 1e-9))
    members = list(first)
    while len(members) < size:
        rest = [c for c in eligible if all(c is not m and not same_owner(c, m) for m in members)]
        members.append(max(rest, key=lambda c: sum(settle_score(c, m, together) for m in members)))
    return members
