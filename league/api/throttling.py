"""Throttles: per anonymous address, per signed-in user and per API token (scopes ``anon``, ``user``, ``token``).

DRF reads ``DEFAULT_THROTTLE_RATES`` once, into a class attribute; these read it at every request instead, so the
environment at start-up and ``override_settings`` in the tests both take effect. Over a rate, DRF raises Throttled:
league.api.errors answers 429 with ``Retry-After`` and ``retry_after_seconds``."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from rest_framework.request import Request
from rest_framework.throttling import SimpleRateThrottle

from league.accounts.models import ApiToken


class _SettingsRateThrottle(SimpleRateThrottle):
    def __init__(self) -> None:  # the rate is looked up per request, in allow_request
        pass

    def get_rate(self) -> str | None:
        rate: str | None = getattr(settings, "REST_FRAMEWORK", {}).get("DEFAULT_THROTTLE_RATES", {}).get(self.scope)
        return rate

    def allow_request(self, request: Request, view: Any) -> bool:
        self.rate = self.get_rate()
        self.num_requests, self.duration = self.parse_rate(self.rate)
        return super().allow_request(request, view)


class AnonThrottle(_SettingsRateThrottle):
    """Anonymous requests, by client address."""

    scope = "anon"

    def get_cache_key(self, request: Request, view: Any) -> str | None:
        if request.user and request.user.is_authenticated:
            return None
        return self.cache_format % {"scope": self.scope, "ident": self.get_ident(request)}


class UserThrottle(_SettingsRateThrottle):
    """Every request of a signed-in user, by session or by any of their tokens."""

    scope = "user"

    def get_cache_key(self, request: Request, view: Any) -> str | None:
        if not (request.user and request.user.is_authenticated):
            return None
        return self.cache_format % {"scope": self.scope, "ident": request.user.pk}


class TokenThrottle(_SettingsRateThrottle):
    """The requests made with one API token (a script gone wild is stopped before its user's session is)."""

    scope = "token"

    def get_cache_key(self, request: Request, view: Any) -> str | None:
        if not isinstance(request.auth, ApiToken):
            return None
        return self.cache_format % {"scope": self.scope, "ident": request.auth.pk}
