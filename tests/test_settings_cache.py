"""CACHE_URL: the default cache (the API's throttle counters) in a Redis database of its own, checked at start-up."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PRINT_BACKEND = (
    "import django; django.setup(); from django.conf import settings; print(settings.CACHES['default']['BACKEND'])"
)


def _settings_with(**env: str) -> subprocess.CompletedProcess[str]:
    environment = {**os.environ, "DJANGO_SETTINGS_MODULE": "parlour.settings", "SECRET_KEY": "x", **env}
    return subprocess.run(
        [sys.executable, "-c", PRINT_BACKEND], cwd=ROOT, env=environment, capture_output=True, text=True, timeout=60
    )


def test_without_cache_url_each_process_keeps_its_own_counters() -> None:
    done = _settings_with(CACHE_URL="")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "django.core.cache.backends.locmem.LocMemCache"


def test_a_redis_cache_url_makes_the_counters_shared() -> None:
    done = _settings_with(CACHE_URL="redis://127.0.0.1:6379/1", REDIS_URL="redis://127.0.0.1:6379/0")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "django.core.cache.backends.redis.RedisCache"


def test_the_brokers_own_database_is_refused() -> None:
    done = _settings_with(CACHE_URL="redis://127.0.0.1:6379/0", REDIS_URL="redis://127.0.0.1:6379/0")
    assert done.returncode != 0 and "must not be the broker's Redis database" in done.stderr


def test_a_url_that_is_not_redis_is_refused() -> None:
    done = _settings_with(CACHE_URL="memcached://127.0.0.1:11211")
    assert done.returncode != 0 and "CACHE_URL must be a redis://" in done.stderr
