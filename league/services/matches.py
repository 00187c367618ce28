"""Matches: creating them, and the claims (leases) by which workers play matches and validate versions."""

from __future__ import annotations

import logging
import random
import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, NamedTuple

from django.conf import settings
from django.db import connection, transaction
from django.db.models import F, Q
from django.utils import timezone

from games.registry import GAMES
from league.models import Bot, BotVersion, Match, Seat
from league.reasons import public_reason
from league.services import outbox, worker_budget
from league.services.bots import do_record_validation
from league.services.errors import HOUR
from league.services.requeue import SWEEP_BATCH, resend_lost

log = logging.getLogger(__name__)


def do_create_match(
    game: str,
    versions: list[BotVersion],
    seed: int | None = None,
    options: dict[str, Any] | None = None,
    kind: str = Match.Kind.LADDER,
    time_control: dict[str, int] | None = None,
) -> Match:
    """A queued match with ``versions`` in seat order; ``run_match`` is enqueued when the transaction commits."""
    spec = GAMES[game]
    with transaction.atomic():
        match = Match.objects.create(
            game=game,
            kind=kind,
            options=options or {},
            engine_version=spec.version,
            seed=secrets.randbits(31) if seed is None else seed,
            time_control=time_control or {},
        )
        Seat.objects.bulk_create(
            Seat(match=match, number=number, bot_version=version) for number, version in enumerate(versions)
        )
        outbox.enqueue(outbox.RUN_MATCH_TASK, match.pk)
    return match


# ----- claims: which worker runs a match or a validation, and for how long -----------------------------------
# A claim is a lease (docs/operations.md, Reliability): one conditional UPDATE takes a row that is waiting, or whose
# worker's lease ran out (that worker died), and stamps it with a fresh token. The worker renews the lease while it
# plays and records its result only under its token, so a worker presumed dead cannot overwrite the re-run.


def _lease_until(now: datetime) -> datetime:
    return now + timedelta(seconds=settings.MATCH_STALE_SECONDS)


def retry_delay(attempts: int) -> float:
    """The back-off before attempt ``attempts + 1`` after an infrastructure failure: MATCH_RETRY_SECONDS doubled per
    attempt, capped at MATCH_RETRY_MAX_SECONDS, less up to a quarter at random so that retries spread out."""
    delay = min(settings.MATCH_RETRY_MAX_SECONDS, settings.MATCH_RETRY_SECONDS * 2 ** max(0, attempts - 1))
    return float(delay * random.uniform(0.75, 1.0))


def _lapsed_match(now: datetime) -> Q:
    """Running under a lease that ran out (or, claimed before leases existed, claimed longer than a lease ago)."""
    return Q(status=Match.Status.RUNNING) & (
        Q(lease_until__lt=now)
        | Q(lease_until__isnull=True, claimed_at__lt=now - timedelta(seconds=settings.MATCH_STALE_SECONDS))
    )


@dataclass(frozen=True)
class ClaimedSeat:
    """One seat of a claimed match, as the worker needs it: which version sits there (not its archive: up to 1 MiB,
    fetched by the worker only on its machine's first sight of the version) and who it is."""

    number: int
    version_id: int
    label: str
    builtin: str  # the built-in player's name; "" for an uploaded bot


@dataclass(frozen=True)
class ClaimedMatch:
    """A match a worker holds under ``claim_token`` until ``lease_until`` (renewed while it plays): what to play."""

    match_id: int
    claim_token: str
    claimed_by: str
    claimed_at: datetime
    lease_until: datetime
    attempts: int
    game: str
    seed: int
    options: dict[str, Any]
    time_control: dict[str, int]
    seats: tuple[ClaimedSeat, ...]


class Claim(NamedTuple):
    token: str
    claimed: int
    at: datetime
    lease_until: datetime


def claim_matches(which: Q, worker: str, claim_token: str | None) -> Claim:
    """The one claiming UPDATE (a match, or every game of a series): the matches in ``which`` that are queued, under
    a lease that ran out, or held under ``claim_token`` become this worker's under a new token, each claim an
    attempt. Returns the new token, how many were claimed, when, and until when the lease runs."""
    now = timezone.now()
    token = secrets.token_hex(16)
    claimable = Q(status=Match.Status.QUEUED) | _lapsed_match(now)
    if claim_token:
        claimable |= Q(status=Match.Status.RUNNING, claim_token=claim_token)
    lease_until = _lease_until(now)
    claimed = Match.objects.filter(claimable, which).update(
        status=Match.Status.RUNNING,
        claim_token=token,
        claimed_by=worker[:200],
        claimed_at=now,
        lease_until=lease_until,
        attempts=F("attempts") + 1,
    )
    return Claim(token, claimed, now, lease_until)


def do_claim_match(match_id: int, worker: str = "", claim_token: str | None = None) -> ClaimedMatch | None:
    """Claim a match for this worker; None when there is nothing for it to do.

    One conditional UPDATE, so of two deliveries exactly one wins. The match must be queued, or running under a
    lease that ran out (its worker died), or held under ``claim_token`` (this worker's own retry). Every claim counts
    as an attempt; a claim beyond MATCH_MAX_ATTEMPTS fails the match, with the last reason, instead."""
    claim = claim_matches(Q(pk=match_id), worker, claim_token)
    if claim.claimed != 1:
        return None
    token = claim.token
    # One query for the match and what the worker needs to play it: its seats, their versions, bots and owners (not
    # the archives: up to 1 MiB a seat, unpacked once per machine).
    seats = list(
        Seat.objects.filter(match_id=match_id)
        .select_related("match", "bot_version__bot__owner")
        .defer("bot_version__archive", "match__replay_data")
        .order_by("number")
    )
    match = seats[0].match if seats else Match.objects.get(pk=match_id)
    if claim_token is None and worker_budget.release_if_spent(Q(pk=match_id), match.kind, token):
        return None  # a challenge game of an owner whose worker time is spent: it waits
    if match.attempts > settings.MATCH_MAX_ATTEMPTS:
        last = match.error or "its worker stopped answering (killed, or its lease ran out)"
        do_fail_match(match_id, f"gave up after {settings.MATCH_MAX_ATTEMPTS} attempts; the last: {last}", token)
        return None
    return ClaimedMatch(
        match_id=match.pk,
        claim_token=token,
        claimed_by=match.claimed_by,
        claimed_at=claim.at,
        lease_until=claim.lease_until,
        attempts=match.attempts,
        game=match.game,
        seed=match.seed,
        options=dict(match.options),
        time_control=dict(match.time_control),
        seats=tuple(
            ClaimedSeat(seat.number, seat.bot_version_id, seat.bot_version.label, seat.bot_version.builtin)
            for seat in seats
        ),
    )


# How many of the longest-waiting due matches ``do_claim_next_match`` tries before giving up (others may take them).
CLAIM_NEXT_CANDIDATES = 4


def do_claim_next_match(worker: str = "") -> ClaimedMatch | None:
    """Claim the queued match that has waited longest and is due (not backing off after a failure), as
    ``do_claim_match`` does; None when there is none, or other workers took them first.

    A worker that has just played a match claims its next one here, without waiting for that match's own message:
    the message then finds nothing to claim (docs/decisions.md, "A worker plays on")."""
    # (A series' games are claimed together, by league.services.series: never one by one here.)
    due = Match.objects.filter(
        status=Match.Status.QUEUED, enqueued_at__lte=timezone.now(), series__isnull=True
    ).order_by("enqueued_at", "pk")
    for match_id in due.values_list("pk", flat=True)[:CLAIM_NEXT_CANDIDATES]:
        match = do_claim_match(match_id, worker)
        if match is not None:
            return match
    return None


def do_renew_lease(match_id: int, claim_token: str) -> bool:
    """Extend this worker's lease on a match it is playing; False when the claim is no longer its own."""
    return (
        Match.objects.filter(pk=match_id, status=Match.Status.RUNNING, claim_token=claim_token).update(
            lease_until=_lease_until(timezone.now())
        )
        == 1
    )


def do_release_match(match_id: int, error: str, claim_token: str | None = None) -> Match:
    """An attempt failed for a reason outside the bots (infrastructure): queue the match again after a back-off
    (``retry_delay``), or fail it for good after MATCH_MAX_ATTEMPTS. Nothing happens if the claim is not
    ``claim_token`` any more (when given) or the match is not running."""
    with transaction.atomic():
        match = Match.objects.select_for_update().get(pk=match_id)
        if match.status != Match.Status.RUNNING or (claim_token is not None and match.claim_token != claim_token):
            return match
        _release(match, error)
    return match


def _release(match: Match, error: str) -> None:
    """(Under the match's row lock.)"""
    now = timezone.now()
    match.error = error[-2000:]
    match.claim_token, match.lease_until = "", None
    if match.attempts >= settings.MATCH_MAX_ATTEMPTS:
        match.status = Match.Status.FAILED
        match.finished_at = now
        match.error = f"gave up after {match.attempts} attempts; the last: {match.error}"[-2000:]
        tournament_game_over(match)
    else:
        delay = retry_delay(match.attempts)
        match.status = Match.Status.QUEUED
        match.claimed_at = None
        match.enqueued_at = now + timedelta(seconds=delay)
        outbox.enqueue_later(outbox.RUN_MATCH_TASK, match.pk, delay)
    match.save(
        update_fields=["status", "error", "finished_at", "claimed_at", "claim_token", "lease_until", "enqueued_at"]
    )


def do_fail_match(match_id: int, reason: str, claim_token: str | None = None) -> bool:
    """Fail a running match at once, with the reason (not retried: a bug, or attempts exhausted). False when the
    claim is not ``claim_token`` any more (when given) or the match is not running."""
    with transaction.atomic():
        match = Match.objects.select_for_update().get(pk=match_id)
        if match.status != Match.Status.RUNNING or (claim_token is not None and match.claim_token != claim_token):
            return False
        match.status, match.finished_at, match.error = Match.Status.FAILED, timezone.now(), reason[-2000:]
        match.claim_token, match.lease_until = "", None
        match.save(update_fields=["status", "finished_at", "error", "claim_token", "lease_until"])
        tournament_game_over(match)
    return True


def do_requeue_stale_matches() -> list[int]:
    """The sweeper (Celery beat, every MATCH_SWEEP_SECONDS) puts back what dead workers and lost messages left.

    - A running match whose lease ran out (its worker died: killed, out of memory, machine gone) is queued again,
      or failed after MATCH_MAX_ATTEMPTS.
    - A queued match whose last message is older than MATCH_RESEND_SECONDS is sent again: the broker may have lost
      it (a Redis restarted without persistence keeps nothing). If it was not lost, the duplicate finds nothing to
      claim. Likewise ``validate_version`` for pending versions (``do_resend_lost_validations``).
    Returns the ids of the matches re-queued or sent again."""
    now = timezone.now()
    swept = []
    for match_id in Match.objects.filter(_lapsed_match(now)).values_list("pk", flat=True)[:SWEEP_BATCH]:
        with transaction.atomic():
            match = Match.objects.select_for_update().filter(_lapsed_match(now), pk=match_id).first()
            if match is not None:  # (re-checked under the lock: its worker may have just finished it)
                who = f" ({match.claimed_by})" if match.claimed_by else ""
                _release(match, f"the worker running this match{who} stopped answering: its lease ran out")
                swept.append(match_id)
    cutoff = now - timedelta(seconds=settings.MATCH_RESEND_SECONDS)
    lost = Match.objects.filter(status=Match.Status.QUEUED, enqueued_at__lt=cutoff).order_by("enqueued_at")
    swept += resend_lost(lost, outbox.RUN_MATCH_TASK, now)
    if swept:
        log.info("sweeper: sent %d matches again: %s", len(swept), swept[:20])
    return swept


def do_claim_version(version_id: int, worker: str = "", claim_token: str | None = None) -> BotVersion | None:
    """Claim a pending version for validation (like ``do_claim_match``): None when it is validated already or another
    live worker holds it. After MATCH_MAX_ATTEMPTS claims it is rejected, saying that the league could not run it."""
    now = timezone.now()
    token = secrets.token_hex(16)
    free = Q(lease_until__isnull=True) | Q(lease_until__lt=now)
    if claim_token:
        free |= Q(claim_token=claim_token)
    claimed = BotVersion.objects.filter(free, pk=version_id, status=BotVersion.Status.PENDING).update(
        claim_token=token, lease_until=_lease_until(now), attempts=F("attempts") + 1
    )
    if claimed != 1:
        return None
    version = BotVersion.objects.select_related("bot").get(pk=version_id)
    if version.attempts > settings.MATCH_MAX_ATTEMPTS:
        do_record_validation(
            version_id,
            False,
            f"The league could not validate this version after {settings.MATCH_MAX_ATTEMPTS} attempts: its workers "
            f"failed or stopped answering (the last: {version.validation_log or 'no answer'}). Please upload it again.",
            version.validation_stderr,
            claim_token=token,
        )
        return None
    return version


def do_claim_next_version(worker: str = "") -> BotVersion | None:
    """Claim the fairest due pending version (``fair_validation_order``), as ``do_claim_version`` does; None when there
    is none, or other workers took them first.

    Every upload sends one ``validate_version`` message, but the worker that receives it validates the fairest
    version, whichever that is: one user's burst of uploads cannot make another user's wait behind all of it."""
    for version_id in fair_validation_order(timezone.now(), CLAIM_NEXT_CANDIDATES):
        version = do_claim_version(version_id, worker)
        if version is not None:
            return version
    return None


def fair_validation_order(now: datetime, limit: int) -> list[int]:
    """The ids of up to ``limit`` pending versions a worker may claim now (free, due), fairest first.

    The owner whose placement and challenges cost the workers least in the last hour goes first (``worker_budget``);
    then each owner's versions take turns: an owner's versions pending or validated in the last hour are numbered in
    upload order, and the lowest number goes first (ties: the oldest upload). So everyone's first pending version
    comes before anyone's second, and an owner who has just had many validated waits behind one who has had none.
    The numbering runs over all of them before the claimable ones are picked, hence the subquery."""
    ops = connection.ops
    version, bot = ops.quote_name(BotVersion._meta.db_table), ops.quote_name(Bot._meta.db_table)
    sql = f"""
        SELECT id, owner_id, turn, created FROM (
            SELECT v.id, v.status, v.lease_until, v.enqueued_at, v.created, b.owner_id,
                   ROW_NUMBER() OVER (PARTITION BY b.owner_id ORDER BY v.created, v.id) AS turn
            FROM {version} v JOIN {bot} b ON b.id = v.bot_id
            WHERE v.status = %s OR v.validated > %s
        ) ranked
        WHERE status = %s AND (lease_until IS NULL OR lease_until < %s) AND enqueued_at <= %s
    """
    pending = BotVersion.Status.PENDING.value
    moment = ops.adapt_datetimefield_value(now)
    since = ops.adapt_datetimefield_value(now - HOUR)
    with connection.cursor() as cursor:
        cursor.execute(sql, [pending, since, pending, moment, moment])
        rows = cursor.fetchall()
    spent = worker_budget.spent_ms({row[1] for row in rows}, now)
    rows.sort(key=lambda row: (spent[row[1]], row[2], row[3], row[0]))
    return [row[0] for row in rows[:limit]]


def do_renew_version_lease(version_id: int, claim_token: str) -> bool:
    return (
        BotVersion.objects.filter(pk=version_id, status=BotVersion.Status.PENDING, claim_token=claim_token).update(
            lease_until=_lease_until(timezone.now())
        )
        == 1
    )


def do_release_version(version_id: int, error: str, claim_token: str) -> bool:
    """A validation failed for the infrastructure: validate it again after a back-off (the claim beyond
    MATCH_MAX_ATTEMPTS rejects it). False when the claim is not ``claim_token`` any more."""
    with transaction.atomic():
        version = (
            BotVersion.objects.select_for_update()
            .filter(pk=version_id, status=BotVersion.Status.PENDING, claim_token=claim_token)
            .first()
        )
        if version is None:
            return False
        delay = retry_delay(version.attempts)
        version.claim_token, version.lease_until = "", None
        version.enqueued_at = timezone.now() + timedelta(seconds=delay)
        version.validation_log = public_reason(f"Attempt {version.attempts} failed: {error}")
        version.save(update_fields=["claim_token", "lease_until", "enqueued_at", "validation_log"])
        outbox.enqueue_later(outbox.VALIDATE_VERSION_TASK, version_id, delay)
    return True


def do_resend_lost_validations() -> list[int]:
    """The sweeper's part for validations: a pending version whose worker died (lease ran out) or whose message is
    older than MATCH_RESEND_SECONDS is sent again (``do_claim_version`` makes a duplicate harmless)."""
    now = timezone.now()
    cutoff = now - timedelta(seconds=settings.MATCH_RESEND_SECONDS)
    free = Q(lease_until__isnull=True) | Q(lease_until__lt=now)
    lost = Q(lease_until__lt=now, enqueued_at__lt=F("lease_until")) | (free & Q(enqueued_at__lt=cutoff))
    pending = BotVersion.objects.filter(lost, status=BotVersion.Status.PENDING)
    return resend_lost(pending, outbox.VALIDATE_VERSION_TASK, now)


def tournament_game_over(match: Match) -> None:
    """A tournament game is finalized: its round may be complete (league.services.tournaments advances it,
    idempotently)."""
    if match.round is not None:
        outbox.enqueue(outbox.ADVANCE_TOURNAMENT_TASK, match.round.tournament_id)
