"""The security suite attacks a live server (pytest-django's, over real sockets) as a hostile stranger would: real
multipart uploads, the real login form, real headers. ``requests`` speaks HTTP exactly as a script on the internet
would, so nothing here goes through Django's test client."""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest
import requests
from django.contrib.auth.models import User

CSRF_INPUT = re.compile(r'name="csrfmiddlewaretoken" value="([^"]+)"')


@pytest.fixture
def site(live_server, transactional_db) -> str:
    """The live server's base URL, without a trailing slash."""
    return live_server.url.rstrip("/")


@pytest.fixture
def stranger() -> requests.Session:
    """An anonymous visitor: no cookies, no credentials."""
    return requests.Session()


def form_csrf(session: requests.Session, url: str) -> str:
    """The CSRF token of the form on ``url``, as a browser would read it (and the cookie it sets on the session)."""
    page = session.get(url, timeout=10)
    match = CSRF_INPUT.search(page.text)
    assert match, f"no CSRF token on {url} ({page.status_code})"
    return match.group(1)


def log_in(site: str, username: str, password: str) -> requests.Session:
    """A session signed in through the real login form."""
    session = requests.Session()
    token = form_csrf(session, f"{site}/account/login/")
    answer = session.post(
        f"{site}/account/login/",
        data={"username": username, "password": password, "csrfmiddlewaretoken": token},
        headers={"Referer": f"{site}/account/login/"},
        timeout=10,
        allow_redirects=False,
    )
    assert answer.status_code == 302, f"login as {username} answered {answer.status_code}"
    return session


def log_in_for_api(site: str, username: str, password: str) -> requests.Session:
    """Signed in through the login form, sending its CSRF token with each request as the site's pages do: what the API
    asks of a session (tokens are created by a signed-in session, never by a token: docs/api.md)."""
    session = log_in(site, username, password)
    session.headers.update({"X-CSRFToken": session.cookies["csrftoken"], "Referer": f"{site}/"})
    return session


@pytest.fixture
def signed_in(site: str) -> Callable[[str], requests.Session]:
    """``signed_in("mallory")``: a new user, signed in through the login form."""

    def sign_in(username: str, password: str = "correct horse battery") -> requests.Session:
        User.objects.create_user(username, f"{username}@example.org", password)
        return log_in(site, username, password)

    return sign_in
