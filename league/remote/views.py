"""The remote-bot endpoints under /api/remote/ (docs/remote.md), async views on the ASGI path: an open stream costs
a coroutine, not a thread. Each request is authenticated by the bot's token (league/remote/services.py) and
answered in the API's error shape when refused; the streams are NDJSON, each holding a place under the stream caps
(league/site/remote_streams.py).

- ``GET  events/?after=<id>``: the bot's games as they are announced; opening it makes this the bot's one
  connection and the bot online (the first one also sends a waiting remote version to its smoke game).
- ``DELETE events/``: the client stops on purpose: the bot is offline at once and its connection's end is no drop.
- ``GET  channels/<channel>/messages/?after=<seq>``: the seat's protocol messages after ``seq`` (resume from the
  last one read), until the channel closes.
- ``POST channels/<channel>/replies/<seq>/``: the bot's reply line (the body, exactly as the bot wrote it) to
  request ``seq``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from django.conf import settings
from django.http import HttpRequest, HttpResponse, JsonResponse, StreamingHttpResponse
from django.views.decorators.csrf import csrf_exempt

from league.api.errors import json_error
from league.core.errors import (
    BadRemoteReply,
    NoSuchChannel,
    RemoteReplyTooLarge,
    RemoteStreamsFull,
    RemoteTokenInvalid,
    RemoteTokenMissing,
    RemoteTooFast,
    RemoteWrongMethod,
    ServiceError,
    StaleReply,
    StreamsFull,
)
from league.remote import relay, services
from league.site import remote_streams as streams
from league.site.event_stream import refused
from league.site.stream_hub import in_db_thread

__all__ = ["channel_messages", "channel_reply", "events", "with_remote_replies"]

_EVENT_ID = re.compile(r"\d{1,15}-\d{1,10}")
_CHANNEL = re.compile(r"[A-Za-z0-9_-]{1,40}")
_SEQ_MAX = 10**9


async def _bot(authorization: str, channel: str | None = None) -> int:
    """The bot whose token the ``Authorization`` header carries, within its request rate, and (``channel``) whose
    seat the channel is; a ServiceError otherwise. One round trip to Redis; the database only for a token not seen
    lately."""
    scheme, _, key = authorization.partition(" ")
    key = key.strip()
    if scheme.lower() != "bearer" or not key:
        raise RemoteTokenMissing()
    if len(key) > services.KEY_MAX_CHARS:
        raise RemoteTokenInvalid()
    if channel is not None and not _CHANNEL.fullmatch(channel):
        raise NoSuchChannel(channel=channel)
    found = await relay.check_in(services.hash_key(key), channel)
    limit = int(settings.REMOTE_REQUESTS_PER_SECOND)
    if found.requests > limit:
        raise RemoteTooFast(limit=limit)
    bot_id = found.bot if found.bot is not None else await in_db_thread(services.authenticate, key)
    # Another bot's channel is "not found", as an unknown one is.
    if channel is not None and found.channel_bot != bot_id:
        raise NoSuchChannel(channel=channel)
    return bot_id


def _check_method(request: HttpRequest, *allowed: str) -> None:
    if request.method not in allowed:
        raise RemoteWrongMethod(method=str(request.method)[:10], allowed=" or ".join(allowed))


def _refused(error: ServiceError) -> JsonResponse:
    if isinstance(error, RemoteStreamsFull | StreamsFull):
        return refused(error)  # with Retry-After, as a live page's stream refused for the caps
    response = json_error(error)
    response["Cache-Control"] = "no-store"
    return response


@csrf_exempt
async def events(request: HttpRequest) -> HttpResponse | StreamingHttpResponse:
    try:
        _check_method(request, "GET", "DELETE")
        bot_id = await _bot(request.headers.get("Authorization", ""))
        if request.method == "DELETE":
            await relay.goodbye(bot_id)  # a clean exit: offline now, and not a drop
            return HttpResponse(status=204, headers={"Cache-Control": "no-store"})
        after = request.GET.get("after") or None
        if after is not None and not _EVENT_ID.fullmatch(after):
            raise BadRemoteReply(reason="after must be an event id from this stream (digits-digits)")
        place = await streams.hold(bot_id)
    except ServiceError as error:
        return _refused(error)
    try:
        conn = await relay.take_connection(bot_id)
        await in_db_thread(services.do_connected, bot_id)
    except BaseException:
        place.release()
        raise
    return streams.Stream(relay.event_lines(bot_id, conn, after), place)


@csrf_exempt
async def channel_messages(request: HttpRequest, channel: str) -> HttpResponse | StreamingHttpResponse:
    try:
        _check_method(request, "GET")
        bot_id = await _bot(request.headers.get("Authorization", ""), channel)
        raw = request.GET.get("after", "0")
        if not raw.isdigit() or int(raw) > _SEQ_MAX:
            raise BadRemoteReply(
                reason="after must be the sequence number of the last message read (0: from the start)"
            )
        place = await streams.hold(bot_id)
    except ServiceError as error:
        return _refused(error)
    return streams.Stream(relay.message_lines(channel, int(raw)), place)


@csrf_exempt
async def channel_reply(request: HttpRequest, channel: str, seq: int) -> HttpResponse:
    if request.method != "POST":
        return _refused(RemoteWrongMethod(method=str(request.method)[:10], allowed="POST"))
    status, body = await _take_reply(request.headers.get("Authorization", ""), channel, seq, request.body)
    return JsonResponse(body, status=status, headers={"Cache-Control": "no-store"})


async def _take_reply(authorization: str, channel: str, seq: int, body: bytes) -> tuple[int, dict[str, Any]]:
    """A reply's answer (status, JSON body): the one rule for the view above and the direct route below."""
    try:
        await _bot(authorization, channel)
        line = _reply_line(body)
        outcome = await relay.accept_reply(channel, seq, line)
        if outcome == relay.STALE:
            raise StaleReply(seq=seq)
    except ServiceError as error:
        return error.status, error.body()
    return 200, {"seq": seq, "accepted": outcome == relay.ACCEPTED}


# ----- the direct route for replies ------------------------------------------------------------------------------
# A reply is the one request a remote bot makes per decision, inside its clock. Through Django's handler it pays the
# whole middleware chain (sessions, CSRF, security headers, axes, and the thread hops between sync middleware and an
# async view): measured at about 6 ms a request on a loaded 2-core machine, for checks a reply does not need.
# ``with_remote_replies(application)`` answers POST /api/remote/channels/<channel>/replies/<seq>/ itself, with
# exactly the checks of ``channel_reply`` (the same function), and passes everything else on.

_REPLY_PATH = re.compile(r"/api/remote/channels/([A-Za-z0-9_-]{1,40})/replies/([0-9]{1,10})/")
Scope = dict[str, Any]
Receive = Callable[[], Awaitable[dict[str, Any]]]
Send = Callable[[Mapping[str, Any]], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]


def with_remote_replies(application: ASGIApp) -> ASGIApp:
    """``application`` with the direct route for remote bots' replies in front (parlour/asgi.py)."""

    async def route(scope: Scope, receive: Receive, send: Send) -> None:
        found = _REPLY_PATH.fullmatch(scope.get("path", "")) if scope["type"] == "http" else None
        if found is None or scope.get("method") != "POST":
            await application(scope, receive, send)
            return
        headers = {name.lower(): value for name, value in scope.get("headers") or []}
        body = await _bounded_body(receive, int(settings.REMOTE_REPLY_MAX_BYTES))
        if body is None:
            status, answer = 413, RemoteReplyTooLarge(limit=int(settings.REMOTE_REPLY_MAX_BYTES)).body()
        else:
            authorization = headers.get(b"authorization", b"").decode("latin-1")
            status, answer = await _take_reply(authorization, found.group(1), int(found.group(2)), body)
        content = json.dumps(answer).encode()
        response_headers = [
            (b"content-type", b"application/json"),
            (b"content-length", str(len(content)).encode()),
            (b"cache-control", b"no-store"),
            (b"x-content-type-options", b"nosniff"),
        ]
        await send({"type": "http.response.start", "status": status, "headers": response_headers})
        await send({"type": "http.response.body", "body": content})

    return route


async def _bounded_body(receive: Receive, limit: int) -> bytes | None:
    """The request's body, or None past ``limit`` bytes (the rest is not kept)."""
    body = bytearray()
    more = True
    while more:
        message = await receive()
        if message["type"] == "http.disconnect":
            return bytes(body)
        body += message.get("body", b"")
        more = bool(message.get("more_body"))
        if len(body) > limit:
            return None
    return bytes(body)


def _reply_line(body: bytes) -> bytes:
    """The body as the one line the runner reads: the bot's reply, exactly as it wrote it (the runner checks it as
    any bot's line: docs/protocol.md), without its line ending."""
    limit = int(settings.REMOTE_REPLY_MAX_BYTES)
    if len(body) > limit:
        raise RemoteReplyTooLarge(limit=limit)
    line = body.removesuffix(b"\n").removesuffix(b"\r")
    if not line.strip():
        raise BadRemoteReply(reason="the body is the bot's reply: one JSON line, not empty")
    if b"\n" in line or b"\r" in line:
        raise BadRemoteReply(reason="a reply is one line: the body has a line break inside")
    return line
