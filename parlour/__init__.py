"""The Parlour project: settings, environment readers, URLs, WSGI and the Celery app (the league is an app in it)."""

# Celery's Django pattern: importing the settings imports this package, so every process that runs Django (the web
# server too, which only enqueues) has the configured app as current_app for league.services' send_task.
from parlour.celery import app as celery_app

__all__ = ["celery_app"]
