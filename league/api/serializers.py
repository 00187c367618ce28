"""API representations. Read-only shapes; writes go through league.services from the views."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers

from games.registry import GAMES, builtin_players
from league.models import Bot, BotVersion, Match, Rating, Seat


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
    return bool(request and request.user.is_authenticated and request.user.pk == bot.owner_id)


class RatingSerializer(serializers.ModelSerializer):
    class Meta:
        model = Rating
        fields = ["elo", "games", "wins"]


class BotVersionSerializer(serializers.ModelSerializer):
    class Meta:
        model = BotVersion
        fields = [
            "id",
            "number",
            "status",
            "language",
            "builtin",
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


class BotSerializer(serializers.ModelSerializer):
    owner = serializers.CharField(source="owner.username", read_only=True)
    rating = RatingSerializer(read_only=True)
    url = serializers.HyperlinkedIdentityField(view_name="bot", read_only=True)

    class Meta:
        model = Bot
        fields = ["id", "url", "owner", "game", "name", "description", "is_builtin", "is_active", "created", "rating"]


class BotDetailSerializer(BotSerializer):
    versions = BotVersionSerializer(many=True, read_only=True)

    class Meta(BotSerializer.Meta):
        fields = [*BotSerializer.Meta.fields, "versions"]


class BotCreateSerializer(serializers.Serializer):
    game = serializers.ChoiceField(choices=[])
    name = serializers.SlugField(max_length=40)
    description = serializers.CharField(max_length=200, required=False, allow_blank=True, default="")
    file = serializers.FileField()

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["game"].choices = list(GAMES)


class VersionCreateSerializer(serializers.Serializer):
    file = serializers.FileField()


class SeatSerializer(serializers.ModelSerializer):
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


class MatchSerializer(serializers.ModelSerializer):
    seats = SeatSerializer(many=True, read_only=True)
    url = serializers.HyperlinkedIdentityField(view_name="match", read_only=True)

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
            "seats",
        ]
