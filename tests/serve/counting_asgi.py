"""The production ASGI application (parlour.asgi) with a count of the database queries its process runs, answered at
/__queries__: the tests count what a live match's watchers cost the database (tests/serve/test_streams.py)."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from typing import Any

from django.db.backends.signals import connection_created

from parlour.asgi import application as parlour_application
from parlour.asgi import site_application

_lock = threading.Lock()
_queries = [0]


def _count(execute: Callable[..., Any], sql: str, params: Any, many: bool, context: dict[str, Any]) -> Any:
    with _lock:
        _queries[0] += 1
    return execute(sql, params, many, context)


def _wrap(sender: Any, connection: Any, **kwargs: Any) -> None:
    # Each thread's connection wrapper outlives its connections (a stream read closes its own): wrap it once.
    if _count not in connection.execute_wrappers:
        connection.execute_wrappers.append(_count)


connection_created.connect(_wrap)


async def _counted(inner: Any, scope: dict[str, Any], receive: Any, send: Any) -> None:
    if scope["type"] == "http" and scope["path"] == "/__queries__":
        body = json.dumps({"queries": _queries[0]}).encode()
        await send({"type": "http.response.start", "status": 200, "headers": [(b"content-type", b"application/json")]})
        await send({"type": "http.response.body", "body": body})
        return
    await inner(scope, receive, send)


async def application(scope: dict[str, Any], receive: Any, send: Any) -> None:
    """The site as parlour/asgi.py serves it."""
    await _counted(parlour_application, scope, receive, send)


async def through_django(scope: dict[str, Any], receive: Any, send: Any) -> None:
    """The site without the remote bots' direct route for replies: every request through Django."""
    await _counted(site_application, scope, receive, send)
