"""Throttles per anonymous address, per user and per token: 429 with Retry-After and retry_after_seconds."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from django.contrib.auth.models import User
from django.core.cache import cache
from django.test import override_settings
from rest_framework.test import APIClient

from league.accounts.tokens import do_create_token


@pytest.fixture(autouse=True)
def _fresh_counters() -> Iterator[None]:
    cache.clear()
    yield
    cache.clear()


def _rates(**rates: str | None):  # type: ignore[no-untyped-def]
    from django.conf import settings

    merged = {"anon": None, "user": None, "token": None, **rates}
    return override_settings(REST_FRAMEWORK={**settings.REST_FRAMEWORK, "DEFAULT_THROTTLE_RATES": merged})


def _assert_throttled(response) -> None:  # type: ignore[no-untyped-def]
    assert response.status_code == 429
    error = response.json()["error"]
    assert error["code"] == "throttled" and error["retry_after_seconds"] >= 1
    assert int(response["Retry-After"]) == error["retry_after_seconds"]


def test_anonymous_requests_are_throttled_by_address(anon_api: APIClient) -> None:
    with _rates(anon="2/min"):
        assert anon_api.get("/api/games/").status_code == 200
        assert anon_api.get("/api/bots/").status_code == 200
        _assert_throttled(anon_api.get("/api/games/"))


def test_each_token_has_its_own_budget(alice: User) -> None:
    first, second = APIClient(), APIClient()
    first.credentials(HTTP_AUTHORIZATION=f"Token {do_create_token(alice, 'a')[1]}")
    second.credentials(HTTP_AUTHORIZATION=f"Token {do_create_token(alice, 'b')[1]}")
    with _rates(token="2/min"):
        assert first.get("/api/me/").status_code == 200
        assert first.get("/api/me/").status_code == 200
        _assert_throttled(first.get("/api/me/"))
        assert second.get("/api/me/").status_code == 200


def test_a_user_budget_covers_all_their_tokens_and_sessions(alice: User, bob_api: APIClient) -> None:
    first, session = APIClient(), APIClient()
    first.credentials(HTTP_AUTHORIZATION=f"Token {do_create_token(alice, 'a')[1]}")
    session.force_login(alice)
    with _rates(user="2/min"):
        assert first.get("/api/me/").status_code == 200
        assert session.get("/api/me/").status_code == 200
        _assert_throttled(session.get("/api/me/"))
        _assert_throttled(first.get("/api/me/"))
        assert bob_api.get("/api/me/").status_code == 200  # another user is not affected


def test_the_default_rates_are_generous(anon_api: APIClient) -> None:
    for _ in range(20):
        assert anon_api.get("/api/games/").status_code == 200


SHARED_CACHE_URL = "redis://127.0.0.1:6379/12"  # a database of its own, as CACHE_URL must be (parlour/settings.py)


def test_with_a_redis_cache_the_counters_are_shared_by_every_process(alice: User) -> None:
    import redis
    from django.conf import settings

    shared = redis.Redis.from_url(SHARED_CACHE_URL)
    shared.flushdb()
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {do_create_token(alice, 'a')[1]}")
    redis_default = {"BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": SHARED_CACHE_URL}
    try:
        with override_settings(CACHES={**settings.CACHES, "default": redis_default}), _rates(token="2/min"):
            assert client.get("/api/me/").status_code == 200
            assert client.get("/api/me/").status_code == 200
            counters = list(shared.scan_iter(match="*throttle_token*"))
            assert len(counters) == 1, "the token's history is in Redis, where every web process reads it"
            _assert_throttled(client.get("/api/me/"))
            shared.delete(*counters)  # what another process sees is what Redis holds
            assert client.get("/api/me/").status_code == 200
    finally:
        shared.flushdb()
