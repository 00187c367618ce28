"""The Celery app. Broker: Redis when REDIS_URL is set, else a filesystem transport (parlour/broker.py, settings).

Workers take the ``--heartbeat-file`` option (parlour/liveness.py); parlour/supervise.py runs them."""

from __future__ import annotations

import os
from pathlib import Path

from celery import Celery
from celery.signals import worker_init

from parlour import liveness

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "parlour.settings")

app = Celery("parlour")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks(["workers"], related_name="tasks")
liveness.install(app)

app.autodiscover_tasks(["workers"], related_name="tables")  # parlour.play_table (people's tables)


@app.on_after_configure.connect
def _prepare(sender: Celery, **kwargs: object) -> None:
    from django.conf import settings

    if str(sender.conf.broker_url).startswith("filesystem"):
        for key in ("data_folder_in", "processed_folder"):
            Path(str(settings.CELERY_BROKER_TRANSPORT_OPTIONS[key])).mkdir(parents=True, exist_ok=True)
    if settings.LADDER_ENABLED:
        sender.add_periodic_task(settings.LADDER_INTERVAL_SECONDS, sender.signature("parlour.schedule_ladder"))
    # The sweeper: matches (and validations) whose worker died or whose message was lost go out again.
    sender.add_periodic_task(float(settings.MATCH_SWEEP_SECONDS), sender.signature("parlour.requeue_stale_matches"))
    # Tournaments advance when their games are recorded; this catches a lost delivery (league/tournaments/services.py).
    sender.add_periodic_task(30.0, sender.signature("parlour.advance_tournament"))
    # Fitted Elo: each game whose rated games changed is refitted (league/ratings/fits.py).
    sender.add_periodic_task(float(settings.RATINGS_REFIT_SECONDS), sender.signature("parlour.refit_ratings"))
    # Retention: the bots' logs older than LOG_RETENTION_DAYS are deleted, in bounded batches
    # (league/play/retention.py).
    sender.add_periodic_task(3600.0, sender.signature("parlour.delete_old_logs"), name="delete old logs")


@worker_init.connect
def _lower_priority(**kwargs: object) -> None:
    # Before the pool forks: its processes and their bots inherit the niceness (settings.WORKER_NICE).
    from django.conf import settings

    if settings.WORKER_NICE:
        os.nice(settings.WORKER_NICE)


@worker_init.connect
def _check_sandbox(**kwargs: object) -> None:
    # A worker that cannot isolate bots must not take matches: fail at start-up, saying what is missing.
    from workers.startup import SandboxUnavailable, check_sandbox

    try:
        check_sandbox()
    except SandboxUnavailable as error:
        # Celery logs and swallows exceptions from signal handlers; SystemExit stops the worker for real.
        raise SystemExit(f"parlour worker refuses to start: {error}") from None
