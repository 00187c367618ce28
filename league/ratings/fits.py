"""Fitted Elo in the league: refit a game's ratings from its rated games and store them (docs/ratings.md, Fitted
Elo). The maths is ``league.ratings.fitting`` (pure); this module reads the games, maps bots to indices and writes
the fit.

- **The data**: every finished rated match of the game (``rated.rated_matches``), reduced to the seats of each
  bot's current version (its newest version that has played rated). A match counts if at least two such seats
  remain; those pairs weigh 1/(m-1) for the m seats left (the whole table when nobody changed version since).
- **Warm start** from the stored fit; bots new since then start at 1500.
- **Ranks** are among the bots the leaderboard lists (on the ladder, a ready version); a fitted bot off the ladder
  keeps its Elo and interval, with rank 0.
- **Incremental**: a refit does not read all history. Each game's sufficient statistics (``league.ratings.fit_stats``:
  pair counts by version, counted games, current versions, seat results) are stored with the fit up to a recorded-order
  number (``Match.rated_seq``, taken in the recording transaction); the next refit adds the matches after it, and
  recounts the earlier matches of any version a newer one retired. ``compute_fit`` is the cold refit from every
  seat; ``recompute_ratings`` compares the stored fit with it. On PostgreSQL a process keeps the statistics it
  stored and starts its next refit from them while the row is still the version it wrote (``_kept``).
- **Staleness**: a game with a rated match numbered after the stored statistics is refitted by ``do_refit_stale``
  (Celery beat, every ``RATINGS_REFIT_SECONDS``). A fit records how many rated matches it saw and the newest id.
"""

from __future__ import annotations

import time
import zlib
from dataclasses import dataclass, field
from typing import Any, NamedTuple

import numpy as np
from django.db import connection, transaction
from django.db.models import Exists, Max, OuterRef, QuerySet
from django.utils import timezone

from games.registry import GAMES
from league.bots.models import Bot, BotVersion
from league.core import outbox
from league.core.rows import insert_rows
from league.play.models import Match, Seat
from league.ratings import fit_stats, fitting
from league.ratings.elo import INITIAL_ELO
from league.ratings.models import FitSnapshot, FitStatistics, FittedRating, RatingFit
from league.ratings.rated import rated_matches

# Samples of the ratings for the rank ranges: the 2.5% and 97.5% quantiles of 1,000 draws move by under one rank.
RANK_DRAWS = 1000
# A snapshot is written when a bot's games changed or its Elo moved by at least this much (the chart's resolution).
SNAPSHOT_MOVE = 1.0
# Fitted Elo values kept for the leaderboard's sparkline, as ratings.RECENT for the online one.
RECENT = 30


@dataclass
class GameData:
    """One game's rated history, as the fit takes it."""

    bot_ids: list[int]  # index -> bot id
    versions: dict[int, tuple[int, int]]  # bot id -> (version id, number) of its current version
    results: list[tuple[list[int], list[int]]] = field(default_factory=list)  # (bot indices, ranks) per match
    games: dict[int, int] = field(default_factory=dict)  # bot id -> its current version's matches in the fit
    seat_results: dict[str, list[list[int]]] = field(default_factory=dict)
    matches: int = 0
    last_match_id: int = 0


def load_game(game_id: str) -> GameData:
    """Every rated seat of ``game_id`` in one query (ordered by match), reduced to current versions."""
    rated = Match.objects.filter(rated_matches(), game=game_id, status=Match.Status.FINISHED)
    rows = list(
        Seat.objects.filter(match__in=rated)
        .order_by("match_id", "number")
        .values_list("match_id", "bot_version__bot_id", "bot_version_id", "bot_version__number", "rank")
    )
    versions: dict[int, tuple[int, int]] = {}
    for _match, bot_id, version_id, number, _rank in rows:
        if bot_id not in versions or number > versions[bot_id][1]:
            versions[bot_id] = (version_id, number)
    bot_ids = sorted(versions)
    index = {bot_id: i for i, bot_id in enumerate(bot_ids)}
    data = GameData(bot_ids=bot_ids, versions=versions)
    start = 0
    while start < len(rows):
        end = start
        while end < len(rows) and rows[end][0] == rows[start][0]:
            end += 1
        _count_match(data, rows[start:end], index)
        start = end
    return data


def _count_match(data: GameData, table: list[tuple[int, int, int, int, int | None]], index: dict[int, int]) -> None:
    bots = [row[1] for row in table]
    if len(set(bots)) != len(bots) or any(row[4] is None for row in table):
        return  # not rated (the same bot twice), or not ranked
    data.matches += 1
    data.last_match_id = max(data.last_match_id, table[0][0])
    # Seat advantage, over every version: per table size and seat, [matches, outright wins, shared firsts].
    firsts = sum(1 for row in table if row[4] == 1)
    counts = data.seat_results.setdefault(str(len(table)), [[0, 0, 0] for _ in table])
    for seat, row in enumerate(table):
        counts[seat][0] += 1
        if row[4] == 1:
            counts[seat][1 if firsts == 1 else 2] += 1
    current = [row for row in table if data.versions[row[1]][0] == row[2]]
    if len(current) < 2:
        return
    data.results.append(([index[row[1]] for row in current], [int(row[4] or 0) for row in current]))
    for row in current:
        data.games[row[1]] = data.games.get(row[1], 0) + 1


@dataclass
class Computed:
    data: GameData
    counts: fitting.PairCounts
    result: fitting.Fit
    ranks: dict[int, tuple[int, int, int]]  # bot index -> (rank, best, worst at 95%); listed bots only


def compute_fit(game_id: str, warm: bool = True) -> Computed | None:
    """The fit of ``game_id``'s rated games from cold (every rated seat read), not stored (None: no rated pair yet).
    ``warm``: start from the stored fit (the optimum is the same; only the number of Newton steps differs)."""
    data = load_game(game_id)
    if not data.results:
        return None
    return _compute(game_id, data, fitting.pair_counts(data.results, len(data.bot_ids)), warm)


def _compute(game_id: str, data: GameData, counts: fitting.PairCounts, warm: bool) -> Computed:
    stored = dict(FittedRating.objects.filter(bot__game=game_id).values_list("bot_id", "elo")) if warm else {}
    start = np.array([stored.get(bot_id, INITIAL_ELO) for bot_id in data.bot_ids])
    result = fitting.fit(counts, warm_start=start)
    listed = set(
        Bot.objects.filter(pk__in=data.bot_ids, is_active=True)
        .filter(Exists(BotVersion.objects.filter(bot=OuterRef("pk"), status=BotVersion.Status.READY)))
        .values_list("pk", flat=True)
    )
    ranks = _ranks(result, [i for i, bot_id in enumerate(data.bot_ids) if bot_id in listed], seed=data.matches)
    return Computed(data, counts, result, ranks)


def _seat_rows(matches: QuerySet[Match]) -> list[fit_stats.SeatRow]:
    return list(
        Seat.objects.filter(match__in=matches)
        .order_by("match_id", "number")
        .values_list("match_id", "bot_version__bot_id", "bot_version_id", "bot_version__number", "rank")
    )


# The pending change is folded into the stored base once it is this share of it: a refit then writes the change
# alone (kilobytes), and the whole pairs (tens of MB at a million games) once in a while.
COMPACT_SHARE = 0.1


@dataclass
class Stored:
    stats: fit_stats.Statistics  # base plus pending
    base: int  # pairs in the stored base
    pending: fit_stats.Pairs  # the change since the base
    base_seq: int = -1  # the stored base's last_seq (-1: none stored)


# The statistics this process last stored, by game, with the version of the row that holds them: the next refit in
# the same process (beat's worker) starts from them instead of reading and decoding the row's pairs (about 1 s at a
# million matches; in memory ~40 bytes a pair, ~100 MB there). PostgreSQL only, where a row version is known: its
# xmin, the transaction that wrote it. A refit elsewhere, or one here that was rolled back (its matches may be gone
# too), leaves another version, and the row is read again.
_kept: dict[str, tuple[tuple[int, ...], Stored]] = {}


def stored_statistics(game_id: str, from_memory: bool = True) -> Stored:
    """The statistics the last refit stored (empty before the first). ``from_memory``: this process's copy of them
    while the row is still the version it wrote (``_kept``); otherwise, and to check the row itself, read from it."""
    kept = _kept.get(game_id)
    if from_memory and kept is not None and _row_version(game_id) == kept[0]:
        return kept[1]
    row = FitStatistics.objects.filter(game=game_id).defer("data", "pending").first()
    if row is None or row.rest is None:
        return Stored(fit_stats.Statistics(), 0, fit_stats.Pairs.empty())
    data, pending_data = _pair_columns(game_id)
    base = fit_stats.decode_pairs(data)
    pending = fit_stats.decode_pairs(pending_data)
    stats = fit_stats.decode(
        base, pending, bytes(row.rest), row.seat_results, row.matches, row.last_match_id, row.last_seq
    )
    return Stored(stats, len(base), pending, row.base_seq)


def _row_version(game_id: str) -> tuple[int, ...] | None:
    """The statistics row's version on PostgreSQL: the transaction that wrote it (xmin; a savepoint's own id when
    written inside one), with its last_seq. None elsewhere, or when there is no row."""
    if connection.vendor != "postgresql":
        return None
    with connection.cursor() as cursor:
        table = FitStatistics._meta.db_table
        cursor.execute(f"SELECT xmin::text::bigint, last_seq FROM {table} WHERE game = %s", [game_id])
        found = cursor.fetchone()
    return None if found is None else tuple(found)


def _pair_columns(game_id: str) -> tuple[bytes | None, bytes | None]:
    """The stored ``data`` and ``pending`` bytes. On PostgreSQL in binary: the text protocol sends bytea as hex,
    twice its size (0.27 s against 0.72 s for the 84 MB of a million matches)."""
    if connection.vendor != "postgresql":
        row = FitStatistics.objects.filter(game=game_id).values_list("data", "pending").first()
        return (None, None) if row is None else (_bytes(row[0]), _bytes(row[1]))
    import psycopg  # PostgreSQL's driver: absent where only SQLite is used

    connection.ensure_connection()
    sql = f"SELECT data, pending FROM {FitStatistics._meta.db_table} WHERE game = %s"
    # Django's cursors bind client-side, which cannot return binary results: a plain cursor of its connection.
    with psycopg.Cursor(connection.connection) as cursor:
        cursor.execute(sql, [game_id], binary=True)
        found = cursor.fetchone()
    return (None, None) if found is None else (_bytes(found[0]), _bytes(found[1]))


def _bytes(value: bytes | memoryview | None) -> bytes | None:
    return None if value is None else bytes(value)


def update_statistics(game_id: str, stored: Stored) -> Stored:
    """``stored`` with the rated matches recorded since its ``last_seq``: those matches' seats, and the seats of
    the earlier matches of versions they retired (two or three queries; none of them reads all history)."""
    stats = stored.stats
    rated = Match.objects.filter(game=game_id, rated_seq__isnull=False)
    fresh = rated.filter(rated_seq__gt=stats.last_seq)
    # The newest number first, then the seats of the matches up to it: numbers commit in order, so none below it
    # can still appear (Match.rated_seq).
    last_seq = fresh.aggregate(last=Max("rated_seq"))["last"]
    if last_seq is None:
        return stored
    new = fit_stats.tables(_seat_rows(fresh.filter(rated_seq__lte=last_seq)))
    gone = fit_stats.retired(stats.versions, fit_stats.newer_versions(stats.versions, new))
    revisited: list[list[fit_stats.SeatRow]] = []
    if gone:
        earlier = rated.filter(
            rated_seq__lte=stats.last_seq,
            pk__in=Seat.objects.filter(bot_version_id__in=sorted(gone)).values("match_id"),
        )
        revisited = fit_stats.tables(_seat_rows(earlier))
    updated, change = fit_stats.advance(stats, new, revisited, int(last_seq))
    return Stored(updated, stored.base, fit_stats.combine(stored.pending, change, drop=False), stored.base_seq)


def compute_incremental(game_id: str, cold: bool = False) -> tuple[Computed, Stored] | None:
    """The fit from the stored statistics and the matches recorded since (None: no rated pair yet). ``cold``: the
    statistics rebuilt from every rated match instead (a repair)."""
    empty = Stored(fit_stats.Statistics(), 0, fit_stats.Pairs.empty())
    stored = update_statistics(game_id, empty if cold else stored_statistics(game_id))
    stats = stored.stats
    if not len(stats.first):
        return None
    bot_ids, counts = fit_stats.pair_counts(stats)
    data = GameData(
        bot_ids=bot_ids,
        versions=stats.versions,
        games=fit_stats.games_of(stats),
        seat_results=stats.seat_results,
        matches=stats.matches,
        last_match_id=stats.last_match_id,
    )
    return _compute(game_id, data, counts, warm=True), stored


def refit_game(game_id: str, cold: bool = False) -> RatingFit | None:
    """Fit ``game_id``'s Elo to its rated games and store it (None: no rated game yet). Incremental: the stored
    statistics plus the matches recorded since (``cold``: rebuilt from every rated match); warm-started from the
    stored fit. Reads outside any lock; the write is one transaction."""
    started = time.perf_counter()
    incremental = compute_incremental(game_id, cold)
    if incremental is None:
        return None
    computed, stored = incremental
    return _store(game_id, computed, time.perf_counter() - started, stored, compact=cold)


# recompute_ratings: a cold refit must agree with the stored one to within the optimiser's tolerance (GTOL: under
# 0.1 Elo); a rank range is a quantile of samples, so it may move by one rank with such a difference.
ELO_TOLERANCE = 0.5


def compare_fit(game_id: str) -> list[str] | None:
    """Refit ``game_id`` from cold and compare with the stored fit: the differences (empty: it agrees). None when
    the stored fit is not of the current games (no fit yet, or results recorded since: beat refits them)."""
    fit = latest_fit(game_id)
    computed = compute_fit(game_id, warm=False)
    if computed is None:
        return [] if fit is None else [f"a fit is stored ({fit}) but there are no rated games"]
    data = computed.data
    if fit is None or (fit.matches, fit.last_match_id) != (data.matches, data.last_match_id):
        return None
    stored = {row.bot_id: row for row in FittedRating.objects.filter(bot__game=game_id)}
    differences = []
    for i, bot_id in enumerate(data.bot_ids):
        row = stored.get(bot_id)
        if row is None:
            differences.append(f"bot {bot_id}: no fitted rating stored")
            continue
        low, high = computed.result.interval(i)
        rank, rank_low, rank_high = computed.ranks.get(i, (0, 0, 0))
        checks = [
            ("elo", row.elo, float(computed.result.ratings[i]), ELO_TOLERANCE),
            ("low", row.low, low, ELO_TOLERANCE),
            ("high", row.high, high, ELO_TOLERANCE),
            ("games", row.games, data.games.get(bot_id, 0), 0),
            ("version", row.version_id, data.versions[bot_id][0], 0),
            ("rank", row.rank, rank, 0 if row.rank == 0 else 1),
            ("rank_low", row.rank_low, rank_low, 1),
            ("rank_high", row.rank_high, rank_high, 1),
        ]
        wrong = [f"{name} {have!r} != refit {want!r}" for name, have, want, slack in checks if abs(have - want) > slack]
        if wrong:
            differences.append(f"bot {bot_id}: fitted " + "; ".join(wrong))
    differences += [f"bot {bot_id}: fitted rating without rated games" for bot_id in stored.keys() - set(data.bot_ids)]
    return differences + _compare_statistics(game_id, computed)


def _compare_statistics(game_id: str, computed: Computed) -> list[str]:
    """The stored statistics (what the next incremental refit builds on) against the cold refit's pair counts."""
    stats = stored_statistics(game_id, from_memory=False).stats
    data, cold = computed.data, computed.counts
    if (stats.matches, stats.last_match_id, stats.seat_results) != (
        data.matches,
        data.last_match_id,
        data.seat_results,
    ):
        return ["stored fit statistics: matches or seat results differ from the games"]
    bot_ids, counts = fit_stats.pair_counts(stats)
    order = np.lexsort((counts.second, counts.first))  # the cold counts' order
    same = (
        bot_ids == data.bot_ids
        and stats.versions == data.versions
        and fit_stats.games_of(stats) == data.games
        and np.array_equal(counts.first[order], cold.first)
        and np.array_equal(counts.second[order], cold.second)
        and all(
            np.allclose(getattr(counts, name)[order], getattr(cold, name), rtol=1e-9, atol=1e-9)
            for name in ("games", "score", "information")
        )
    )
    return [] if same else ["stored fit statistics: pair counts or versions differ from the games"]


def _ranks(result: fitting.Fit, listed: list[int], seed: int) -> dict[int, tuple[int, int, int]]:
    """Per listed bot index: (rank, best rank, worst rank at 95%), among the listed bots alone."""
    if not listed:
        return {}
    chosen = np.asarray(listed)
    covariance = None if result.covariance is None else result.covariance[np.ix_(chosen, chosen)]
    sub = fitting.Fit(result.ratings[chosen], result.sigmas[chosen], covariance, result.iterations, result.converged)
    # Seeded by the data: the same games give the same ranges (recompute_ratings compares them).
    ranges = fitting.rank_ranges(sub, RANK_DRAWS, np.random.default_rng(seed))
    ranks = fitting.ranks(sub.ratings)
    return {
        int(i): (int(rank), int(low), int(high)) for i, rank, (low, high) in zip(chosen, ranks, ranges, strict=True)
    }


class _Previous(NamedTuple):
    """A bot's fitted rating as the last refit stored it."""

    elo: float
    games: int
    version_id: int
    recent: list[float]


# The columns of the rows ``_store`` builds, in their order.
RATING_COLUMNS = [
    "bot",
    "version",
    "fit",
    "elo",
    "sigma",
    "low",
    "high",
    "rank",
    "rank_low",
    "rank_high",
    "games",
    "recent",
]
SNAPSHOT_COLUMNS = ["bot", "fit", "version", "at", "elo", "low", "high", "games"]


def _store(game_id: str, computed: Computed, seconds: float, stored: Stored, compact: bool = False) -> RatingFit:
    data, result, ranks = computed.data, computed.result, computed.ranks
    now = timezone.now()
    with transaction.atomic():
        # Two refits of one game at once (beat's tick and a request) take turns here, in the ladder's lock order
        # (the game's bots by id), so the second replaces the first's rows instead of colliding with them.
        list(Bot.objects.select_for_update().filter(game=game_id).order_by("id").values_list("id", flat=True))
        fit = RatingFit.objects.create(
            game=game_id,
            fitted_at=now,
            matches=data.matches,
            last_match_id=data.last_match_id,
            bots=len(data.bot_ids),
            iterations=result.iterations,
            converged=result.converged,
            seconds=seconds,
            seat_results=data.seat_results,
            together=pack_together(computed),
        )
        # Plain values, not model instances: at 10,000 bots building them cost more than the database's work.
        old = {
            bot_id: _Previous(elo, games, version_id, recent)
            for bot_id, elo, games, version_id, recent in FittedRating.objects.filter(bot__game=game_id).values_list(
                "bot_id", "elo", "games", "version_id", "recent"
            )
        }
        rows, snapshots = [], []
        for i, bot_id in enumerate(data.bot_ids):
            elo = float(result.ratings[i])
            low, high = result.interval(i)
            rank, rank_low, rank_high = ranks.get(i, (0, 0, 0))
            version_id, number = data.versions[bot_id]
            games = data.games.get(bot_id, 0)
            before = old.get(bot_id)
            moved = (
                before is None
                or before.games != games
                or before.version_id != version_id
                or abs(before.elo - elo) >= SNAPSHOT_MOVE
            )
            recent = list(before.recent) if before is not None else []
            if moved:
                recent = [*recent, round(elo, 1)][-RECENT:]
            sigma = float(result.sigmas[i])
            rows.append((bot_id, version_id, fit.pk, elo, sigma, low, high, rank, rank_low, rank_high, games, recent))
            if moved:
                snapshots.append((bot_id, fit.pk, number, now, elo, low, high, games))
        # The game's rows are replaced as a whole: a bot whose current version has no rated pair left has none.
        FittedRating.objects.filter(bot__game=game_id).delete()
        insert_rows(FittedRating, RATING_COLUMNS, rows)
        insert_rows(FitSnapshot, SNAPSHOT_COLUMNS, snapshots)
        in_row = _store_statistics(game_id, stored, compact)
        version = _row_version(game_id)
    if version is not None:
        _kept[game_id] = (version, in_row)
    return fit


def _store_statistics(game_id: str, stored: Stored, compact: bool) -> Stored:
    """The statistics' row: the pending change alone, or (compacting) the whole pairs as the new base. Returns the
    statistics as the row now holds them (base and pending)."""
    stats = stored.stats
    values: dict[str, Any] = {
        "last_seq": stats.last_seq,
        "matches": stats.matches,
        "last_match_id": stats.last_match_id,
        "seat_results": stats.seat_results,
        "rest": fit_stats.encode_rest(stats),
    }
    row = FitStatistics.objects.filter(game=game_id)
    # update() writes without reading the old row (its base is tens of MB at a million games). The change alone
    # only onto the base it was computed from: another refit may have compacted meanwhile.
    small = not compact and stored.base and len(stored.pending) <= COMPACT_SHARE * stored.base
    pending = row.filter(base_seq=stored.base_seq)
    if small and pending.update(pending=fit_stats.encode_pairs(stored.pending), **values):
        return stored
    pairs = fit_stats.Pairs(stats.first, stats.second, stats.games, stats.score, stats.information)
    values |= {"data": fit_stats.encode_pairs(pairs), "pending": None, "base_seq": stats.last_seq}
    if not row.update(**values):
        FitStatistics.objects.create(game=game_id, **values)
    return Stored(stats, len(pairs), fit_stats.Pairs.empty(), stats.last_seq)


# The settling matchmaking looks at pairs at most settling.NEIGHBOURS apart among the bots it may seat; among all the
# fitted bots those are a little further apart (bots off the ladder or busy in between). Pairs further apart overlap
# too little to be chosen, so their games together are not kept (taken as none).
TOGETHER_NEIGHBOURS = 12


def pack_together(computed: Computed) -> bytes:
    """The weighted games of pairs near in the fitted order, by bot id, compressed (about 10 pairs per bot)."""
    counts, position = computed.counts, fitting.ranks(computed.result.ratings)
    near = np.abs(position[counts.first] - position[counts.second]) <= TOGETHER_NEIGHBOURS
    ids = np.asarray(computed.data.bot_ids, dtype=np.int64)
    arrays = [ids[counts.first[near]], ids[counts.second[near]], counts.games[near].astype(np.float64)]
    return zlib.compress(b"".join(array.tobytes() for array in arrays), 6)


def unpack_together(packed: bytes | memoryview | None) -> dict[tuple[int, int], float]:
    """{(bot id, bot id), smaller first: weighted games together} as ``settling.plan_settling_tables`` takes it."""
    if not packed:
        return {}
    raw = zlib.decompress(bytes(packed))
    n = len(raw) // 24
    first = np.frombuffer(raw, dtype=np.int64, count=n)
    second = np.frombuffer(raw, dtype=np.int64, count=n, offset=8 * n)
    games = np.frombuffer(raw, dtype=np.float64, count=n, offset=16 * n)
    return {(min(a, b), max(a, b)): g for a, b, g in zip(first.tolist(), second.tolist(), games.tolist(), strict=True)}


def together_of(game_id: str) -> dict[tuple[int, int], float]:
    """The newest fit's games together of ``game_id`` (empty before the first fit)."""
    packed = RatingFit.objects.filter(game=game_id).order_by("-id").values_list("together", flat=True).first()
    return unpack_together(packed)


def latest_fit(game_id: str) -> RatingFit | None:
    return RatingFit.objects.filter(game=game_id).defer("together").order_by("-id").first()


def is_stale(game_id: str) -> bool:
    """A rated match was recorded after the last refit's statistics (one index lookup, whatever the history)."""
    newest = Match.objects.filter(game=game_id, rated_seq__isnull=False).aggregate(last=Max("rated_seq"))["last"]
    if newest is None:
        return False
    seen = FitStatistics.objects.filter(game=game_id).values_list("last_seq", flat=True).first()
    return seen is None or newest > seen


def do_refit_stale(games: list[str] | None = None) -> list[RatingFit]:
    """Refit every game whose rated games changed since its last fit (Celery beat, every RATINGS_REFIT_SECONDS)."""
    fits = []
    for game_id in games or list(GAMES):
        if is_stale(game_id) and (fit := refit_game(game_id)) is not None:
            fits.append(fit)
    return fits


def request_refit(game_id: str) -> None:
    """Ask for a refit of ``game_id`` soon (after a burst of results, e.g. a bot's placement games): a Celery task
    sent when the current transaction commits. It refits only if the games changed since the last fit."""
    if game_id not in GAMES:
        raise ValueError(f"no such game: {game_id!r}")
    outbox.enqueue(outbox.REFIT_RATINGS_TASK, game_id)
