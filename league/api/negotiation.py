"""Content negotiation that never refuses: the API speaks JSON only (no browsable API), whatever ``Accept`` asks.

RFC 9110 (12.5.1) lets a server disregard an ``Accept`` it cannot meet instead of answering 406; a JSON client
that sends a browser's ``Accept: text/html`` still gets its data, and a bad ``?format=`` is not a 404. A view with
renderers of its own (the schema: YAML by default, JSON on request) falls back to its first one the same way."""

from __future__ import annotations

from collections.abc import Iterable

from django.http import Http404
from rest_framework.exceptions import NotAcceptable
from rest_framework.negotiation import DefaultContentNegotiation
from rest_framework.renderers import BaseRenderer
from rest_framework.request import Request


class JsonWhateverTheAccept(DefaultContentNegotiation):
    def select_renderer(
        self, request: Request, renderers: Iterable[BaseRenderer], format_suffix: str | None = None
    ) -> tuple[BaseRenderer, str]:
        choices = list(renderers)  # (DRF passes the view's list)
        try:
            chosen: tuple[BaseRenderer, str] = super().select_renderer(request, choices, format_suffix)
        except (NotAcceptable, Http404):  # nothing the client accepts, or an unknown ?format=
            return choices[0], choices[0].media_type
        return chosen
