"""Validation: the claims (leases) by which workers validate new versions, fairest owner first."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django.db import connection
from django.db.models import Q
from django.utils import timezone

from league.bots.models import Bot, BotVersion
from league.bots.services import do_record_validation
from league.core import leases, outbox
from league.core.errors import HOUR
from league.core.reasons import public_reason
from league.play import worker_budget
from league.play.matches import CLAIM_NEXT_CANDIDATES

# A version waits and is held ``pending``, held while its lease runs (league/core/leases.py).


class _Versions(leases.Queue[BotVersion]):
    model = BotVersion
    task = outbox.VALIDATE_VERSION_TASK
    noun, plural, working = "version", "versions", "validating"
    backoff_after_lapse = False

    def waiting(self) -> Q:
        return Q(status=BotVersion.Status.PENDING, lease_until__isnull=True)

    def holding(self) -> Q:
        return Q(status=BotVersion.Status.PENDING)

    def noted(self, row: BotVersion, error: str) -> dict[str, Any]:
        return {"validation_log": public_reason(f"Attempt {row.attempts} failed: {error}")}

    def last_error(self, row: BotVersion) -> str:
        return row.validation_log

    def gave_up_text(self, attempts: int, last: str) -> str:
        return (
            f"The league could not validate this version after {attempts} attempts: its workers failed or stopped "
            f"answering (the last: {last}). Please upload it again."
        )

    def end(self, row: BotVersion, reason: str) -> None:
        do_record_validation(row.pk, False, reason, row.validation_stderr, claim_token=row.claim_token)


VERSIONS = _Versions()


def do_claim_version(version_id: int, worker: str = "", claim_token: str | None = None) -> BotVersion | None:
    """Claim a pending version for validation (``leases.claim``): None when it is validated already or another live
    worker holds it. A claim beyond MATCH_MAX_ATTEMPTS rejects it, saying that the league could not run it."""
    claim = leases.claim(VERSIONS, Q(pk=version_id), worker, claim_token)
    if claim.claimed != 1:
        return None
    version = BotVersion.objects.select_related("bot").get(pk=version_id)
    if leases.gave_up(VERSIONS, version):
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
    return leases.renew(VERSIONS, Q(pk=version_id), claim_token) == 1


def do_release_version(version_id: int, error: str, claim_token: str) -> bool:
    """A validation failed for the infrastructure: validate it again after a back-off, or reject it after
    MATCH_MAX_ATTEMPTS (``leases.release``). False when the claim is not ``claim_token`` any more."""
    return leases.release(VERSIONS, version_id, error, claim_token)


def do_resend_lost_validations() -> list[int]:
    """The sweeper's round for validations (``leases.sweep``): a pending version whose worker died (lease ran out) is
    validated again at once, or rejected after MATCH_MAX_ATTEMPTS; one whose message is older than
    MATCH_RESEND_SECONDS is sent again (``do_claim_version`` makes a duplicate harmless)."""
    return leases.sweep(VERSIONS)
