"""Account pages around django-axes and Django's password reset: the lock-out page, and a reset that lifts a lock."""

from __future__ import annotations

import math
from typing import Any

from axes.utils import reset as reset_login_failures
from django.conf import settings
from django.contrib.auth import views as auth_views
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render


def locked_out(
    request: HttpRequest, original_response: HttpResponse | None = None, credentials: Any = None
) -> HttpResponse:
    """AXES_LOCKOUT_CALLABLE: 429 with Retry-After and a page that says why and for how long."""
    seconds = int(settings.AXES_COOLOFF_TIME.total_seconds())
    context = {"failure_limit": settings.AXES_FAILURE_LIMIT, "cooloff_minutes": math.ceil(seconds / 60)}
    response = render(request, "registration/locked_out.html", context, status=settings.AXES_HTTP_RESPONSE_CODE)
    response["Retry-After"] = str(seconds)
    return response


class PasswordResetConfirmView(auth_views.PasswordResetConfirmView):
    """Django's view; a password chosen through a link sent to the account's address also clears the account's
    failed log-ins, so the owner is not kept out by whoever guessed at it."""

    def form_valid(self, form: Any) -> HttpResponse:
        response = super().form_valid(form)
        reset_login_failures(username=form.user.get_username())
        return response


def client_address(request: HttpRequest) -> str:
    """AXES_CLIENT_IP_CALLABLE: the address a log-in attempt is counted against. Behind TRUSTED_PROXY_COUNT reverse
    proxies that each append the address they saw to X-Forwarded-For, it is the entry the outermost proxy appended
    (the N-th from the right); anything further left the client wrote itself. Without proxies, REMOTE_ADDR."""
    remote: str = request.META.get("REMOTE_ADDR", "")
    proxies = settings.TRUSTED_PROXY_COUNT
    if not proxies:
        return remote
    hops: list[str] = [hop.strip() for hop in request.META.get("HTTP_X_FORWARDED_FOR", "").split(",") if hop.strip()]
    return hops[-proxies] if len(hops) >= proxies else remote
