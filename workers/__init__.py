"""The Celery app and its tasks: thin — load from the database, call bots.runner, save through league services."""
