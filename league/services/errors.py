"""The one refusal the services raise, ``ServiceError`` (and its 429 kind, ``RateLimited``), and every error code a
client can see (``ErrorCode``): docs/api.md lists them all, and a test keeps the two the same."""

from __future__ import annotations

import math
from datetime import datetime, timedelta
from enum import StrEnum

from django.utils import timezone


class ErrorCode(StrEnum):
    """The ``code`` of the API's one error shape. The values are published: never rename one."""

    # The request itself (the API's framework and the request-body guard answer these).
    INVALID = "invalid"
    PARSE_ERROR = "parse_error"
    LENGTH_REQUIRED = "length_required"
    TOO_LARGE = "too_large"
    UNSUPPORTED_MEDIA_TYPE = "unsupported_media_type"
    METHOD_NOT_ALLOWED = "method_not_allowed"
    NOT_AUTHENTICATED = "not_authenticated"
    AUTHENTICATION_FAILED = "authentication_failed"
    PERMISSION_DENIED = "permission_denied"
    NOT_FOUND = "not_found"
    THROTTLED = "throttled"
    # The league's rules (the services raise these).
    FORBIDDEN = "forbidden"
    EMAIL_UNVERIFIED = "email_unverified"
    SESSION_REQUIRED = "session_required"
    RATE_LIMITED = "rate_limited"
    TOO_MANY_BOTS = "too_many_bots"
    TOO_MANY_GAMES = "too_many_games"
    BAD_UPLOAD = "bad_upload"
    DUPLICATE = "duplicate"
    UNKNOWN_GAME = "unknown_game"
    UNKNOWN_BOT = "unknown_bot"
    UNKNOWN_VERSION = "unknown_version"
    WRONG_GAME = "wrong_game"
    NOT_READY = "not_ready"
    NO_PREVIOUS_VERSION = "no_previous_version"
    REJECTED_VERSION = "rejected_version"
    UNVALIDATED_VERSION = "unvalidated_version"
    INVALID_SETTINGS = "invalid_settings"
    DUPLICATE_ENTRY = "duplicate_entry"
    SAME_OWNER = "same_owner"
    TOO_FEW_ENTRANTS = "too_few_entrants"
    NOT_DRAFT = "not_draft"
    ALREADY_STARTED = "already_started"
    NOT_RUNNING = "not_running"
    ALREADY_PAUSED = "already_paused"
    NOT_PAUSED = "not_paused"
    ALREADY_FINISHED = "already_finished"
    # People's tables (docs/tables.md).
    TABLE_IN_PROGRESS = "table_in_progress"
    NOT_YOUR_TURN = "not_your_turn"
    STALE_MOVE = "stale_move"
    ILLEGAL_ACTION = "illegal_action"
    BOT_UNAVAILABLE = "bot_unavailable"
    NOT_QUEUED = "not_queued"
    # A replay that cannot be shown (games.frames.ReplayError's codes).
    BAD_REPLAY = "bad_replay"
    ENGINE_VERSION = "engine_version"


class ServiceError(Exception):
    """A request the league refuses: a machine-readable ``code``, a message for people, and an HTTP status."""

    def __init__(self, message: str, code: ErrorCode = ErrorCode.INVALID, status: int = 400) -> None:
        super().__init__(message)
        self.message, self.code, self.status = message, code, status


class RateLimited(ServiceError):
    """Too many of something in the last hour (429); ``retry_at`` is when this request would be accepted."""

    def __init__(self, message: str, retry_at: datetime) -> None:
        super().__init__(message, code=ErrorCode.RATE_LIMITED, status=429)
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
