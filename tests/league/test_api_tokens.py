"""/api/me/ and /api/tokens/: list, create (the key is shown once) and revoke, by session or by token."""

from __future__ import annotations

from django.contrib.auth.models import User
from rest_framework.test import APIClient

from league.models import ApiToken


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


def test_a_new_token_is_shown_once_and_works(alice_api: APIClient) -> None:
    created = alice_api.post("/api/tokens/", {"name": "ci"}, format="json")
    assert created.status_code == 201
    key = created.json()["key"]
    assert key.startswith("plr_") and created.json()["prefix"] == key[:10]
    listed = alice_api.get("/api/tokens/").json()
    assert {t["name"] for t in listed["results"]} == {"laptop", "ci"}
    assert all("key" not in t and "key_hash" not in t for t in listed["results"])
    fresh = APIClient()
    fresh.credentials(HTTP_AUTHORIZATION=f"Bearer {key}")
    assert fresh.get("/api/me/").json()["username"] == "alice"


def test_a_token_needs_a_name(alice_api: APIClient) -> None:
    response = alice_api.post("/api/tokens/", {"name": ""}, format="json")
    assert response.status_code == 400 and "name" in response.json()["error"]["fields"]


def test_revoking_a_token_stops_it_and_nobody_else_can(alice_api: APIClient, bob_api: APIClient) -> None:
    created = alice_api.post("/api/tokens/", {"name": "temp"}, format="json").json()
    assert bob_api.delete(f"/api/tokens/{created['id']}/").status_code == 404
    assert bob_api.get("/api/tokens/").json()["count"] == 1  # bob sees his own token only
    assert alice_api.delete(f"/api/tokens/{created['id']}/").status_code == 204
    assert not ApiToken.objects.filter(pk=created["id"]).exists()
    gone = APIClient()
    gone.credentials(HTTP_AUTHORIZATION=f"Token {created['key']}")
    assert gone.get("/api/me/").status_code == 401
    assert alice_api.delete(f"/api/tokens/{created['id']}/").status_code == 404
