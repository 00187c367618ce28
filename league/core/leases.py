"""Leases: the one way workers hold queued work — matches (a lone match, or the games of a series), versions to
validate, people's tables (docs/operations.md, Reliability).

Each kind of queued work is a ``Queue``: its model (whose rows carry ``Leased``'s fields), the task that works a row,
which rows wait and which a worker may hold, and what claiming, putting back and ending a row change besides the
lease. The rules are written here once, the same for every kind:

- ``claim``: one conditional UPDATE takes rows that wait, or whose worker's lease ran out (that worker died), or that
  the caller holds under ``claim_token`` (its own retry): a fresh token, a lease of MATCH_STALE_SECONDS, an attempt
  counted. Of two deliveries exactly one wins.
- ``gave_up``: a row claimed beyond MATCH_MAX_ATTEMPTS is ended instead, with the last reason.
- ``renew``: the worker extends its lease while it works; nothing once the claim is no longer its own.
- ``release``: an attempt failed for the infrastructure: the row waits again and its task is sent after a back-off
  (``retry_delay``), or it is given up once MATCH_MAX_ATTEMPTS attempts were made.
- ``fail``: a bug: the row ends at once, with the reason.
- ``sweep`` (beat, every MATCH_SWEEP_SECONDS): rows whose lease ran out are released (``release_lapsed``), and waiting
  rows whose message is older than MATCH_RESEND_SECONDS have it sent again (``resend_lost``): the broker may have lost
  it, and a duplicate finds nothing to claim.
- ``requeue_untried``: claimed rows go back without counting the attempt (they were not tried at all).

A worker writes only under its claim's token, so a worker presumed dead (its lease ran out, the row taken over)
changes nothing any more.
"""

from __future__ import annotations

import logging
import random
import secrets
from datetime import datetime, timedelta
from typing import Any, Generic, NamedTuple, TypeVar

from django.conf import settings
from django.db import transaction
from django.db.models import F, Q, QuerySet
from django.utils import timezone

from league.core import outbox
from league.core.lease_models import Leased

log = logging.getLogger(__name__)

SWEEP_BATCH = 500  # rows one sweep handles of each kind and each move; the next sweep takes the rest
WORKER_STOPPED = "its worker stopped answering (killed, or its lease ran out)"  # the last reason when none was kept

M = TypeVar("M", bound=Leased)


class Queue(Generic[M]):
    """A kind of queued work: what differs between kinds. Everything else is this module's, the same for all."""

    model: type[M]
    task: str  # the task that works a row (sent by name: league.core.outbox)
    noun: str  # "match": for reasons and logs
    plural: str
    working: str  # what its worker does to it: "running"
    # Whether a row whose worker died waits for the back-off before it is tried again, as an attempt released after a
    # failure does, or goes back at once: a person waits at a table, an author for a validation, and the lease that
    # had to run out was wait enough.
    backoff_after_lapse = True
    resend_order: tuple[str, ...] = ("enqueued_at", "pk")  # the order the sweeper sends lost messages again

    def waiting(self) -> Q:
        """Rows waiting for a worker."""
        raise NotImplementedError

    def holding(self) -> Q:
        """Rows a worker may hold: held while their lease runs."""
        raise NotImplementedError

    def lapsed(self, now: datetime) -> Q:
        """Held rows whose lease ran out: their worker died."""
        return self.holding() & Q(lease_until__lt=now)

    def claimed_fields(self, now: datetime, worker: str) -> dict[str, Any]:
        """What a claim changes besides the lease."""
        return {}

    def waiting_fields(self) -> dict[str, Any]:
        """What puts a claimed row back to waiting, besides the lease."""
        return {}

    def noted(self, row: M, error: str) -> dict[str, Any]:
        """The fields that keep why an attempt failed."""
        raise NotImplementedError

    def last_error(self, row: M) -> str:
        """Why the last attempt failed, if it was kept."""
        raise NotImplementedError

    def unretryable(self, row: M) -> str | None:
        """Why a row whose attempt failed cannot be tried again at all (it is ended so), or None."""
        return None

    def gave_up_text(self, attempts: int, last: str) -> str:
        return f"gave up after {attempts} attempts; the last: {last}"

    def end(self, row: M, reason: str) -> None:
        """(Under the row's lock, held.) End the row for good, failed, with ``reason``; its claim is cleared."""
        raise NotImplementedError

    def after_release(self) -> None:
        """After a row was released or failed (a place may have freed)."""

    def lapse_reason(self, row: M) -> str:
        worker = getattr(row, "claimed_by", "")
        who = f" ({worker})" if worker else ""
        return f"the worker {self.working} this {self.noun}{who} stopped answering: its lease ran out"

    @property
    def rows(self) -> QuerySet[M]:
        return self.model._default_manager.all()


class Claim(NamedTuple):
    token: str
    claimed: int  # how many rows
    at: datetime
    lease_until: datetime


def lease_end(now: datetime) -> datetime:
    """Until when a lease taken or renewed at ``now`` runs."""
    return now + timedelta(seconds=settings.MATCH_STALE_SECONDS)


def retry_delay(attempts: int) -> float:
    """The back-off before attempt ``attempts + 1`` after an infrastructure failure: MATCH_RETRY_SECONDS doubled per
    attempt, capped at MATCH_RETRY_MAX_SECONDS, less up to a quarter at random so that retries spread out."""
    delay = min(settings.MATCH_RETRY_MAX_SECONDS, settings.MATCH_RETRY_SECONDS * 2 ** max(0, attempts - 1))
    return float(delay * random.uniform(0.75, 1.0))


def claim(queue: Queue[M], which: Q, worker: str = "", claim_token: str | None = None) -> Claim:
    """The one claiming UPDATE: the rows of ``which`` that wait, whose lease ran out, or that are held under
    ``claim_token`` become this worker's under a new token, each claim an attempt."""
    now = timezone.now()
    token = secrets.token_hex(16)
    claimable = queue.waiting() | queue.lapsed(now)
    if claim_token:
        claimable |= queue.holding() & Q(claim_token=claim_token)
    until = lease_end(now)
    claimed = queue.rows.filter(claimable, which).update(
        claim_token=token, lease_until=until, attempts=F("attempts") + 1, **queue.claimed_fields(now, worker)
    )
    return Claim(token, claimed, now, until)


def held(queue: Queue[M], which: Q, claim_token: str | None) -> QuerySet[M]:
    """The rows of ``which`` a worker holds: under ``claim_token``, or under any claim when it is None."""
    rows = queue.rows.filter(queue.holding(), which)
    return rows if claim_token is None else rows.filter(claim_token=claim_token)


def gave_up(queue: Queue[M], row: M) -> bool:
    """(Just after a claim, ``row`` as claimed.) True, and the row is ended with the last reason, if this claim is
    beyond MATCH_MAX_ATTEMPTS."""
    if row.attempts <= settings.MATCH_MAX_ATTEMPTS:
        return False
    reason = queue.gave_up_text(row.attempts - 1, queue.last_error(row) or WORKER_STOPPED)
    _end_held(queue, row.pk, reason, row.claim_token)
    return True


def renew(queue: Queue[M], which: Q, claim_token: str) -> int:
    """Extend this worker's lease on the rows of ``which`` it holds; how many it still holds."""
    return held(queue, which, claim_token).update(lease_until=lease_end(timezone.now()))


def release(queue: Queue[M], pk: int, error: str, claim_token: str | None = None) -> bool:
    """An attempt failed for the infrastructure: the row waits again, its task sent after the back-off, or it is
    given up after MATCH_MAX_ATTEMPTS. False (nothing done) when the row is not held under ``claim_token`` (when
    given) any more."""
    with transaction.atomic():
        row = held(queue, Q(pk=pk), claim_token).select_for_update().first()
        if row is not None:
            _release(queue, row, error, retry_delay(row.attempts))
    queue.after_release()
    return row is not None


def fail(queue: Queue[M], pk: int, reason: str, claim_token: str | None = None) -> bool:
    """End a held row at once, failed, with the reason (not tried again: a bug, or a row that cannot be played).
    False when it is not held under ``claim_token`` (when given) any more."""
    ended = _end_held(queue, pk, reason, claim_token)
    queue.after_release()
    return ended


def _end_held(queue: Queue[M], pk: int, reason: str, claim_token: str | None) -> bool:
    with transaction.atomic():
        row = held(queue, Q(pk=pk), claim_token).select_for_update().first()
        if row is None:
            return False
        queue.end(row, reason)
    return True


def _release(queue: Queue[M], row: M, error: str, delay: float) -> None:
    """(Under the row's lock.)"""
    why_not = queue.unretryable(row)
    if why_not is not None:
        queue.end(row, why_not)
    elif row.attempts >= settings.MATCH_MAX_ATTEMPTS:
        queue.end(row, queue.gave_up_text(row.attempts, error))
    else:
        queue.rows.filter(pk=row.pk).update(
            claim_token="",
            lease_until=None,
            enqueued_at=timezone.now() + timedelta(seconds=delay),
            **queue.waiting_fields(),
            **queue.noted(row, error),
        )
        outbox.enqueue_later(queue.task, row.pk, delay)


def release_lapsed(queue: Queue[M]) -> list[int]:
    """The rows whose worker died (their lease ran out) are released as a failed attempt; their ids."""
    now = timezone.now()
    lapsed = queue.rows.filter(queue.lapsed(now))
    released = []
    for pk in lapsed.values_list("pk", flat=True)[:SWEEP_BATCH]:
        with transaction.atomic():
            row = lapsed.select_for_update().filter(pk=pk).first()
            if row is not None:  # (re-checked under the lock: its worker may have just renewed or finished it)
                delay = retry_delay(row.attempts) if queue.backoff_after_lapse else 0.0
                _release(queue, row, queue.lapse_reason(row), delay)
                released.append(pk)
    if released:
        queue.after_release()
    return released


def resend_lost(queue: Queue[M]) -> list[int]:
    """Send the task again for each waiting row whose last message is older than MATCH_RESEND_SECONDS (at most
    SWEEP_BATCH); its ``enqueued_at`` becomes now. A conditional UPDATE first, so two sweepers at once send one
    message. Returns the ids sent."""
    now = timezone.now()
    cutoff = now - timedelta(seconds=settings.MATCH_RESEND_SECONDS)
    lost = queue.rows.filter(queue.waiting(), enqueued_at__lt=cutoff).order_by(*queue.resend_order)
    sent = []
    for pk in lost.values_list("pk", flat=True)[:SWEEP_BATCH]:
        if lost.filter(pk=pk).update(enqueued_at=now):  # (still lost: no other sweeper took it meanwhile)
            outbox.enqueue(queue.task, pk)
            sent.append(pk)
    return sent


def sweep(queue: Queue[M]) -> list[int]:
    """The sweeper's round for one kind: ``release_lapsed`` then ``resend_lost``. The ids released or sent again."""
    swept = release_lapsed(queue) + resend_lost(queue)
    if swept:
        log.info("sweeper: sent %d %s again: %s", len(swept), queue.plural, swept[:20])
    return swept


def requeue_untried(queue: Queue[M], rows: QuerySet[M], due: datetime, **changes: Any) -> int:
    """Put claimed ``rows`` back to waiting, due at ``due``, their claim cleared and their attempt not counted: they
    were not tried at all (a fault ended their series, their worker yielded to a fairer claim, their owner's worker
    time is spent). ``changes``: other fields to set. Returns how many moved."""
    return rows.update(
        claim_token="",
        lease_until=None,
        attempts=F("attempts") - 1,
        enqueued_at=due,
        **{**queue.waiting_fields(), **changes},
    )
