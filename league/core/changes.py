"""Publishing that a followed row changed (a live match's moves, its end, a table's turn), once, for every web process.

On the production path (REDIS_URL set) one Redis PUBLISH of ``<kind>:<id>`` on CHANNEL, sent once the write is
committed; each web process's stream hub (league/site/stream_hub.py) hears it, reads the row once and fans the new view
out to all its watchers. A change may carry what changed (``<kind>:<id> <JSON>``: a live match's published moves), so
that the hubs need not read the row at all: then the database work of a watched change is the writer's alone, however
many web processes and watchers follow it. Without Redis nothing is sent: the embedded default's hub polls the
watched rows instead (the match workers are other processes, an in-process signal could not reach it). Best effort,
like the live publisher: a Redis that blinks delays the watchers to the hub's next poll, it never fails the caller.
"""

from __future__ import annotations

import json
import logging
from functools import cache
from typing import Any

import redis
from django.conf import settings
from django.db import transaction

log = logging.getLogger(__name__)
CHANNEL = "parlour:changes"
# A publish waits at most this long for Redis: a match's thread must never hang on a spectator's convenience.
PUBLISH_TIMEOUT_SECONDS = 0.5
# What a change may carry, at most (a long game's moves are tens of kilobytes); past it the message is ignored and
# the hubs read the row as they do for a change that carries nothing.
MAX_MESSAGE_BYTES = 1 << 20

__all__ = ["CHANNEL", "message", "parse", "publish"]


Key = tuple[str, int]


def message(kind: str, pk: int, data: dict[str, Any] | None = None) -> str:
    head = f"{kind}:{pk}"
    return head if data is None else f"{head} {json.dumps(data, separators=(',', ':'))}"


def parse(raw: bytes | str) -> tuple[Key, dict[str, Any] | None] | None:
    """``kind:id`` (and what it carries, if anything) back into its parts; None for anything else (the channel is
    shared, a stranger's message is ignored; what an unreadable message carries is dropped, the change kept)."""
    if len(raw) > MAX_MESSAGE_BYTES:
        return None
    text = raw.decode(errors="replace") if isinstance(raw, bytes) else raw
    head, _, carried = text.partition(" ")
    kind, _, number = head.partition(":")
    if not (kind and number.isdigit() and len(number) < 19):
        return None
    data = None
    if carried:
        try:
            loaded = json.loads(carried)
        except ValueError:
            loaded = None
        data = loaded if isinstance(loaded, dict) else None
    return (kind, int(number)), data


@cache
def _client(url: str) -> redis.Redis:
    timeout = PUBLISH_TIMEOUT_SECONDS
    return redis.Redis.from_url(url, socket_timeout=timeout, socket_connect_timeout=timeout)


def publish(kind: str, *pks: int, data: dict[str, Any] | None = None) -> None:
    """Say that these rows changed, once the current transaction (if any) commits: a watcher that reads at once must
    see the new row. ``data``: what changed, for the hubs to use instead of reading the row (one row only)."""
    url = settings.REDIS_URL
    if not url or not pks:
        return

    def send() -> None:
        try:
            client = _client(url)
            for pk in pks:
                client.publish(CHANNEL, message(kind, pk, data))
        except redis.RedisError as error:
            log.warning("changes of %s %s not published: %s", kind, pks, error)

    transaction.on_commit(send)
