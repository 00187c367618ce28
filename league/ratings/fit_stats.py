"""The fitted Elo's sufficient statistics, kept between refits so a refit reads only the matches recorded since the
last one (docs/ratings.md, Fitted Elo; docs/decisions.md, "Incremental refit"). Pure: no database.

What the fit needs of a game's history is additive per match: each pair of current-version seats adds its weight
1/(m-1), its score and its information (``league.ratings.fitting.PairCounts``); each counted seat adds a game to its
version; each rated match adds to the seat advantage. They are kept keyed by **version** (not bot), because which
seats count depends on the current versions: when a bot's newer version plays, its old version *retires* and the
matches it played are counted again without it (its pairs go; the other seats of a multiplayer table now weigh 1/(m-2)).
``advance`` does that from the retired versions' matches alone, which the caller reads: subtract each one's
contribution under the old current versions, add it under the new ones.
"""

from __future__ import annotations

import io
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

import numpy as np

from league.ratings import fitting

# A seat as read: (match id, bot id, version id, version number, rank or None), a match's seats in seat order.
SeatRow = tuple[int, int, int, int, int | None]
Versions = dict[int, tuple[int, int]]  # bot id -> (version id, version number) of its current version
# Pairs whose weighted games fell below this after subtracting are gone (a weight is at least 1/(n-1), far above).
RESIDUE = 1e-9


@dataclass
class Statistics:
    versions: Versions = field(default_factory=dict)
    # Per unordered pair of versions (first < second): weighted games, first's weighted points, information.
    first: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    second: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    games: np.ndarray = field(default_factory=lambda: np.zeros(0))
    score: np.ndarray = field(default_factory=lambda: np.zeros(0))
    information: np.ndarray = field(default_factory=lambda: np.zeros(0))
    counted: dict[int, int] = field(default_factory=dict)  # version id -> its matches that count in the fit
    seat_results: dict[str, list[list[int]]] = field(default_factory=dict)
    matches: int = 0  # rated matches (distinct bots, ranked), every version
    last_match_id: int = 0
    last_seq: int = 0  # the newest Match.rated_seq included


def tables(rows: Iterable[SeatRow]) -> list[list[SeatRow]]:
    """Seat rows ordered by match, grouped into one list per match."""
    grouped: list[list[SeatRow]] = []
    for row in rows:
        if grouped and grouped[-1][0][0] == row[0]:
            grouped[-1].append(row)
        else:
            grouped.append([row])
    return grouped


def newer_versions(versions: Versions, matches: Iterable[Sequence[SeatRow]]) -> Versions:
    """The current versions after ``matches``: each bot's highest version number seen."""
    updated = dict(versions)
    for table in matches:
        for _match, bot_id, version_id, number, _rank in table:
            if bot_id not in updated or number > updated[bot_id][1]:
                updated[bot_id] = (version_id, number)
    return updated


def retired(old: Versions, new: Versions) -> set[int]:
    """The versions that were current in ``old`` and are not in ``new``: their matches must be counted again."""
    return {old[bot][0] for bot in old if new[bot][0] != old[bot][0]}


def is_rated(table: Sequence[SeatRow]) -> bool:
    """The same bot twice says nothing about strength, and an unranked table nothing at all: neither counts."""
    bots = [row[1] for row in table]
    return len(set(bots)) == len(bots) and all(row[4] is not None for row in table)


class _Delta:
    """Signed contributions of matches, gathered as columns."""

    def __init__(self) -> None:
        self.first: list[int] = []
        self.second: list[int] = []
        self.games: list[float] = []
        self.score: list[float] = []
        self.information: list[float] = []
        self.counted: dict[int, int] = {}

    def pairs(self) -> Pairs:
        """The contributions summed per pair, sorted."""
        if not self.first:
            return Pairs.empty()
        first, second = np.asarray(self.first, dtype=np.int64), np.asarray(self.second, dtype=np.int64)
        keys, where = np.unique(_keys(first, second), return_inverse=True)
        sums = [np.bincount(where, values, len(keys)) for values in (self.games, self.score, self.information)]
        return Pairs(keys >> 32, keys & 0xFFFFFFFF, *sums)

    def add(self, table: Sequence[SeatRow], versions: Versions, sign: int) -> None:
        current = [row for row in table if versions[row[1]][0] == row[2]]
        m = len(current)
        if m < 2:
            return
        weight = 1.0 / (m - 1)
        info = weight * weight * (m + 1) / 3.0  # league.ratings.fitting.pair_counts
        for row in current:
            self.counted[row[2]] = self.counted.get(row[2], 0) + sign
        for a in range(m):
            for b in range(a + 1, m):
                i, j, ri, rj = current[a][2], current[b][2], current[a][4], current[b][4]
                assert ri is not None and rj is not None
                if i > j:
                    i, j, ri, rj = j, i, rj, ri
                self.first.append(i)
                self.second.append(j)
                self.games.append(sign * weight)
                self.score.append(sign * weight * (1.0 if ri < rj else 0.5 if ri == rj else 0.0))
                self.information.append(sign * info)


def advance(
    stats: Statistics,
    new: Sequence[Sequence[SeatRow]],
    revisited: Sequence[Sequence[SeatRow]],
    last_seq: int,
) -> tuple[Statistics, Pairs]:
    """``stats`` with the ``new`` matches (recorded after ``stats.last_seq``, up to ``last_seq``) added, and the
    change to its pairs. ``revisited``: every match already counted in which a version retired by ``new`` played
    (``retired``)."""
    versions = newer_versions(stats.versions, new)
    delta = _Delta()
    for table in revisited:
        if is_rated(table):
            delta.add(table, stats.versions, -1)
            delta.add(table, versions, +1)
    seat_results = {size: [list(seat) for seat in seats] for size, seats in stats.seat_results.items()}
    matches, last_match_id = stats.matches, stats.last_match_id
    for table in new:
        if not is_rated(table):
            continue
        matches += 1
        last_match_id = max(last_match_id, table[0][0])
        # Seat advantage, over every version: per table size and seat, [matches, outright wins, shared firsts].
        firsts = sum(1 for row in table if row[4] == 1)
        counts = seat_results.setdefault(str(len(table)), [[0, 0, 0] for _ in table])
        for seat, row in enumerate(table):
            counts[seat][0] += 1
            if row[4] == 1:
                counts[seat][1 if firsts == 1 else 2] += 1
        delta.add(table, versions, +1)
    counted = dict(stats.counted)
    for version, difference in delta.counted.items():
        counted[version] = counted.get(version, 0) + difference
    gone = retired(stats.versions, versions)
    counted = {version: n for version, n in counted.items() if n > 0 and version not in gone}
    change = delta.pairs()
    merged = combine(Pairs(stats.first, stats.second, stats.games, stats.score, stats.information), change)
    if gone:  # a retired version's pairs subtracted to (about) nothing: make sure none is left
        merged = merged.where(~(np.isin(merged.first, sorted(gone)) | np.isin(merged.second, sorted(gone))))
    return Statistics(versions, *merged.columns(), counted, seat_results, matches, last_match_id, last_seq), change


def _keys(first: np.ndarray, second: np.ndarray) -> np.ndarray:
    """One sortable int64 per version pair (version ids are far below 2³¹)."""
    return (first.astype(np.int64) << 32) | second.astype(np.int64)


@dataclass(frozen=True)
class Pairs:
    """Pair columns sorted by (first, second), one row per pair: the stored statistics, or a change to them."""

    first: np.ndarray
    second: np.ndarray
    games: np.ndarray
    score: np.ndarray
    information: np.ndarray

    @classmethod
    def empty(cls) -> Pairs:
        return cls(np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0), np.zeros(0), np.zeros(0))

    def columns(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        return self.first, self.second, self.games, self.score, self.information

    def where(self, keep: np.ndarray) -> Pairs:
        return Pairs(*(column[keep] for column in self.columns()))

    def __len__(self) -> int:
        return len(self.first)


def combine(base: Pairs, change: Pairs, drop: bool = True) -> Pairs:
    """``base`` plus ``change`` (both sorted): a binary search of the few changed pairs into the many kept ones, not
    a sort of them all, so the cost does not grow with history. ``drop``: pairs whose weighted games subtracted to
    (about) nothing go, with their rounding residue."""
    games, score, information = base.games.copy(), base.score.copy(), base.information.copy()
    first, second = base.first, base.second
    if len(change):
        keys, added = _keys(first, second), _keys(change.first, change.second)
        at = np.searchsorted(keys, added)
        hit = at < len(keys)
        hit[hit] = keys[at[hit]] == added[hit]
        values = (change.games, change.score, change.information)
        for column, value in zip((games, score, information), values, strict=True):
            column[at[hit]] += value[hit]  # the change has one row per pair: no repeated index
        spot = at[~hit]
        first = np.insert(first, spot, change.first[~hit])
        second = np.insert(second, spot, change.second[~hit])
        games, score, information = (
            np.insert(column, spot, value[~hit])
            for column, value in zip((games, score, information), values, strict=True)
        )
    merged = Pairs(first, second, games, score, information)
    return merged.where(np.abs(games) > RESIDUE) if drop else merged


def pair_counts(stats: Statistics) -> tuple[list[int], fitting.PairCounts]:
    """The bots (sorted ids: index -> bot id) and their pair counts, as ``league.ratings.fitting.fit`` takes them."""
    bot_ids = sorted(stats.versions)
    version_of = np.asarray([stats.versions[bot][0] for bot in bot_ids], dtype=np.int64)
    order = np.argsort(version_of)
    a = order[np.searchsorted(version_of[order], stats.first)]
    b = order[np.searchsorted(version_of[order], stats.second)]
    swap = a > b
    # One row per version pair is one per bot pair (one current version each): no need to aggregate again.
    return bot_ids, fitting.PairCounts(
        len(bot_ids),
        np.where(swap, b, a),
        np.where(swap, a, b),
        stats.games,
        np.where(swap, stats.games - stats.score, stats.score),
        stats.information,
    )


def games_of(stats: Statistics) -> dict[int, int]:
    """bot id -> its current version's matches in the fit (bots with none left out)."""
    return {bot: stats.counted[version] for bot, (version, _n) in stats.versions.items() if version in stats.counted}


def encode_pairs(pairs: Pairs) -> bytes:
    """Pair columns, uncompressed: zlib takes seconds on a million pairs of floats and saves a third."""
    if len(pairs) and max(pairs.first.max(), pairs.second.max()) >= 2**31:
        raise ValueError("version ids beyond int32: store them as int64")
    buffer = io.BytesIO()
    np.savez(
        buffer,
        first=pairs.first.astype(np.int32),
        second=pairs.second.astype(np.int32),
        games=pairs.games,
        score=pairs.score,
        information=pairs.information,
    )
    return buffer.getvalue()


def decode_pairs(data: bytes | None) -> Pairs:
    if not data:
        return Pairs.empty()
    with np.load(io.BytesIO(data), allow_pickle=False) as arrays:
        return Pairs(
            arrays["first"].astype(np.int64),
            arrays["second"].astype(np.int64),
            arrays["games"],
            arrays["score"],
            arrays["information"],
        )


def encode_rest(stats: Statistics) -> bytes:
    """The current versions and each version's counted matches (a row per bot)."""
    buffer = io.BytesIO()
    bots = sorted(stats.versions)
    np.savez(
        buffer,
        versions=np.asarray([[bot, *stats.versions[bot]] for bot in bots], dtype=np.int64).reshape(-1, 3),
        counted=np.asarray(sorted(stats.counted.items()), dtype=np.int64).reshape(-1, 2),
    )
    return buffer.getvalue()


def decode(
    base: Pairs,
    pending: Pairs,
    rest: bytes,
    seat_results: dict[str, list[list[int]]],
    matches: int,
    last_match_id: int,
    last_seq: int,
) -> Statistics:
    """The statistics from their stored parts: the pairs are ``base`` plus the ``pending`` change since it."""
    with np.load(io.BytesIO(rest), allow_pickle=False) as arrays:
        versions = {int(bot): (int(version), int(number)) for bot, version, number in arrays["versions"].tolist()}
        counted = {int(version): int(n) for version, n in arrays["counted"].tolist()}
    pairs = combine(base, pending)
    return Statistics(versions, *pairs.columns(), counted, seat_results, matches, last_match_id, last_seq)
