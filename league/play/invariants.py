"""What must hold in the league's records whatever failed on the way (issue 12; docs/operations.md, Reliability).

``manage.py check_league`` runs these checks, and the reliability tests run them after every injected fault:

``rating_changes``
    A finished match that changes ratings (``changes_ratings``: ladder and rated tournament games, every bot
    distinct) has exactly one set of rating changes: one per seat. Every other match has none.
``ratings``
    Every rating equals its history: ``do_recompute_ratings`` (the ``recompute_ratings`` command) replays
    the rated matches in finish order through ``ratings.rate_match`` and compares every ``Rating`` and
    ``RatingChange`` exactly, so each rating is its first value plus the sum of its changes, none lost or doubled.
``elo_sum``
    Elo is conserved by every rated match: Σ Δᵢ / Kᵢ = 0 over its seats (each pair's expected scores sum to one, and
    so do its results). For two players with equal K that is AI Arena's check, Δa + Δb = 0. The K of each seat is
    found again from the history (provisional for the first games of each version).
``claims``
    No match is ``running`` without a live claim: a token and a lease that has not run out more than ``grace``
    seconds ago (by then the sweeper should have put the match back in the queue).
``queue``
    No match waits ``queued`` long after its last message: the sweeper sends lost messages again every
    MATCH_RESEND_SECONDS, so one that waits longer than that plus ``grace`` means the sweeper is not running.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.conf import settings
from django.db.models import Count, F, Model, OuterRef, Q, Subquery
from django.db.models.functions import Coalesce
from django.utils import timezone

from games.registry import GAMES
from league.play.models import Match, Seat
from league.ratings import elo as ratings
from league.ratings.models import RatingChange
from league.ratings.rated import rated_matches
from league.ratings.recompute import do_recompute_ratings

RULES = ("rating_changes", "ratings", "elo_sum", "claims", "queue")
# Σ Δ/K of a correct match is zero up to floating-point rounding (about 1e-15 of the Elo values).
ELO_SUM_TOLERANCE = 1e-9


@dataclass(frozen=True)
class Violation:
    rule: str
    message: str

    def __str__(self) -> str:
        return f"[{self.rule}] {self.message}"


@dataclass
class Report:
    checked: dict[str, int]  # rule → how many records it looked at
    violations: list[Violation]

    @property
    def ok(self) -> bool:
        return not self.violations


def check_league(games: Iterable[str] | None = None, grace_seconds: float | None = None) -> Report:
    """Every check above over ``games`` (all by default)."""
    games = list(games or GAMES)
    grace = timedelta(seconds=2 * settings.MATCH_SWEEP_SECONDS if grace_seconds is None else grace_seconds)
    now = timezone.now()
    report = Report(checked={}, violations=[])
    checks: list[tuple[str, Callable[[], tuple[int, list[str]]]]] = [
        ("rating_changes", lambda: _rating_changes(games)),
        ("ratings", lambda: _ratings(games)),
        ("elo_sum", lambda: _elo_sums(games)),
        ("claims", lambda: _claims(games, now, grace)),
        ("queue", lambda: _queue(games, now, grace)),
    ]
    for rule, check in checks:
        checked, messages = check()
        report.checked[rule] = checked
        report.violations += [Violation(rule, message) for message in messages]
    return report


def _count(model: type[Model], field: str, distinct: str | None = None) -> Coalesce:
    rows = model._default_manager.filter(**{field: OuterRef("pk")}).values(field)
    counted = rows.annotate(n=Count(distinct, distinct=True) if distinct else Count("pk")).values("n")
    return Coalesce(Subquery(counted), 0)


def _rating_changes(games: list[str]) -> tuple[int, list[str]]:
    matches = Match.objects.filter(game__in=games)
    rated = (
        matches.filter(rated_matches(), status=Match.Status.FINISHED)
        .annotate(n_seats=_count(Seat, "match"), n_bots=_count(Seat, "match", "bot_version__bot"))
        .filter(n_bots=F("n_seats"))  # every bot distinct
    )
    wrong = rated.annotate(n_changes=_count(RatingChange, "match")).exclude(n_changes=F("n_seats"))
    messages = [
        f"match {pk} ({game}, finished, rated): {changes} rating changes for {seats} seats"
        for pk, game, changes, seats in wrong.values_list("pk", "game", "n_changes", "n_seats")[:1000]
    ]
    unrated = (
        matches.filter(pk__in=RatingChange.objects.values("match"))
        .exclude(pk__in=rated.values("pk"))
        .annotate(n_changes=_count(RatingChange, "match"))
    )
    messages += [
        f"match {pk} ({game}, {status}, {kind}): {changes} rating changes, but it does not change ratings"
        for pk, game, status, kind, changes in unrated.values_list("pk", "game", "status", "kind", "n_changes")[:1000]
    ]
    return matches.filter(status=Match.Status.FINISHED).count(), messages


def _ratings(games: list[str]) -> tuple[int, list[str]]:
    reports = do_recompute_ratings(games, repair=False)
    messages = [f"{report.game}: {difference}" for report in reports for difference in report.differences]
    return sum(report.bots for report in reports), messages


Row = tuple[int, int, int, float | None, float | None]  # match, bot, version number, Elo before, after


def _elo_sums(games: list[str]) -> tuple[int, list[str]]:
    messages: list[str] = []
    checked = 0
    for game_id in games:
        rated = Match.objects.filter(rated_matches(), game=game_id, status=Match.Status.FINISHED)
        change = RatingChange.objects.filter(match=OuterRef("match_id"), bot=OuterRef("bot_version__bot_id"))
        seats = (
            Seat.objects.filter(match__in=rated)
            .annotate(before=Subquery(change.values("before")[:1]), after=Subquery(change.values("after")[:1]))
            .order_by("match__finished_at", "match_id", "number")
            .values_list("match_id", "bot_version__bot_id", "bot_version__number", "before", "after")
        )
        # Each bot's (newest version, games since it): all that its K depends on, replayed like ratings.rate_match.
        state: dict[int, tuple[int, int]] = {}
        table: list[Row] = []
        for row in [*seats.iterator(chunk_size=10_000), None]:
            if table and (row is None or row[0] != table[0][0]):
                verdict = _conserved(game_id, table, state)
                checked += verdict is not None
                messages += [verdict] if verdict else []
                table = []
            if row is not None:
                table.append(row)
    return checked, messages


def _conserved(game_id: str, table: list[Row], state: dict[int, tuple[int, int]]) -> str | None:
    """None if the match is not rated or lacks changes (``rating_changes`` reports that), "" if Elo is conserved,
    else the violation."""
    bots = [row[1] for row in table]
    if len(set(bots)) != len(bots):
        return None  # not rated
    ks = []
    for _match, bot, number, _before, _after in table:
        version, games_since = state.get(bot, (0, 0))
        if number > version:
            version, games_since = number, 0
        ks.append(ratings.k_factor(games_since))
        state[bot] = (version, games_since + 1)
    pairs = [(before, after) for *_rest, before, after in table]
    known = [(before, after) for before, after in pairs if before is not None and after is not None]
    if len(known) != len(pairs):
        return None
    deltas = [after - before for before, after in known]
    weighted = math.fsum(delta / k for delta, k in zip(deltas, ks, strict=True))
    if abs(weighted) <= ELO_SUM_TOLERANCE:
        return ""
    shown = ", ".join(f"bot {row[1]}: {delta:+.6f} (K {k:g})" for row, delta, k in zip(table, deltas, ks, strict=True))
    return f"match {table[0][0]} ({game_id}): Elo not conserved, Σ Δ/K = {weighted:.3g}; {shown}"


def _claims(games: list[str], now: datetime, grace: timedelta) -> tuple[int, list[str]]:
    running = Match.objects.filter(game__in=games, status=Match.Status.RUNNING)
    dead = running.filter(Q(claim_token="") | Q(lease_until__isnull=True) | Q(lease_until__lt=now - grace))
    messages = []
    for pk, game, worker, lease in dead.values_list("pk", "game", "claimed_by", "lease_until")[:1000]:
        when = f"its lease ran out {(now - lease).total_seconds():.0f} s ago" if lease else "it has no lease"
        messages.append(f"match {pk} ({game}) is running without a live claim: {when} (worker: {worker or 'none'})")
    return running.count(), messages


def _queue(games: list[str], now: datetime, grace: timedelta) -> tuple[int, list[str]]:
    queued = Match.objects.filter(game__in=games, status=Match.Status.QUEUED)
    cutoff = now - timedelta(seconds=settings.MATCH_RESEND_SECONDS) - grace
    messages = [
        f"match {pk} ({game}) has waited in the queue since {at:%Y-%m-%d %H:%M:%S} with no message sent again "
        "(is the sweeper, Celery beat, running?)"
        for pk, game, at in queued.filter(enqueued_at__lt=cutoff).values_list("pk", "game", "enqueued_at")[:1000]
    ]
    return queued.count(), messages
