"""The site under an ASGI server (uvicorn: `make run`, `make serve`; docs/decisions.md, "The async server and live
streams for a crowd"), with no persistent database connections.

Django's ASGI application, wrapped so that a reader too slow to accept a chunk (a stalled event stream, a client that
stops reading) is dropped after STREAM_SEND_TIMEOUT_SECONDS instead of holding its response open forever: the server
waits for a slow socket to drain before it takes the next chunk, so without a bound such a reader would never end.
"""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "parlour.settings")
django_application = get_asgi_application()

from django.conf import settings  # noqa: E402  (after the application: it sets Django up)

# Django's advice under ASGI: no persistent database connections. A request's synchronous code runs on a thread of
# its own, so a kept connection is never reused, only left open until that thread is collected. On PostgreSQL each
# process borrows from a pool instead (psycopg-pool, through Django's own "pool" option): without it every page and
# every live stream's read opened a connection, that is a new PostgreSQL backend process, hundreds a second under a
# crowd. (The Celery workers keep CONN_MAX_AGE.)
for _database in settings.DATABASES.values():
    _database["CONN_MAX_AGE"] = 0
    if _database["ENGINE"].endswith("postgresql"):
        _database.setdefault("OPTIONS", {})["pool"] = {
            "min_size": 2,
            "max_size": settings.WEB_DB_POOL_MAX,
            "timeout": 10,  # waiting longer for a connection than this is an error page, not a hang
        }

log = logging.getLogger("parlour.asgi")
Scope = dict[str, Any]
Receive = Callable[[], Awaitable[dict[str, Any]]]
Send = Callable[[Mapping[str, Any]], Awaitable[None]]


class SlowReader(Exception):
    """The client did not accept a chunk in time."""


async def application(scope: Scope, receive: Receive, send: Send) -> None:
    if scope["type"] != "http":
        await django_application(scope, receive, send)
        return
    timeout = float(settings.STREAM_SEND_TIMEOUT_SECONDS)

    async def bounded_send(message: Mapping[str, Any]) -> None:
        try:
            async with asyncio.timeout(timeout):  # a timer, not a task per chunk (wait_for's cost)
                await send(message)
        except TimeoutError:
            raise SlowReader from None

    try:
        await django_application(scope, receive, bounded_send)
    except SlowReader:
        log.info("dropped a reader that took over %.0f s to accept a chunk of %s", timeout, scope.get("path", "?"))
