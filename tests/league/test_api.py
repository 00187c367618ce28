from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from league import services
from league.models import Bot, BotVersion, Match


def _upload(client: APIClient, name: str = "mybot", data: bytes = b"pass\n", filename: str = "bot.py"):
    from django.core.files.uploadedfile import SimpleUploadedFile

    return client.post(
        "/api/bots/",
        {"game": "love_letter", "name": name, "file": SimpleUploadedFile(filename, data)},
        format="multipart",
    )


def test_games_are_listed_with_their_player_counts(anon_api: APIClient) -> None:
    games = anon_api.get("/api/games/").json()
    love_letter = next(game for game in games if game["id"] == "love_letter")
    assert (love_letter["min_players"], love_letter["max_players"]) == (2, 4)
    assert "random" in love_letter["builtin_players"]
    assert anon_api.get("/api/games/love_letter/").json()["title"] == love_letter["title"]
    assert anon_api.get("/api/games/chess/").status_code == 404


def test_alice_uploads_a_bot_with_her_token(alice_api: APIClient, example_bot_source: bytes) -> None:
    response = _upload(alice_api, data=example_bot_source)
    assert response.status_code == 201, response.content
    body = response.json()
    assert body["owner"] == "alice" and body["versions"][0]["status"] == "pending"
    assert Bot.objects.get(pk=body["id"]).versions.get().language == "python"


def test_anonymous_uploads_are_refused(anon_api: APIClient) -> None:
    response = _upload(anon_api)
    assert response.status_code in (401, 403)
    assert "error" in response.json() and not Bot.objects.exists()


def test_a_revoked_or_wrong_token_is_refused(anon_api: APIClient) -> None:
    anon_api.credentials(HTTP_AUTHORIZATION="Token plr_nonsense")
    response = _upload(anon_api)
    assert response.status_code == 401
    assert response.json()["error"]["message"] == "unknown or revoked token"


def test_a_bad_upload_is_a_clear_400_and_stores_nothing(alice_api: APIClient) -> None:
    response = _upload(alice_api, data=b"PK\x03\x04broken", filename="bot.zip")
    assert response.status_code == 400
    assert response.json()["error"] == {"code": "bad_upload", "message": "the upload is not a valid zip archive"}
    assert not Bot.objects.exists()


def test_a_missing_file_is_a_field_error(alice_api: APIClient) -> None:
    response = alice_api.post("/api/bots/", {"game": "love_letter", "name": "x"}, format="multipart")
    assert response.status_code == 400 and "file" in response.json()["error"]["fields"]


def test_only_the_owner_uploads_new_versions(alice_api: APIClient, bob_api: APIClient) -> None:
    from django.core.files.uploadedfile import SimpleUploadedFile

    bot_id = _upload(alice_api).json()["id"]
    url = f"/api/bots/{bot_id}/versions/"
    assert bob_api.post(url, {"file": SimpleUploadedFile("b.py", b"pass\n")}, format="multipart").status_code == 403
    response = alice_api.post(url, {"file": SimpleUploadedFile("b.py", b"pass\n")}, format="multipart")
    assert response.status_code == 201 and response.json()["number"] == 2


def test_validation_stderr_is_shown_to_the_owner_only(alice_api: APIClient, bob_api: APIClient) -> None:
    bot_id = _upload(alice_api).json()["id"]
    version = BotVersion.objects.get(bot_id=bot_id)
    services.do_record_validation(version.pk, False, "crashed", "Traceback: secret detail")
    assert alice_api.get(f"/api/bots/{bot_id}/").json()["versions"][0]["validation_stderr"].startswith("Traceback")
    assert "validation_stderr" not in bob_api.get(f"/api/bots/{bot_id}/").json()["versions"][0]


def test_matches_filter_by_bot_and_serve_their_replay(alice, bob, anon_api: APIClient) -> None:
    services.do_register_builtin_bots()
    random_bot, heuristic = (
        Bot.objects.get(name="random", game="love_letter"),
        Bot.objects.get(name="heuristic", game="love_letter"),
    )
    match = services.do_create_match("love_letter", [random_bot.current_version(), heuristic.current_version()])
    services.do_claim_match(match.pk)
    assert anon_api.get(f"/api/matches/{match.pk}/replay/").status_code == 409
    services.do_record_match_result(
        match.pk,
        {
            "seats": [{"rank": 1, "score": 7, "fault": None}, {"rank": 2, "score": 3, "fault": None}],
            "replay": {"format": "parlour-replay/1", "moves": [{"seat": 0, "action": {"card": 4}}]},
            "wall_ms": 10,
        },
    )
    listed = anon_api.get(f"/api/matches/?bot={heuristic.pk}").json()
    assert [m["id"] for m in listed["results"]] == [match.pk]
    assert anon_api.get("/api/matches/?bot=nonsense").status_code == 400
    detail = anon_api.get(f"/api/matches/{match.pk}/").json()
    assert [seat["rank"] for seat in detail["seats"]] == [1, 2] and detail["status"] == "finished"
    assert anon_api.get(f"/api/matches/{match.pk}/replay/").json()["moves"][0]["action"] == {"card": 4}
    board = anon_api.get("/api/leaderboards/love_letter/").json()["results"]
    assert board[0]["bot"] == random_bot.pk and board[0]["elo"] > 1500


@pytest.mark.parametrize("url", ["/api/leaderboards/chess/", "/api/bots/999/", "/api/matches/999/"])
def test_unknown_things_are_404_not_500(anon_api: APIClient, url: str) -> None:
    assert anon_api.get(url).status_code == 404


def test_lists_are_paginated(anon_api: APIClient, db) -> None:
    services.do_register_builtin_bots()
    body = anon_api.get("/api/bots/?limit=1").json()
    assert body["count"] == Bot.objects.count() and len(body["results"]) == 1 and body["next"]
    assert Match.objects.count() == 0
