"""Putting queued work back on the queue: the two moves every kind of claimed row shares (matches, validations,
tables), kept in one place so that a reliability fix is made once.

- ``resend_lost``: the sweeper sends again the message of queued rows whose message may be gone (a restarted broker
  keeps nothing); a conditional UPDATE first, so two sweepers at once send one message, and a duplicate finds
  nothing to claim anyway.
- ``requeue_untried``: claimed games go back to the queue without counting the attempt, when they were not tried
  at all (a fault ended their series, their worker yielded to a fairer claim, their owner's worker time is spent).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django.db.models import F, QuerySet

from league.models import Match
from league.services import outbox

SWEEP_BATCH = 500  # rows one sweep handles of each kind; the next sweep takes the rest


def resend_lost(lost: QuerySet[Any], task: str, now: datetime) -> list[int]:
    """Send ``task`` again for each row of ``lost`` (queued rows whose last message is too old, in the order to send
    them), at most SWEEP_BATCH; each row's ``enqueued_at`` becomes ``now``. Returns the ids sent."""
    sent = []
    for pk in lost.values_list("pk", flat=True)[:SWEEP_BATCH]:
        if lost.filter(pk=pk).update(enqueued_at=now):  # (still lost: no other sweeper took it meanwhile)
            outbox.enqueue(task, pk)
            sent.append(pk)
    return sent


def requeue_untried(held: QuerySet[Match], due: datetime, **changes: Any) -> int:
    """Put the claimed games ``held`` back on the queue, due at ``due``, their claim cleared and their attempt not
    counted (``changes``: other fields to set, e.g. a new series). Returns how many moved."""
    return held.update(
        status=Match.Status.QUEUED,
        claim_token="",
        claimed_by="",
        claimed_at=None,
        lease_until=None,
        attempts=F("attempts") - 1,
        enqueued_at=due,
        **changes,
    )
