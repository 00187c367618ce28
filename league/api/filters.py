"""Query-string filters that answer a bad value with a clear 400 (``fields`` names the parameter), never a 500."""

from __future__ import annotations

import datetime
from collections.abc import Iterable

from django.utils import timezone
from django.utils.dateparse import parse_date, parse_datetime
from rest_framework.exceptions import ValidationError
from rest_framework.request import Request

from league.core.ids import ID_MESSAGE, parse_id


def _bad(name: str, message: str) -> ValidationError:
    return ValidationError({name: [message]})


def choice(request: Request, name: str, choices: Iterable[str]) -> str | None:
    value = request.query_params.get(name)
    if value in (None, ""):
        return None
    allowed = list(choices)
    if value not in allowed:
        raise _bad(name, f"{name} must be one of {', '.join(allowed)}")
    return value


def identifier(request: Request, name: str) -> int | None:
    """An id (league.core.ids: 1 to 2^63-1)."""
    value = request.query_params.get(name)
    if value in (None, ""):
        return None
    if (number := parse_id(value)) is None:
        raise _bad(name, f"{name} {ID_MESSAGE}")
    return number


def moment(request: Request, name: str, end_of_day: bool = False) -> datetime.datetime | None:
    """An ISO date (2026-11-30: the day's start, or its end for an upper bound) or date-time."""
    value = request.query_params.get(name)
    if not value:  # absent or empty
        return None
    try:
        parsed = parse_datetime(value)
        if parsed is None and (day := parse_date(value)) is not None:
            parsed = datetime.datetime.combine(day, datetime.time.max if end_of_day else datetime.time.min)
    except ValueError:
        parsed = None
    if parsed is None:
        raise _bad(name, f"{name} must be an ISO date (2026-11-30) or date-time (2026-11-30T12:00:00Z)")
    if timezone.is_naive(parsed):
        return timezone.make_aware(parsed, datetime.UTC)
    # In UTC: Python takes offsets up to ±23:59, PostgreSQL only up to ±15:59 (a 500 otherwise).
    try:
        return parsed.astimezone(datetime.UTC)
    except OverflowError:  # year 1 minus an offset, or 9999 plus one
        raise _bad(name, f"{name} is out of range") from None


def ordering(request: Request, allowed: dict[str, tuple[str, ...]], default: str) -> tuple[str, ...]:
    """``?ordering=name`` or ``-name`` (descending), one of ``allowed`` (public name -> model fields)."""
    value = request.query_params.get("ordering") or default
    descending = value.startswith("-")
    key = value.removeprefix("-")
    if key not in allowed:
        options = ", ".join(f"{name}, -{name}" for name in allowed)
        raise _bad("ordering", f"ordering must be one of {options}")
    fields = allowed[key]
    return tuple(_flip(field) for field in fields) if descending else fields


def _flip(field: str) -> str:
    return field[1:] if field.startswith("-") else "-" + field
