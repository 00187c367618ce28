"""A version test and a challenge, asked for through the API and played by a real Celery worker process (sandboxed
bots, real Redis): the games are played, counted pairwise, and change no rating."""

from __future__ import annotations

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client

from games.registry import example_dir
from league.bots.models import Bot, BotVersion
from league.bots.services import do_register_builtin_bots
from league.challenges.models import Challenge
from league.play.models import Match
from league.ratings.models import RatingChange

pytestmark = pytest.mark.e2e


def _validated(bot_id: int, number: int) -> bool:
    return BotVersion.objects.filter(
        bot_id=bot_id, number=number, status__in=[BotVersion.Status.READY, BotVersion.Status.RETIRED]
    ).exists()


def test_a_version_test_and_a_challenge_are_played_by_a_worker(celery_workers, alice_api, example_bot_source) -> None:
    do_register_builtin_bots(["love_letter"])
    celery_workers.start()
    response = alice_api.post(
        "/api/bots/",
        {"game": "love_letter", "name": "climber", "file": SimpleUploadedFile("main.py", example_bot_source)},
        format="multipart",
    )
    assert response.status_code == 201, response.content
    bot_id = response.json()["id"]
    celery_workers.wait_for(lambda: _validated(bot_id, 1), 90, "version 1 to be validated")
    better = (example_dir("love_letter") / "main.py").read_bytes()
    response = alice_api.post(
        f"/api/bots/{bot_id}/versions/", {"file": SimpleUploadedFile("main.py", better)}, format="multipart"
    )
    assert response.status_code == 201, response.content
    celery_workers.wait_for(lambda: _validated(bot_id, 2), 90, "version 2 to be validated")

    test = alice_api.post("/api/challenges/", {"kind": "version_test", "bot": bot_id, "games": 4}, format="json")
    assert test.status_code == 201, test.content
    heuristic = Bot.objects.get(game="love_letter", is_builtin=True, name="heuristic")
    duel = alice_api.post("/api/challenges/", {"bot": bot_id, "opponents": [heuristic.pk], "games": 2}, format="json")
    assert duel.status_code == 201, duel.content

    def finished() -> bool:
        return not Match.objects.filter(kind=Match.Kind.CHALLENGE).exclude(status=Match.Status.FINISHED).exists()

    celery_workers.wait_for(finished, 180, "the challenge games to be played")
    data = alice_api.get(f"/api/challenges/{test.json()['id']}/").json()
    assert data["status"] == "finished" and data["progress"] == {"finished": 4, "failed": 0, "in_flight": 0}
    (row,) = data["results"]
    assert row["opponent"] == {"bot": bot_id, "name": "alice/climber", "version": 1} and row["games"] == 4
    assert row["wins"] + row["draws"] + row["losses"] == 4
    assert row["elo_difference"]["low"] <= row["elo_difference"]["estimate"] <= row["elo_difference"]["high"]
    assert data["sprt"]["verdict"] is None or data["sprt"]["verdict"] in ("H0", "H1")
    challenge = Challenge.objects.get(pk=test.json()["id"])
    for match in challenge.matches.all():
        assert match.replay["moves"] and {s.bot_version.number for s in match.seats.all()} == {1, 2}
    duel_data = alice_api.get(f"/api/challenges/{duel.json()['id']}/").json()
    assert duel_data["results"][0]["games"] == 2 and duel_data["results"][0]["opponent"]["bot"] == heuristic.pk
    # Unrated: no rating moved, for the challenger or the built-in.
    assert not RatingChange.objects.exists()
    page = Client().get(f"/challenges/{challenge.pk}/")
    assert page.status_code == 200 and b"Sequential test" in page.content and b"alice/climber" in page.content
