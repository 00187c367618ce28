"""Shared fixtures: alice owns bots, bob is another user, charlie is anonymous (healthchecks' cast)."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.contrib.auth.models import User
from rest_framework.test import APIClient

from league.accounts.tokens import do_create_token

EXAMPLE_BOT = b"""import json, sys
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "start":
        print(json.dumps({"type": "ready"}), flush=True)
    elif message["type"] == "act":
        print(json.dumps({"type": "action", "action": message["legal"][0]}), flush=True)
    else:
        break
"""


@pytest.fixture
def alice(db) -> User:
    return User.objects.create_user("alice", "alice@example.org", "correct horse battery")


@pytest.fixture
def bob(db) -> User:
    return User.objects.create_user("bob", "bob@example.org", "correct horse battery")


@pytest.fixture
def alice_token(alice: User) -> str:
    return do_create_token(alice, "laptop")[1]


@pytest.fixture
def alice_api(alice_token: str) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {alice_token}")
    return client


@pytest.fixture
def bob_api(bob: User) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {do_create_token(bob, 'ci')[1]}")
    return client


@pytest.fixture
def anon_api(db) -> APIClient:
    return APIClient()


@pytest.fixture
def example_bot_source() -> bytes:
    return EXAMPLE_BOT


@pytest.fixture(autouse=True, scope="session")
def _static_root_exists() -> None:
    """WhiteNoise warns when a server starts without STATIC_ROOT; the tests collect nothing there (session-wide, so
    that it is there before the browser tests' live server starts)."""
    from django.conf import settings

    Path(settings.STATIC_ROOT).mkdir(parents=True, exist_ok=True)


@pytest.fixture(autouse=True)
def _static_files_without_collectstatic(settings) -> None:
    """Production serves collected, hashed static files; the tests serve them from the source folders."""
    settings.STORAGES = {
        **settings.STORAGES,
        "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
    }
    settings.WHITENOISE_USE_FINDERS = True
    settings.WHITENOISE_AUTOREFRESH = True


@pytest.fixture(autouse=True)
def _no_placement_bursts(settings) -> None:
    """A validated version's placement burst (league/ladder/placement.py) only where a test turns it on: the
    others count the matches they make themselves."""
    settings.PLACEMENT_GAMES = 0


@pytest.fixture(autouse=True)
def _fresh_throttle_counters() -> None:
    """API throttles count in the cache; every test starts with none spent."""
    from django.core.cache import cache

    cache.clear()


@pytest.fixture(autouse=True)
def _fresh_page_cache() -> None:
    """Cached page parts (league/ratings/caching.py) are keyed on the data, and each test's database reuses the same
    ids."""
    from django.core.cache import caches

    caches["pages"].clear()
