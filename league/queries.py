"""Read-side queries shared by the pages and the API."""

from __future__ import annotations

from django.db.models import QuerySet

from league.models import Bot


def leaderboard(game: str) -> QuerySet[Bot]:
    """Active bots of ``game`` that have a rating, best first."""
    return (
        Bot.objects.filter(game=game, is_active=True, rating__isnull=False)
        .select_related("owner", "rating")
        .order_by("-rating__elo", "id")
    )
