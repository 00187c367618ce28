"""The lease every queued row carries: matches, bot versions to validate and people's tables
(league/core/leases.py; docs/operations.md, Reliability)."""

from __future__ import annotations

from django.db import models
from django.utils import timezone


class Leased(models.Model):
    """A row a worker claims, holds under a lease it renews and records under its claim's token.

    The columns keep the names the three tables always had, so that this abstract model changes no schema."""

    # Every claim is an attempt; the claim after MATCH_MAX_ATTEMPTS gives the row up instead.
    attempts = models.PositiveSmallIntegerField(default=0, editable=False)
    # The claim's token: a worker writes only under it, so one presumed dead (its lease ran out, the row taken over)
    # changes nothing any more.
    claim_token = models.CharField(max_length=32, blank=True, editable=False)
    # Its worker holds the row while this is in the future, and renews it as it works (MATCH_STALE_SECONDS ahead).
    lease_until = models.DateTimeField(null=True, blank=True, editable=False)
    # When its task was last sent (or is due, after a back-off): the sweeper sends it again when a row stays waiting
    # long after this, its message lost (e.g. a broker restarted without persistence).
    enqueued_at = models.DateTimeField(default=timezone.now, editable=False)

    class Meta:
        abstract = True
