from __future__ import annotations

from django.urls import include, path, re_path
from rest_framework.routers import DefaultRouter

from league.api import challenges, errors, tables, tournaments, views

router = DefaultRouter()
router.include_format_suffixes = False  # JSON only (/api/bots.json was /api/bots/ again; 1.5/ read as id 1)
router.register("games", views.GameViewSet, basename="api-game")
router.register("bots", views.BotViewSet, basename="api-bot")
router.register("matches", views.MatchViewSet, basename="api-match")
router.register("tournaments", tournaments.TournamentViewSet, basename="api-tournament")
router.register("challenges", challenges.ChallengeViewSet, basename="api-challenge")
router.register("tables", tables.TableViewSet, basename="api-table")
router.register("tokens", views.TokenViewSet, basename="api-token")

urlpatterns = [
    path("leaderboards/<str:game>/", views.LeaderboardView.as_view(), name="api-leaderboard"),
    path("me/", views.MeView.as_view(), name="api-me"),
    path("remote/", include("league.remote.urls")),
    *router.urls,
    re_path(r"^(?P<rest>.*)$", errors.unknown_path, name="api-unknown"),  # last: whatever no route above takes
]
