"""/api/me/ and /api/tokens/: list, create (the key is shown once) and revoke, by session or by token."""

from __future__ import annotations

from django.contrib.auth.hashers import make_password
from django.contrib.auth.models import User
from rest_framework.test import APIClient

from league.accounts.models import ApiToken
from league.accounts.tokens import do_create_token


def test_me_with_a_token_and_with_a_session(alice: User, alice_api: APIClient) -> None:
    body = alice_api.get("/api/me/").json()
    assert body["username"] == "alice" and body["auth"] == "token" and body["tokens"] == 1
    session = APIClient()
    session.force_login(alice)
    assert session.get("/api/me/").json()["auth"] == "session"


def test_me_and_tokens_need_a_user(anon_api: APIClient) -> None:
    for url in ("/api/me/", "/api/tokens/"):
        response = anon_api.get(url)
        assert response.status_code == 401 and response.json()["error"]["code"] == "not_authenticated"


def test_a_new_token_is_shown_once_and_works(alice: User, alice_api: APIClient) -> None:
    session = APIClient()
    session.force_login(alice)
    created = session.post("/api/tokens/", {"name": "ci"}, format="json")
    assert created.status_code == 201
    key = created.json()["key"]
    assert key.startswith("plr_") and created.json()["prefix"] == key[:10]
    listed = alice_api.get("/api/tokens/").json()
    assert {t["name"] for t in listed["results"]} == {"laptop", "ci"}
    assert all("key" not in t and "key_hash" not in t for t in listed["results"])
    fresh = APIClient()
    fresh.credentials(HTTP_AUTHORIZATION=f"Bearer {key}")
    assert fresh.get("/api/me/").json()["username"] == "alice"


def test_a_token_needs_a_name(alice: User) -> None:
    session = APIClient()
    session.force_login(alice)
    response = session.post("/api/tokens/", {"name": ""}, format="json")
    assert response.status_code == 400 and "name" in response.json()["error"]["fields"]


def test_revoking_a_token_stops_it_and_nobody_else_can(alice: User, alice_api: APIClient, bob_api: APIClient) -> None:
    token, key = do_create_token(alice, "temp")
    created = {"id": token.pk, "key": key}
    assert bob_api.delete(f"/api/tokens/{created['id']}/").status_code == 404
    assert bob_api.get("/api/tokens/").json()["count"] == 1  # bob sees his own token only
    assert alice_api.delete(f"/api/tokens/{created['id']}/").status_code == 204
    assert not ApiToken.objects.filter(pk=created["id"]).exists()
    gone = APIClient()
    gone.credentials(HTTP_AUTHORIZATION=f"Token {created['key']}")
    assert gone.get("/api/me/").status_code == 401
    assert alice_api.delete(f"/api/tokens/{created['id']}/").status_code == 404


def test_a_token_cannot_create_tokens_but_lists_and_revokes_them(alice: User, alice_api: APIClient) -> None:
    refused = alice_api.post("/api/tokens/", {"name": "another"}, format="json")
    assert refused.status_code == 403
    assert refused.json()["error"]["code"] == "session_required"
    assert ApiToken.objects.filter(user=alice).count() == 1  # the laptop token alone
    assert alice_api.get("/api/tokens/").json()["count"] == 1
    own = ApiToken.objects.get(user=alice)
    assert alice_api.delete(f"/api/tokens/{own.pk}/").status_code == 204  # a token may revoke itself
    assert alice_api.get("/api/me/").status_code == 401


def test_a_new_password_revokes_every_token_and_a_hasher_upgrade_does_not(alice: User, alice_api: APIClient) -> None:
    do_create_token(alice, "ci")
    alice.set_password("another long passphrase")  # the admin's form, `changepassword`, change and reset all do this
    alice.save()
    assert not ApiToken.objects.filter(user=alice).exists()
    assert alice_api.get("/api/me/").status_code == 401

    do_create_token(alice, "after")
    alice.email = "alice@example.net"
    alice.save()  # any other change keeps them
    # A hash from an older hasher is rehashed and saved at the next log-in: the same password, so the tokens stay.
    User.objects.filter(pk=alice.pk).update(password=make_password("another long passphrase", hasher="pbkdf2_sha1"))
    alice.refresh_from_db()
    assert alice.check_password("another long passphrase")
    alice.refresh_from_db()
    assert alice.password.startswith("pbkdf2_sha256$")  # it was upgraded (and saved)
    assert ApiToken.objects.filter(user=alice).count() == 1
