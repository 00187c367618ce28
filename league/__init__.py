"""The league: a Django app (models, services, pages, the API). It imports neither workers nor the project's
Celery app; tasks are enqueued by name through Celery's current_app, which parlour/__init__.py configures."""
