from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest
from django.template.response import TemplateResponse
from django.urls import URLPattern, path

from games.registry import GAMES
from league.accounts.models import ApiToken
from league.bots.models import Bot, BotVersion
from league.play.models import Match, Seat
from league.ratings import collusion
from league.ratings.models import Rating, RatingChange

_VERSION_FIELDS = ("number", "status", "language", "builtin", "archive_size", "validation_log", "created")
_SEAT_FIELDS = ("number", "bot_version", "rank", "score", "fault", "fault_detail", "moves", "time_ms")


class BotVersionInline(admin.TabularInline[BotVersion, Bot]):
    model = BotVersion
    fields = _VERSION_FIELDS
    readonly_fields = _VERSION_FIELDS
    extra = 0
    can_delete = False


@admin.register(Bot)
class BotAdmin(admin.ModelAdmin[Bot]):
    list_display = ["__str__", "game", "is_builtin", "is_active", "created"]
    list_filter = ["game", "is_builtin", "is_active"]
    search_fields = ["name", "owner__username"]
    inlines = [BotVersionInline]


@admin.register(BotVersion)
class BotVersionAdmin(admin.ModelAdmin[BotVersion]):
    list_display = ["__str__", "status", "language", "created", "validated"]
    list_filter = ["status", "language"]
    readonly_fields = ["archive_size", "validation_log", "validation_stderr", "validated"]


class SeatInline(admin.TabularInline[Seat, Match]):
    model = Seat
    fields = _SEAT_FIELDS
    readonly_fields = _SEAT_FIELDS
    extra = 0
    can_delete = False


@admin.register(Match)
class MatchAdmin(admin.ModelAdmin[Match]):
    list_display = ["__str__", "game", "kind", "status", "attempts", "created", "finished_at"]
    list_filter = ["game", "kind", "status"]
    readonly_fields = [
        "seed",
        "engine_version",
        "attempts",
        "claimed_at",
        "claimed_by",
        "lease_until",
        "enqueued_at",
        "finished_at",
        "wall_ms",
        "error",
    ]
    inlines = [SeatInline]

    def get_urls(self) -> list[Any]:
        collusion_url: URLPattern = path(
            "collusion/", self.admin_site.admin_view(self.collusion_view), name="league_match_collusion"
        )
        return [collusion_url, *super().get_urls()]

    def collusion_view(self, request: HttpRequest) -> TemplateResponse:
        """Staff only (``admin_view`` sends anyone else to the login): the pairs whose head-to-head results are
        improbable under the fitted ratings (league/ratings/collusion.py)."""
        if not self.has_view_permission(request):
            raise PermissionDenied
        game = request.GET.get("game", "")
        chosen = [game] if game in GAMES else None
        screening = collusion.improbable_pairs(chosen)
        context = {
            **self.admin_site.each_context(request),
            "title": "Improbable pairs",
            "opts": self.model._meta,
            "pairs": screening.pairs,
            "tested": screening.tested,
            "game": game if chosen else "",
            "games": [(game_id, spec.title) for game_id, spec in GAMES.items()],
            "recent": collusion.RECENT_MATCHES,
            "min_games": collusion.MIN_GAMES,
            "alpha": collusion.ALPHA,
        }
        return TemplateResponse(request, "league/collusion_admin.html", context)


@admin.register(Rating)
class RatingAdmin(admin.ModelAdmin[Rating]):
    list_display = ["bot", "elo", "games", "wins"]
    list_filter = ["bot__game"]
    # Ratings change only through match results (RatingChange rows): never by hand.
    readonly_fields = ["bot", "elo", "games", "wins", "games_since_version"]


@admin.register(RatingChange)
class RatingChangeAdmin(admin.ModelAdmin[RatingChange]):
    list_display = ["match", "bot", "before", "after"]
    readonly_fields = ["match", "bot", "before", "after"]


@admin.register(ApiToken)
class ApiTokenAdmin(admin.ModelAdmin[ApiToken]):
    list_display = ["user", "name", "prefix", "created", "last_used"]
    readonly_fields = ["prefix", "key_hash", "last_used"]


from league.tournaments import admin as admin_tournaments  # noqa: E402, F401  (registers the tournament admin)
