"""Fair use: a stranger with an account cannot flood the league with uploads (issue #18, finding 9: 40 bots in 0.8 s
and 30 versions in 2 s were all accepted). Real multipart uploads to the live server, through the API and the web
forms, with the default limits: 20 bots per user, 30 uploads per user and 10 versions of a bot in any hour."""

from __future__ import annotations

import html
from datetime import timedelta

import requests
from django.contrib.auth.models import User
from django.utils import timezone

from league.accounts.tokens import do_create_token
from league.bots.models import Bot, BotVersion
from league.bots.services import do_add_version, do_create_bot
from tests.conftest import EXAMPLE_BOT
from tests.security.conftest import form_csrf


def _api(username: str, staff: bool = False) -> requests.Session:
    """A session that speaks to the API with a new user's token, as a script would."""
    user = User.objects.create_user(username, f"{username}@example.org", "correct horse battery", is_staff=staff)
    session = requests.Session()
    session.headers["Authorization"] = f"Token {do_create_token(user, 'script')[1]}"
    return session


def _new_bot(session: requests.Session, site: str, name: str) -> requests.Response:
    return session.post(
        f"{site}/api/bots/",
        data={"game": "love_letter", "name": name},
        files={"file": ("main.py", EXAMPLE_BOT, "text/x-python")},
        timeout=10,
    )


def _new_version(session: requests.Session, site: str, bot_id: int) -> requests.Response:
    return session.post(
        f"{site}/api/bots/{bot_id}/versions/", files={"file": ("main.py", EXAMPLE_BOT, "text/x-python")}, timeout=10
    )


def _assert_rate_limited(answer: requests.Response, most: int) -> dict:
    """429 in the API's error shape, with Retry-After equal to retry_after_seconds, at most ``most`` seconds."""
    assert answer.status_code == 429, answer.text
    assert answer.headers["Content-Type"].startswith("application/json")
    error = answer.json()["error"]
    assert error["code"] == "rate_limited" and error["message"]
    assert int(answer.headers["Retry-After"]) == error["retry_after_seconds"]
    assert 1 <= error["retry_after_seconds"] <= most
    return error


def test_a_user_owns_at_most_twenty_bots(site) -> None:
    mallory = _api("mallory")
    answers = [_new_bot(mallory, site, f"spam{n}") for n in range(25)]
    assert [a.status_code for a in answers] == [201] * 20 + [403] * 5
    error = answers[-1].json()["error"]
    assert error["code"] == "too_many_bots" and "the limit is 20" in error["message"]
    assert Bot.objects.filter(owner__username="mallory").count() == 20


def test_ten_versions_of_a_bot_an_hour_then_429_until_the_oldest_leaves_the_hour(site) -> None:
    mallory = _api("mallory")
    bot_id = _new_bot(mallory, site, "churn").json()["id"]
    answers = [_new_version(mallory, site, bot_id) for _ in range(12)]
    assert [a.status_code for a in answers] == [201] * 9 + [429] * 3
    error = _assert_rate_limited(answers[-1], 3600)
    assert error["retry_after_seconds"] > 3500 and "10 versions of churn" in error["message"]
    assert BotVersion.objects.filter(bot_id=bot_id).count() == 10
    # Retry-After counts down to the moment the oldest counted upload leaves the hour.
    oldest = BotVersion.objects.filter(bot_id=bot_id).order_by("created").first()
    BotVersion.objects.filter(pk=oldest.pk).update(created=timezone.now() - timedelta(seconds=3600 - 30))
    _assert_rate_limited(_new_version(mallory, site, bot_id), 30)
    BotVersion.objects.filter(pk=oldest.pk).update(created=timezone.now() - timedelta(seconds=3601))
    assert _new_version(mallory, site, bot_id).status_code == 201


def test_thirty_uploads_an_hour_over_all_of_a_users_bots(site) -> None:
    mallory = _api("mallory")
    for n in range(3):
        bot_id = _new_bot(mallory, site, f"bot{n}").json()["id"]
        assert all(_new_version(mallory, site, bot_id).status_code == 201 for _ in range(9))
    # 30 uploads this hour: neither a new bot nor a version of any bot is taken.
    error = _assert_rate_limited(_new_bot(mallory, site, "one-more"), 3600)
    assert "30 uploads of yours in the last hour; the limit is 30 an hour" in error["message"]
    _assert_rate_limited(_new_version(mallory, site, bot_id), 3600)
    assert BotVersion.objects.filter(bot__owner__username="mallory").count() == 30


def test_another_user_is_not_affected(site) -> None:
    mallory = _api("mallory")
    bot_id = _new_bot(mallory, site, "churn").json()["id"]
    while _new_version(mallory, site, bot_id).status_code == 201:
        pass
    _assert_rate_limited(_new_version(mallory, site, bot_id), 3600)
    alice = _api("alice")
    assert _new_bot(alice, site, "steady").status_code == 201
    assert _new_version(alice, site, Bot.objects.get(name="steady").pk).status_code == 201


def test_staff_are_exempt(site, settings) -> None:
    settings.FAIR_USE_VERSIONS_PER_BOT_PER_HOUR = 2
    staff = _api("steward", staff=True)
    bot_id = _new_bot(staff, site, "house").json()["id"]
    assert [_new_version(staff, site, bot_id).status_code for _ in range(3)] == [201] * 3


def test_the_web_forms_say_why_with_429_and_retry_after(site, signed_in) -> None:
    session = signed_in("mallory")
    token = form_csrf(session, f"{site}/bots/new/")

    def upload(name: str) -> requests.Response:
        return session.post(
            f"{site}/bots/new/",
            data={"game": "love_letter", "name": name, "csrfmiddlewaretoken": token},
            files={"file": ("main.py", EXAMPLE_BOT, "text/x-python")},
            headers={"Referer": f"{site}/bots/new/"},
            timeout=10,
            allow_redirects=False,
        )

    assert upload("first").status_code == 302
    bot = Bot.objects.get(name="first")
    # Ten versions of "first" in the hour (it was uploaded just now): the version form on its page says so.
    for _ in range(9):
        do_add_version(bot, EXAMPLE_BOT, "main.py")
    page = f"{site}/bots/{bot.pk}/"
    answer = session.post(
        f"{page}versions/",
        data={"csrfmiddlewaretoken": form_csrf(session, page)},
        files={"file": ("main.py", EXAMPLE_BOT, "text/x-python")},
        headers={"Referer": page},
        timeout=10,
        allow_redirects=False,
    )
    assert answer.status_code == 429 and 3500 < int(answer.headers["Retry-After"]) <= 3600
    text = html.unescape(answer.text)
    assert "Upload refused: 10 versions of first in the last hour; the limit is 10 an hour" in text
    assert BotVersion.objects.filter(bot=bot).count() == 10
    # Thirty uploads in the hour over all bots: the new-bot form says so too.
    for n in range(2):
        other = do_create_bot(bot.owner, "love_letter", f"other{n}", EXAMPLE_BOT, "main.py")
        for _ in range(9):
            do_add_version(other, EXAMPLE_BOT, "main.py")
    answer = upload("thirty-first")
    assert answer.status_code == 429 and 3500 < int(answer.headers["Retry-After"]) <= 3600
    assert "30 uploads of yours in the last hour; the limit is 30 an hour" in html.unescape(answer.text)
    assert not Bot.objects.filter(name="thirty-first").exists()


def test_the_new_bot_form_refuses_a_twenty_first_bot(site, signed_in) -> None:
    session = signed_in("mallory")
    owner = User.objects.get(username="mallory")
    for n in range(20):
        do_create_bot(owner, "love_letter", f"bot{n}", EXAMPLE_BOT, "main.py")
    answer = session.post(
        f"{site}/bots/new/",
        data={"game": "love_letter", "name": "extra", "csrfmiddlewaretoken": form_csrf(session, f"{site}/bots/new/")},
        files={"file": ("main.py", EXAMPLE_BOT, "text/x-python")},
        headers={"Referer": f"{site}/bots/new/"},
        timeout=10,
        allow_redirects=False,
    )
    assert answer.status_code == 403 and "Retry-After" not in answer.headers
    assert "you have 20 bots; the limit is 20 per user" in html.unescape(answer.text)
    assert not Bot.objects.filter(name="extra").exists()
