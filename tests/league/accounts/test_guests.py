"""Guests (issue 32): someone not signed in sits at a table without an account; a guest may only play, and is
deleted with their tables GUEST_HOURS later (league/accounts/guests.py)."""

from __future__ import annotations

from datetime import timedelta

from django.contrib.auth.models import User
from django.test import Client
from django.utils import timezone

from league.accounts.guests import do_delete_expired_guests, is_guest
from league.accounts.models import Guest
from league.bots.services import do_create_bot
from league.core.errors import ServiceError
from league.tables.models import Table


def _sit(client: Client, game: str = "love_letter") -> object:
    return client.post("/play/", {"game": game, "players": 2})


def test_someone_not_signed_in_sits_as_a_guest_and_plays(db) -> None:
    client = Client()
    page = client.get("/play/?game=love_letter")
    assert page.status_code == 200 and "No account needed" in page.content.decode()
    response = _sit(client)
    assert response.status_code == 302 and response["Location"].startswith("/tables/")
    table = Table.objects.get()
    assert table.owner.username.startswith("guest-") and is_guest(table.owner)
    assert not table.owner.has_usable_password()
    assert client.get(response["Location"]).context["view"]["role"] == "person"  # signed in as the guest
    assert not is_guest(User.objects.create_user("alice"))


def test_a_guest_may_not_upload_nor_create_tokens(db, example_bot_source: bytes) -> None:
    client = Client()
    _sit(client)
    guest = Table.objects.get().owner
    for path in ("/bots/new/", "/account/tokens/"):
        page = client.get(path)
        assert page.status_code == 403 and "Sign up" in page.content.decode(), path
    refused = client.post("/account/tokens/", {"name": "mine"})
    assert refused.status_code == 403 and not guest.api_tokens.exists()
    try:
        do_create_bot(guest, "love_letter", "sneaky", example_bot_source, "bot.py")
    except ServiceError as error:
        assert error.status == 403 and "guests may only play" in error.message
    else:
        raise AssertionError("a guest uploaded a bot")


def test_guests_from_one_address_are_limited(db, settings) -> None:
    settings.GUESTS_PER_HOUR = 2
    answers = [_sit(Client(REMOTE_ADDR="203.0.113.9")).status_code for _ in range(3)]
    assert answers == [302, 302, 429]
    assert Guest.objects.count() == 2
    assert _sit(Client(REMOTE_ADDR="203.0.113.10")).status_code == 302  # another address


def test_expired_guests_go_with_their_tables(db, settings) -> None:
    settings.GUEST_HOURS = 24
    old, new = Client(), Client()
    _sit(old)
    _sit(new)
    first = Table.objects.order_by("pk").first()
    assert first is not None
    Guest.objects.filter(user=first.owner).update(created=timezone.now() - timedelta(hours=25))
    assert do_delete_expired_guests() == 1
    assert Table.objects.count() == 1 and not User.objects.filter(pk=first.owner_id).exists()
    assert do_delete_expired_guests() == 0
