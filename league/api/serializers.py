"""API representations. Read-only shapes; writes go through league.services from the views."""

from __future__ import annotations

import math
from typing import Any, cast

from django.contrib.auth.models import User
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from games.registry import GAMES, builtin_players
from league.accounts.models import ApiToken
from league.bots import presence
from league.bots.models import Bot, BotVersion
from league.core.game_choices import game_choices
from league.ladder.placement import Placement, placement_progress
from league.play import disclosure
from league.play.models import Match, Seat
from league.ratings import elo as ratings
from league.ratings.models import FitSnapshot, FittedRating, Rating, RatingChange
from league.ratings.queries import BoardRow, HeadToHead, fault_counts
from league.site import visibility
from league.tables.services import people_record


def game_json(game_id: str) -> dict[str, Any]:
    game = GAMES[game_id]
    return {
        "id": game.id,
        "title": game.title,
        "min_players": game.min_players,
        "max_players": game.max_players,
        "version": game.version,
        "summary": game.spec.summary,
        "options_schema": dict(game.spec.options_schema),
        "builtin_players": sorted(builtin_players(game_id)),
    }


def _is_owner(context: dict[str, Any], bot: Bot) -> bool:
    request = context.get("request")
    return bool(request and visibility.sees_owner_data(request.user, bot))


class RatingSerializer(serializers.ModelSerializer[Rating]):
    sigma = serializers.FloatField(read_only=True)
    interval = serializers.SerializerMethodField()
    provisional = serializers.BooleanField(read_only=True)

    class Meta:
        model = Rating
        fields = [
            "elo",
            "sigma",
            "interval",
            "provisional",
            "games",
            "wins",
            "draws",
            "losses",
            "games_since_version",
            "version",
            "last_match_at",
        ]

    def get_interval(self, rating: Rating) -> list[float]:
        return [round(rating.low, 1), round(rating.high, 1)]


class FittedRatingSerializer(serializers.ModelSerializer[FittedRating]):
    """The fitted Elo (docs/ratings.md, Fitted Elo): from the game's newest fit, for the version ``version``."""

    version = serializers.IntegerField(source="version.number", read_only=True)
    interval = serializers.SerializerMethodField()
    rank_range = serializers.SerializerMethodField()
    fitted_at = serializers.DateTimeField(source="fit.fitted_at", read_only=True)

    class Meta:
        model = FittedRating
        fields = ["elo", "sigma", "interval", "rank", "rank_range", "games", "version", "fitted_at"]

    def get_interval(self, fitted: FittedRating) -> list[float]:
        return [round(fitted.low, 1), round(fitted.high, 1)]

    def get_rank_range(self, fitted: FittedRating) -> list[int] | None:
        """[best, worst] rank at 95%; null when the bot was off the ladder at the fit (rank 0)."""
        return [fitted.rank_low, fitted.rank_high] if fitted.rank else None


class FitSnapshotSerializer(serializers.ModelSerializer[FitSnapshot]):
    """One point of a bot's fitted-Elo history (the bot page's chart): written by a fit that moved it."""

    interval = serializers.SerializerMethodField()

    class Meta:
        model = FitSnapshot
        fields = ["at", "elo", "interval", "games", "version"]

    def get_interval(self, snapshot: FitSnapshot) -> list[float]:
        return [round(snapshot.low, 1), round(snapshot.high, 1)]


def board_row_json(row: BoardRow) -> dict[str, Any]:
    """One leaderboard line: the same data as the page. ``elo``, ``sigma``, ``interval`` and ``rank_range`` are the
    fitted ones, null before the bot's first fit (``fitted`` false); ``online_elo`` is the per-match Elo."""
    bot, rating, fitted = row.bot, row.rating, row.fitted
    return {
        "rank": row.position,
        "bot": bot.pk,
        "name": str(bot),
        "owner": bot.owner.username,
        "is_builtin": bot.is_builtin,
        "fitted": fitted is not None,
        "elo": round(fitted.elo, 1) if fitted else None,
        "sigma": round(fitted.sigma, 1) if fitted else None,
        "interval": [round(fitted.low, 1), round(fitted.high, 1)] if fitted else None,
        "rank_range": [fitted.rank_low, fitted.rank_high] if fitted and fitted.rank else None,
        "online_elo": round(rating.elo, 1),
        "provisional": row.provisional,
        "paused": row.paused,
        "games": rating.games,
        "wins": rating.wins,
        "losses": rating.losses,
        "draws": rating.draws,
        "last_match": rating.last_match_at,
        "recent": fitted.recent if fitted else [],
    }


class RatingChangeSerializer(serializers.ModelSerializer[RatingChange]):
    at = serializers.DateTimeField(source="created", read_only=True)
    delta = serializers.SerializerMethodField()
    sigma = serializers.SerializerMethodField()
    interval = serializers.SerializerMethodField()

    class Meta:
        model = RatingChange
        fields = ["match", "at", "before", "after", "delta", "sigma", "interval"]

    def get_delta(self, change: RatingChange) -> float:
        return change.after - change.before

    def get_sigma(self, change: RatingChange) -> float:
        return round(math.sqrt(change.variance), 2)

    def get_interval(self, change: RatingChange) -> list[float]:
        return [round(value, 1) for value in ratings.interval(change.after, change.variance)]


def head_to_head_json(row: HeadToHead) -> dict[str, Any]:
    return {
        "opponent": row.opponent_id,
        "name": row.name,
        "games": row.games,
        "wins": row.wins,
        "losses": row.losses,
        "draws": row.draws,
        "score": round(row.score_percent / 100, 4),
        "last_match": row.last_match,
    }


class BotVersionSerializer(serializers.ModelSerializer[BotVersion]):
    class Meta:
        model = BotVersion
        fields = [
            "id",
            "number",
            "status",
            "language",
            "builtin",
            "remote",
            "archive_size",
            "validation_log",
            "created",
            "validated",
        ]

    def to_representation(self, version: BotVersion) -> dict[str, Any]:
        data = super().to_representation(version)
        if _is_owner(self.context, version.bot):
            data["validation_stderr"] = version.validation_stderr  # the bot's log: its owner's eyes only
        return data


class BotSerializer(serializers.ModelSerializer[Bot]):
    owner = serializers.CharField(source="owner.username", read_only=True)
    rating = RatingSerializer(read_only=True)
    fitted = FittedRatingSerializer(read_only=True, allow_null=True)
    url = serializers.HyperlinkedIdentityField(view_name="bot", read_only=True)
    paused = serializers.BooleanField(source="is_paused", read_only=True)

    class Meta:
        model = Bot
        fields = [
            "id",
            "url",
            "owner",
            "game",
            "name",
            "description",
            "is_builtin",
            "is_remote",
            "is_active",
            "paused",
            "paused_at",
            "paused_reason",
            "created",
            "rating",
            "fitted",
        ]


class PlacementSerializer(serializers.Serializer[Placement]):
    """A version's placement burst so far (league/ladder/placement.py)."""

    version = serializers.IntegerField(help_text="The version being placed.")
    played = serializers.IntegerField(help_text="Placement games finished.")
    planned = serializers.IntegerField(help_text="Placement games in its burst.")
    rank = serializers.IntegerField(allow_null=True, help_text="Its leaderboard rank so far; null while unrated.")


class PeopleSerializer(serializers.Serializer[dict[str, int]]):
    beaten = serializers.IntegerField()
    played = serializers.IntegerField()


class BotDetailSerializer(BotSerializer):
    versions = BotVersionSerializer(many=True, read_only=True)
    faults = serializers.SerializerMethodField()
    placement = serializers.SerializerMethodField()
    people = serializers.SerializerMethodField()
    online = serializers.SerializerMethodField()

    class Meta(BotSerializer.Meta):
        fields = [*BotSerializer.Meta.fields, "online", "faults", "placement", "versions", "people"]

    def get_online(self, bot: Bot) -> bool:
        """Whether it can be seated now: always for a bot the league runs; for a remote bot, while it is connected
        (docs/remote.md)."""
        return presence.is_online(bot)

    @extend_schema_field(PlacementSerializer(allow_null=True))
    def get_placement(self, bot: Bot) -> dict[str, Any] | None:
        """Its newest version's placement: games played of planned and its rank so far; null when it had none."""
        placement = placement_progress(bot)
        return None if placement is None else PlacementSerializer(placement).data

    @extend_schema_field(PeopleSerializer)
    def get_people(self, bot: Bot) -> dict[str, int]:
        """People's games against the bot (unrated): "people beaten: beaten of played"."""
        record = people_record(bot)
        return {"beaten": record.beaten, "played": record.played}

    def get_faults(self, bot: Bot) -> list[dict[str, Any]]:
        """The bot's faults in finished matches by cause, most frequent first."""
        return [{"cause": cause, "description": label, "count": n} for cause, label, n in fault_counts(bot)]


class BotCreateSerializer(serializers.Serializer[dict[str, Any]]):
    game = serializers.ChoiceField(choices=[])
    name = serializers.SlugField(max_length=40)
    description = serializers.CharField(max_length=200, required=False, allow_blank=True, default="")
    file = serializers.FileField(required=False, help_text="The bot's code; none for a remote bot.")
    remote = serializers.BooleanField(
        default=False, help_text="Played from its owner's machine (docs/remote.md): no file, a token to connect."
    )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        cast(serializers.ChoiceField, self.fields["game"]).choices = game_choices()

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        if attrs["remote"] == ("file" in attrs):
            raise serializers.ValidationError({"file": ["send a file, or remote: true without one"]})
        return attrs


class RemoteTokenSerializer(serializers.Serializer[dict[str, Any]]):
    """A remote bot's new token: the key is shown this once."""

    bot = serializers.IntegerField()
    key = serializers.CharField(help_text="Send it as Authorization: Bearer <key> (python -m bots connect --token).")
    prefix = serializers.CharField()
    created = serializers.DateTimeField()


class VersionCreateSerializer(serializers.Serializer[dict[str, Any]]):
    file = serializers.FileField()


class SeatSerializer(serializers.ModelSerializer[Seat]):
    bot = serializers.IntegerField(source="bot_version.bot_id", read_only=True)
    bot_name = serializers.CharField(source="bot_version.bot.__str__", read_only=True)
    version = serializers.IntegerField(source="bot_version.number", read_only=True)

    class Meta:
        model = Seat
        fields = ["number", "bot", "bot_name", "version", "rank", "score", "fault", "fault_detail", "moves", "time_ms"]

    def to_representation(self, seat: Seat) -> dict[str, Any]:
        data = super().to_representation(seat)
        if _is_owner(self.context, seat.bot_version.bot):
            data["stderr"] = seat.stderr
        return data


class MatchSerializer(serializers.ModelSerializer[Match]):
    seats = SeatSerializer(many=True, read_only=True)
    url = serializers.HyperlinkedIdentityField(view_name="match", read_only=True)
    seed = serializers.SerializerMethodField(help_text="Null until the match is finished and its deal played out.")

    class Meta:
        model = Match
        fields = [
            "id",
            "url",
            "game",
            "kind",
            "status",
            "seed",
            "engine_version",
            "options",
            "attempts",
            "error",
            "created",
            "finished_at",
            "wall_ms",
            "time_control",
            "seats",
        ]

    @extend_schema_field(serializers.IntegerField(allow_null=True))
    def get_seed(self, match: Match) -> int | None:
        return disclosure.public_seed(match)  # it fixes every hand: hidden while the deal is in play


class TokenSerializer(serializers.ModelSerializer[ApiToken]):
    class Meta:
        model = ApiToken
        fields = ["id", "name", "prefix", "created", "last_used"]


class TokenCreateSerializer(serializers.Serializer[dict[str, Any]]):
    name = serializers.CharField(max_length=60)


class NewTokenSerializer(TokenSerializer):
    key = serializers.CharField(read_only=True, help_text="The whole key: shown this once, never again.")

    class Meta(TokenSerializer.Meta):
        fields = [*TokenSerializer.Meta.fields, "key"]


class MeSerializer(serializers.Serializer[User]):
    id = serializers.IntegerField(read_only=True)
    username = serializers.CharField(read_only=True)
    email = serializers.EmailField(read_only=True, allow_blank=True)
    is_staff = serializers.BooleanField(read_only=True)
    date_joined = serializers.DateTimeField(read_only=True)
    bots = serializers.SerializerMethodField()
    tokens = serializers.SerializerMethodField()
    auth = serializers.SerializerMethodField()

    def get_bots(self, user: User) -> list[int]:
        return list(Bot.objects.filter(owner=user).order_by("id").values_list("id", flat=True))

    def get_tokens(self, user: User) -> int:
        return ApiToken.objects.filter(user=user).count()

    def get_auth(self, user: User) -> str:
        """How this request was authenticated: "token" or "session"."""
        request = self.context.get("request")
        return "token" if request is not None and isinstance(request.auth, ApiToken) else "session"
