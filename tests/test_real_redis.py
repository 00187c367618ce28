"""Tests that need a real Redis fail at once, saying how to run them, when it is missing (tests/real_redis.py)."""

from __future__ import annotations

import time

import pytest

from tests.real_redis import real_redis_url


def test_an_unset_redis_url_fails_at_once_and_says_how_to_run_the_tests() -> None:
    with pytest.raises(pytest.fail.Exception, match=r"REDIS_URL is unset: run them with `make test`"):
        real_redis_url("")


def test_a_redis_that_does_not_answer_fails_within_seconds() -> None:
    started = time.monotonic()
    with pytest.raises(pytest.fail.Exception, match=r"redis://127\.0\.0\.1:1/0 does not answer"):
        real_redis_url("redis://127.0.0.1:1/0")  # port 1: nothing listens there
    assert time.monotonic() - started < 5


def test_the_runs_redis_answers() -> None:
    assert real_redis_url().startswith(("redis://", "rediss://", "unix://"))
