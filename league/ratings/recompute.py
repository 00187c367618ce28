"""Recomputing ratings: replay each game's rated history and compare with (or repair) what is stored."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import cast

from django.db import connection, transaction

from games.registry import GAMES
from league.play.models import Match, Seat
from league.ratings import elo as ratings
from league.ratings import fits
from league.ratings.models import Rating, RatingChange
from league.ratings.rated import rated_matches


@dataclass
class RecomputeReport:
    game: str
    matches: int = 0
    bots: int = 0
    changes: int = 0
    differences: list[str] = field(default_factory=list)
    repaired: int = 0
    fit: str = ""  # what the fitted-Elo comparison found (league.ratings.fits.compare_fit)


# A seat of a finished rated match: (match, bot, version number, rank, finished at); such a seat has all five.
Row = tuple[int, int, int, int, datetime]
Changes = dict[tuple[int, int], tuple[float, float, float]]


def replay_ratings(game_id: str) -> tuple[dict[int, ratings.BotRating], dict[int, datetime], Changes, int]:
    """Every bot's rating from the game's match history alone: finished ladder matches in finish order.

    Returns (ratings by bot, last rated match time by bot, {(match, bot): (before, after, variance)}, matches)."""
    states: dict[int, ratings.BotRating] = {}
    last: dict[int, datetime] = {}
    changes: Changes = {}
    rated = Match.objects.filter(rated_matches(), game=game_id, status=Match.Status.FINISHED)
    seats = (
        Seat.objects.filter(match__in=rated)
        .order_by("match__finished_at", "match_id", "number")
        .values_list("match_id", "bot_version__bot_id", "bot_version__number", "rank", "match__finished_at")
    )
    matches = 0

    def rate(table: list[Row]) -> None:
        nonlocal matches
        bots = [bot_id for _match, bot_id, _number, _rank, _at in table]
        if len(set(bots)) != len(bots):
            return
        before = [states.get(bot_id, ratings.BotRating()) for bot_id in bots]
        after = ratings.rate_match(before, [ratings.RatedSeat(rank=rank, version=n) for _m, _b, n, rank, _a in table])
        for (match_id, bot_id, _number, _rank, finished_at), old, new in zip(table, before, after, strict=True):
            states[bot_id] = new
            last[bot_id] = finished_at
            changes[(match_id, bot_id)] = (old.elo, new.elo, new.variance)
        matches += 1

    table: list[Row] = []
    for row in seats.iterator(chunk_size=10_000):
        if table and row[0] != table[0][0]:
            rate(table)
            table = []
        table.append(cast(Row, row))
    if table:
        rate(table)
    return states, last, changes, matches


def do_recompute_ratings(games: list[str] | None = None, repair: bool = False) -> list[RecomputeReport]:
    """Replay each game's match history through ``ratings.rate_match`` and compare with what is stored, exactly.

    Every ``Rating`` and every ``RatingChange`` must equal the replay's, bit for bit. With ``repair``, ratings that
    differ are overwritten with the replay's (``RatingChange`` rows are history and are never edited)."""
    reports = []
    for game_id in games or list(GAMES):
        report = RecomputeReport(game=game_id)
        outermost = not connection.in_atomic_block
        with transaction.atomic():
            if repair:  # nobody records a match of this game while we compare and write
                stored = {r.bot_id: r for r in Rating.objects.select_for_update().filter(bot__game=game_id)}
            else:
                if outermost:
                    _snapshot()
                stored = {r.bot_id: r for r in Rating.objects.filter(bot__game=game_id)}
            states, last, expected, report.matches = replay_ratings(game_id)
            recorded = {
                (match_id, bot_id): (before, after, variance)
                for match_id, bot_id, before, after, variance in RatingChange.objects.filter(
                    match__game=game_id
                ).values_list("match_id", "bot_id", "before", "after", "variance")
            }
            report.changes = len(recorded)
            differences = report.differences
            for key in sorted(expected.keys() | recorded.keys()):
                want, have = expected.get(key), recorded.get(key)
                if want != have:
                    what = "missing" if have is None else "unexpected" if want is None else f"{have} != replay {want}"
                    differences.append(f"match {key[0]} bot {key[1]}: rating change {what}")
            bot_ids = sorted(set(stored) | set(states))
            report.bots = len(bot_ids)
            for bot_id in bot_ids:
                want_state, rating = states.get(bot_id, ratings.BotRating()), stored.get(bot_id)
                have_state = rating.state if rating else None
                want_last, have_last = last.get(bot_id), rating.last_match_at if rating else None
                if have_state == want_state and want_last == have_last:
                    continue
                if have_state is None:
                    differences.append(f"bot {bot_id}: no stored rating; the replay has {want_state}")
                    continue
                fields = [
                    f"{name} {getattr(have_state, name)!r} != replay {getattr(want_state, name)!r}"
                    for name in Rating.STATE_FIELDS
                    if getattr(have_state, name) != getattr(want_state, name)
                ]
                if want_last != have_last:
                    fields.append(f"last_match_at {have_last} != replay {want_last}")
                differences.append(f"bot {bot_id}: " + "; ".join(fields))
                if repair and rating is not None:
                    rating.set_state(want_state)
                    rating.last_match_at = want_last
                    rating.save()
                    report.repaired += 1
        _compare_fit(report, repair)
        reports.append(report)
    return reports


def _compare_fit(report: RecomputeReport, repair: bool) -> None:
    """The fitted Elo follows from the games too: a cold refit must equal the stored fit (to the optimiser's
    tolerance), and so must the statistics the next incremental refit builds on. A fit older than the latest result
    is not compared: beat refits it within RATINGS_REFIT_SECONDS. A repair rebuilds the statistics from every game."""
    differences = fits.compare_fit(report.game)
    if differences is None:
        report.fit = "fitted Elo not of the latest results"
        if repair:
            fits.refit_game(report.game, cold=True)
            report.fit += ": refitted"
        return
    report.differences += differences
    report.fit = "fitted Elo equal to a cold refit" if not differences else f"{len(differences)} fitted differ"
    if repair and differences:
        fits.refit_game(report.game, cold=True)
        report.fit += ": refitted"


def _snapshot() -> None:
    """Read the whole comparison from one snapshot while matches keep being recorded (SQLite's is one anyway)."""
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
