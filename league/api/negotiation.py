"""Content negotiation that never refuses: the API speaks JSON only (no browsable API), whatever ``Accept`` asks.

RFC 9110 (12.5.1) lets a server disregard an ``Accept`` it cannot meet instead of answering 406; a JSON client
that sends a browser's ``Accept: text/html`` still gets its data, and a bad ``?format=`` is not a 404. A view with
renderers of its own (the schema: YAML by default, JSON on request) falls back to its first one the same way."""

from __future__ import annotations

from typing import Any

from django.http import Http404
from rest_framework.exceptions import NotAcceptable
from rest_framework.negotiation import DefaultContentNegotiation
from rest_framework.request import Request


class JsonWhateverTheAccept(DefaultContentNegotiation):
    def select_renderer(
        self, request: Request, renderers: list[Any], format_suffix: str | None = None
    ) -> tuple[Any, str]:
        try:
            return super().select_renderer(request, renderers, format_suffix)
        except (NotAcceptable, Http404):  # nothing the client accepts, or an unknown ?format=
            return renderers[0], renderers[0].media_type
