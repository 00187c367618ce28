"""Guests: a person may sit at a table without signing up. The first table makes them a guest account (an unusable
password, signed in for this browser only); a guest may only play, and it and its tables are deleted GUEST_HOURS after
it was made (beat's retention round). Made at most GUESTS_PER_HOUR times an hour from one address
(league/accounts/limits.py)."""

from __future__ import annotations

import secrets
from datetime import datetime, timedelta

from django.conf import settings
from django.contrib.auth.models import User
from django.db import IntegrityError, transaction
from django.utils import timezone

from league.accounts.models import Guest

GUEST_PREFIX = "guest-"


def do_create_guest() -> User:
    """A new guest account (``guest-`` and eight random hex digits), not yet signed in."""
    for _ in range(5):
        name = GUEST_PREFIX + secrets.token_hex(4)
        try:
            with transaction.atomic():
                user = User.objects.create_user(username=name)  # no password: it cannot log in by one
                Guest.objects.create(user=user)
                return user
        except IntegrityError:
            continue  # (the name was taken: draw again)
    raise RuntimeError("could not find a free guest name")


def is_guest(user: object) -> bool:
    pk = getattr(user, "pk", None)
    authenticated = bool(getattr(user, "is_authenticated", False))
    return authenticated and isinstance(pk, int) and Guest.objects.filter(user_id=pk).exists()


def do_delete_expired_guests(now: datetime | None = None) -> int:
    """Deletes the guests made more than GUEST_HOURS ago, with their tables. Returns how many."""
    cutoff = (now or timezone.now()) - timedelta(hours=settings.GUEST_HOURS)
    expired = list(Guest.objects.filter(created__lt=cutoff).values_list("user_id", flat=True)[:1000])
    if not expired:
        return 0
    User.objects.filter(pk__in=expired).delete()
    return len(expired)
