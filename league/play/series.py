"""Series: games a worker plays in a row with the same bot processes, claimed together and recorded in batches as
they are played (docs/decisions.md, "Series"; the runner's side is bots/runner/series.py).

Every game of a series is a ``Match`` row of its own (its seed, seats, replay, rating changes); ``Match.series`` ties
them. A series is claimed as a whole: one conditional UPDATE stamps all its waiting games with one token and lease.
The worker records the games that have finished whenever a second or two has passed since its last write, and at the
end (a short series: one recording): each batch is one transaction, applying the ratings game by game in order, so the
history ``recompute_ratings`` replays is exactly the one recorded. A fault ends the series: the games it did not play
move to a new series (fresh processes) and are queued again. A worker killed (or out of time) mid-series keeps the
games it recorded; the others' leases run out or are released, and they are played again (each game is counted once,
when it is recorded).
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from datetime import datetime

from django.contrib.auth import get_user_model
from django.db import connection, transaction
from django.db.models import Q
from django.utils import timezone

from bots.results import MatchResult
from games.registry import GAMES
from league.bots.models import Bot, BotVersion
from league.core import leases, outbox
from league.core.errors import HOUR
from league.play import worker_budget
from league.play.matches import MATCHES, ClaimedSeries, claim_games, do_claim_match
from league.play.models import Match, MatchSeries, Seat
from league.play.recording import REFUSED_VALUE_ERRORS, PlayedGame, record_games_isolated, record_games_locked
from league.play.signals import series_recorded

log = logging.getLogger(__name__)


def do_create_series(
    game: str,
    versions: list[BotVersion],
    seeds: list[int],
    kind: str = Match.Kind.LADDER,
    time_control: dict[str, int] | None = None,
    placing_version: BotVersion | None = None,
    placing: bool = False,
) -> MatchSeries:
    """A queued series: one match per seed, ``versions`` in the same seats in every game. One ``run_match`` message
    (for its first game) is sent when the transaction commits; the worker that claims it claims the whole series."""
    if not seeds or len(set(seeds)) != len(seeds):
        raise ValueError("a series needs distinct seeds: the same bot processes must not see a deal twice")
    spec = GAMES[game]
    with transaction.atomic():
        series = MatchSeries.objects.create(game=game, placing_version=placing_version)
        matches = Match.objects.bulk_create(
            Match(
                game=game,
                kind=kind,
                seed=seed,
                engine_version=spec.version,
                time_control=time_control or {},
                series=series,
                placing=placing,
            )
            for seed in seeds
        )
        if not all(match.pk for match in matches):  # (a backend without RETURNING for bulk inserts)
            matches = list(series.matches.order_by("pk"))
        Seat.objects.bulk_create(
            Seat(match=match, number=number, bot_version=version)
            for match in matches
            for number, version in enumerate(versions)
        )
        outbox.enqueue(outbox.RUN_MATCH_TASK, matches[0].pk)
    return series


def series_of(match_id: int) -> int | None:
    """The series of a match, None for a single match."""
    return Match.objects.filter(pk=match_id).values_list("series_id", flat=True).first()


def do_claim_work(match_id: int, worker: str = "", claim_token: str | None = None) -> ClaimedSeries | None:
    """What a ``run_match`` message for ``match_id`` claims: a lone match (a series of one), or the whole series of a
    game of a series (the first delivery of a placement series' message: the fairest placement series,
    ``do_claim_fairest_series``). ``claim_token``: a retry of this worker's own claim. None: nothing to do."""
    series_id = series_of(match_id)
    if series_id is None:
        return do_claim_match(match_id, worker, claim_token)
    if claim_token is None:
        return do_claim_fairest_series(series_id, worker)
    return do_claim_series(series_id, worker, claim_token)


def do_claim_series(series_id: int, worker: str = "", claim_token: str | None = None) -> ClaimedSeries | None:
    """Claim every game of the series still to play (queued, or under a lapsed lease, or this worker's own claim):
    one UPDATE, one token (``matches.claim_games``). None when nothing is left. A game claimed beyond
    MATCH_MAX_ATTEMPTS fails instead. A placement or challenge series whose owner's worker time is spent is not
    claimed: it waits (``worker_budget``)."""
    return claim_games(Q(series_id=series_id), worker, claim_token, series_id=series_id)


def do_claim_fairest_series(series_id: int, worker: str = "") -> ClaimedSeries | None:
    """What the message of series ``series_id`` claims: for a placement series, the fairest due placement series
    (``fair_series_order``), not necessarily its own, as ``validate_version`` claims the fairest version; its own when
    none is fairer, and for any other series. Every series still gets one message, but one owner's messages queued
    first (a slow bot's burst: minutes a series) cannot make another owner's placement wait behind all of them."""
    if MatchSeries.objects.filter(pk=series_id, placing_version__isnull=False).exists():
        claimed = do_claim_next_series(worker)
        if claimed is not None:
            return claimed
    return do_claim_series(series_id, worker)


def do_claim_next_series(worker: str = "", placement: bool = True) -> ClaimedSeries | None:
    """Claim the fairest due placement series (``fair_series_order``), or with ``placement=False`` the other series
    whose game has waited longest, as ``do_claim_series`` does; None if there is none."""
    now = timezone.now()
    if placement:
        candidates = fair_series_order(now, 4)
    else:
        due = Match.objects.filter(
            status=Match.Status.QUEUED,
            enqueued_at__lte=now,
            series__isnull=False,
            placing=False,
        ).order_by("enqueued_at", "pk")
        candidates = [series_id for series_id in due.values_list("series_id", flat=True)[:4] if series_id]
    for series_id in dict.fromkeys(candidates):
        claimed = do_claim_series(series_id, worker)
        if claimed is not None:
            return claimed
    return None


def fair_series_order(now: datetime, limit: int) -> list[int]:
    """Up to ``limit`` ids of placement series with a game waiting and due, fairest first: the placing owner whose
    placement and challenges cost the workers least in the last hour first (``worker_budget``), then the owners take
    turns (each owner's series numbered in creation order, over the series of the last hour; lowest number first).
    An owner whose worker time is spent is left out (staff excepted): their placement waits, and one owner's slow bot
    or burst of uploads cannot hold up another's placement. Placement's lane: a worker that finished a game claims
    these before ordinary ladder games; tournament and other games are still claimed by their own messages, so
    placement never starves them."""
    ops = connection.ops
    series_t, match_t = ops.quote_name(MatchSeries._meta.db_table), ops.quote_name(Match._meta.db_table)
    version_t, bot_t = ops.quote_name(BotVersion._meta.db_table), ops.quote_name(Bot._meta.db_table)
    user_t = ops.quote_name(get_user_model()._meta.db_table)
    sql = f"""
        SELECT id, owner_id, is_staff, turn, created FROM (
            SELECT s.id, s.created, b.owner_id, u.is_staff,
                   ROW_NUMBER() OVER (PARTITION BY b.owner_id ORDER BY s.created, s.id) AS turn,
                   EXISTS (SELECT 1 FROM {match_t} m
                           WHERE m.series_id = s.id AND m.placing AND m.status = %s
                             AND m.enqueued_at <= %s) AS waiting
            FROM {series_t} s
            JOIN {version_t} v ON v.id = s.placing_version_id
            JOIN {bot_t} b ON b.id = v.bot_id
            JOIN {user_t} u ON u.id = b.owner_id
            WHERE s.created > %s
        ) ranked
        WHERE waiting
    """
    moment = ops.adapt_datetimefield_value(now)
    since = ops.adapt_datetimefield_value(now - HOUR)
    with connection.cursor() as cursor:
        cursor.execute(sql, [Match.Status.QUEUED.value, moment, since])
        rows = cursor.fetchall()
    spent = worker_budget.spent_ms({row[1] for row in rows}, now)
    budget = worker_budget.budget_ms()
    rows = [row for row in rows if row[2] or spent[row[1]] < budget]
    rows.sort(key=lambda row: (spent[row[1]], row[3], row[4], row[0]))
    return [row[0] for row in rows[:limit]]


def others_placement_waiting(series_id: int) -> bool:
    """Whether another owner's placement series is due and waiting its turn (``fair_series_order``: owners over their
    worker budget are not waiting). A series that has run SERIES_SLICE_SECONDS yields its worker to it between two
    games, so a slow bot's long series cannot hold up anyone else's placement."""
    waiting = fair_series_order(timezone.now(), 4)
    if not waiting:
        return False
    owner_of = dict(
        MatchSeries.objects.filter(pk__in=[*waiting, series_id]).values_list("pk", "placing_version__bot__owner_id")
    )
    mine = owner_of.get(series_id)
    return any(owner_of.get(other) != mine for other in waiting if other != series_id)


def do_record_series(
    series: ClaimedSeries, results: Sequence[MatchResult], unplayed: list[int] | None = None, *, first: int = 0
) -> list[int]:
    """Record games a series played, in one transaction: ``results`` are those of ``series.games[first:]``, in order
    (the worker records a series in batches as it is played: whatever finished since its last write). Each is
    recorded as ``do_record_match_result`` would, ratings applied game by game in order. The games not played (after
    a fault: ``unplayed``, match ids) move to a new series and are queued again, for fresh processes. Returns the ids
    of the matches recorded (a game this worker no longer holds, taken over by another, is left alone).

    Should the database refuse a value of one game (``recording.REFUSED_VALUE_ERRORS``), the transaction is
    rolled back and the batch recorded again game by game (``record_games_isolated``): that game's bot is charged a
    fault, the others are recorded as they are."""
    try:
        return _record_series(series, results, unplayed, first, isolated=False)
    except REFUSED_VALUE_ERRORS as error:
        log.warning("series %s: the database refused a result (%s); recording game by game", series.series_id, error)
        return _record_series(series, results, unplayed, first, isolated=True)


def _record_series(
    series: ClaimedSeries, results: Sequence[MatchResult], unplayed: list[int] | None, first: int, *, isolated: bool
) -> list[int]:
    batch = series.games[first : first + len(results)]
    played = {game.match_id: result for game, result in zip(batch, results, strict=True)}
    if not played and not unplayed:
        return []
    with transaction.atomic():
        seats_by_match: dict[int, list[Seat]] = {}
        for seat in (
            Seat.objects.filter(match_id__in=list(played))
            .select_related("match", "match__round__tournament", "bot_version__bot")
            .defer("bot_version__archive", "match__replay_data")
            .select_for_update(of=("match",))
            .order_by("match_id", "number")
        ):
            seats_by_match.setdefault(seat.match_id, []).append(seat)
        games = []
        for game in batch:
            seats = seats_by_match.get(game.match_id, [])
            if not seats:
                continue
            match = seats[0].match
            if match.status != Match.Status.RUNNING or match.claim_token != series.claim_token:
                continue
            games.append(PlayedGame(match, seats, played[game.match_id]))
        if isolated:
            games = record_games_isolated(games)
        else:
            record_games_locked(games)
        recorded = [game.match.pk for game in games]
        if series.series_id is not None:  # (a lone match is a series of one: nothing to reschedule)
            if unplayed:
                _requeue_unplayed(series.series_id, series.claim_token, unplayed)
            series_recorded.send(sender=MatchSeries, series_id=series.series_id)
    return recorded


def _requeue_unplayed(series_id: int, claim_token: str, match_ids: list[int]) -> None:
    """(In the recording transaction.) A fault ended the series, or its worker yielded to a fairer claim: its unplayed
    games get a new series of their own, so fresh processes play them; their attempt is not counted against them (the
    fault was a bot's, the yield the league's, not theirs)."""
    old = MatchSeries.objects.get(pk=series_id)
    fresh = MatchSeries.objects.create(game=old.game, placing_version_id=old.placing_version_id)
    held = leases.held(MATCHES, Q(pk__in=match_ids), claim_token)
    moved = leases.requeue_untried(MATCHES, held, timezone.now(), series=fresh)
    if moved:
        outbox.enqueue(outbox.RUN_MATCH_TASK, min(match_ids))
        log.info(
            "series %s: ended early (a fault, or a yield); %d games rescheduled as series %s", old.pk, moved, fresh.pk
        )
