"""Template filters for times: ``{{ when|ago }}`` says "just now" or "5 minutes ago" (league.core.time_ago)."""

from __future__ import annotations

import datetime

from django import template

from league.core.time_ago import time_ago

register = template.Library()


@register.filter
def ago(when: datetime.datetime | None) -> str:
    return time_ago(when) if when else ""
