"""Which tasks are acknowledged late: the matches and validations are; beat's periodic ticks are not."""

from __future__ import annotations

import pytest

from parlour.celery import app
from workers import tasks  # noqa: F401  registers the tasks on the app


@pytest.mark.parametrize("name", ["parlour.run_match", "parlour.validate_version"])
def test_work_a_dead_worker_leaves_behind_is_delivered_again(name: str) -> None:
    task = app.tasks[name]
    assert task.acks_late is True and task.reject_on_worker_lost is True


@pytest.mark.parametrize(
    "name",
    [
        "parlour.schedule_ladder",
        "parlour.requeue_stale_matches",
        "parlour.advance_tournament",
        "parlour.delete_old_logs",
        "parlour.refit_ratings",
    ],
)
def test_beat_ticks_are_acknowledged_on_receipt(name: str) -> None:
    # The settings make acks-late the default (CELERY_TASK_ACKS_LATE); each periodic task opts out.
    assert app.conf.task_acks_late is True
    assert app.tasks[name].acks_late is False
