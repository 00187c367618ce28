"""The REST API: thin views over league.services and read-only querysets."""

from __future__ import annotations

import hashlib

from django.core.files import File
from django.db.models import F, Model, Prefetch, QuerySet
from django.db.models.expressions import OrderBy
from django.http import Http404
from django.shortcuts import get_object_or_404
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiExample, OpenApiParameter, OpenApiResponse, extend_schema, extend_schema_view
from rest_framework import mixins, status, viewsets
from rest_framework.decorators import action
from rest_framework.exceptions import PermissionDenied
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.serializers import BaseSerializer
from rest_framework.views import APIView

from bots.packaging import MAX_UPLOAD_BYTES
from games.registry import GAMES
from league.accounts.models import ApiToken
from league.accounts.tokens import do_create_token, do_revoke_token
from league.api import filters, serializers
from league.api.limits import answers_rate_limits
from league.api.pagination import MATCH_CURSOR_ORDERING, MatchCursorPagination, paginate_list, paginate_with_total
from league.api.schema import (
    ERROR,
    EXAMPLE_GAME,
    ID,
    GameSerializer,
    HeadToHeadSerializer,
    LeaderboardSerializer,
    errors,
)
from league.bots.models import Bot
from league.bots.services import do_add_version, do_create_bot, do_create_remote_bot, do_disable_bot, do_resume_bot
from league.core import cache_headers
from league.core.errors import SessionRequired, UploadTooLarge
from league.play import disclosure, replays
from league.play.models import Match, Seat
from league.ratings import queries
from league.ratings.models import FitSnapshot, RatingChange
from league.ratings.queries import SORTS, board_rows, leaderboard
from league.remote.services import do_issue_remote_token, do_revoke_remote_token
from league.site import visibility


def _read_upload(upload: File[bytes]) -> bytes:
    if upload.size > MAX_UPLOAD_BYTES:
        raise UploadTooLarge(size=upload.size)
    data: bytes = upload.read(MAX_UPLOAD_BYTES + 1)
    return data


# A finished match never changes: its replay and frames may be cached by anyone, for long.
IMMUTABLE = "public, max-age=86400, immutable"
MATCH_FILTERS = [
    OpenApiParameter("game", str, enum=list(GAMES), description="A game."),
    OpenApiParameter("bot", int, description="Matches with a seat of this bot."),
    OpenApiParameter("tournament", int, description="Matches of this tournament."),
    OpenApiParameter("status", str, enum=list(Match.Status.values)),
    OpenApiParameter("kind", str, enum=list(Match.Kind.values)),
    OpenApiParameter("created_after", OpenApiTypes.DATETIME, description="ISO date or date-time, inclusive."),
    OpenApiParameter("created_before", OpenApiTypes.DATETIME, description="ISO date or date-time, inclusive."),
    OpenApiParameter(
        "ordering",
        str,
        enum=[f"{sign}{key}" for key in MATCH_CURSOR_ORDERING for sign in ("", "-")],
        description="Default -created (newest first).",
    ),
]
BOT_FILTERS = [
    OpenApiParameter("game", str, enum=list(GAMES), description="A game."),
    OpenApiParameter("owner", str, description="The owner's username."),
    OpenApiParameter("ordering", str, enum=["id", "-id", "name", "-name", "created", "-created", "elo", "-elo"]),
]


@extend_schema_view(
    list=extend_schema(summary="List the games", responses=GameSerializer(many=True)),
    retrieve=extend_schema(
        summary="Get a game and its options",
        responses={200: GameSerializer, 404: ERROR},
        parameters=[OpenApiParameter("id", str, OpenApiParameter.PATH, enum=list(GAMES), description="The game.")],
    ),
)
class GameViewSet(viewsets.GenericViewSet[Model]):  # no model: the games are code
    """The games of the league, their player counts, options and built-in players."""

    lookup_value_regex = "[a-z_]+"
    serializer_class = GameSerializer

    def list(self, request: Request) -> Response:
        # A page like every list, though today all the games fit on one: a client pages them the same way.
        rows, paginator = paginate_list(self, list(GAMES))
        return paginator.get_paginated_response([serializers.game_json(game_id) for game_id in rows])

    def retrieve(self, request: Request, pk: str) -> Response:
        if pk not in GAMES:
            raise Http404
        return Response(serializers.game_json(pk))


BOT_ORDERING = {
    "id": ("id",),
    "name": ("name", "id"),
    "created": ("created", "id"),
    "elo": ("fitted__elo", "id"),  # the fitted Elo; bots not fitted yet come last either way
}


def _nulls_last(fields: tuple[str, ...]) -> list[str | OrderBy]:
    """The fitted Elo is null before a bot's first fit: such bots come last whichever the direction."""
    return [
        (F(field.lstrip("-")).desc(nulls_last=True) if field.startswith("-") else F(field).asc(nulls_last=True))
        if field.lstrip("-") == "fitted__elo"
        else field
        for field in fields
    ]


@extend_schema_view(
    list=extend_schema(
        summary="List bots", parameters=BOT_FILTERS, responses={200: serializers.BotSerializer(many=True), 400: ERROR}
    ),
    retrieve=extend_schema(
        summary="Get a bot with its versions and rating",
        parameters=[ID],
        responses={200: serializers.BotDetailSerializer, 404: ERROR},
    ),
    create=extend_schema(
        examples=[
            OpenApiExample(
                "A Love Letter bot",
                value={"game": EXAMPLE_GAME, "name": "my-first-bot", "description": "Plays the highest card"},
                request_only=True,
            )
        ],
        summary="Upload a new bot",
        request={"multipart/form-data": serializers.BotCreateSerializer},
        responses={201: serializers.BotDetailSerializer, **errors(400, 401, 403, 409, 413, 429)},
    ),
    versions=extend_schema(
        summary="Upload a new version of your bot",
        parameters=[ID],
        request={"multipart/form-data": serializers.VersionCreateSerializer},
        responses={201: serializers.BotVersionSerializer, **errors(400, 401, 403, 404, 413, 429)},
    ),
    ratings=extend_schema(
        summary="A bot's online-Elo changes, one per rated match",
        parameters=[ID],
        responses={200: serializers.RatingChangeSerializer(many=True), 404: ERROR},
    ),
    fitted_history=extend_schema(
        summary="A bot's fitted-Elo history (the Elo the leaderboard shows)",
        parameters=[ID],
        responses={200: serializers.FitSnapshotSerializer(many=True), 404: ERROR},
    ),
    head_to_head=extend_schema(
        summary="A bot's results against each opponent",
        parameters=[ID, OpenApiParameter("limit", int), OpenApiParameter("offset", int)],
        responses={200: HeadToHeadSerializer, 404: ERROR},
    ),
    resume=extend_schema(
        summary="Put your disabled bot back on the ladder",
        parameters=[ID],
        request=None,
        responses={200: serializers.BotSerializer, **errors(400, 401, 403, 404)},
    ),
    disable=extend_schema(
        summary="Take your bot off the ladder",
        parameters=[ID],
        request=None,
        responses={200: serializers.BotSerializer, **errors(400, 401, 403, 404)},
    ),
)
class BotViewSet(mixins.ListModelMixin, mixins.RetrieveModelMixin, viewsets.GenericViewSet[Bot]):
    """Bots: anyone may list and read them; a signed-in user uploads a bot and new versions of their own bots."""

    queryset = Bot.objects.none()  # for the schema; get_queryset builds the real one
    lookup_value_regex = "[0-9]+"

    def get_queryset(self) -> QuerySet[Bot]:
        bots = visibility.bots(self.request.user).select_related("owner", "rating", "fitted__version", "fitted__fit")
        if self.action == "list":
            if game := filters.choice(self.request, "game", GAMES):
                bots = bots.filter(game=game)
            if owner := self.request.query_params.get("owner"):
                bots = bots.filter(owner__username=owner)
            return bots.order_by(*_nulls_last(filters.ordering(self.request, BOT_ORDERING, "id")))
        bots = bots.order_by("id")
        if self.action == "retrieve":
            bots = bots.prefetch_related("versions")
        return bots

    def get_serializer_class(self) -> type[BaseSerializer[Bot]]:
        return serializers.BotDetailSerializer if self.action == "retrieve" else serializers.BotSerializer

    def retrieve(self, request: Request, *args: object, **kwargs: object) -> Response:
        # Its owner reads the versions' stderr here.
        return cache_headers.private_if_signed_in(super().retrieve(request, *args, **kwargs), request.user)

    @answers_rate_limits
    def create(self, request: Request) -> Response:
        if not request.user.is_authenticated:
            raise PermissionDenied("sign in, or send an API token, to upload a bot")
        form = serializers.BotCreateSerializer(data=request.data)
        form.is_valid(raise_exception=True)
        fields = form.validated_data
        if fields["remote"]:
            bot = do_create_remote_bot(request.user, fields["game"], fields["name"], fields["description"])
        else:
            upload = fields["file"]
            bot = do_create_bot(
                request.user, fields["game"], fields["name"], _read_upload(upload), upload.name, fields["description"]
            )
        data = serializers.BotDetailSerializer(bot, context=self.get_serializer_context()).data
        return cache_headers.private(Response(data, status=status.HTTP_201_CREATED))

    @action(detail=True, methods=["post"], permission_classes=[IsAuthenticated])
    @answers_rate_limits
    def versions(self, request: Request, pk: str) -> Response:
        bot = self.get_object()
        if bot.owner_id != request.user.pk:
            raise PermissionDenied("only the bot's owner can upload new versions")
        form = serializers.VersionCreateSerializer(data=request.data)
        form.is_valid(raise_exception=True)
        upload = form.validated_data["file"]
        version = do_add_version(bot, _read_upload(upload), upload.name)
        data = serializers.BotVersionSerializer(version, context=self.get_serializer_context()).data
        return cache_headers.private(Response(data, status=status.HTTP_201_CREATED))

    @extend_schema(
        methods=["POST"],
        summary="Issue your remote bot's token (the older one stops working)",
        parameters=[ID],
        request=None,
        responses={201: serializers.RemoteTokenSerializer, **errors(400, 401, 403, 404)},
    )
    @extend_schema(
        methods=["DELETE"],
        summary="Revoke your remote bot's token",
        parameters=[ID],
        request=None,
        responses={204: None, **errors(400, 401, 403, 404)},
    )
    @action(detail=True, methods=["post", "delete"], url_path="remote-token", permission_classes=[IsAuthenticated])
    def remote_token(self, request: Request, pk: str) -> Response:
        """A remote bot's token (docs/remote.md), for its owner: POST issues a new one (the key is shown once; the
        older one stops working), DELETE revokes it."""
        bot = self.get_object()
        if request.method == "DELETE":
            do_revoke_remote_token(bot, visibility.signed_in(request.user))
            return cache_headers.private(Response(status=status.HTTP_204_NO_CONTENT))
        token, key = do_issue_remote_token(bot, visibility.signed_in(request.user))
        data = {"bot": bot.pk, "key": key, "prefix": token.prefix, "created": token.created}
        body = serializers.RemoteTokenSerializer(data).data
        return cache_headers.private(Response(body, status=status.HTTP_201_CREATED))

    @action(detail=True, methods=["get"])
    def ratings(self, request: Request, pk: str) -> Response:
        """The bot's online-Elo history, oldest first: one entry per rated match (paginated). The Elo the league
        shows is the fitted one: its history is ``fitted-history``."""
        bot = self.get_object()
        changes = RatingChange.objects.filter(bot=bot).order_by("id")
        page = self.paginate_queryset(changes)  # type: ignore[arg-type]  # DRF pages any queryset; the stubs want a Bot one
        return self.get_paginated_response(serializers.RatingChangeSerializer(page, many=True).data)

    @action(detail=True, methods=["get"], url_path="fitted-history")
    def fitted_history(self, request: Request, pk: str) -> Response:
        """The bot's fitted Elo over time, oldest first: one point per fit that moved it (paginated)."""
        bot = self.get_object()
        snapshots = FitSnapshot.objects.filter(bot=bot).order_by("id")
        page = self.paginate_queryset(snapshots)  # type: ignore[arg-type]  # as ``ratings``
        return self.get_paginated_response(serializers.FitSnapshotSerializer(page, many=True).data)

    @action(detail=True, methods=["get"], url_path="head-to-head", pagination_class=None)
    def head_to_head(self, request: Request, pk: str) -> Response:
        """The bot's results against each opponent it has met (pairs of seats: better rank wins), paginated."""
        bot = self.get_object()
        rows, paginator = paginate_list(self, list(queries.head_to_head(bot)))
        response = paginator.get_paginated_response([serializers.head_to_head_json(row) for row in rows])
        response.data = {"bot": bot.pk, **response.data}
        return response

    @action(detail=True, methods=["post"], permission_classes=[IsAuthenticated])
    def resume(self, request: Request, pk: str) -> Response:
        """Its owner puts the bot back on the ladder, lifting an automatic pause."""
        bot = do_resume_bot(self.get_object(), visibility.signed_in(request.user))
        return Response(serializers.BotSerializer(bot, context=self.get_serializer_context()).data)

    @action(detail=True, methods=["post"], permission_classes=[IsAuthenticated])
    def disable(self, request: Request, pk: str) -> Response:
        """Its owner takes the bot off the ladder; it keeps its rating."""
        bot = do_disable_bot(self.get_object(), visibility.signed_in(request.user))
        return Response(serializers.BotSerializer(bot, context=self.get_serializer_context()).data)


def _cache_finished(response: Response, match: Match, request: Request) -> Response:
    """A disclosed match's replay and frames never change: a long public Cache-Control, an ETag and 304s."""
    # (Deleting its bots' notes at the end of their retention changes its replay: a new ETag.)
    deleted = f":{match.logs_deleted_at}" if match.logs_deleted_at else ""
    stamp = f"{match.pk}:{match.finished_at}{deleted}:{request.get_full_path()}".encode()
    etag = '"' + hashlib.sha256(stamp).hexdigest()[:32] + '"'
    if request.headers.get("If-None-Match") == etag:
        response = Response(status=status.HTTP_304_NOT_MODIFIED)
    response["ETag"] = etag
    response["Cache-Control"] = IMMUTABLE
    return response


@extend_schema_view(
    list=extend_schema(
        summary="List matches",
        parameters=MATCH_FILTERS,
        responses={200: serializers.MatchSerializer(many=True), 400: ERROR},
    ),
    retrieve=extend_schema(
        summary="Get a match and its seats", parameters=[ID], responses={200: serializers.MatchSerializer, 404: ERROR}
    ),
    replay=extend_schema(
        summary="A match's replay",
        parameters=[ID],
        responses={200: OpenApiResponse(OpenApiTypes.OBJECT, description="The replay document"), **errors(404, 409)},
    ),
    frames=extend_schema(
        summary="A match's replay as viewer frames",
        parameters=[ID, OpenApiParameter("seat", int, description="Only what this seat knew.")],
        responses={
            200: OpenApiResponse(OpenApiTypes.OBJECT, description="Every step's view, for the viewer"),
            **errors(400, 404, 409),
        },
    ),
)
class MatchViewSet(mixins.ListModelMixin, mixins.RetrieveModelMixin, viewsets.GenericViewSet[Match]):
    """Matches, newest first; filter with ?game=, ?bot=, ?tournament=, ?status=, ?kind=, ?created_after=,
    ?created_before=; sort with ?ordering=. Paged by cursor: follow ``next``; there is no total count."""

    serializer_class = serializers.MatchSerializer
    pagination_class = MatchCursorPagination
    queryset = Match.objects.none()  # for the schema; get_queryset builds the real one
    lookup_value_regex = "[0-9]+"

    def get_queryset(self) -> QuerySet[Match]:
        matches = disclosure.with_disclosure(visibility.matches(self.request.user)).prefetch_related(
            Prefetch(
                "seats",
                queryset=Seat.objects.select_related("bot_version__bot__owner")
                .defer("bot_version__archive")  # up to 1 MiB a seat, and never shown
                .order_by("number"),
            )
        )
        if self.action != "list":
            return matches.order_by("-created", "-id")
        request = self.request
        if game := filters.choice(request, "game", GAMES):
            matches = matches.filter(game=game)
        if status_filter := filters.choice(request, "status", Match.Status.values):
            matches = matches.filter(status=status_filter)
        if kind := filters.choice(request, "kind", Match.Kind.values):
            matches = matches.filter(kind=kind)
        if (bot := filters.identifier(request, "bot")) is not None:
            matches = matches.filter(seats__bot_version__bot_id=bot).distinct()
        if (tournament := filters.identifier(request, "tournament")) is not None:
            matches = matches.filter(round__tournament_id=tournament)
        if after := filters.moment(request, "created_after"):
            matches = matches.filter(created__gte=after)
        if before := filters.moment(request, "created_before", end_of_day=True):
            matches = matches.filter(created__lte=before)
        return matches  # the paginator orders it (?ordering=), as its cursor must follow the same order

    # A seat's stderr is in the JSON for its bot's owner: what a signed-in user reads is theirs alone.
    def list(self, request: Request, *args: object, **kwargs: object) -> Response:
        return cache_headers.private_if_signed_in(super().list(request, *args, **kwargs), request.user)

    def retrieve(self, request: Request, *args: object, **kwargs: object) -> Response:
        return cache_headers.private_if_signed_in(super().retrieve(request, *args, **kwargs), request.user)

    @action(detail=True, methods=["get"])
    def replay(self, request: Request, pk: str) -> Response:
        """The replay document, once the match is disclosed (league/play/disclosure.py); 409 before."""
        match = get_object_or_404(visibility.matches(request.user), pk=pk)
        return _cache_finished(Response(replays.disclosed_replay(match)), match, request)

    @action(detail=True, methods=["get"])
    def frames(self, request: Request, pk: str) -> Response:
        """The replay re-simulated for the viewer: every step's view; ``?seat=N`` for what seat N knew."""
        match = get_object_or_404(visibility.matches(request.user), pk=pk)
        return _cache_finished(Response(replays.match_frames(match, request.query_params.get("seat"))), match, request)


class LeaderboardView(APIView):
    """The ladder of one game: its ranked bots (a ready version and a rated game) by Elo, with the 95% interval,
    W/L/D, last match and recent Elo values.

    ``?sort=`` elo (default), interval, games, wins, last or name; ``?order=reverse`` flips it. Paginated."""

    serializer_class = LeaderboardSerializer

    @extend_schema(
        summary="A game's leaderboard",
        parameters=[
            OpenApiParameter("game", str, OpenApiParameter.PATH, enum=list(GAMES), description="The game."),
            OpenApiParameter("sort", str, enum=list(SORTS)),
            OpenApiParameter("order", str, enum=["reverse"]),
            OpenApiParameter("limit", int),
            OpenApiParameter("offset", int),
        ],
        responses={200: LeaderboardSerializer, **errors(400, 404)},
    )
    def get(self, request: Request, game: str) -> Response:
        if game not in GAMES:
            raise Http404
        sort = filters.choice(request, "sort", SORTS) or "elo"
        reverse = request.query_params.get("order") == "reverse"
        # The page is cut in SQL (LIMIT/OFFSET); the Elo rank and the count are windows over the whole ladder, so
        # the rank stays true and one query answers.
        page, paginator = paginate_with_total(self, queries.with_total(leaderboard(game, sort, reverse)))
        response = paginator.get_paginated_response([serializers.board_row_json(row) for row in board_rows(page)])
        response.data = {"game": game, "sort": sort, "reverse": reverse, **response.data}
        return response


# ----- the current user and their tokens ---------------------------------------------------------------------


@extend_schema(summary="Who you are: your user, bots and tokens", responses={200: serializers.MeSerializer, 401: ERROR})
class MeView(APIView):
    """The signed-in user (by session or token): who they are, their bots and their tokens."""

    permission_classes = [IsAuthenticated]
    serializer_class = serializers.MeSerializer

    def get(self, request: Request) -> Response:
        data = serializers.MeSerializer(visibility.signed_in(request.user), context={"request": request}).data
        return cache_headers.private(Response(data))


@extend_schema_view(
    list=extend_schema(
        summary="List your API tokens", responses={200: serializers.TokenSerializer(many=True), 401: ERROR}
    ),
    create=extend_schema(
        examples=[OpenApiExample("A token for a laptop", value={"name": "laptop"}, request_only=True)],
        summary="Create an API token (its key is shown once)",
        request={"application/json": serializers.TokenCreateSerializer},
        responses={201: serializers.NewTokenSerializer, **errors(400, 401, 403)},
    ),
    destroy=extend_schema(summary="Revoke an API token", parameters=[ID], responses={204: None, **errors(401, 404)}),
)
class TokenViewSet(mixins.ListModelMixin, viewsets.GenericViewSet[ApiToken]):
    """Your API tokens: list them (never their keys), create one (its key is shown once, in the answer), revoke one.
    Creating needs a signed-in session (a token cannot mint tokens); a token may list and revoke its user's tokens."""

    permission_classes = [IsAuthenticated]
    serializer_class = serializers.TokenSerializer
    queryset = ApiToken.objects.none()
    lookup_value_regex = "[0-9]+"

    def get_queryset(self) -> QuerySet[ApiToken]:
        return visibility.tokens(self.request.user).order_by("-created", "-id")

    def list(self, request: Request, *args: object, **kwargs: object) -> Response:
        return cache_headers.private(super().list(request, *args, **kwargs))

    def create(self, request: Request) -> Response:
        if isinstance(request.auth, ApiToken):  # a stolen token must not outlive its own revocation
            raise SessionRequired()
        form = serializers.TokenCreateSerializer(data=request.data)
        form.is_valid(raise_exception=True)
        token, key = do_create_token(visibility.signed_in(request.user), form.validated_data["name"])
        data = {**serializers.TokenSerializer(token).data, "key": key}
        return cache_headers.no_store(Response(data, status=status.HTTP_201_CREATED))

    def destroy(self, request: Request, pk: str) -> Response:
        do_revoke_token(visibility.signed_in(request.user), int(pk))
        return Response(status=status.HTTP_204_NO_CONTENT)
