"""Server-sent events that follow a row in the database: people's tables and league matches watched live.

An async view returns ``follow(...)``: a StreamingHttpResponse over an async iterator, so an open stream costs a
coroutine on the ASGI server (parlour/asgi.py), not a worker or a thread. The row's changes reach it through this
process's stream hub (league/site/stream_hub.py: one read per change for all its watchers). A stream sends the view at
once, then each time it changes (and a comment after KEEPALIVE_SECONDS of quiet); it lasts STREAM_SECONDS
(± STREAM_JITTER_SECONDS) and EventSource reconnects by itself after STREAM_RETRY_MS.

Bounded: at most STREAM_MAX_OPEN streams and STREAM_MAX_PER_ADDRESS from one address, for the whole site with Redis
(league/site/stream_caps.py) and per web process in any case; past either the answer is 429 (that address) or 503
(everyone) with Retry-After, and the page's script (league/static/league/table.js) falls back to asking again
slowly. A reader too slow to take an event is dropped by parlour/asgi.py.
"""

from __future__ import annotations

import math
import random
import time
import uuid
from collections.abc import AsyncIterator, Callable, Hashable

from asgiref.sync import sync_to_async
from django.conf import settings
from django.db import connections
from django.http import HttpRequest, HttpResponse, JsonResponse, StreamingHttpResponse

from league.accounts.limits import client_address
from league.api.errors import json_error
from league.core.errors import ServiceError, StreamsFromAddressFull, StreamsFull
from league.site import stream_caps
from league.site.stream_hub import Feed, Hub, current, in_db_thread

# A stream's life: long, because an opening costs far more than a kept stream (the middleware, the caps, a check), and
# a crowd of 1,000 reconnecting every 25 s was 40 openings a second (docs/benchmarks.md, section 12).
STREAM_SECONDS = 90.0
# Each stream lasts STREAM_SECONDS give or take this much: a crowd that opened together (a popular game's start, a
# restarted server) does not reconnect together, each time all opening checks at once.
STREAM_JITTER_SECONDS = 20.0
# A quiet stream sends a comment this often: proxies close a connection silent for a minute (nginx's default).
KEEPALIVE_SECONDS = 20.0
KEEPALIVE = b": still here\n\n"
STREAM_RETRY_MS = 300
RETRY_AFTER_SECONDS = 30  # past a cap: when to ask again (the page's script waits at least this long)
# A watcher new to a row gets a view built at most this long ago (a table's clock moves on even when its row does not).
FRESH_SECONDS = 1.0
OVER = b"event: over\ndata: {}\n\n"

LEASE_SECONDS = STREAM_SECONDS + STREAM_JITTER_SECONDS + 10  # a stream's longest life, and a margin

__all__ = [
    "LEASE_SECONDS",
    "STREAM_RETRY_MS",
    "STREAM_SECONDS",
    "EventStream",
    "Place",
    "follow",
    "refused",
    "take_place",
]


class Place:
    """One stream's place under the caps (this process's counts and, with Redis, the site's), held by ``holder``: the
    client's address, or a remote bot (league/site/remote_streams.py). Given back exactly once (when the stream ends or
    its response closes)."""

    def __init__(self, hub: Hub, holder: str) -> None:
        self.hub, self.holder, self.held, self.on_site = hub, holder, True, False
        self.member = uuid.uuid4().hex
        hub.open += 1
        hub.by_address[holder] = hub.by_address.get(holder, 0) + 1

    async def take_site_place(self, per_holder: int) -> int:
        if self.hub.site_caps is None:
            return stream_caps.TAKEN
        found = await self.hub.site_caps.take(
            self.holder, self.member, per_holder, settings.STREAM_MAX_OPEN, LEASE_SECONDS
        )
        self.on_site = found == stream_caps.TAKEN
        return found

    async def renew(self) -> None:
        """Hold the site's place another lease: for a stream that lives longer than LEASE_SECONDS."""
        if self.held and self.on_site and self.hub.site_caps is not None:
            await self.hub.site_caps.renew(self.holder, self.member, LEASE_SECONDS)

    def release(self) -> None:
        if not self.held:
            return
        self.held = False
        self.hub.open -= 1
        left = self.hub.by_address[self.holder] - 1
        if left:
            self.hub.by_address[self.holder] = left
        else:
            del self.hub.by_address[self.holder]
        if self.on_site and self.hub.site_caps is not None:
            self.hub.site_caps.give_back(self.holder, self.member)


async def take_place(holder: str, per_holder: int, crowded: ServiceError) -> Place:
    """A place for one more stream of ``holder`` under the caps: ``crowded`` (a ServiceError) is raised when the holder
    has ``per_holder`` open already, ``StreamsFull`` when the site has STREAM_MAX_OPEN."""
    hub = current()
    if hub.by_address.get(holder, 0) >= per_holder:
        raise crowded
    if hub.open >= settings.STREAM_MAX_OPEN:
        raise StreamsFull()
    place = Place(hub, holder)
    site = await place.take_site_place(per_holder)
    if site != stream_caps.TAKEN:
        place.release()
        raise crowded if site == stream_caps.ADDRESS_FULL else StreamsFull()
    return place


class EventStream(StreamingHttpResponse):
    """The event-stream response; closing it gives its place under the caps back even if it never streamed."""

    def __init__(self, events: AsyncIterator[bytes], ticket: Place) -> None:
        super().__init__(events, content_type="text/event-stream")
        self.ticket = ticket
        self["Cache-Control"] = "no-cache, private"
        self["X-Accel-Buffering"] = "no"  # nginx: pass each event on at once

    def close(self) -> None:
        self.ticket.release()
        super().close()


def refused(refusal: ServiceError) -> JsonResponse:
    """A stream refused for the caps: the error, and when to ask again."""
    response = json_error(refusal)
    response["Retry-After"] = str(RETRY_AFTER_SECONDS)
    response["Cache-Control"] = "no-store"
    return response


async def follow(
    request: HttpRequest, feed: Feed, pk: int, viewer: Callable[[], Hashable]
) -> HttpResponse | StreamingHttpResponse:
    """The event stream of ``feed``'s row ``pk``. ``viewer()`` (run in a worker thread) checks that the row exists
    and may be seen (a ServiceError otherwise) and says which kind of viewer asks: viewers of one kind share a view."""
    try:
        ticket = await take_place(client_address(request), settings.STREAM_MAX_PER_ADDRESS, StreamsFromAddressFull())
    except (StreamsFromAddressFull, StreamsFull) as refusal:
        return refused(refusal)
    hub = ticket.hub
    try:
        # A public row someone here already follows exists and may be seen: a crowd's openings cost no query.
        who = None if feed.public and hub.follows(feed, pk) else await in_db_thread(viewer)
    except ServiceError as error:
        ticket.release()
        return json_error(error)
    except BaseException:
        ticket.release()
        raise
    return EventStream(_events(hub, feed, pk, who, ticket), ticket)


async def _events(hub: Hub, feed: Feed, pk: int, viewer: Hashable, ticket: Place) -> AsyncIterator[bytes]:
    try:
        # The request's own thread (the middleware's) keeps no database connection for the stream's lifetime.
        await sync_to_async(connections.close_all)()
        yield f"retry: {STREAM_RETRY_MS}\n\n".encode()
        topic = hub.join(feed, pk)
        try:
            until = time.monotonic() + STREAM_SECONDS + random.uniform(-STREAM_JITTER_SECONDS, STREAM_JITTER_SECONDS)
            seen, max_age = 0, FRESH_SECONDS
            while (left := until - time.monotonic()) > 0:
                if not await topic.wait_for_change(seen, min(left, KEEPALIVE_SECONDS)):
                    yield KEEPALIVE
                    continue
                if topic.gone:
                    return
                built = await topic.view(viewer, max_age)
                seen, max_age = built.version, math.inf
                yield built.event
                if built.over:
                    yield OVER
                    return
        finally:
            hub.leave(topic)
    finally:
        ticket.release()
