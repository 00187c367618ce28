"""Request bodies: refused before they are read, and never spooled to disk.

``RequestBodyLimitMiddleware`` comes first in ``MIDDLEWARE``, before anything reads ``request.POST`` (the CSRF check
does, for every POST to the site): it answers 413 from the ``Content-Length`` header alone, so a body over the limit
is never parsed or stored. Under ASGI Django's handler reads the whole body before any middleware runs, so the
server's application (parlour/asgi.py) asks ``refusal`` before that: a refused body is never read either.
Signed-in users (a session) and API tokens may send a bot upload and its form (``REQUEST_BODY_MAX_BYTES``); anyone
else a login form's worth (``ANONYMOUS_BODY_MAX_BYTES``), checked only when a body is larger than that. Under WSGI
Django reads no more than ``Content-Length`` (``LimitedStream``) and nothing at all of a body without one, so a
chunked body is refused with 411 rather than silently taken for empty.

``MemoryOnlyUploadHandler`` is the only upload handler: an uploaded file is kept in memory, bounded by the body limit,
never in the temporary folder (Django's default spools anything over 2.5 MB to disk while it parses).
"""

from __future__ import annotations

from collections.abc import Callable
from importlib import import_module
from typing import Any

from django.conf import settings
from django.contrib.auth import SESSION_KEY
from django.core.files.uploadhandler import MemoryFileUploadHandler
from django.http import HttpRequest, HttpResponse
from django.utils.html import escape

from bots.packaging import MAX_UPLOAD_BYTES
from league.accounts.models import ApiToken
from league.accounts.tokens import hash_token
from league.api.errors import json_error
from league.core.errors import AnonymousBodyTooLarge, BadContentLength, BodyTooLarge, LengthRequired, ServiceError


class RequestBodyLimitMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        return refusal(request) or self.get_response(request)


class MemoryOnlyUploadHandler(MemoryFileUploadHandler):
    """Every uploaded file in memory, whatever its size: the body limit bounds the request, and a file beyond the
    upload limit keeps only its first ``MAX_UPLOAD_BYTES + 1`` bytes (its ``size`` stays true, for the message)."""

    def handle_raw_input(self, *args: Any, **kwargs: Any) -> None:
        self.activated = True  # not only under FILE_UPLOAD_MAX_MEMORY_SIZE: there is no handler after this one

    def receive_data_chunk(self, raw_data: bytes, start: int) -> None:
        keep = MAX_UPLOAD_BYTES + 1 - start
        if keep > 0:
            self.file.write(raw_data[:keep])


def refusal(request: HttpRequest) -> HttpResponse | None:
    """The answer to a request whose body may not be read (from its headers and, past the anonymous limit, whether
    it is signed in), or None. The middleware asks; under ASGI parlour/asgi.py asks first, before Django's handler
    reads the whole body into a temporary file."""
    meta = request.META
    if meta.get("HTTP_TRANSFER_ENCODING") and not meta.get("CONTENT_LENGTH"):
        return _error(request, LengthRequired())
    try:
        length = int(meta.get("CONTENT_LENGTH") or 0)
    except ValueError:
        return _error(request, BadContentLength())
    if length <= settings.ANONYMOUS_BODY_MAX_BYTES:
        return None
    if not _signed_in(request):
        return _error(request, AnonymousBodyTooLarge(length=length, limit=settings.ANONYMOUS_BODY_MAX_BYTES))
    if length > settings.REQUEST_BODY_MAX_BYTES:
        return _error(request, BodyTooLarge(length=length, limit=settings.REQUEST_BODY_MAX_BYTES))
    return None


def _signed_in(request: HttpRequest) -> bool:
    """A session with a user in it, or an API token that is not revoked: checked here, before the middleware and
    views that authenticate properly, only to decide how much of a body may be read."""
    session_key = request.COOKIES.get(settings.SESSION_COOKIE_NAME)
    if session_key:
        store = import_module(settings.SESSION_ENGINE).SessionStore(session_key)
        if store.get(SESSION_KEY) is not None:
            return True
    scheme, _, key = request.META.get("HTTP_AUTHORIZATION", "").partition(" ")
    if scheme.lower() in {"token", "bearer"} and key.strip():
        return ApiToken.objects.filter(key_hash=hash_token(key.strip()), user__is_active=True).exists()
    return False


def _error(request: HttpRequest, refusal: ServiceError) -> HttpResponse:
    """The API's error shape under /api/, a plain page elsewhere."""
    if request.path.startswith("/api/"):
        response: HttpResponse = json_error(refusal)
    else:
        title = {400: "Bad request", 411: "Length required", 413: "Request too large"}[refusal.status]
        page = f"<!doctype html><title>{title}</title><h1>{title}</h1><p>{escape(refusal.message)}.</p>"
        response = HttpResponse(page, status=refusal.status, content_type="text/html; charset=utf-8")
    # Set here: the middleware that would add it never sees this answer, and without it a client must wait for the
    # connection to close to know the answer is complete.
    response["Content-Length"] = str(len(response.content))
    return response
