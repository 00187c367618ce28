"""Accounts in-process: who counts as verified (league/accounts/services.py), the users a deploy finds already there
(migration 0013), and the sign-up count shared by separate web processes through the Redis cache."""

from __future__ import annotations

import importlib
import os
import secrets
import subprocess
import sys
import time
import zlib
from pathlib import Path

import pytest
from django.apps import apps
from django.contrib.auth.models import User

from league.accounts.models import VerifiedEmail
from league.accounts.services import do_verify_email, is_email_verified, may_upload, verification_key
from league.core.errors import ServiceError
from tests.real_redis import real_redis_url

ROOT = Path(__file__).resolve().parents[3]


def test_the_migration_records_every_existing_user_as_verified(db) -> None:
    users = [User.objects.create_user(f"old{n}", f"old{n}@example.org", "x") for n in range(3)]
    VerifiedEmail.objects.all().delete()
    importlib.import_module("league.migrations.0013_verified_email").verify_existing_users(apps, None)
    assert all(is_email_verified(user) for user in users)


def test_a_changed_address_needs_verifying_again_and_an_old_link_does_not_do_it(db, settings) -> None:
    settings.REQUIRE_EMAIL_VERIFICATION = True
    user = User.objects.create_user("maud", "maud@example.org", "x")
    old_key = verification_key(user)
    do_verify_email(old_key)
    assert is_email_verified(user) and may_upload(user)
    user.email = "maud@example.net"
    user.save()
    assert not is_email_verified(user) and not may_upload(user)
    with pytest.raises(ServiceError, match="no longer has"):
        do_verify_email(old_key)
    do_verify_email(verification_key(user))
    assert may_upload(user)


def test_staff_may_upload_unverified_and_nobody_needs_to_when_it_is_off(db, settings) -> None:
    staff = User.objects.create_user("ops", "", "x", is_staff=True)
    member = User.objects.create_user("nell", "nell@example.org", "x")
    settings.REQUIRE_EMAIL_VERIFICATION = False
    assert may_upload(member)
    settings.REQUIRE_EMAIL_VERIFICATION = True
    assert may_upload(staff) and not may_upload(member)


SPEND_TWO_SIGNUPS = (
    "import sys, django; django.setup(); from django.test import RequestFactory; "
    "from league.accounts.limits import signup_wait; "
    "request = RequestFactory().post('/account/signup/', REMOTE_ADDR=sys.argv[1]); "
    "print([signup_wait(request) is None for _ in range(2)])"
)


def _address_far_from_its_window_end() -> str:
    """A fresh address whose fixed one-hour window (django-ratelimit's: the hour plus a jitter from the key) does not
    end in the next two minutes, so two processes a few seconds apart count in the same window."""
    while True:
        address = f"10.{secrets.randbelow(256)}.{secrets.randbelow(256)}.{secrets.randbelow(256)}"
        now = int(time.time())
        end = now - now % 3600 + zlib.crc32(address.encode()) % 3600
        if (end if end >= now else end + 3600) - now > 120:
            return address


def test_the_sign_up_count_is_shared_by_web_processes_through_the_redis_cache() -> None:
    broker = real_redis_url()
    base, _, number = broker.rpartition("/")
    # A database of its own (keys are unique to this run), four below the broker's: CI's two passes use 15 and 14 as
    # brokers (so 11 and 10). Not the broker above it: the pass on 14 once counted in 15, the other pass's broker,
    # which its tests empty; not 12, which the throttling test empties.
    cache_url = f"{base}/{(int(number or 0) - 4) % 16}"
    address = _address_far_from_its_window_end()
    environment = {**os.environ, "DJANGO_SETTINGS_MODULE": "parlour.settings", "CACHE_URL": cache_url}
    answers = [
        subprocess.run(
            [sys.executable, "-c", SPEND_TWO_SIGNUPS, address],
            cwd=ROOT,
            env=environment,
            capture_output=True,
            text=True,
            timeout=60,
            check=True,
        ).stdout.strip()
        for _process in range(2)
    ]
    assert answers == ["[True, True]", "[True, False]"]  # SIGNUPS_PER_HOUR = 3 over both processes
