"""A newcomer's first steps, as the site answers them (the browser's side is tests/browser/test_first_steps.py):
the home page says in words what a missing Elo means (stumble 14) and that you can play the bots yourself (41);
sign-up ends on the next steps, or on the page the person was going to (13); the upload form opens on the game of
the kit the person downloaded (18); the first-bot page reads for who is reading it (40); a new token comes with copy
buttons (39)."""

from __future__ import annotations

import re

from django.contrib.auth.models import User
from django.test import Client

from league.bots.models import Bot, BotVersion
from league.ratings.models import Rating
from league.site.forms import KIT_GAME_COOKIE

PASSWORD = "a long enough passphrase 42"


def _ranked_unfitted_bot() -> Bot:
    owner = User.objects.create(username="house")
    bot = Bot.objects.create(owner=owner, game="love_letter", name="fresh")
    BotVersion.objects.create(bot=bot, number=1, builtin="random", status=BotVersion.Status.READY)
    Rating.objects.create(bot=bot, elo=1512, games=3)  # ranked (it has played), but not fitted yet
    return bot


def test_the_home_page_says_in_words_that_a_bot_gets_its_elo_soon(client: Client, db) -> None:
    _ranked_unfitted_bot()
    page = client.get("/").content.decode().replace("<wbr>", "")  # (a name may break after its owner's "/")
    assert "house/fresh" in page
    assert "not fitted" not in page and "fitted" not in page.lower()
    assert '<span class="muted small elo-soon">Elo soon</span>' in page
    assert "its Elo is worked out from all of them once a minute" in page


def test_the_home_page_says_nothing_of_the_kind_when_no_bot_waits_for_its_elo(client: Client, db) -> None:
    assert "Elo soon" not in client.get("/").content.decode()


def test_the_home_page_says_you_can_play_the_bots_yourself(client: Client, alice) -> None:
    sentence = '<p id="play-them">You can also play the bots yourself, at a table in your browser'
    link = '<a class="button secondary" href="/play/">Play against the bots</a>'
    page = client.get("/").content.decode()
    assert sentence in page and link in page and "once you have an account" in page
    client.force_login(alice)
    page = client.get("/").content.decode()
    assert sentence in page and link in page and "once you have an account" not in page


def _sign_up(client: Client, username: str, **extra: str) -> object:
    fields = {"username": username, "email": "", "password1": PASSWORD, "password2": PASSWORD, **extra}
    return client.post("/account/signup/", fields)


def test_sign_up_ends_on_the_next_steps(client: Client, db, settings) -> None:
    settings.REQUIRE_EMAIL_VERIFICATION = False
    response = _sign_up(client, "newcomer")
    assert response.status_code == 302 and response["Location"] == "/account/welcome/"
    page = client.get("/account/welcome/")
    assert page.status_code == 200 and "private" in page["Cache-Control"]
    html = page.content.decode()
    assert "Welcome to Parlour, newcomer" in html
    steps = html[html.index('id="next-steps"') :]
    for link in ('href="/first-bot/"', 'href="/bots/new/"', 'href="/account/tokens/"', 'href="/play/"'):
        assert link in steps, link
    assert "Follow the link we mailed" not in html


def test_the_next_steps_say_to_verify_the_address_first_when_the_league_asks_for_it(
    client: Client, db, settings
) -> None:
    settings.REQUIRE_EMAIL_VERIFICATION = True
    response = _sign_up(client, "careful", email="careful@example.org")
    assert response["Location"] == "/account/welcome/"
    html = client.get("/account/welcome/").content.decode()
    assert "Follow the link we mailed to careful@example.org" in html and 'href="/account/verify-email/"' in html


def test_the_next_steps_are_for_signed_in_people(client: Client, db) -> None:
    response = client.get("/account/welcome/")
    assert response.status_code == 302 and response["Location"].startswith("/account/login/")


def test_sign_up_from_the_log_in_page_goes_on_to_where_the_person_was_going(client: Client, db, settings) -> None:
    settings.REQUIRE_EMAIL_VERIFICATION = False
    to_login = client.get("/bots/new/?game=ten")
    assert to_login.status_code == 302
    login_page = client.get(to_login["Location"]).content.decode()
    signup_link = re.search(r'New here\? <a href="([^"]+)">Sign up</a>', login_page)
    assert signup_link and signup_link.group(1) == "/account/signup/?next=/bots/new/%3Fgame%3Dten"
    form = client.get(signup_link.group(1).replace("%3F", "?").replace("%3D", "=")).content.decode()
    assert '<input type="hidden" name="next" value="/bots/new/?game=ten">' in form
    response = _sign_up(client, "goer", next="/bots/new/?game=ten")
    assert response["Location"] == "/bots/new/?game=ten"
    assert '<option value="ten" selected>' in client.get(response["Location"]).content.decode()


def test_sign_up_never_sends_the_person_to_another_site(client: Client, db, settings) -> None:
    settings.REQUIRE_EMAIL_VERIFICATION = False
    response = _sign_up(client, "safe", next="https://elsewhere.example/phish")
    assert response["Location"] == "/account/welcome/"
    assert "elsewhere" not in client.get("/account/signup/?next=//elsewhere.example/").content.decode()


def _selected_game(client: Client, path: str = "/bots/new/") -> str:
    html = client.get(path).content.decode()
    found = re.search(r'<option value="(\w+)" selected>', html)
    return found.group(1) if found else "(the first)"


def test_the_upload_form_opens_on_the_game_of_the_kit_downloaded(client: Client, alice) -> None:
    client.force_login(alice)
    assert _selected_game(client) == "(the first)"
    kit = client.get("/games/love_letter/starter.zip")
    cookie = kit.cookies[KIT_GAME_COOKIE]
    assert cookie.value == "love_letter" and cookie["httponly"] and cookie["samesite"] == "Lax"
    assert _selected_game(client) == "love_letter"
    assert _selected_game(client, "/bots/new/?game=ranczo") == "ranczo"  # a link that names its game wins
    # Only a game of this league is taken from the cookie.
    client.cookies[KIT_GAME_COOKIE] = "chess"
    assert _selected_game(client) == "(the first)"


def test_a_game_reference_links_to_the_upload_form_on_its_game(client: Client, db) -> None:
    assert 'href="/bots/new/?game=high_society"' in client.get("/games/high_society/reference/").content.decode()


def test_the_first_bot_page_does_not_ask_a_signed_in_reader_to_sign_up(client: Client, alice) -> None:
    anonymous = client.get("/first-bot/").content.decode()
    assert 'href="/account/signup/">Sign up</a>' in anonymous and "You are signed in" not in anonymous
    assert '<a href="/account/tokens/">API tokens</a>' in anonymous
    client.force_login(alice)
    response = client.get("/first-bot/")
    signed_in = response.content.decode()
    assert "/account/signup/" not in signed_in.split("<main", 1)[1]
    assert "You are signed in" in signed_in and '<a href="/account/tokens/">API tokens</a>' in signed_in
    assert "<!--" not in signed_in.split("<main", 1)[1]
    assert "private" in response["Cache-Control"]  # a shared cache must not hand it to the next visitor
    # The numbered steps stay one list: the guide's markers leave no gap in it.
    assert re.search(r"<ol>\s*<li>You are signed in", signed_in)


def test_a_new_token_comes_with_copy_buttons(client: Client, alice) -> None:
    client.force_login(alice)
    html = client.post("/account/tokens/", {"name": "laptop"}).content.decode()
    assert 'data-copy="new-key"' in html and 'data-copy="new-curl"' in html
    assert 'src="/static/league/copy.js"' in html
    assert "data-copy" not in client.get("/account/tokens/").content.decode()  # no key shown, nothing to copy
