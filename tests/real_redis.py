"""The URL of the real Redis some tests need, or a failure at once that says how to run them.

Never a default database that may be another run's (a test once fell back to redis://127.0.0.1:6379/0 when
REDIS_URL was unset), and never a long wait on a server that is not there: the URL must be set and the server answer
within a couple of seconds."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import redis
from django.conf import settings

HOW = "run them with `make test`, which starts Redis and sets REDIS_URL"
ANSWER_SECONDS = 2


def real_redis_url(url: str | None = None) -> str:
    """``url`` (by default the settings' REDIS_URL) once its server has answered a ping."""
    url = settings.REDIS_URL if url is None else url
    if not url:
        pytest.fail(f"these tests need a real Redis and REDIS_URL is unset: {HOW}", pytrace=False)
    client = redis.Redis.from_url(url, socket_timeout=ANSWER_SECONDS, socket_connect_timeout=ANSWER_SECONDS)
    try:
        client.ping()
    except redis.RedisError as error:
        pytest.fail(f"these tests need a real Redis and {url} does not answer ({error}): {HOW}", pytrace=False)
    finally:
        client.close()
    return url


def delete_keys(client: redis.Redis, prefix: str) -> None:
    """Delete every key under ``prefix`` (what a test left in the shared Redis database)."""
    for key in client.scan_iter(f"{prefix}*"):
        client.delete(key)


def cleaned_client(prefix: str) -> Iterator[redis.Redis]:
    """For a fixture (``yield from``): a client of the real Redis; the keys under ``prefix`` go when the test ends."""
    client = redis.Redis.from_url(real_redis_url())
    yield client
    delete_keys(client, prefix)
