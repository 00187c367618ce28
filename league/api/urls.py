from __future__ import annotations

from django.urls import path
from rest_framework.routers import DefaultRouter

from league.api import challenges, tournaments, views

router = DefaultRouter()
router.register("games", views.GameViewSet, basename="api-game")
router.register("bots", views.BotViewSet, basename="api-bot")
router.register("matches", views.MatchViewSet, basename="api-match")
router.register("tournaments", tournaments.TournamentViewSet, basename="api-tournament")
router.register("challenges", challenges.ChallengeViewSet, basename="api-challenge")
router.register("tokens", views.TokenViewSet, basename="api-token")

urlpatterns = [
    path("leaderboards/<str:game>/", views.LeaderboardView.as_view(), name="api-leaderboard"),
    path("me/", views.MeView.as_view(), name="api-me"),
    *router.urls,
]
