"""Publishing that a followed row changed (a live match's moves, its end, a table's turn), once, for every web process.

On the production path (REDIS_URL set) one Redis PUBLISH of ``<kind>:<id>`` on CHANNEL, sent once the write is
committed; each web process's stream hub (league/site/stream_hub.py) hears it, reads the row once and fans the new view
out to all its watchers. Without Redis nothing is sent: the embedded default's hub polls the watched rows instead (the
match workers are other processes, an in-process signal could not reach it). Best effort, like the live publisher: a
Redis that blinks delays the watchers to the hub's next poll, it never fails the caller.
"""

from __future__ import annotations

import logging
from functools import cache

import redis
from django.conf import settings
from django.db import transaction

log = logging.getLogger(__name__)
CHANNEL = "parlour:changes"
# A publish waits at most this long for Redis: a match's thread must never hang on a spectator's convenience.
PUBLISH_TIMEOUT_SECONDS = 0.5

__all__ = ["CHANNEL", "message", "parse", "publish"]


def message(kind: str, pk: int) -> str:
    return f"{kind}:{pk}"


def parse(raw: bytes | str) -> tuple[str, int] | None:
    """``kind:id`` back into its parts; None for anything else (the channel is shared, a stranger's message is
    ignored)."""
    text = raw.decode(errors="replace") if isinstance(raw, bytes) else raw
    kind, _, number = text.partition(":")
    return (kind, int(number)) if kind and number.isdigit() and len(number) < 19 else None


@cache
def _client(url: str) -> redis.Redis:
    timeout = PUBLISH_TIMEOUT_SECONDS
    return redis.Redis.from_url(url, socket_timeout=timeout, socket_connect_timeout=timeout)


def publish(kind: str, *pks: int) -> None:
    """Say that these rows changed, once the current transaction (if any) commits: a watcher that reads at once must
    see the new row."""
    url = settings.REDIS_URL
    if not url or not pks:
        return

    def send() -> None:
        try:
            client = _client(url)
            for pk in pks:
                client.publish(CHANNEL, message(kind, pk))
        except redis.RedisError as error:
            log.warning("changes of %s %s not published: %s", kind, pks, error)

    transaction.on_commit(send)
