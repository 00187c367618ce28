"""``/api/tournaments/``: anyone reads tournaments, their standings and rounds; staff create, start, pause, resume
and cancel them. Thin: writes go through league.tournaments.services (errors: league.api.errors' one shape)."""

from __future__ import annotations

from typing import Any

from django.db.models import Count, QuerySet
from drf_spectacular.utils import (
    OpenApiExample,
    OpenApiParameter,
    OpenApiResponse,
    extend_schema,
    extend_schema_view,
    inline_serializer,
)
from rest_framework import mixins, permissions, serializers, status, viewsets
from rest_framework.decorators import action
from rest_framework.request import Request
from rest_framework.response import Response

from games.registry import GAMES
from league.api import filters
from league.api.fields import IdField, id_list
from league.api.pagination import paginate_list
from league.api.schema import ERROR, EXAMPLE_GAME, ID, EntrySerializer, TournamentDetailSerializer, errors
from league.core import cache_headers
from league.play import disclosure
from league.play.models import Match
from league.site import visibility
from league.tournaments.models import Entry, Tournament
from league.tournaments.queries import RoundView, describe_tournament
from league.tournaments.services import (
    do_add_entry,
    do_cancel_tournament,
    do_create_tournament,
    do_pause_tournament,
    do_resume_tournament,
    do_start_tournament,
    do_update_tournament,
)


class IsStaffOrReadOnly(permissions.BasePermission):
    message = "only staff can change tournaments"

    def has_permission(self, request: Request, view: Any) -> bool:
        return request.method in permissions.SAFE_METHODS or bool(request.user and request.user.is_staff)


class TournamentSerializer(serializers.ModelSerializer[Tournament]):
    url = serializers.HyperlinkedIdentityField(view_name="tournament", read_only=True)
    entrants = serializers.IntegerField(read_only=True)
    rounds_played = serializers.IntegerField(read_only=True)

    class Meta:
        model = Tournament
        fields = [
            "id",
            "url",
            "name",
            "game",
            "format",
            "status",
            "paused",
            "rated",
            "settings",
            "entrants",
            "planned_rounds",
            "rounds_played",
            "created",
            "started_at",
            "finished_at",
        ]


class TournamentCreateSerializer(serializers.Serializer[dict[str, Any]]):
    name = serializers.CharField(max_length=100)
    game = serializers.CharField(max_length=40)
    format = serializers.ChoiceField(choices=Tournament.Format.choices)
    settings = serializers.DictField(required=False, default=dict)
    rated = serializers.BooleanField(required=False, default=False)
    bots = id_list(required=False, default=list)


class TournamentUpdateSerializer(serializers.Serializer[dict[str, Any]]):
    name = serializers.CharField(max_length=100, required=False)
    format = serializers.ChoiceField(choices=Tournament.Format.choices, required=False)
    settings = serializers.DictField(required=False)
    rated = serializers.BooleanField(required=False)
    bots = id_list(required=False)


class EntryCreateSerializer(serializers.Serializer[dict[str, Any]]):
    bot = IdField()
    version = IdField(required=False, allow_null=True, default=None, help_text="A version's id, to pin it.")


def entry_json(entry: Entry) -> dict[str, Any]:
    return {
        "position": entry.position,
        "entry": entry.pk,
        "bot": entry.bot_id,
        "name": str(entry.bot),
        "version": entry.bot_version.number if entry.bot_version else None,
        "seed": entry.seed,
        "score": round(entry.score, 4),
        "games": round(entry.games, 4),
        "tiebreaks": entry.tiebreaks,
        "forfeited": entry.forfeited,
        "forfeit_reason": entry.forfeit_reason,
        "eliminated_in": entry.eliminated_in,
    }


def _match_json(match: Match, by_version: dict[int | None, Entry], request: Request) -> dict[str, Any]:
    return {
        "id": match.pk,
        "url": request.build_absolute_uri(match.get_absolute_url()),
        "status": match.status,
        "seed": disclosure.public_seed(match),
        "seats": [
            {"entry": by_version[seat.bot_version_id].pk, "rank": seat.rank, "fault": seat.fault}
            for seat in match.seats.all()
        ],
    }


def rounds_json(rounds: list[RoundView], request: Request) -> list[dict[str, Any]]:
    disclosure.mark_disclosure(match for view in rounds for table in view.tables for match in table.matches)
    data = []
    for view in rounds:
        by_version = {e.bot_version_id: e for t in view.tables for e in t.entries}
        data.append(
            {
                "number": view.round.number,
                "status": view.round.status,
                "started_at": view.round.started_at,
                "finished_at": view.round.finished_at,
                "games": {"finalized": view.finalized, "total": view.total},
                "byes": [entry.pk for entry in view.byes],
                "tables": [
                    {
                        "number": table.number,
                        "entries": [entry.pk for entry in table.entries],
                        "points": {str(entry): points for entry, points in table.points.items()},
                        "advancers": table.advancers,
                        "absent": table.absent,
                        "offline": table.offline,
                        "walkover": table.walkover,
                        "matches": [_match_json(match, by_version, request) for match in table.matches],
                    }
                    for table in view.tables
                ],
            }
        )
    return data


ROUNDS_PAGE = inline_serializer(
    "PaginatedRoundList",
    {
        "count": serializers.IntegerField(),
        "next": serializers.URLField(allow_null=True),
        "previous": serializers.URLField(allow_null=True),
        "results": serializers.ListField(child=serializers.DictField(), help_text="Rounds with their tables."),
    },
)
STAFF_ERRORS = errors(400, 401, 403, 404, 409)


def _staff_action(summary: str) -> Any:
    return extend_schema(
        summary=summary, parameters=[ID], request=None, responses={200: TournamentDetailSerializer, **STAFF_ERRORS}
    )


@extend_schema_view(
    list=extend_schema(
        summary="List tournaments",
        parameters=[
            OpenApiParameter("game", str, enum=list(GAMES), description="A game."),
            OpenApiParameter("status", str, enum=list(Tournament.Status.values)),
        ],
        responses={200: TournamentSerializer(many=True), 400: ERROR},
    ),
    retrieve=extend_schema(
        summary="Get a tournament", parameters=[ID], responses={200: TournamentDetailSerializer, 404: ERROR}
    ),
    create=extend_schema(
        examples=[
            OpenApiExample(
                "A knockout cup",
                value={
                    "name": "Autumn cup",
                    "game": EXAMPLE_GAME,
                    "format": "knockout",
                    "settings": {},
                    "rated": False,
                    "bots": [3, 5, 8, 13],
                },
                request_only=True,
            )
        ],
        summary="Create a tournament (staff)",
        request={"application/json": TournamentCreateSerializer},
        responses={201: TournamentDetailSerializer, **errors(400, 401, 403, 404, 409)},
    ),
    partial_update=extend_schema(
        examples=[OpenApiExample("Rename it", value={"name": "Winter cup"}, request_only=True)],
        summary="Change a planned tournament (staff)",
        parameters=[ID],
        request={"application/json": TournamentUpdateSerializer},
        responses={200: TournamentDetailSerializer, **STAFF_ERRORS},
    ),
    standings=extend_schema(
        summary="A tournament's standings", parameters=[ID], responses={200: EntrySerializer(many=True), 404: ERROR}
    ),
    rounds=extend_schema(
        summary="A tournament's rounds and tables",
        parameters=[ID],
        responses={200: OpenApiResponse(ROUNDS_PAGE, description="The rounds with their tables, paged"), 404: ERROR},
    ),
    entries=extend_schema(
        examples=[OpenApiExample("Enter bot 21", value={"bot": 21}, request_only=True)],
        summary="Enter a bot in a tournament (staff)",
        parameters=[ID],
        request={"application/json": EntryCreateSerializer},
        responses={201: TournamentDetailSerializer, **STAFF_ERRORS},
    ),
    start=_staff_action("Start a tournament (staff)"),
    pause=_staff_action("Pause a tournament (staff)"),
    resume=_staff_action("Resume a paused tournament (staff)"),
    cancel=_staff_action("Cancel a tournament (staff)"),
)
class TournamentViewSet(mixins.ListModelMixin, mixins.RetrieveModelMixin, viewsets.GenericViewSet[Tournament]):
    """Tournaments, newest first (``?status=``, ``?game=``). The detail has the standings (with tie-breaks), the
    rounds with every table and match, and the progress in percent. Staff: POST to create a draft (``name``,
    ``game``, ``format``, ``settings``, ``rated``, ``bots``), PATCH a draft, POST ``entries`` to add a bot, and POST
    ``start``, ``pause``, ``resume`` or ``cancel``."""

    serializer_class = TournamentSerializer
    permission_classes = [IsStaffOrReadOnly]
    queryset = Tournament.objects.none()  # for the schema; get_queryset builds the real one
    lookup_value_regex = "[0-9]+"

    def get_queryset(self) -> QuerySet[Tournament]:
        found = visibility.tournaments(self.request.user)
        found = found.annotate(entrants=Count("entries", distinct=True)).order_by("-created", "-id")
        found = found.annotate(rounds_played=Count("rounds", distinct=True))
        if self.action != "list":
            return found
        if game := filters.choice(self.request, "game", GAMES):
            found = found.filter(game=game)
        if wanted := filters.choice(self.request, "status", Tournament.Status.values):
            found = found.filter(status=wanted)
        return found

    def _detail(self, tournament: Tournament, code: int = status.HTTP_200_OK) -> Response:
        tournament = self.get_queryset().get(pk=tournament.pk)
        view = describe_tournament(tournament)
        data = dict(TournamentSerializer(tournament, context=self.get_serializer_context()).data)
        data["progress"] = view.progress
        data["standings"] = [entry_json(entry) for entry in view.entries]
        data["rounds"] = rounds_json(view.rounds, self.request)
        # Staff read drafts here: what a signed-in user reads is not for a shared cache.
        return cache_headers.private_if_signed_in(Response(data, status=code), self.request.user)

    def list(self, request: Request, *args: object, **kwargs: object) -> Response:
        return cache_headers.private_if_signed_in(super().list(request, *args, **kwargs), request.user)

    def retrieve(self, request: Request, pk: str) -> Response:
        return self._detail(self.get_object())

    def create(self, request: Request) -> Response:
        form = TournamentCreateSerializer(data=request.data)
        form.is_valid(raise_exception=True)
        data = form.validated_data
        created = do_create_tournament(
            visibility.signed_in(request.user),
            data["game"],
            data["name"],
            data["format"],
            data["settings"],
            data["bots"],
            data["rated"],
        )
        return self._detail(created, status.HTTP_201_CREATED)

    def partial_update(self, request: Request, pk: str) -> Response:
        form = TournamentUpdateSerializer(data=request.data)
        form.is_valid(raise_exception=True)
        changes = dict(form.validated_data)
        if "format" in changes:  # the service's name for it (``format`` is a builtin)
            changes["fmt"] = changes.pop("format")
        updated = do_update_tournament(self.get_object(), **changes)
        return self._detail(updated)

    @action(detail=True, methods=["get"])
    def standings(self, request: Request, pk: str) -> Response:
        """The standings, best first, paged like every list (the detail has them all)."""
        rows, paginator = paginate_list(self, describe_tournament(self.get_object()).entries)
        return paginator.get_paginated_response([entry_json(entry) for entry in rows])

    @action(detail=True, methods=["get"])
    def rounds(self, request: Request, pk: str) -> Response:
        """The rounds, first first, with every table and match; paged like every list (the detail has them all)."""
        rows, paginator = paginate_list(self, describe_tournament(self.get_object()).rounds)
        return paginator.get_paginated_response(rounds_json(rows, request))

    @action(detail=True, methods=["post"])
    def entries(self, request: Request, pk: str) -> Response:
        form = EntryCreateSerializer(data=request.data)
        form.is_valid(raise_exception=True)
        do_add_entry(self.get_object(), form.validated_data["bot"], form.validated_data["version"])
        return self._detail(self.get_object(), status.HTTP_201_CREATED)

    @action(detail=True, methods=["post"])
    def start(self, request: Request, pk: str) -> Response:
        return self._detail(do_start_tournament(self.get_object()))

    @action(detail=True, methods=["post"])
    def pause(self, request: Request, pk: str) -> Response:
        return self._detail(do_pause_tournament(self.get_object()))

    @action(detail=True, methods=["post"])
    def resume(self, request: Request, pk: str) -> Response:
        return self._detail(do_resume_tournament(self.get_object()))

    @action(detail=True, methods=["post"])
    def cancel(self, request: Request, pk: str) -> Response:
        return self._detail(do_cancel_tournament(self.get_object()))
