"""E-mail verification in-process (league/services/accounts.py): who counts as verified, and the users a deploy
finds already there (migration 0012)."""

from __future__ import annotations

import importlib

import pytest
from django.apps import apps
from django.contrib.auth.models import User

from league.models import VerifiedEmail
from league.services.accounts import do_verify_email, is_email_verified, may_upload, verification_key
from league.services.errors import ServiceError


def test_the_migration_records_every_existing_user_as_verified(db) -> None:
    users = [User.objects.create_user(f"old{n}", f"old{n}@example.org", "x") for n in range(3)]
    VerifiedEmail.objects.all().delete()
    importlib.import_module("league.migrations.0012_verified_email").verify_existing_users(apps, None)
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
