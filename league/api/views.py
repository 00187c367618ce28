"""The REST API: thin views over league.services and read-only querysets."""

from __future__ import annotations

from django.db.models import Prefetch, QuerySet
from django.http import Http404
from django.shortcuts import get_object_or_404
from rest_framework import mixins, status, viewsets
from rest_framework.decorators import action
from rest_framework.exceptions import PermissionDenied
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from bots.packaging import MAX_UPLOAD_BYTES
from games.registry import GAMES
from league import replays, services
from league.api import serializers
from league.models import Bot, Match, Seat
from league.queries import leaderboard


def _read_upload(upload) -> bytes:  # type: ignore[no-untyped-def]
    if upload.size > MAX_UPLOAD_BYTES:
        raise services.ServiceError(
            f"the upload is {upload.size:,} bytes; the limit is {MAX_UPLOAD_BYTES:,} bytes", code="too_large"
        )
    return upload.read(MAX_UPLOAD_BYTES + 1)


class GameViewSet(viewsets.ViewSet):
    """The games of the league, their player counts, options and built-in players."""

    lookup_value_regex = "[a-z_]+"

    def list(self, request: Request) -> Response:
        return Response([serializers.game_json(game_id) for game_id in GAMES])

    def retrieve(self, request: Request, pk: str) -> Response:
        if pk not in GAMES:
            raise Http404
        return Response(serializers.game_json(pk))


class BotViewSet(mixins.ListModelMixin, mixins.RetrieveModelMixin, viewsets.GenericViewSet):
    """Bots: anyone may list and read them; a signed-in user uploads a bot and new versions of their own bots."""

    def get_queryset(self) -> QuerySet[Bot]:
        bots = Bot.objects.select_related("owner", "rating").order_by("id")
        params = self.request.query_params
        if game := params.get("game"):
            bots = bots.filter(game=game)
        if owner := params.get("owner"):
            bots = bots.filter(owner__username=owner)
        if self.action == "retrieve":
            bots = bots.prefetch_related("versions")
        return bots

    def get_serializer_class(self):  # type: ignore[no-untyped-def]
        return serializers.BotDetailSerializer if self.action == "retrieve" else serializers.BotSerializer

    def create(self, request: Request) -> Response:
        if not request.user.is_authenticated:
            raise PermissionDenied("sign in, or send an API token, to upload a bot")
        form = serializers.BotCreateSerializer(data=request.data)
        form.is_valid(raise_exception=True)
        bot = services.do_create_bot(
            request.user,
            form.validated_data["game"],
            form.validated_data["name"],
            _read_upload(form.validated_data["file"]),
            form.validated_data["file"].name,
            form.validated_data["description"],
        )
        data = serializers.BotDetailSerializer(bot, context=self.get_serializer_context()).data
        return Response(data, status=status.HTTP_201_CREATED)

    @action(detail=True, methods=["post"], permission_classes=[IsAuthenticated])
    def versions(self, request: Request, pk: str) -> Response:
        bot = self.get_object()
        if bot.owner_id != request.user.pk:
            raise PermissionDenied("only the bot's owner can upload new versions")
        form = serializers.VersionCreateSerializer(data=request.data)
        form.is_valid(raise_exception=True)
        upload = form.validated_data["file"]
        version = services.do_add_version(bot, _read_upload(upload), upload.name)
        data = serializers.BotVersionSerializer(version, context=self.get_serializer_context()).data
        return Response(data, status=status.HTTP_201_CREATED)


class MatchViewSet(mixins.ListModelMixin, mixins.RetrieveModelMixin, viewsets.GenericViewSet):
    """Matches, newest first; filter with ?game=, ?bot=, ?status=."""

    serializer_class = serializers.MatchSerializer

    def get_queryset(self) -> QuerySet[Match]:
        matches = Match.objects.prefetch_related(
            Prefetch("seats", queryset=Seat.objects.select_related("bot_version__bot__owner").order_by("number"))
        ).order_by("-created", "-id")
        params = self.request.query_params
        if game := params.get("game"):
            matches = matches.filter(game=game)
        if status_filter := params.get("status"):
            matches = matches.filter(status=status_filter)
        if bot := params.get("bot"):
            if not bot.isdigit():
                raise services.ServiceError("bot must be a bot id (a whole number)")
            matches = matches.filter(seats__bot_version__bot_id=int(bot)).distinct()
        return matches

    @action(detail=True, methods=["get"])
    def replay(self, request: Request, pk: str) -> Response:
        match = get_object_or_404(Match, pk=pk)
        if match.replay is None:
            raise services.ServiceError("this match has no replay yet", code="not_ready", status=409)
        return Response(match.replay)

    @action(detail=True, methods=["get"])
    def frames(self, request: Request, pk: str) -> Response:
        """The replay re-simulated for the viewer: every step's view; ``?seat=N`` for what seat N knew."""
        match = get_object_or_404(Match, pk=pk)
        return Response(replays.match_frames(match, request.query_params.get("seat")))


class LeaderboardView(APIView):
    """The ladder of one game: bots by Elo."""

    def get(self, request: Request, game: str) -> Response:
        if game not in GAMES:
            raise Http404
        rows = [
            {
                "rank": position,
                "bot": bot.pk,
                "name": str(bot),
                "is_builtin": bot.is_builtin,
                "elo": round(bot.rating.elo, 1),
                "games": bot.rating.games,
                "wins": bot.rating.wins,
            }
            for position, bot in enumerate(leaderboard(game), start=1)
        ]
        return Response({"game": game, "results": rows})
