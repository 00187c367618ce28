from __future__ import annotations

from django.core.cache import caches
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client

from league.bots.models import Bot
from league.bots.services import do_create_bot, do_record_validation, do_register_builtin_bots
from league.ratings.models import Rating


def test_the_home_page_lists_every_game(client: Client, db) -> None:
    do_register_builtin_bots()
    response = client.get("/")
    assert response.status_code == 200
    assert b"Love Letter" in response.content and b"/games/love_letter/" in response.content
    # The house bots have not played yet: not ranked, so not in the top fives (the point of issue #19's finding 1).
    assert b"parlour/heuristic" not in response.content
    Rating.objects.filter(bot__name="heuristic", bot__game="love_letter").update(games=1)
    caches["pages"].clear()  # a rating written by hand, not by a recorded match: the fingerprint cannot see it
    assert b"parlour/heuristic" in client.get("/").content.replace(b"<wbr>", b"")  # (a name may break after the "/")


def test_the_leaderboard_lists_bots_with_elo(client: Client, db) -> None:
    do_register_builtin_bots()
    Rating.objects.filter(bot__name="heuristic", bot__game="love_letter").update(games=1, elo=1517)
    response = client.get("/games/love_letter/")
    html = response.content.decode()
    assert response.status_code == 200 and "not fitted yet" in html  # ranked, before the first fit
    assert "parlour/random" in html[html.index("Not ranked yet") :]  # ready, never played: listed apart
    assert client.get("/games/chess/").status_code == 404


def test_a_user_signs_up_and_uploads_a_bot_through_the_form(client: Client, db, example_bot_source: bytes) -> None:
    response = client.post(
        "/account/signup/",
        {"username": "dora", "password1": "a long pass phrase", "password2": "a long pass phrase"},
    )
    assert response.status_code == 302
    response = client.post(
        "/bots/new/",
        {"game": "love_letter", "name": "first", "file": SimpleUploadedFile("bot.py", example_bot_source)},
    )
    bot = Bot.objects.get(name="first")
    assert response.status_code == 302 and response.url == f"/bots/{bot.pk}/"
    page = client.get(response.url)
    assert b"pending" in page.content and b"Upload a new version" in page.content


def test_a_bad_upload_through_the_form_shows_the_reason(client: Client, alice) -> None:
    client.force_login(alice)
    response = client.post(
        "/bots/new/", {"game": "love_letter", "name": "bad", "file": SimpleUploadedFile("bot.txt", b"hello")}
    )
    assert response.status_code == 400 and b"a single Python file" in response.content
    assert not Bot.objects.exists()


def test_the_upload_page_needs_a_login(client: Client, db) -> None:
    assert client.get("/bots/new/").status_code == 302


def test_a_token_is_shown_once_and_can_be_revoked(client: Client, alice) -> None:
    client.force_login(alice)
    response = client.post("/account/tokens/", {"name": "laptop"})
    assert b"plr_" in response.content
    token = alice.api_tokens.get()
    assert b"plr_" not in client.get("/account/tokens/").content.replace(token.prefix.encode(), b"")
    client.post(f"/account/tokens/{token.pk}/revoke/")
    assert not alice.api_tokens.exists()


def test_a_bot_page_hides_stderr_from_other_users(client: Client, alice, bob) -> None:
    bot = do_create_bot(alice, "love_letter", "b", b"pass\n", "bot.py")
    do_record_validation(bot.versions.get().pk, False, "crashed", "SECRET-TRACE")
    client.force_login(bob)
    assert b"SECRET-TRACE" not in client.get(f"/bots/{bot.pk}/").content
    client.force_login(alice)
    assert b"SECRET-TRACE" in client.get(f"/bots/{bot.pk}/").content
