"""The worker's side of a person's table in a browser test: the real task (workers.tables.play_table) in a thread of
the test process, against the league's built-in bots (the sandboxed path is tests/workers/test_tables_e2e.py's)."""

from __future__ import annotations

import threading
from typing import Any

from django.db import connection

from workers.tables import play_table


def play_in_background(table_id: int, blocker: Any) -> threading.Thread:
    """Play the table in a daemon thread; ``blocker`` is pytest-django's ``django_db_blocker``."""

    def run() -> None:
        with blocker.unblock():
            try:
                play_table(table_id)
            finally:
                connection.close()  # this thread's own: the test database is dropped at the end of the run

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread
