"""The one refusal the services raise, ``ServiceError`` (and its 429 kind, ``RateLimited``)."""

from __future__ import annotations

import math
from datetime import datetime, timedelta

from django.utils import timezone


class ServiceError(Exception):
    """A request the league refuses: a machine-readable ``code``, a message for people, and an HTTP status."""

    def __init__(self, message: str, code: str = "invalid", status: int = 400) -> None:
        super().__init__(message)
        self.message, self.code, self.status = message, code, status


class RateLimited(ServiceError):
    """Too many of something in the last hour (429); ``retry_at`` is when this request would be accepted."""

    def __init__(self, message: str, retry_at: datetime) -> None:
        super().__init__(message, code="rate_limited", status=429)
        self.retry_at = retry_at

    @property
    def retry_after(self) -> int:
        """Whole seconds until ``retry_at`` (at least 1): the Retry-After header."""
        return max(1, math.ceil((self.retry_at - timezone.now()).total_seconds()))


HOUR = timedelta(hours=1)


def hourly_retry_at(recent: list[tuple[datetime, int]], wanted: int, limit: int) -> datetime | None:
    """When ``wanted`` more fit under ``limit`` per hour beside ``recent`` — the (time, amount) pairs of the last hour,
    oldest first: None if they fit now, else once enough of the oldest have left the hour."""
    used = sum(amount for _at, amount in recent)
    if used + wanted <= limit:
        return None
    freed = 0
    for at, amount in recent:
        freed += amount
        if used - freed + wanted <= limit:
            return at + HOUR
    return timezone.now() + HOUR


def wait_text(retry_at: datetime) -> str:
    """``retry_at`` for people: "in 12 min 5 s (at 14:03:20 UTC)"."""
    seconds = max(1, math.ceil((retry_at - timezone.now()).total_seconds()))
    minutes, secs = divmod(seconds, 60)
    return f"in {f'{minutes} min {secs} s' if minutes else f'{secs} s'} (at {retry_at:%H:%M:%S} UTC)"
