"""Throttles per anonymous address, per user and per token: 429 with Retry-After and retry_after_seconds."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from django.contrib.auth.models import User
from django.core.cache import cache
from django.test import override_settings
from rest_framework.test import APIClient

from league import services


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
    first.credentials(HTTP_AUTHORIZATION=f"Token {services.do_create_token(alice, 'a')[1]}")
    second.credentials(HTTP_AUTHORIZATION=f"Token {services.do_create_token(alice, 'b')[1]}")
    with _rates(token="2/min"):
        assert first.get("/api/me/").status_code == 200
        assert first.get("/api/me/").status_code == 200
        _assert_throttled(first.get("/api/me/"))
        assert second.get("/api/me/").status_code == 200


def test_a_user_budget_covers_all_their_tokens_and_sessions(alice: User, bob_api: APIClient) -> None:
    first, session = APIClient(), APIClient()
    first.credentials(HTTP_AUTHORIZATION=f"Token {services.do_create_token(alice, 'a')[1]}")
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
