"""How often one address may sign up or ask for a password reset, and how many account mails one e-mail address
receives: fixed one-hour windows counted by django-ratelimit in the default cache (CACHE_URL's Redis database in
production, so every web process shares the counts). The address is the one log-ins are counted against."""

from __future__ import annotations

from django.conf import settings
from django.http import HttpRequest
from django_ratelimit.core import get_usage


def client_address(request: HttpRequest) -> str:
    """The address a request is counted against (also django-axes' AXES_CLIENT_IP_CALLABLE). Behind
    TRUSTED_PROXY_COUNT reverse proxies that each append the address they saw to X-Forwarded-For, it is the entry the
    outermost proxy appended (the N-th from the right); anything further left the client wrote itself. Without
    proxies, REMOTE_ADDR."""
    remote: str = request.META.get("REMOTE_ADDR", "")
    proxies = settings.TRUSTED_PROXY_COUNT
    if not proxies:
        return remote
    hops: list[str] = [hop.strip() for hop in request.META.get("HTTP_X_FORWARDED_FOR", "").split(",") if hop.strip()]
    return hops[-proxies] if len(hops) >= proxies else remote


def _spend(request: HttpRequest, group: str, value: str, per_hour: int) -> int | None:
    """Counts one more ``group`` for ``value``: None if it is within ``per_hour``, else the seconds until the
    window ends. A cache that cannot be reached refuses (django-ratelimit fails closed)."""
    usage = get_usage(request, group=group, key=lambda _group, _request: value, rate=f"{per_hour}/h", increment=True)
    if usage is None or not usage["should_limit"]:
        return None
    return max(1, usage["time_left"])


def signup_wait(request: HttpRequest) -> int | None:
    """One more account from this address: None, or the seconds to wait (SIGNUPS_PER_HOUR)."""
    return _spend(request, "account.signup", client_address(request), settings.SIGNUPS_PER_HOUR)


def guest_wait(request: HttpRequest) -> int | None:
    """One more guest account from this address: None, or the seconds to wait (GUESTS_PER_HOUR)."""
    return _spend(request, "account.guest", client_address(request), settings.GUESTS_PER_HOUR)


def password_reset_wait(request: HttpRequest) -> int | None:
    """One more reset request from this address: None, or the seconds to wait (PASSWORD_RESETS_PER_HOUR)."""
    return _spend(request, "account.password-reset", client_address(request), settings.PASSWORD_RESETS_PER_HOUR)


def may_mail(request: HttpRequest, kind: str, email: str) -> bool:
    """One more mail of ``kind`` to ``email`` (MAILS_PER_RECIPIENT_PER_HOUR each kind): whoever asks, an inbox gets
    no more than that."""
    return _spend(request, f"account.mail.{kind}", email.strip().lower(), settings.MAILS_PER_RECIPIENT_PER_HOUR) is None
