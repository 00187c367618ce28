"""Ladder matchmaking. Pure: no database (docs/ratings.md, Matchmaking).

One table at a time: a *focus* bot is chosen first, by priority — the less we know about it (few games, a wide
interval) the sooner it plays, the longer it has waited the sooner it plays, and every match it already has in the
queue pushes it back; a little randomness breaks ties. Its opponents are the bots nearest in rating, blurred by
random noise at least as wide as the focus bot's own uncertainty (a newcomer meets a wide range). No bot is in more
than ``max_in_flight`` queued or running matches, so nobody hogs the queue; waiting raises priority without bound,
so nobody starves. Seats are assigned to even out each bot's count of each seat at each table size.

``Policy(uncertainty=False)`` is the plain alternative the simulation compares with: random focus, random
opponents (seats still rotated).
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from league.ratings.elo import INITIAL_ELO, INITIAL_SIGMA

# Standard deviation, in Elo points, of the noise that keeps opponents varied.
RATING_NOISE = 150.0
# How much a bot's queued or running matches push it back, as a focus (priority) and as an opponent (Elo points).
IN_FLIGHT_PRIORITY = 0.25
IN_FLIGHT_ELO = 100.0
# The focus priority's random part: small next to a newcomer's bonus, large next to established bots' differences.
JITTER = 0.2


@dataclass
class Candidate:
    bot_id: int
    version: Any  # whatever the caller needs back to seat this bot (a BotVersion)
    elo: float = INITIAL_ELO
    games: int = 0
    sigma: float = INITIAL_SIGMA
    # Ladder seats taken so far: {table size (as a string, it comes from JSON): [count of seat 0, seat 1, ...]}.
    seats: dict[str, list[int]] = field(default_factory=dict)
    in_flight: int = 0  # its ladder matches queued or running now
    idle_seconds: float = 0.0  # since its last ladder match was scheduled (or since it became eligible)
    owner: int | None = None  # its owner's user id; None for a built-in player (nobody's: it may meet anyone)

    def seat_count(self, size: int, seat: int) -> int:
        counts = self.seats.get(str(size), [])
        return counts[seat] if seat < len(counts) else 0

    def take_seat(self, size: int, seat: int) -> None:
        counts = self.seats.setdefault(str(size), [])
        counts.extend([0] * (size - len(counts)))
        counts[seat] += 1


def same_owner(a: Candidate, b: Candidate) -> bool:
    """Whether ``a`` and ``b`` may not share a table: two bots of one owner (built-in players never conflict)."""
    return a.owner is not None and a.owner == b.owner


def seatable(candidates: Sequence[Candidate]) -> int:
    """The largest table ``candidates`` can fill without two bots of one owner: one per owner, every built-in."""
    owners = {candidate.owner for candidate in candidates if candidate.owner is not None}
    return len(owners) + sum(1 for candidate in candidates if candidate.owner is None)


def unrelated(ordered: Sequence[Candidate], size: int, members: Sequence[Candidate] = ()) -> list[Candidate]:
    """``members`` completed to ``size`` from ``ordered``, in that order, skipping a bot whose owner already sits."""
    table = list(members)
    for candidate in ordered:
        if len(table) == size:
            break
        if all(candidate is not member and not same_owner(candidate, member) for member in table):
            table.append(candidate)
    return table


def seat_table(table: list[Candidate]) -> None:
    """Book a planned table on its candidates, so the next table of the same plan sees them busier."""
    for seat, candidate in enumerate(table):
        candidate.take_seat(len(table), seat)
        candidate.in_flight += 1
        candidate.games += 1
        candidate.idle_seconds = 0.0


@dataclass(frozen=True)
class Policy:
    table_sizes: tuple[int, ...]
    uncertainty: bool = True
    max_in_flight: int = 2
    starve_seconds: float = 300.0  # waiting this long is worth as much as a newcomer's whole bonus
    rating_noise: float = RATING_NOISE

    def __post_init__(self) -> None:
        if not self.table_sizes or min(self.table_sizes) < 2:
            raise ValueError("table sizes must be at least 2")
        if self.max_in_flight < 1 or self.starve_seconds <= 0:
            raise ValueError("max_in_flight must be at least 1 and starve_seconds positive")


def priority(candidate: Candidate, policy: Policy) -> float:
    """How much a bot needs a match now (higher first), before the random part."""
    value = candidate.idle_seconds / policy.starve_seconds - IN_FLIGHT_PRIORITY * candidate.in_flight
    if policy.uncertainty:
        value += candidate.sigma / INITIAL_SIGMA + 1.0 / (1 + candidate.games)
    return value


def plan_tables(
    candidates: Sequence[Candidate], count: int, policy: Policy, rng: random.Random
) -> list[list[Candidate]]:
    """Up to ``count`` tables, each a list of distinct candidates in seat order.

    The candidates are updated as tables are planned (games, in-flight count, seats, idle time), so the caller can
    store their seat counts afterwards and the next table of the same round prefers someone else."""
    tables = []
    for _ in range(count):
        table = _plan_one(list(candidates), policy, rng)
        if table is None:
            break
        seat_table(table)
        tables.append(table)
    return tables


def _plan_one(candidates: list[Candidate], policy: Policy, rng: random.Random) -> list[Candidate] | None:
    eligible = [candidate for candidate in candidates if candidate.in_flight < policy.max_in_flight]
    sizes = [size for size in policy.table_sizes if size <= seatable(eligible)]
    if not sizes:
        return None
    size = rng.choice(sizes)
    if policy.uncertainty:
        focus = max(eligible, key=lambda candidate: priority(candidate, policy) + rng.uniform(0, JITTER))
        noise = max(policy.rating_noise, focus.sigma)
        others = sorted(
            (candidate for candidate in eligible if candidate is not focus),
            key=lambda c: abs(c.elo - focus.elo + rng.gauss(0, noise)) + IN_FLIGHT_ELO * c.in_flight,
        )
        members = unrelated(others, size, [focus])
    else:
        members = rng.sample(eligible, size)
        if seatable(members) < size:  # two of one owner drawn: fill the table one owner at a time instead
            members = unrelated(rng.sample(eligible, len(eligible)), size)
    return assign_seats(members, rng)


def assign_seats(members: Sequence[Candidate], rng: random.Random) -> list[Candidate]:
    """The seat order that gives each bot the seats it has had least at this table size (ties broken at random)."""
    size = len(members)
    orders = list(itertools.permutations(members))
    rng.shuffle(orders)
    return list(
        min(orders, key=lambda order: sum(candidate.seat_count(size, seat) for seat, candidate in enumerate(order)))
    )


def pick_table(candidates: list[Candidate], min_players: int, max_players: int, rng: random.Random) -> list[int] | None:
    """Bot ids for one table, in seat order; None when there are too few candidates."""
    policy = Policy(table_sizes=tuple(range(min_players, max_players + 1)), max_in_flight=1_000_000)
    tables = plan_tables(candidates, 1, policy, rng)
    return [candidate.bot_id for candidate in tables[0]] if tables else None


def seat_spread(seats: Mapping[str, Sequence[int]]) -> int:
    """The largest difference between a bot's most and least played seat at any table size (0 is perfect)."""
    return max((max(counts) - min(counts) for counts in seats.values() if counts), default=0)
