"""The Parlour project: settings, environment readers, URLs, WSGI and the Celery app."""
