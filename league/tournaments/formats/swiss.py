"""Swiss: pairing by score with no repeat pairing wherever one can be avoided (a complete search for two-player
tables), byes to the lowest-ranked entrant with the fewest byes."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from league.tournaments.formats.settings import Settings
from league.tournaments.formats.tables import Pair, RoundPlan, improve_by_swaps, pairs_of, table_sizes

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

    tables = improve_by_swaps(tables, cost)
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
