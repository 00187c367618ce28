"""The API's answer to a per-user hourly limit of the league (``services.RateLimited``): 429 in the error shape, with
a ``Retry-After`` header and ``retry_after_seconds`` and ``retry_at`` in the body, like the request throttles."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from rest_framework.response import Response

from league.core.errors import RateLimited


def too_many_requests(error: RateLimited) -> Response:
    return Response(error.body(), status=error.status, headers={"Retry-After": str(error.retry_after)})


def answers_rate_limits(view: Callable[..., Response]) -> Callable[..., Response]:
    """A view method whose services may refuse with ``RateLimited`` answers it with ``too_many_requests``."""

    @functools.wraps(view)
    def wrapper(*args: Any, **kwargs: Any) -> Response:
        try:
            return view(*args, **kwargs)
        except RateLimited as error:
            return too_many_requests(error)

    return wrapper
