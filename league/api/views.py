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
from league import queries, replays, services
from league.api import serializers
from league.models import Bot, Match, RatingChange, Seat
from league.queries import SORTS, board_rows, leaderboard


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

    @action(detail=True, methods=["get"])
    def ratings(self, request: Request, pk: str) -> Response:
        """The bot's rating history, oldest first: one entry per rated match (paginated)."""
        bot = self.get_object()
        changes = RatingChange.objects.filter(bot=bot).order_by("id")
        page = self.paginate_queryset(changes)
        return self.get_paginated_response(serializers.RatingChangeSerializer(page, many=True).data)

    @action(detail=True, methods=["get"], url_path="head-to-head")
    def head_to_head(self, request: Request, pk: str) -> Response:
        """The bot's results against each opponent it has met (pairs of seats: better rank wins)."""
        bot = self.get_object()
        rows = [serializers.head_to_head_json(row) for row in queries.head_to_head(bot)]
        return Response({"bot": bot.pk, "results": rows})

    @action(detail=True, methods=["post"], permission_classes=[IsAuthenticated])
    def resume(self, request: Request, pk: str) -> Response:
        """Its owner puts the bot back on the ladder, lifting an automatic pause."""
        bot = services.do_resume_bot(self.get_object(), request.user)
        return Response(serializers.BotSerializer(bot, context=self.get_serializer_context()).data)

    @action(detail=True, methods=["post"], permission_classes=[IsAuthenticated])
    def disable(self, request: Request, pk: str) -> Response:
        """Its owner takes the bot off the ladder; it keeps its rating."""
        bot = services.do_disable_bot(self.get_object(), request.user)
        return Response(serializers.BotSerializer(bot, context=self.get_serializer_context()).data)


class MatchViewSet(mixins.ListModelMixin, mixins.RetrieveModelMixin, viewsets.GenericViewSet):
    """Matches, newest first; filter with ?game=, ?bot=, ?status=."""

    serializer_class = serializers.MatchSerializer

    def get_queryset(self) -> QuerySet[Match]:
        matches = Match.objects.prefetch_related(
            Prefetch(
                "seats",
                queryset=Seat.objects.select_related("bot_version__bot__owner")
                .defer("bot_version__archive")  # up to 1 MiB a seat, and never shown
                .order_by("number"),
            )
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
    """The ladder of one game: bots by Elo, with the 95% interval, W/L/D, last match and recent Elo values.

    ``?sort=`` elo (default), interval, games, wins, last or name; ``?order=reverse`` flips it."""

    def get(self, request: Request, game: str) -> Response:
        if game not in GAMES:
            raise Http404
        sort = request.query_params.get("sort", "elo")
        if sort not in SORTS:
            raise services.ServiceError(f"sort must be one of {', '.join(SORTS)}", code="invalid")
        reverse = request.query_params.get("order") == "reverse"
        rows = [serializers.board_row_json(row) for row in board_rows(leaderboard(game, sort, reverse))]
        return Response({"game": game, "sort": sort, "reverse": reverse, "results": rows})
