"""Tournament formats: who sits at which table in which round, in which seat, and how results become standings.

Pure: no Django and no database. ``league/services/tournaments.py`` stores, plays and advances what this module plans;
docs/tournaments.md explains the rules to people. Entrants are plain ints (entry ids) given in seed order
(seed 1 first) wherever order matters.

- Round robin: two-player tables by the circle method (every pairing exactly once); larger tables by a seeded
  local search that spreads meetings so that every pair meets at least once and about equally often.
- Swiss: pairing by score with no repeat pairing wherever one can be avoided (a complete search for two-player
  tables), byes to the lowest-ranked entrant with the fewest byes.
- Single elimination (knockout): a seeded bracket (1 v 16, 8 v 9, ... byes to the top seeds); for larger tables
  the top ``advance`` of each table go through, seeds spread snake-wise over the tables.
- Seats rotate in every format; with ``duplicate`` every game is played once per rotation with the same seed.
"""

from __future__ import annotations

import hashlib
import itertools
import math
import random
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

ROUND_ROBIN, SWISS, KNOCKOUT = "round_robin", "swiss", "knockout"
FORMATS = (ROUND_ROBIN, SWISS, KNOCKOUT)

Pair = frozenset[int]


class FormatError(ValueError):
    """Settings or entrants a format cannot work with; the message says what to change."""


# ----- settings -----------------------------------------------------------------------------------------------

SETTING_KEYS = {
    "table_size",
    "games_per_pairing",
    "rounds",
    "best_of",
    "advance",
    "duplicate",
    "time_control",
    "forfeit_after",
    "bye_points",
    "options",
}


@dataclass(frozen=True)
class Settings:
    """A tournament's settings, checked. ``to_json`` gives back the full dict with defaults filled in."""

    table_size: int
    games_per_pairing: int = 1  # round robin and Swiss: games each table plays per round
    rounds: int | None = None  # Swiss: None means ceil(log2(entrants))
    best_of: int = 1  # knockout: games per series (decided early once certain)
    advance: int = 1  # knockout: how many of each table go through
    duplicate: bool = False  # every game once per seat rotation, same seed
    time_control: Mapping[str, int] = field(default_factory=dict)  # {"move_ms", "bank_ms"}; empty: the runtime's
    forfeit_after: int = 3  # faults in a row that make an entry forfeit; 0: never
    bye_points: float = 1.0  # points of a Swiss bye, per game
    options: Mapping[str, Any] = field(default_factory=dict)  # the game's options for every match

    def to_json(self) -> dict[str, Any]:
        return {
            "table_size": self.table_size,
            "games_per_pairing": self.games_per_pairing,
            "rounds": self.rounds,
            "best_of": self.best_of,
            "advance": self.advance,
            "duplicate": self.duplicate,
            "time_control": dict(self.time_control),
            "forfeit_after": self.forfeit_after,
            "bye_points": self.bye_points,
            "options": dict(self.options),
        }

    def rotations(self, seats: int) -> int:
        """Matches per game at a table of ``seats``: one per rotation in duplicate mode."""
        return seats if self.duplicate else 1


def _int(data: Mapping[str, Any], key: str, default: int | None, low: int, high: int) -> int | None:
    value: object = data.get(key, default)
    if value is None and default is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise FormatError(f"{key} must be a whole number from {low} to {high}, not {value!r}")
    return value


def parse_settings(data: Mapping[str, Any] | None, fmt: str, min_players: int, max_players: int) -> Settings:
    """Check a settings dict for a game played by ``min_players``..``max_players``; fill in the defaults."""
    data = dict(data or {})
    if fmt not in FORMATS:
        raise FormatError(f"format must be one of {', '.join(FORMATS)}, not {fmt!r}")
    if unknown := sorted(set(data) - SETTING_KEYS):
        raise FormatError(f"unknown settings {unknown}; known: {sorted(SETTING_KEYS)}")
    table_size = _int(data, "table_size", min_players, min_players, max_players)
    assert table_size is not None
    advance_default = 1 if table_size == 2 else table_size // 2
    advance = _int(data, "advance", advance_default, 1, table_size - 1)
    duplicate = data.get("duplicate", False)
    if not isinstance(duplicate, bool):
        raise FormatError(f"duplicate must be true or false, not {duplicate!r}")
    time_control = data.get("time_control") or {}
    if (
        not isinstance(time_control, dict)
        or set(time_control) - {"move_ms", "bank_ms"}
        or not all(isinstance(v, int) and not isinstance(v, bool) and v > 0 for v in time_control.values())
    ):
        raise FormatError('time_control takes positive whole move_ms and bank_ms, e.g. {"move_ms": 1000}')
    bye_points = data.get("bye_points", 1.0 if table_size == 2 else 0.5)
    if isinstance(bye_points, bool) or not isinstance(bye_points, int | float) or not 0 <= bye_points <= 1:
        raise FormatError(f"bye_points must be a number from 0 to 1, not {bye_points!r}")
    options = data.get("options") or {}
    if not isinstance(options, dict):
        raise FormatError("options must be an object of the game's options")
    return Settings(
        table_size=table_size,
        games_per_pairing=_int(data, "games_per_pairing", 1, 1, 50) or 1,
        rounds=_int(data, "rounds", None, 1, 100),
        best_of=_int(data, "best_of", 1, 1, 21) or 1,
        advance=advance or 1,
        duplicate=duplicate,
        time_control=time_control,
        forfeit_after=_int(data, "forfeit_after", 3, 0, 100) or 0,
        bye_points=float(bye_points),
        options=options,
    )


def minimum_entrants(fmt: str, settings: Settings) -> int:
    """Fewest entrants the format can run with: one full table, and a real contest (two tables) for Swiss."""
    if fmt == SWISS:
        return max(settings.table_size + 1, 3)
    return settings.table_size


# ----- tables and rounds --------------------------------------------------------------------------------------


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


def _meetings_cost(table: Sequence[int], met: Mapping[Pair, int]) -> int:
    return sum(_next_meeting(met.get(pair, 0)) for pair in pairs_of(table))


def _next_meeting(count: int) -> int:
    # What one more meeting of a pair that has met ``count`` times costs: 2c + 1 (the growth of c², which spreads
    # meetings evenly and prefers unmet pairs), and steeply more from the fourth meeting on, so that no pair sticks
    # together round after round in a local minimum. Steeper costs from the start need more rounds to cover every
    # pair (measured over many seeds and sizes; see tests/league/test_tournament_formats.py).
    return 2 * count + 1 + (20 * (count - 2) if count >= 3 else 0)


def _improve(tables: list[list[int]], cost) -> list[list[int]]:  # type: ignore[no-untyped-def]
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


def _sit_out(entrants: Sequence[int], count: int, byes: Mapping[int, int], rng: random.Random) -> list[int]:
    """``count`` entrants to sit a round out: those with the fewest byes so far, at random among equals."""
    if count == 0:
        return []
    order = list(entrants)
    rng.shuffle(order)
    order.sort(key=lambda entry: byes.get(entry, 0))
    return order[:count]


# ----- round robin --------------------------------------------------------------------------------------------


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
        tables = _improve(tables, lambda table: _meetings_cost(table, met))
        total = sum(_meetings_cost(table, met) for table in tables)
        if total < best_cost:
            best, best_cost = tables, total
    assert best is not None
    return best


# ----- Swiss --------------------------------------------------------------------------------------------------

SEARCH_BUDGET = 100_000  # nodes of the two-player pairing search before it settles for fewest repeats


@dataclass(frozen=True)
class SwissState:
    """Where the Swiss stands before a round: entrants by current ranking (score, then seed), their scores, the
    pairs that have met and how often, and the byes each has had."""

    ranking: Sequence[int]
    scores: Mapping[int, float]
    met: Mapping[Pair, int]
    byes: Mapping[int, int]


def swiss_round(state: SwissState, table_size: int, min_players: int) -> RoundPlan:
    """The next Swiss round. No pair meets again where that can be avoided: for two-player tables a complete search
    (within SEARCH_BUDGET nodes) finds a repeat-free pairing whenever one exists; larger tables minimise repeats by
    local search. Byes go to the lowest-ranked entrants with the fewest byes."""
    ranking = list(state.ranking)
    if table_size == 2:
        return _swiss_two(state, ranking)
    sizes, bye_count = table_sizes(len(ranking), table_size, min_players)
    out = sorted(ranking, key=lambda e: (state.byes.get(e, 0), -ranking.index(e)))[:bye_count]
    playing = [entry for entry in ranking if entry not in out]
    position = {entry: index for index, entry in enumerate(playing)}
    tables, start = [], 0
    for size in sizes:  # consecutive by ranking: the best with the best
        tables.append(playing[start : start + size])
        start += size

    def cost(table: Sequence[int]) -> float:
        repeats = sum(state.met.get(pair, 0) for pair in pairs_of(table))
        spread = max(position[e] for e in table) - min(position[e] for e in table)
        return repeats * 10_000 + spread  # repeats first, then keep scores close

    tables = _improve(tables, cost)
    tables.sort(key=lambda table: min(position[e] for e in table))
    return RoundPlan(tables=[sorted(table, key=position.__getitem__) for table in tables], byes=out)


def _swiss_two(state: SwissState, ranking: list[int]) -> RoundPlan:
    candidates: list[int | None] = [None]
    if len(ranking) % 2:
        # Lowest-ranked first among those with the fewest byes; the next one if the rest cannot be paired cleanly.
        candidates = [*sorted(ranking, key=lambda e: (state.byes.get(e, 0), -ranking.index(e)))]
    for bye in candidates:
        rest = [entry for entry in ranking if entry != bye]
        pairs = _pair_without_repeats(rest, state)
        if pairs is not None:
            return RoundPlan(tables=[list(pair) for pair in pairs], byes=[] if bye is None else [bye])
    bye = candidates[0]
    rest = [entry for entry in ranking if entry != bye]
    return RoundPlan(
        tables=[list(pair) for pair in _pair_fewest_repeats(rest, state)], byes=[] if bye is None else [bye]
    )


def _preferences(players: list[int], state: SwissState) -> dict[int, list[int]]:
    """Each entrant's opponents in order of preference: the same score first, and within a score group the one half
    a group away (the Dutch system's top half against bottom half), then the nearest scores."""
    index = {entry: i for i, entry in enumerate(players)}
    groups = Counter(state.scores.get(entry, 0.0) for entry in players)
    preferences = {}
    for entry in players:
        score = state.scores.get(entry, 0.0)
        half = max(1, groups[score] // 2)
        preferences[entry] = sorted(
            (o for o in players if o != entry),
            key=lambda o: (abs(state.scores.get(o, 0.0) - score), abs(index[o] - index[entry] - half), index[o]),
        )
    return preferences


def _pair_without_repeats(players: list[int], state: SwissState) -> list[tuple[int, int]] | None:
    """Highest-ranked unpaired entrant first, with its most preferred opponent it has not met; backtrack on a
    dead end. Complete, so it finds a repeat-free pairing whenever one exists (within the node budget)."""
    preferences = _preferences(players, state)
    budget = [SEARCH_BUDGET]

    def search(unpaired: list[int]) -> list[tuple[int, int]] | None:
        if not unpaired:
            return []
        budget[0] -= 1
        if budget[0] < 0:
            raise _OutOfBudget
        first, rest = unpaired[0], set(unpaired[1:])
        for other in preferences[first]:
            if other not in rest or state.met.get(frozenset((first, other)), 0):
                continue
            found = search([e for e in unpaired[1:] if e != other])
            if found is not None:
                return [(first, other), *found]
        return None

    try:
        return search(players)
    except _OutOfBudget:
        return None


class _OutOfBudget(Exception):
    pass


def _pair_fewest_repeats(players: list[int], state: SwissState) -> list[tuple[int, int]]:
    preferences = _preferences(players, state)
    unpaired = list(players)
    pairs = []
    while unpaired:
        first, rest = unpaired[0], unpaired[1:]
        order = [o for o in preferences[first] if o in rest]
        other = min(order, key=lambda o: (state.met.get(frozenset((first, o)), 0), order.index(o)))
        pairs.append((first, other))
        unpaired = [e for e in rest if e != other]
    return pairs


def swiss_rounds(settings: Settings, entrants: int) -> int:
    return settings.rounds or max(1, math.ceil(math.log2(entrants)))


# ----- knockout -----------------------------------------------------------------------------------------------


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


# ----- seats --------------------------------------------------------------------------------------------------


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


# ----- results and standings ----------------------------------------------------------------------------------


def game_points(size: int, ranks: Mapping[int, int]) -> dict[int, float]:
    """Points of one game at a table of ``size`` seats: each other seat beaten is worth 1/(size-1), a tie half of
    that (two players: win 1, draw ½, loss 0). Planned seats that are empty (entrants who forfeited) count as
    beaten by everyone who played."""
    absent = size - len(ranks)
    points = {}
    for entry, rank in ranks.items():
        beaten = sum(1 for other, r in ranks.items() if other != entry and r > rank)
        tied = sum(1 for other, r in ranks.items() if other != entry and r == rank)
        points[entry] = (absent + beaten + tied / 2) / (size - 1)
    return points


@dataclass(frozen=True)
class Played:
    """One result at one table: a finished match, or a walkover (too few left to play; everyone left ties)."""

    round: int
    table: int
    size: int  # seats planned at the table
    ranks: Mapping[int, int]  # entry → rank, for those who played
    weight: float = 1.0  # a game counts once: each of its duplicate rotations counts 1/rotations
    walkover: bool = False


@dataclass(frozen=True)
class EntryInfo:
    id: int
    seed: int
    forfeited: bool = False


@dataclass
class Standing:
    entry: int
    seed: int
    position: int = 0
    score: float = 0.0
    games: float = 0.0
    wins: float = 0.0
    forfeited: bool = False
    tiebreaks: dict[str, float] = field(default_factory=dict)


TIEBREAKS = {
    ROUND_ROBIN: ("sonneborn_berger", "wins"),
    SWISS: ("buchholz", "sonneborn_berger", "wins"),
    KNOCKOUT: ("round_reached", "series_points"),
}
TIEBREAK_LABELS = {
    "sonneborn_berger": "SB",
    "buchholz": "Buchholz",
    "wins": "Wins",
    "round_reached": "Round",
    "series_points": "Series",
}


def standings(
    fmt: str,
    entries: Sequence[EntryInfo],
    played: Sequence[Played],
    bye_points: Mapping[int, float] | None = None,
    reached: Mapping[int, tuple[int, float]] | None = None,
) -> list[Standing]:
    """Standings, best first: score (game points, plus byes), then the format's tie-breaks, then seed.

    Round robin: Sonneborn-Berger, then wins. Swiss: Buchholz (opponents' scores; at bigger tables the mean of a
    table's opponents per round), then Sonneborn-Berger, then wins. Knockout: the round reached (``reached``:
    entry → (round, points in that round's series); the champion's round is one past the final), then the points
    of that series."""
    rows = {e.id: Standing(entry=e.id, seed=e.seed, forfeited=e.forfeited) for e in entries}
    for entry, bye in (bye_points or {}).items():
        rows[entry].score += bye
    per_game = []
    for result in played:
        points = game_points(result.size, result.ranks)
        per_game.append(points)
        for entry, value in points.items():
            row = rows[entry]
            row.score += value * result.weight
            row.games += result.weight
            if not result.walkover and result.ranks[entry] == 1 and len(result.ranks) > 1:
                row.wins += result.weight
    scores = {entry: row.score for entry, row in rows.items()}
    sb: dict[int, float] = {}
    buchholz: dict[int, float] = {}
    seen_tables: set[tuple[int, int, int]] = set()
    for result in played:
        for entry, rank in result.ranks.items():
            others = [o for o in result.ranks if o != entry]
            for other in others:
                versus = 1.0 if result.ranks[other] > rank else 0.5 if result.ranks[other] == rank else 0.0
                sb[entry] = sb.get(entry, 0) + versus * scores[other] * result.weight / (result.size - 1)
            if others and (result.round, result.table, entry) not in seen_tables:
                seen_tables.add((result.round, result.table, entry))
                buchholz[entry] = buchholz.get(entry, 0) + sum(scores[o] for o in others) / len(others)
    for entry, row in rows.items():
        if fmt == KNOCKOUT:
            round_reached, series = (reached or {}).get(entry, (0, 0.0))
            row.tiebreaks = {"round_reached": round_reached, "series_points": round(series, 4)}
        else:
            row.tiebreaks = {"sonneborn_berger": round(sb.get(entry, 0), 4), "wins": round(row.wins, 4)}
            if fmt == SWISS:
                row.tiebreaks = {"buchholz": round(buchholz.get(entry, 0), 4), **row.tiebreaks}
        row.score = round(row.score, 6)
    if fmt == KNOCKOUT:
        order = sorted(
            rows.values(),
            key=lambda r: (-r.tiebreaks["round_reached"], -r.tiebreaks["series_points"], -r.score, r.seed),
        )
    else:
        order = sorted(
            rows.values(), key=lambda r: (-r.score, *(-r.tiebreaks[name] for name in TIEBREAKS[fmt]), r.seed)
        )
    for position, row in enumerate(order, start=1):
        row.position = position
    return order


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


def match_seed(tournament_seed: int, round_number: int, table: int, game: int) -> int:
    """The engine seed of one game: fixed by the tournament's seed and the game's place, the same for all of its
    duplicate rotations. One way (SHA-256): a published game seed reveals neither the tournament's secret seed nor
    any other game's deal."""
    place = f"{tournament_seed}:{round_number}:{table}:{game}".encode()
    return int.from_bytes(hashlib.sha256(place).digest()[:4], "big") % 2**31
