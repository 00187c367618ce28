"""One error shape for the whole API: ``{"error": {"code": ..., "message": ..., "fields"?: {...}}}``."""

from __future__ import annotations

from typing import Any

from django.core.exceptions import PermissionDenied as DjangoPermissionDenied
from django.http import Http404, HttpRequest, JsonResponse
from django.views.decorators.csrf import csrf_exempt
from rest_framework import exceptions, status
from rest_framework.renderers import JSONRenderer
from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_exception_handler

from league.core.errors import ErrorCode, NoApiEndpoint, ServiceError


def exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    response = _error_response(exc, context)
    request = context.get("request")
    if response is not None and request is not None:
        # Errors are JSON whatever the view renders: the schema's YAML and the docs pages' HTML included.
        request.accepted_renderer, request.accepted_media_type = JSONRenderer(), JSONRenderer.media_type
    return response


def json_error(error: ServiceError) -> JsonResponse:
    """A refusal of the catalog in the error shape, outside DRF's views (middleware, streams, plain JSON views)."""
    return JsonResponse(error.body(), status=error.status)


def _error_response(exc: Exception, context: dict[str, Any]) -> Response | None:
    if isinstance(exc, ServiceError):
        return Response(exc.body(), status=exc.status)
    # DRF turns Django's own two into its exceptions inside its handler; turned here first, they get the same
    # codes as DRF's (not_found, permission_denied) instead of a bare "error".
    if isinstance(exc, Http404):
        exc = exceptions.NotFound(*exc.args)
    elif isinstance(exc, DjangoPermissionDenied):
        exc = exceptions.PermissionDenied(*exc.args)
    response = drf_exception_handler(exc, context)
    if response is None:
        return None  # a real bug: Django's 500 handler (no stack trace when DEBUG is off)
    if isinstance(exc, exceptions.ValidationError):
        fields = exc.detail if isinstance(exc.detail, dict) else {"non_field_errors": exc.detail}
        first = next(iter(fields.values()), ["invalid input"])
        message = str(first[0] if isinstance(first, list) and first else first)
        response.data = {"error": {"code": ErrorCode.INVALID, "message": message, "fields": fields}}
    else:
        code = getattr(exc, "default_code", "error")
        detail = getattr(exc, "detail", str(exc))
        response.data = {"error": {"code": code, "message": str(detail)}}
        if response.status_code == status.HTTP_429_TOO_MANY_REQUESTS and (wait := getattr(exc, "wait", None)):
            response.data["error"]["retry_after_seconds"] = int(wait)
    return response


@csrf_exempt  # any method: a POST without a CSRF token must get this 404 too, not the CSRF failure page (HTML)
def unknown_path(request: HttpRequest, rest: str = "") -> JsonResponse:
    """Every path under /api/ that no route takes (the last route of league.api.urls): a 404 in the error shape,
    with DEBUG on too (Django's debug 404 page, HTML with every URL of the site, never answers under /api/). No
    redirect to the path with a slash: a client is told the right path instead."""
    return json_error(NoApiEndpoint(path=request.path))
