"""Accounts, headers and deployment (docs/security.md), attacked over real sockets: password guessing through the
real log-in form until the lock-out, the password reset by e-mail end to end, the Content-Security-Policy of every
kind of page, and `manage.py check --deploy` with the production example's environment."""

from __future__ import annotations

import os
import re
import secrets
import subprocess
import sys
from pathlib import Path

import pytest
import requests
from django.conf import settings
from django.contrib.auth.models import User
from django.core import mail

from games.registry import GAMES
from league.bots.models import Bot
from league.bots.services import do_register_builtin_bots
from league.tournaments.services import do_create_tournament, do_start_tournament
from tests.browser.recorded import record_match
from tests.security.conftest import form_csrf, log_in

ROOT = Path(__file__).resolve().parents[2]
RIGHT = "correct horse battery"
LOCKED_MESSAGE = "Too many failed log-ins"


def attempt(
    site: str,
    username: str,
    password: str,
    address: str | None = None,
    path: str = "/account/login/",
    session: requests.Session | None = None,
) -> requests.Response:
    """One try at the log-in form, as a fresh visitor (from ``address``, as a trusted proxy would report it)."""
    session = session or requests.Session()
    headers = {"Referer": f"{site}{path}"}
    if address:
        headers["X-Forwarded-For"] = address
    token = form_csrf(session, f"{site}{path}")
    answer = session.post(
        f"{site}{path}",
        data={"username": username, "password": password, "csrfmiddlewaretoken": token, "next": "/"},
        headers=headers,
        timeout=10,
        allow_redirects=False,
    )
    return answer


def signed_in_as(session: requests.Session, site: str) -> bool:
    return session.get(f"{site}/account/tokens/", timeout=10, allow_redirects=False).status_code == 200


@pytest.fixture
def behind_one_proxy(settings) -> None:
    """The deployment of .env.production.example: one reverse proxy that appends the client's address to
    X-Forwarded-For. The tests play the proxy, so each request can come from an address of their choosing."""
    settings.TRUSTED_PROXY_COUNT = 1


# ----- Log-in throttling ---------------------------------------------------------------------------------------


def test_one_address_guessing_over_many_accounts_is_locked_out_of_all_of_them(site: str, behind_one_proxy) -> None:
    User.objects.create_user("carol", "carol@example.org", RIGHT)
    limit = settings.AXES_FAILURE_LIMIT
    stranger = "192.0.2.66"
    answers = [attempt(site, f"user{n}", "password1", address=stranger).status_code for n in range(limit)]
    assert answers[-1] == 429 and set(answers[:-1]) == {200}, answers

    # carol's right password, typed from the stranger's address, is refused...
    refused = attempt(site, "carol", RIGHT, address=stranger)
    assert refused.status_code == 429 and LOCKED_MESSAGE in refused.text
    # ...and carol herself, from her own address, logs in.
    assert attempt(site, "carol", RIGHT, address="203.0.113.9").status_code == 302


def test_without_a_proxy_a_forged_forwarded_for_header_is_ignored(site: str) -> None:
    """TRUSTED_PROXY_COUNT is 0 (`make run`): X-Forwarded-For is the client's own word and is not believed, so a
    stranger cannot dodge the per-address count by writing a new address on every request."""
    limit = settings.AXES_FAILURE_LIMIT
    answers = [attempt(site, f"user{n}", "password1", address=f"10.9.8.{n}").status_code for n in range(limit)]
    assert answers[-1] == 429, answers


def test_a_few_wrong_passwords_then_the_right_one_logs_in(site: str) -> None:
    User.objects.create_user("dave", "dave@example.org", RIGHT)
    for guess in range(settings.AXES_FAILURE_LIMIT - 1):
        assert attempt(site, "dave", f"typo-{guess}").status_code == 200
    assert signed_in_as(log_in(site, "dave", RIGHT), site)


# ----- Password reset by e-mail --------------------------------------------------------------------------------


RESET_LINK = re.compile(r"https?://[^/\s]+(/account/password-reset/[^/\s]+/[^/\s]+/)")


def test_password_reset_by_e_mail_end_to_end_also_lifts_the_lock(site: str, stranger: requests.Session) -> None:
    User.objects.create_user("erin", "erin@example.org", RIGHT)
    for guess in range(settings.AXES_FAILURE_LIMIT):
        attempt(site, "erin", f"guess-{guess}")
    assert attempt(site, "erin", RIGHT).status_code == 429

    login_page = stranger.get(f"{site}/account/login/", timeout=10).text
    assert 'href="/account/password-reset/"' in login_page
    mail.outbox.clear()
    token = form_csrf(stranger, f"{site}/account/password-reset/")
    asked = stranger.post(
        f"{site}/account/password-reset/",
        data={"email": "erin@example.org", "csrfmiddlewaretoken": token},
        headers={"Referer": f"{site}/account/password-reset/"},
        timeout=10,
    )
    assert asked.status_code == 200 and "Check your e-mail" in asked.text
    # An unknown address gets the same answer and no mail (nobody learns which addresses have accounts).
    token = form_csrf(stranger, f"{site}/account/password-reset/")
    unknown = stranger.post(
        f"{site}/account/password-reset/",
        data={"email": "nobody@example.org", "csrfmiddlewaretoken": token},
        headers={"Referer": f"{site}/account/password-reset/"},
        timeout=10,
    )
    assert unknown.status_code == 200 and "Check your e-mail" in unknown.text
    assert [message.to for message in mail.outbox] == [["erin@example.org"]]
    assert mail.outbox[0].subject == "Your Parlour password"

    link = RESET_LINK.search(mail.outbox[0].body).group(1)
    form_page = stranger.get(f"{site}{link}", timeout=10)  # Django swaps the token for a session and redirects
    assert form_page.status_code == 200 and "Choose a new password" in form_page.text
    new_password = "a brand new passphrase 42"
    token = form_csrf(stranger, form_page.url)
    done = stranger.post(
        form_page.url,
        data={"new_password1": new_password, "new_password2": new_password, "csrfmiddlewaretoken": token},
        headers={"Referer": form_page.url},
        timeout=10,
    )
    assert done.status_code == 200 and "Password changed" in done.text

    assert attempt(site, "erin", RIGHT).status_code == 200  # the old password is gone (and the lock with it)
    assert signed_in_as(log_in(site, "erin", new_password), site)
    # The link works once.
    again = requests.get(f"{site}{link}", timeout=10)
    assert "This link no longer works" in again.text


# ----- Content-Security-Policy ---------------------------------------------------------------------------------


def _directives(header: str) -> dict[str, list[str]]:
    parts = [part.strip().split() for part in header.split(";") if part.strip()]
    return {part[0]: part[1:] for part in parts}


def test_every_kind_of_page_has_a_strict_content_security_policy(site: str, signed_in) -> None:
    match = record_match("love_letter", players=3, seed=31)
    do_register_builtin_bots(["love_letter"])
    entrants = Bot.objects.filter(game="love_letter", is_builtin=True)
    cup = do_create_tournament(None, "love_letter", "Autumn cup", "knockout", {}, entrants)
    do_start_tournament(cup)
    pages = ["/", "/first-bot/", "/tournaments/", f"/tournaments/{cup.pk}/", f"/matches/{match.pk}/"]
    pages += [f"/games/{game_id}/" for game_id in GAMES] + [f"/bots/{entrants[0].pk}/"]
    pages += ["/account/login/", "/account/signup/", "/account/password-reset/", "/admin/login/", "/api/docs/"]
    pages += ["/account/tokens/", "/bots/new/", "/challenges/", "/no-such-page/"]
    member = signed_in("grace")
    for path in pages:
        answer = member.get(f"{site}{path}", timeout=20)
        assert answer.status_code in {200, 404}, (path, answer.status_code)
        policy = _directives(answer.headers["Content-Security-Policy"])
        assert policy["default-src"] == ["'self'"], path
        assert policy["script-src"] == ["'self'"] and policy["style-src"] == ["'self'"], (path, policy)
        assert policy["object-src"] == ["'none'"] and policy["frame-ancestors"] == ["'none'"], path
        assert "'unsafe-inline'" not in answer.headers["Content-Security-Policy"], path
        assert "<script>" not in answer.text and " style=" not in answer.text, path


def test_redoc_alone_allows_inline_styles_and_never_inline_scripts(site: str, stranger: requests.Session) -> None:
    policy = _directives(stranger.get(f"{site}/api/redoc/", timeout=10).headers["Content-Security-Policy"])
    assert policy["style-src"] == ["'self'", "'unsafe-inline'"]
    assert policy["worker-src"] == ["'self'", "blob:"]
    assert policy["script-src"] == ["'self'"] and policy["img-src"] == ["'self'", "data:"]


# ----- Production settings -------------------------------------------------------------------------------------


def _environment_of(example: Path, tmp_path: Path) -> dict[str, str]:
    env = {key: value for key, value in os.environ.items() if key in {"PATH", "HOME", "LANG", "PYTHONPATH"}}
    for line in example.read_text().splitlines():
        if line.strip() and not line.lstrip().startswith("#"):
            key, _, value = line.partition("=")
            env[key.strip()] = value.strip()
    env["PARLOUR_VAR_DIR"] = str(tmp_path)
    return env


def _check_deploy(env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_the_production_example_passes_the_deploy_check(tmp_path: Path) -> None:
    env = _environment_of(ROOT / ".env.production.example", tmp_path)
    assert env["SECRET_KEY"] == "", "the example must not ship a secret key"
    env["SECRET_KEY"] = secrets.token_urlsafe(50)  # what the operator generates, as the example says
    result = _check_deploy(env)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "no issues" in result.stdout


def test_the_development_defaults_fail_the_deploy_check(tmp_path: Path) -> None:
    """The same check without the production settings finds the four warnings of issue 18: it can fail."""
    env = _environment_of(ROOT / ".env.production.example", tmp_path)
    env["SECRET_KEY"] = secrets.token_urlsafe(50)
    for name in ["SECURE_HSTS_SECONDS", "SECURE_SSL_REDIRECT", "SESSION_COOKIE_SECURE", "CSRF_COOKIE_SECURE"]:
        env.pop(name)
    result = _check_deploy(env)
    assert result.returncode != 0
    for warning in ["security.W004", "security.W008", "security.W012", "security.W016"]:
        assert warning in result.stdout + result.stderr, warning
