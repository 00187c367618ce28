"""The site under an ASGI server (uvicorn: `make run`, `make serve`; docs/decisions.md, "The async server and live
streams for a crowd"), with no persistent database connections.

Django's ASGI application, wrapped so that a reader too slow to accept a chunk (a stalled event stream, a client that
stops reading) is dropped after STREAM_SEND_TIMEOUT_SECONDS instead of holding its response open forever: the server
waits for a slow socket to drain before it takes the next chunk, so without a bound such a reader would never end.
And a request whose body the limits refuse (league/api/request_bodies.py) is answered from its headers, before Django's
handler would read the whole body into a temporary file.
"""

from __future__ import annotations

import asyncio
import io
import logging
import os
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "parlour.settings")
django_application = get_asgi_application()

from django.conf import settings  # noqa: E402  (after the application: it sets Django up)
from django.core.handlers.asgi import ASGIRequest  # noqa: E402
from django.http import HttpResponse  # noqa: E402

from league.api import request_bodies  # noqa: E402
from league.remote.views import with_remote_replies  # noqa: E402
from league.site.stream_hub import in_db_thread  # noqa: E402

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


async def _refused_before_reading(scope: Scope) -> HttpResponse | None:
    """The body limits' answer (league/api/request_bodies.py) from the headers alone, before Django's handler reads the
    body: it reads all of it into a temporary file before any middleware runs."""
    headers = dict(scope.get("headers") or [])
    length = headers.get(b"content-length", b"0")
    if b"transfer-encoding" not in headers and length.isdigit() and int(length) <= settings.ANONYMOUS_BODY_MAX_BYTES:
        return None  # the common case, decided without a thread
    return await in_db_thread(request_bodies.refusal, ASGIRequest(scope, io.BytesIO()))


async def _send_response(response: HttpResponse, send: Send) -> None:
    headers = [(name.encode("latin-1"), value.encode("latin-1")) for name, value in response.items()]
    await send({"type": "http.response.start", "status": response.status_code, "headers": headers})
    await send({"type": "http.response.body", "body": response.content})


async def site_application(scope: Scope, receive: Receive, send: Send) -> None:
    """Django behind the body limits and the slow-reader bound (the module's docstring)."""
    if scope["type"] != "http":
        await django_application(scope, receive, send)
        return
    refused = await _refused_before_reading(scope)
    if refused is not None:
        await _send_response(refused, send)
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


# A remote bot's reply (one per decision) is answered before Django's middleware chain, which costs ~6 ms a request
# here: the same checks as the view, p95 6.5 ms a decision instead of 20.5 (docs/benchmarks.md, section 16).
application = with_remote_replies(site_application)
