"""One hub per web process (per event loop) that every open event stream shares: the database work of a followed row
does not grow with its number of watchers.

A row (a live match, a people's table) that anyone follows is a ``Topic``. The hub reads each topic's cheap
fingerprint, for all of its watchers at once, when told the row changed (a Redis message on the production path:
league/core/changes.py) — unless the message carries what changed (a live match's moves): then nothing is read, the
message is the new version — and every STREAM_POLL_MS in any case (the only way to learn of a change on the embedded
default, where the match workers are other processes; a safety net for a missed message with Redis). A new
fingerprint bumps the topic's version and wakes its watchers; the first of them to ask builds the view, once per kind
of viewer (the person at a table sees their hand, everyone else the public view), and the others wait for that same
build and send the same bytes. Every read runs in a worker thread that closes its database connections before
returning: a waiting stream holds a coroutine and nothing else.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import json
import logging
import time
import weakref
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field
from typing import Any, TypeVar

import redis
import redis.asyncio
from asgiref.sync import sync_to_async
from django.conf import settings
from django.db import connections

from league.core import changes
from league.site.stream_caps import SiteCaps

log = logging.getLogger(__name__)
T = TypeVar("T")
View = tuple[dict[str, Any], bool]  # what a viewer is sent, and whether the row is over (the stream then ends)
UNREAD = object()  # a topic's fingerprint before its first read
LISTEN_TIMEOUT_SECONDS = 1.0  # the Redis listener looks this often whether anyone still follows anything
RECONNECT_SECONDS = 1.0

__all__ = ["Built", "Feed", "Hub", "Published", "Topic", "current", "in_db_thread"]


def _nothing() -> None:
    return None


Published = dict[str, Any]  # what a change message carried (league/core/changes.py)


def _carries_nothing(published: Published) -> Hashable | None:
    return None


@dataclass(frozen=True)
class Feed:
    """One kind of row that can be followed: ``fingerprint(pk)`` changes whenever a view of it changes (None: the
    row is gone); ``view(pk, viewer, memo, published)`` is what one kind of viewer is sent, where ``memo`` is what
    ``memo()`` made when the row's first watcher came, kept while anyone here watches it (a live match keeps its
    engine state there, so each change costs only the new moves), and ``published`` what the change message
    carried, if this version came from one. ``published_fingerprint(published)`` is the fingerprint such a message
    stands for (None: it carries nothing usable, read the row). ``public``: every viewer may follow every row that
    exists (a league match), so a new watcher of a row followed here already needs no check of its own."""

    kind: str
    fingerprint: Callable[[int], Hashable | None]
    view: Callable[[int, Hashable, Any, Published | None], View]
    memo: Callable[[], Any] = _nothing
    published_fingerprint: Callable[[Published], Hashable | None] = _carries_nothing
    public: bool = False


async def in_db_thread(function: Callable[..., T], *args: Any) -> T:
    """``function(*args)`` in a worker thread that closes its database connections before it returns."""

    def call() -> T:
        try:
            return function(*args)
        finally:
            connections.close_all()

    return await sync_to_async(call, thread_sensitive=False)()


@dataclass(frozen=True)
class Built:
    """A view as built for one kind of viewer at one version of the row, encoded once for every watcher."""

    version: int
    built_at: float  # monotonic
    event: bytes
    over: bool


@dataclass(eq=False)
class Topic:
    feed: Feed
    pk: int
    watchers: int = 0
    mark: Any = UNREAD
    version: int = 0  # 0 until the first read; bumped by each new fingerprint
    changed: asyncio.Event = field(default_factory=asyncio.Event)
    views: dict[Hashable, Built] = field(default_factory=dict)
    building: dict[Hashable, tuple[int, asyncio.Future[Built]]] = field(default_factory=dict)
    builds: int = 0
    memo: Any = None
    published: Published | None = None  # what the change to the current version carried, if it came in a message

    def __post_init__(self) -> None:
        self.memo = self.feed.memo()

    @property
    def gone(self) -> bool:
        return self.version > 0 and self.mark is None

    @property
    def exists(self) -> bool:
        """The row was read (or published) and is there."""
        return self.version > 0 and self.mark is not None

    def update(self, mark: Any, published: Published | None = None) -> None:
        if self.mark is not UNREAD and mark == self.mark:
            return
        self.mark = mark
        self.published = published
        self.version += 1
        self.views.clear()
        event, self.changed = self.changed, asyncio.Event()
        event.set()

    async def wait_for_change(self, seen: int, seconds: float) -> bool:
        """Wait until the version is past ``seen`` (True), or ``seconds`` pass (False)."""
        if self.version > seen:
            return True
        try:
            async with asyncio.timeout(max(0.0, seconds)):
                await self.changed.wait()
        except TimeoutError:
            return self.version > seen
        return True

    async def view(self, viewer: Hashable, max_age: float) -> Built:
        """The current version's view for ``viewer``: from the cache when built less than ``max_age`` seconds ago,
        else built once however many watchers ask at the same time."""
        version = self.version
        cached = self.views.get(viewer)
        if cached is not None and cached.version == version and time.monotonic() - cached.built_at <= max_age:
            return cached
        pending = self.building.get(viewer)
        if pending is None or pending[0] != version:
            future = asyncio.ensure_future(self._build(viewer, version))
            pending = (version, future)
            self.building[viewer] = pending
        try:
            # shield: one watcher leaving must not cancel the build the others wait for
            return await asyncio.shield(pending[1])
        finally:
            if self.building.get(viewer) is pending and pending[1].done():
                del self.building[viewer]

    async def _build(self, viewer: Hashable, version: int) -> Built:
        self.builds += 1
        started = time.monotonic()
        data, over = await in_db_thread(self.feed.view, self.pk, viewer, self.memo, self.published)
        event = f"data: {json.dumps(data, default=str, separators=(',', ':'))}\n\n".encode()
        built = Built(version, started, event, over)
        if version == self.version:
            self.views[viewer] = built
        return built


def _detached(coroutine: Any) -> asyncio.Task[None]:
    """A task that does not carry the request's context that happened to start it (it outlives that request)."""
    return asyncio.get_running_loop().create_task(coroutine, context=contextvars.Context())


class Hub:
    """The topics followed in this process, the task that reads their fingerprints, the Redis listener, and the
    counts of open streams (the caps: league/site/event_stream.py)."""

    def __init__(self, poll_seconds: float, redis_url: str | None) -> None:
        self.poll_seconds = poll_seconds
        self.redis_url = redis_url
        self.topics: dict[tuple[str, int], Topic] = {}
        # The rows told changed since the last read, with what their latest message carried (None: read the row).
        self.notified: dict[tuple[str, int], Published | None] = {}
        self.poke = asyncio.Event()
        self.poller: asyncio.Task[None] | None = None
        self.listener: asyncio.Task[None] | None = None
        self.open = 0
        self.by_address: dict[str, int] = {}
        # The caps for the whole site (league/site/stream_caps.py); None without Redis: the counts above are the caps.
        self.site_caps = SiteCaps(redis_url, asyncio.get_running_loop()) if redis_url else None
        self.reads = 0  # fingerprint reads (each one query): a figure for the tests and the benchmark

    # ----- watchers ------------------------------------------------------------------------------------------------

    def join(self, feed: Feed, pk: int) -> Topic:
        key = (feed.kind, pk)
        topic = self.topics.get(key)
        if topic is None:
            topic = self.topics[key] = Topic(feed, pk)
            self.notify(key)
        topic.watchers += 1
        if self.poller is None:
            self.poller = _detached(self._poll())
        if self.redis_url and self.listener is None:
            self.listener = _detached(self._listen(self.redis_url))
        return topic

    def leave(self, topic: Topic) -> None:
        topic.watchers -= 1
        key = (topic.feed.kind, topic.pk)
        if topic.watchers <= 0 and self.topics.get(key) is topic:
            del self.topics[key]

    def notify(self, key: tuple[str, int], published: Published | None = None) -> None:
        if key in self.topics:
            self.notified[key] = published
            self.poke.set()

    def follows(self, feed: Feed, pk: int) -> bool:
        """Someone here follows this row and it exists: a public feed's new watcher needs no check of its own."""
        topic = self.topics.get((feed.kind, pk))
        return topic is not None and topic.exists

    # ----- reading the fingerprints --------------------------------------------------------------------------------

    async def _poll(self) -> None:
        next_full = time.monotonic() + self.poll_seconds
        try:
            while self.topics:
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self.poke.wait(), max(0.0, next_full - time.monotonic()))
                now = time.monotonic()
                notified, self.notified = self.notified, {}
                self.poke.clear()
                due = []
                for key, published in notified.items():
                    topic = self.topics.get(key)
                    mark = topic.feed.published_fingerprint(published) if topic and published is not None else None
                    if topic is not None and mark is not None:
                        topic.update(mark, published)  # the message is the new version: nothing to read
                    elif topic is not None:
                        due.append(topic)
                if now >= next_full:
                    due = list(self.topics.values())
                    next_full = now + self.poll_seconds
                if not due:
                    continue
                try:
                    marks = await in_db_thread(_fingerprints, [(topic.feed, topic.pk) for topic in due])
                except Exception:
                    log.exception("stream hub: fingerprints not read; trying again")
                    await asyncio.sleep(self.poll_seconds)
                    continue
                self.reads += len(due)
                for topic, mark in zip(due, marks, strict=True):
                    topic.update(mark)
        finally:
            self.poller = None

    async def _listen(self, url: str) -> None:
        """Hear the changes published on Redis while anyone follows anything here; reconnect after a failure (the
        poll covers what was missed meanwhile)."""
        client = redis.asyncio.Redis.from_url(url)
        try:
            while self.topics:
                try:
                    async with client.pubsub() as pubsub:
                        await pubsub.subscribe(changes.CHANNEL)
                        for key in self.topics:  # anything may have changed before the subscription took
                            self.notify(key)
                        while self.topics:
                            message = await pubsub.get_message(
                                ignore_subscribe_messages=True, timeout=LISTEN_TIMEOUT_SECONDS
                            )
                            changed = changes.parse(message["data"]) if message is not None else None
                            if changed is not None:
                                self.notify(*changed)
                except (redis.RedisError, OSError) as error:
                    log.warning("stream hub: Redis listener: %s; polling until it is back", error)
                    await asyncio.sleep(RECONNECT_SECONDS)
        finally:
            self.listener = None
            await client.aclose()


def _fingerprints(rows: list[tuple[Feed, int]]) -> list[Any]:
    return [feed.fingerprint(pk) for feed, pk in rows]


_hubs: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, Hub] = weakref.WeakKeyDictionary()


def current() -> Hub:
    """This event loop's hub (a web process has one loop; a test may make several)."""
    loop = asyncio.get_running_loop()
    hub = _hubs.get(loop)
    if hub is None:
        hub = _hubs[loop] = Hub(settings.STREAM_POLL_MS / 1000, settings.REDIS_URL)
    return hub
