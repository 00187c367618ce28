"""One number (issue 21): once a bot is fitted, the Elo the league shows everywhere is the fitted one — its history in
the API, the challenge form's labels, tournament seeding
(tests/league/tournaments/test_tournaments.py) — and the online Elo only before the first fit."""

from __future__ import annotations

import pytest
from django.test import Client
from rest_framework.test import APIClient

from league.ratings import fits
from league.ratings.models import FitSnapshot, FittedRating, Rating
from tests.league.ratings.fits_helpers import league, newest, play_ordered

pytestmark = pytest.mark.django_db


def test_the_fitted_history_lists_each_fit_that_moved_the_bot_oldest_first() -> None:
    bots = league(3)
    play_ordered(bots, 30)
    fits.refit_game("love_letter")
    play_ordered(bots, 30, seed=2)
    fits.refit_game("love_letter")
    answer = APIClient().get(f"/api/bots/{bots[0].pk}/fitted-history/")
    assert answer.status_code == 200
    points = answer.json()["results"]
    stored = list(FitSnapshot.objects.filter(bot=bots[0]).order_by("id"))
    assert len(points) == len(stored) == 2
    assert [point["games"] for point in points] == [snapshot.games for snapshot in stored]
    assert points[-1]["elo"] == pytest.approx(FittedRating.objects.get(bot=bots[0]).elo)
    low, high = points[-1]["interval"]
    assert low < points[-1]["elo"] < high and points[-1]["version"] == newest(bots[0]).number


def test_the_fitted_history_of_no_such_bot_is_a_json_404() -> None:
    answer = APIClient().get("/api/bots/999999/fitted-history/")
    assert answer.status_code == 404 and answer["Content-Type"].startswith("application/json")


def test_the_challenge_form_labels_opponents_with_the_elo_the_leaderboard_shows(client: Client) -> None:
    bots = league(3)
    play_ordered(bots, 40)  # bot0 strongest
    fits.refit_game("love_letter")
    Rating.objects.filter(bot__in=bots).update(elo=1234)  # an online Elo that differs from every fitted one
    client.force_login(bots[0].owner)
    page = client.get(f"/bots/{bots[0].pk}/challenge/").content.decode()
    for bot in bots[1:]:
        assert f"Elo {FittedRating.objects.get(bot=bot).elo:.0f}" in page
    assert "Elo 1234" not in page
