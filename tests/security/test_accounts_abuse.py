"""Accounts attacked as a hostile stranger would, against the live server over real sockets (docs/security.md,
"Accounts, headers and deployment"): mass sign-up from one address, locking a named person out by guessing at
their password from many addresses, an intruder's session and API tokens outliving a password change or reset, a
token minting tokens, a flood of password-reset mail, and uploads before the e-mail address is verified."""

from __future__ import annotations

import re
import time

import pytest
import requests
from django.conf import settings
from django.contrib.auth.models import User
from django.core import mail, signing

from league.accounts.models import ApiToken
from league.accounts.services import verification_key
from league.accounts.tokens import do_create_token
from league.bots.models import Bot
from league.bots.services import do_create_bot
from tests.conftest import EXAMPLE_BOT
from tests.security.conftest import form_csrf, log_in
from tests.security.test_accounts_headers import RESET_LINK, RIGHT, attempt, signed_in_as

NEW_PASSWORD = "a brand new passphrase 42"
VERIFY_LINK = re.compile(r"https?://[^/\s]+(/account/verify-email/[^/\s]+/)")


@pytest.fixture
def behind_one_proxy(settings) -> None:
    """One trusted reverse proxy (the production example): the tests play it, choosing each request's address."""
    settings.TRUSTED_PROXY_COUNT = 1


def post_form(
    session: requests.Session, site: str, path: str, data: dict[str, str], address: str | None = None
) -> requests.Response:
    """Fills in the form on ``path`` as a browser would (its CSRF token and cookie), from ``address``."""
    headers = {"Referer": f"{site}{path}"}
    if address:
        headers["X-Forwarded-For"] = address
    token = form_csrf(session, f"{site}{path}")
    return session.post(
        f"{site}{path}",
        data={**data, "csrfmiddlewaretoken": token},
        headers=headers,
        timeout=10,
        allow_redirects=False,
    )


def sign_up(site: str, username: str, address: str, email: str = "") -> requests.Response:
    fields = {"username": username, "email": email, "password1": RIGHT, "password2": RIGHT}
    return post_form(requests.Session(), site, "/account/signup/", fields, address)


def api_me(site: str, key: str) -> int:
    return requests.get(f"{site}/api/me/", headers={"Authorization": f"Token {key}"}, timeout=10).status_code


# ----- Sign-up ---------------------------------------------------------------------------------------------------


def test_sign_ups_from_one_address_are_cut_at_the_limit_and_another_address_still_signs_up(
    site: str, behind_one_proxy
) -> None:
    limit = settings.SIGNUPS_PER_HOUR
    answers = [sign_up(site, f"sock{n}", "198.51.100.7") for n in range(25)]
    statuses = [answer.status_code for answer in answers]
    assert statuses == [302] * limit + [429] * (25 - limit), statuses
    refused = answers[-1]
    assert "Too many new accounts from your address" in refused.text
    assert 0 < int(refused.headers["Retry-After"]) <= 3600
    assert User.objects.filter(username__startswith="sock").count() == limit
    # Someone else, behind another address, signs up as usual.
    assert sign_up(site, "neighbour", "203.0.113.20").status_code == 302
    assert User.objects.filter(username="neighbour").exists()


# ----- Log-in lock-out -------------------------------------------------------------------------------------------


def test_guessing_from_many_addresses_never_locks_the_owner_out_staff_included(site: str, behind_one_proxy) -> None:
    User.objects.create_user("admin", "admin@example.org", RIGHT, is_staff=True, is_superuser=True)
    limit = settings.AXES_FAILURE_LIMIT
    for n in range(10):  # ten addresses, each guessing until it is itself locked out
        answers = [attempt(site, "admin", f"guess-{n}-{g}", address=f"198.51.100.{n + 1}") for g in range(limit)]
        assert [a.status_code for a in answers] == [200] * (limit - 1) + [429]
    # Still hammering from the first address: refused, the right password included.
    assert attempt(site, "admin", RIGHT, address="198.51.100.1").status_code == 429

    # The owner, from an address of their own, gets in: the site's form and the admin's.
    owner = requests.Session()
    assert attempt(site, "admin", RIGHT, address="203.0.113.77", session=owner).status_code == 302
    assert signed_in_as(owner, site)
    admin = requests.Session()
    answer = attempt(site, "admin", RIGHT, address="203.0.113.78", path="/admin/login/", session=admin)
    assert answer.status_code == 302
    assert admin.get(f"{site}/admin/", timeout=10, allow_redirects=False).status_code == 200


# ----- A new password ends every other way in --------------------------------------------------------------------


def _intruder_holds(site: str, username: str) -> tuple[requests.Session, list[str]]:
    """An intruder who got in: a session of their own and two API tokens."""
    user = User.objects.get(username=username)
    keys = [do_create_token(user, name)[1] for name in ("intruder-1", "intruder-2")]
    session = log_in(site, username, RIGHT)
    assert signed_in_as(session, site) and all(api_me(site, key) == 200 for key in keys)
    return session, keys


def test_a_password_change_ends_the_other_sessions_and_revokes_every_token(site: str) -> None:
    User.objects.create_user("frank", "frank@example.org", RIGHT)
    intruder, keys = _intruder_holds(site, "frank")
    owner = log_in(site, "frank", RIGHT)
    fields = {"old_password": RIGHT, "new_password1": NEW_PASSWORD, "new_password2": NEW_PASSWORD}
    changed = post_form(owner, site, "/account/password/", fields)
    assert changed.status_code == 302
    done = owner.get(f"{site}{changed.headers['Location']}", timeout=10)
    assert "all your API tokens were revoked" in done.text

    assert signed_in_as(owner, site)  # the session that changed it stays
    assert not signed_in_as(intruder, site)
    assert [api_me(site, key) for key in keys] == [401, 401]
    tokens_page = owner.get(f"{site}/account/tokens/", timeout=10).text
    assert "Changing or resetting your password revokes every token" in tokens_page
    assert "No tokens yet." in tokens_page


def test_a_password_reset_ends_every_session_and_revokes_every_token(site: str) -> None:
    User.objects.create_user("gina", "gina@example.org", RIGHT)
    intruder, keys = _intruder_holds(site, "gina")
    mail.outbox.clear()
    owner = requests.Session()
    asked = post_form(owner, site, "/account/password-reset/", {"email": "gina@example.org"})
    assert asked.status_code == 302 and len(mail.outbox) == 1
    assert "revokes all its API tokens" in mail.outbox[0].body
    link = RESET_LINK.search(mail.outbox[0].body).group(1)
    form_page = owner.get(f"{site}{link}", timeout=10)
    path = form_page.url.removeprefix(site)
    done = post_form(owner, site, path, {"new_password1": NEW_PASSWORD, "new_password2": NEW_PASSWORD})
    assert done.status_code == 302
    complete = owner.get(f"{site}{done.headers['Location']}", timeout=10)
    assert "all your API tokens were revoked" in complete.text

    assert not signed_in_as(intruder, site)
    assert [api_me(site, key) for key in keys] == [401, 401]
    assert not ApiToken.objects.filter(user__username="gina").exists()


def test_a_token_cannot_create_a_token(site: str, signed_in) -> None:
    signed_in("hank")
    key = do_create_token(User.objects.get(username="hank"), "stolen")[1]
    answer = requests.post(
        f"{site}/api/tokens/", json={"name": "backdoor"}, headers={"Authorization": f"Token {key}"}, timeout=10
    )
    assert answer.status_code == 403
    assert answer.json()["error"]["code"] == "session_required"
    assert list(ApiToken.objects.filter(user__username="hank").values_list("name", flat=True)) == ["stolen"]


# ----- Password-reset mail ---------------------------------------------------------------------------------------


def test_reset_requests_are_limited_per_address_and_per_recipient(site: str, behind_one_proxy) -> None:
    User.objects.create_user("ivy", "ivy@example.org", RIGHT)
    mail.outbox.clear()
    per_address = settings.PASSWORD_RESETS_PER_HOUR
    answers = [
        post_form(requests.Session(), site, "/account/password-reset/", {"email": "ivy@example.org"}, "192.0.2.5")
        for _ in range(15)
    ]
    assert [a.status_code for a in answers] == [302] * per_address + [429] * (15 - per_address)
    assert "Too many password-reset requests from your address" in answers[-1].text
    assert 0 < int(answers[-1].headers["Retry-After"]) <= 3600
    assert len(mail.outbox) == settings.MAILS_PER_RECIPIENT_PER_HOUR

    # From fifteen addresses: every answer is the usual page, and the inbox gets no more.
    for n in range(15):
        asked = post_form(
            requests.Session(), site, "/account/password-reset/", {"email": "ivy@example.org"}, f"192.0.2.{n + 10}"
        )
        assert asked.status_code == 302 and asked.headers["Location"] == "/account/password-reset/sent/"
    assert len(mail.outbox) == settings.MAILS_PER_RECIPIENT_PER_HOUR
    assert {tuple(message.to) for message in mail.outbox} == {("ivy@example.org",)}


# ----- E-mail verification ---------------------------------------------------------------------------------------


@pytest.fixture
def verification_required(settings) -> None:
    settings.REQUIRE_EMAIL_VERIFICATION = True


def _upload(site: str, key: str, path: str = "/api/bots/") -> requests.Response:
    fields = {"game": "love_letter", "name": "fresh"} if path == "/api/bots/" else {}
    return requests.post(
        f"{site}{path}",
        data=fields,
        files={"file": ("main.py", EXAMPLE_BOT)},
        headers={"Authorization": f"Token {key}"},
        timeout=60,
    )


def test_an_unverified_user_cannot_upload_until_the_mailed_link_is_followed(site: str, verification_required) -> None:
    mail.outbox.clear()
    session = requests.Session()
    fields = {"username": "june", "email": "june@example.org", "password1": RIGHT, "password2": RIGHT}
    assert post_form(session, site, "/account/signup/", fields).status_code == 302
    assert [message.to for message in mail.outbox] == [["june@example.org"]]
    link = VERIFY_LINK.search(mail.outbox[0].body).group(1)
    key = do_create_token(User.objects.get(username="june"), "script")[1]

    refused = _upload(site, key)
    assert refused.status_code == 403
    error = refused.json()["error"]
    assert error["code"] == "email_unverified" and "/account/verify-email/" in error["message"]
    page = session.get(f"{site}/bots/new/", timeout=10)
    assert page.status_code == 403 and "Verify your e-mail address first" in page.text
    assert not Bot.objects.filter(owner__username="june").exists()

    changed = "y" if link[-3] == "x" else "x"  # (one character changed: never the same one, 1 run in 64 before)
    tampered = requests.get(f"{site}{link[:-3]}{changed}{link[-2:]}", timeout=10)
    assert tampered.status_code == 400 and "This link does not work" in tampered.text
    assert _upload(site, key).status_code == 403

    followed = requests.get(f"{site}{link}", timeout=10)
    assert followed.status_code == 200 and "june@example.org is verified" in followed.text
    assert _upload(site, key).status_code == 201
    assert session.get(f"{site}/bots/new/", timeout=10).status_code == 200


def test_an_expired_link_is_refused_and_a_new_one_can_be_asked_for(
    site: str, verification_required, monkeypatch
) -> None:
    user = User.objects.create_user("kate", "kate@example.org", RIGHT)
    now = time.time()
    monkeypatch.setattr(signing.time, "time", lambda: now - settings.EMAIL_VERIFICATION_TIMEOUT - 60)
    old_key = verification_key(user)
    monkeypatch.undo()
    expired = requests.get(f"{site}/account/verify-email/{old_key}/", timeout=10)
    assert expired.status_code == 400 and "This verification link has expired" in expired.text

    session = log_in(site, "kate", RIGHT)
    mail.outbox.clear()
    for _ in range(5):  # asked again and again: the inbox gets MAILS_PER_RECIPIENT_PER_HOUR links
        assert post_form(session, site, "/account/verify-email/", {}).status_code == 302
    assert len(mail.outbox) == settings.MAILS_PER_RECIPIENT_PER_HOUR
    link = VERIFY_LINK.search(mail.outbox[-1].body).group(1)
    assert requests.get(f"{site}{link}", timeout=10).status_code == 200
    assert "kate@example.org is verified" in session.get(f"{site}/account/verify-email/", timeout=10).text


def test_an_unverified_owner_cannot_upload_a_new_version(site: str, settings) -> None:
    owner = User.objects.create_user("lena", "lena@example.org", RIGHT)
    bot = do_create_bot(owner, "love_letter", "older", EXAMPLE_BOT, "main.py")  # uploaded before it was required
    key = do_create_token(owner, "script")[1]
    settings.REQUIRE_EMAIL_VERIFICATION = True
    refused = _upload(site, key, f"/api/bots/{bot.pk}/versions/")
    assert refused.status_code == 403 and refused.json()["error"]["code"] == "email_unverified"
    session = log_in(site, "lena", RIGHT)
    token = form_csrf(session, f"{site}/bots/{bot.pk}/")
    page = session.post(
        f"{site}/bots/{bot.pk}/versions/",
        data={"csrfmiddlewaretoken": token},
        files={"file": ("main.py", EXAMPLE_BOT)},
        headers={"Referer": f"{site}/bots/{bot.pk}/"},
        timeout=60,
    )
    assert page.status_code == 403 and "Verify your e-mail address first" in page.text
    assert bot.versions.count() == 1
