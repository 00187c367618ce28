"""Tasks are sent by name, after the transaction commits: a worker never sees a row that is not there yet, and the
league never imports ``workers``. Callers go through this module (``outbox.enqueue``) so that tests and the bench
can hold the messages back."""

from __future__ import annotations

from celery import current_app
from django.db import transaction

RUN_MATCH_TASK = "parlour.run_match"
VALIDATE_VERSION_TASK = "parlour.validate_version"
ADVANCE_TOURNAMENT_TASK = "parlour.advance_tournament"
REFIT_RATINGS_TASK = "parlour.refit_ratings"

PLAY_TABLE_TASK = "parlour.play_table"


def enqueue(task_name: str, object_id: int | str) -> None:
    # robust: a broker that is down must not undo a committed request; the sweeper sends lost messages again.
    transaction.on_commit(lambda: current_app.send_task(task_name, args=[object_id]), robust=True)


def enqueue_later(task_name: str, object_id: int, countdown: float) -> None:
    if countdown <= 0:
        enqueue(task_name, object_id)
    else:
        transaction.on_commit(
            lambda: current_app.send_task(task_name, args=[object_id], countdown=countdown), robust=True
        )
