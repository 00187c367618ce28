"""How long ago something happened, in words, for pages: Django's timesince, except that under a minute is "just now"
(timesince alone says "0 minutes", which reads as a fault)."""

from __future__ import annotations

import datetime

from django.utils import timezone
from django.utils.timesince import timesince


def time_ago(when: datetime.datetime, now: datetime.datetime | None = None, depth: int = 2) -> str:
    """ "just now" under a minute (or a moment ahead: clocks differ a little), else "3 hours, 5 minutes ago"."""
    now = now or timezone.now()
    if (now - when).total_seconds() < 60:
        return "just now"
    return f"{timesince(when, now, depth=depth)} ago"
