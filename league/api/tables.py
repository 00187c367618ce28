"""``/api/tables/``: a person plays a game against the league's bots (docs/tables.md).

    POST /api/tables/                {"game": <a game id>, "players": 2, "bots": [3]}   (bots optional)
    GET  /api/tables/<id>/           the table as you may see it: your seat's observation and legal actions if it is
                                     yours, the public view otherwise
    POST /api/tables/<id>/act/       {"move": 7, "action": {...}}   your action for the decision at move 7
    POST /api/tables/<id>/cancel/    cancel your table while it is queued (200, the table, now cancelled)
    POST /api/tables/<id>/resign/    give your running game up (200, the table, resigned)

The page at /tables/<id>/ plays through these; moves are pushed to it by /tables/<id>/events/ (server-sent events).
"""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import OpenApiExample, extend_schema, extend_schema_view
from rest_framework import serializers, status, viewsets
from rest_framework.decorators import action
from rest_framework.exceptions import NotAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response

from league.api.examples import GAME
from league.api.fields import id_list
from league.api.limits import answers_rate_limits
from league.api.schema import ERROR, ID, errors
from league.core import cache_headers
from league.tables import services
from league.tables.models import Table


class TableCreateSerializer(serializers.Serializer[dict[str, Any]]):
    game = serializers.CharField(max_length=40)
    players = serializers.IntegerField(min_value=1, max_value=20)
    bots = id_list(required=False, max_length=20, help_text="The other seats' bots; none: the leaderboard's top.")


class TableActSerializer(serializers.Serializer[dict[str, Any]]):
    move = serializers.IntegerField(min_value=0, max_value=100_000, help_text="The move count of the state you saw.")
    action = serializers.DictField(help_text="One of the legal actions (templates filled in).")


class TableSeatSerializer(serializers.Serializer[dict[str, Any]]):
    kind = serializers.CharField(help_text="person, bot or builtin")
    label = serializers.CharField()  # type: ignore[assignment]  # a field named like Field.label
    bot_id = serializers.IntegerField(allow_null=True)


class TableSerializer(serializers.Serializer[Table]):
    id = serializers.IntegerField()
    game = serializers.CharField()
    status = serializers.CharField(help_text="queued, running, finished, failed or cancelled")
    players = serializers.IntegerField()
    seats = TableSeatSerializer(many=True)
    person_seat = serializers.IntegerField()
    move_count = serializers.IntegerField()
    to_move = serializers.IntegerField(allow_null=True)
    narration = serializers.ListField(child=serializers.CharField())
    role = serializers.CharField(help_text="person (you play this table) or spectator")
    clock_seconds = serializers.IntegerField()
    clock_left = serializers.FloatField(allow_null=True)
    observation = serializers.DictField(required=False, help_text="The person's seat only.")
    legal_actions = serializers.ListField(child=serializers.DictField(), required=False)
    blanks = serializers.DictField(
        required=False,
        help_text="The person's seat only: the blanks (fields null) of the legal actions that are templates, "
        '{"blanks": [[{"path", "label", "kind", "choices", "per", "min", "max"}] per legal action], "lists": {}} '
        "(docs/tables.md, Actions with blanks).",
    )
    public = serializers.DictField(required=False, help_text="Spectators: the public view.")
    queue = serializers.DictField(
        required=False,
        help_text='Queued tables: {"ahead", "place", "running", "max"}; first in, first out (docs/tables.md).',
    )
    message = serializers.CharField(required=False)
    forfeited = serializers.BooleanField(
        help_text="The person's clock ran out, or they resigned: a random player plays their seat."
    )
    resigned = serializers.BooleanField(help_text="The person resigned.")
    result = serializers.DictField(required=False)
    replay_url = serializers.CharField(required=False)


@extend_schema_view(
    retrieve=extend_schema(
        summary="Get a table as you may see it", parameters=[ID], responses={200: TableSerializer, 404: ERROR}
    ),
    create=extend_schema(
        summary="Sit at a table against bots (you play one seat)",
        examples=[
            OpenApiExample("Two players", value={"game": GAME, "players": 2}, request_only=True),
        ],
        request={"application/json": TableCreateSerializer},
        responses={201: TableSerializer, **errors(400, 401, 409, 429)},
    ),
    act=extend_schema(
        summary="Play your action at a table",
        parameters=[ID],
        examples=[
            OpenApiExample(
                "One of the legal actions",
                value={"move": 4, "action": {"card": 1, "target": 1, "guess": 5}},
                request_only=True,
            )
        ],
        request={"application/json": TableActSerializer},
        responses={202: TableSerializer, **errors(400, 401, 403, 404, 409)},
    ),
    cancel=extend_schema(
        summary="Cancel your table while it is queued",
        parameters=[ID],
        request=None,
        responses={200: TableSerializer, **errors(401, 403, 404, 409)},
    ),
    resign=extend_schema(
        summary="Resign your running game (a random player finishes it; you rank last)",
        parameters=[ID],
        request=None,
        responses={200: TableSerializer, **errors(401, 403, 404, 409)},
    ),
)
class TableViewSet(viewsets.GenericViewSet[Table]):
    """People's tables: a game in which you play one seat against the league's bots. Unrated."""

    lookup_value_regex = "[0-9]+"
    serializer_class = TableSerializer
    queryset = Table.objects.none()  # for the schema; the views go through league.tables.services

    def retrieve(self, request: Request, pk: str) -> Response:
        table = services.get_table(pk)
        return cache_headers.private(Response(services.table_view(table, request.user)))

    @answers_rate_limits  # a person whose worker time of the hour is spent: 429 with Retry-After
    def create(self, request: Request) -> Response:
        if not request.user.is_authenticated:
            raise NotAuthenticated("sign in, or send an API token, to sit at a table")
        form = TableCreateSerializer(data=request.data)
        form.is_valid(raise_exception=True)
        data = form.validated_data
        table = services.do_create_table(request.user, data["game"], data["players"], data.get("bots"))
        return Response(services.table_view(table, request.user), status=status.HTTP_201_CREATED)

    @action(detail=True, methods=["post"])
    def act(self, request: Request, pk: str) -> Response:
        if not request.user.is_authenticated:
            raise NotAuthenticated("sign in, or send an API token, to play")
        form = TableActSerializer(data=request.data)
        form.is_valid(raise_exception=True)
        services.do_act(request.user, pk, form.validated_data["move"], form.validated_data["action"])
        table = services.get_table(pk)
        return Response(services.table_view(table, request.user), status=status.HTTP_202_ACCEPTED)

    @action(detail=True, methods=["post"])
    def cancel(self, request: Request, pk: str) -> Response:
        if not request.user.is_authenticated:
            raise NotAuthenticated("sign in, or send an API token, to cancel your table")
        table = services.do_cancel_table(request.user, pk)
        return Response(services.table_view(table, request.user))

    @action(detail=True, methods=["post"])
    def resign(self, request: Request, pk: str) -> Response:
        if not request.user.is_authenticated:
            raise NotAuthenticated("sign in, or send an API token, to resign your game")
        table = services.do_resign(request.user, pk)
        return Response(services.table_view(table, request.user))
