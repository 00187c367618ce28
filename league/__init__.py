"""The Django project and app of the Parlour league."""

# Celery wiring: the web process needs the configured app to enqueue tasks by name.
from parlour.celery import app as celery_app

__all__ = ["celery_app"]
