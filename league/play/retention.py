"""Retention: the bots' logs are kept LOG_RETENTION_DAYS, then deleted; the replays are kept forever.

A bot's logs are what it wrote for its owner: its stderr in each match (``Seat.stderr``, up to 64 KiB a seat) and in
its validation (``BotVersion.validation_stderr``), and the notes it attached to its moves (``note`` in the replay's
moves). Deleting them keeps the record of the game: every move (seat, action, times, ``auto``), the faults and their
reasons, the outcome, the ranks and the ratings. Celery beat runs ``do_delete_old_logs`` hourly
(``parlour.delete_old_logs``), in batches of RETENTION_BATCH rows, each in its own short transaction.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from league.bots.models import BotVersion
from league.play.models import Match, Seat

log = logging.getLogger(__name__)

# Rows per batch, and batches per run: a run's work is bounded (the rest waits for the next hour's run).
RETENTION_BATCH = 200
RETENTION_MAX_BATCHES = 50


@dataclass
class Deleted:
    matches: int = 0  # matches whose seats' stderr and move notes were deleted
    versions: int = 0  # versions whose validation stderr was deleted

    def __bool__(self) -> bool:
        return bool(self.matches or self.versions)


def cutoff(now: datetime | None = None) -> datetime:
    """Logs of matches finished (and versions validated) before this are deleted."""
    return (now or timezone.now()) - timedelta(days=settings.LOG_RETENTION_DAYS)


def do_delete_old_logs(now: datetime | None = None) -> Deleted:
    """Delete the logs older than LOG_RETENTION_DAYS, batch by batch (at most RETENTION_MAX_BATCHES of each kind)."""
    before = cutoff(now)
    deleted = Deleted()
    for _ in range(RETENTION_MAX_BATCHES):
        done = _delete_match_logs(before)
        deleted.matches += done
        if done < RETENTION_BATCH:
            break
    for _ in range(RETENTION_MAX_BATCHES):
        done = _delete_validation_logs(before)
        deleted.versions += done
        if done < RETENTION_BATCH:
            break
    if deleted:
        log.info("retention: deleted the logs of %d matches and %d validations", deleted.matches, deleted.versions)
    return deleted


def _delete_match_logs(before: datetime) -> int:
    """One batch: the oldest finalized matches before ``before`` whose logs are kept (index ``match_logs_kept``)."""
    with transaction.atomic():
        ids = list(
            Match.objects.filter(logs_deleted_at__isnull=True, finished_at__lt=before)
            .order_by("finished_at")
            .values_list("pk", flat=True)[:RETENTION_BATCH]
        )
        if not ids:
            return 0
        Seat.objects.filter(match_id__in=ids).exclude(stderr="").update(stderr="")
        # One replay at a time (each up to hundreds of KiB), each written by its own small UPDATE.
        for match in Match.objects.filter(pk__in=ids, replay_data__isnull=False).only("pk", "replay_data").iterator():
            replay = match.replay
            if replay is not None and _drop_notes(replay):
                Match.objects.filter(pk=match.pk).update(replay_data=Match.pack_replay(replay))
        Match.objects.filter(pk__in=ids).update(logs_deleted_at=timezone.now())
    return len(ids)


def _drop_notes(replay: dict[str, Any]) -> bool:
    """Blank the notes of the replay's moves (the key stays: a note is optional); True if there were any."""
    changed = False
    for move in replay.get("moves") or []:
        if isinstance(move, dict) and move.get("note") is not None:
            move["note"] = None
            changed = True
    return changed


def _delete_validation_logs(before: datetime) -> int:
    with transaction.atomic():
        ids = list(
            BotVersion.objects.filter(validated__lt=before)
            .exclude(validation_stderr="")
            .order_by("pk")
            .values_list("pk", flat=True)[:RETENTION_BATCH]
        )
        if ids:
            BotVersion.objects.filter(pk__in=ids).update(validation_stderr="")
    return len(ids)
