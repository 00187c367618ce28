"""``/api/challenges/``: ask for unrated games (a challenge or a version test) and read their results.

    POST /api/challenges/  {"bot": 12, "opponents": [3, 7], "games": 20}
    POST /api/challenges/  {"kind": "version_test", "bot": 12, "games": 40}           (+ "field": [ids] optional)
    GET  /api/challenges/           your challenges, newest first
    GET  /api/challenges/<id>/      one challenge with its results (anyone: its games are public matches anyway)

Over the hourly limit the answer is 429 with a ``Retry-After`` header and ``retry_after_seconds`` and ``retry_at``
in the error body.
"""

from __future__ import annotations

from typing import Any

from django.db.models import QuerySet
from django.shortcuts import get_object_or_404
from django.urls import reverse
from drf_spectacular.utils import OpenApiExample, extend_schema, extend_schema_view
from rest_framework import serializers, status, viewsets
from rest_framework.exceptions import NotAuthenticated
from rest_framework.pagination import BasePagination
from rest_framework.request import Request
from rest_framework.response import Response

from league.api.fields import IdField, id_list
from league.api.limits import answers_rate_limits
from league.api.schema import ERROR, ID, ChallengeListItemSerializer, ChallengeSerializer, errors
from league.bots.models import BotVersion
from league.challenges.models import Challenge
from league.challenges.queries import challenge_report, challenges_for
from league.challenges.services import do_create_challenge, do_create_version_test
from league.core import cache_headers
from league.site import visibility


class ChallengeCreateSerializer(serializers.Serializer[dict[str, Any]]):
    kind = serializers.ChoiceField(choices=Challenge.Kind.choices, default=Challenge.Kind.CHALLENGE)
    bot = IdField()
    games = serializers.IntegerField(min_value=1)
    opponents = id_list(required=False, default=list)
    field = id_list(required=False, default=list)


def _version_json(version: BotVersion) -> dict[str, Any]:
    return {"bot": version.bot_id, "name": str(version.bot), "version": version.number}


def challenge_json(challenge: Challenge, request: Request | None = None, with_results: bool = True) -> dict[str, Any]:
    url = reverse("challenge", args=[challenge.pk])
    data: dict[str, Any] = {
        "id": challenge.pk,
        "url": request.build_absolute_uri(url) if request else url,
        "kind": challenge.kind,
        "game": challenge.game,
        "owner": challenge.owner.username,
        "bot": _version_json(challenge.version),
        "games": challenge.games,
        "created": challenge.created,
    }
    if not with_results:  # a list: counts from challenges_for's annotations, no per-game work
        data["opponents"] = challenge.opponents
        data["progress"] = {
            "finished": getattr(challenge, "finished", None),
            "failed": getattr(challenge, "failed", None),
        }
        return data
    result = challenge_report(challenge)
    data["opponents"] = [_version_json(result.versions[version_id]) for version_id in challenge.opponents]
    data["status"] = result.status
    data["progress"] = {"finished": result.finished, "failed": result.failed, "in_flight": result.in_flight}
    rows = []
    for row in result.rows:
        estimate = row.estimate
        rows.append(
            {
                "opponent": _version_json(row.version),
                "seats": row.seats,
                "games": row.tally.games,
                "wins": row.tally.wins,
                "draws": row.tally.draws,
                "losses": row.tally.losses,
                "score": None if row.tally.score is None else round(row.tally.score, 4),
                "elo_difference": None
                if estimate is None
                else {
                    "estimate": round(estimate.elo, 1),
                    "low": round(estimate.low, 1),
                    "high": round(estimate.high, 1),
                },
            }
        )
    data["results"] = rows
    data["faults"] = result.faults
    data["sprt"] = result.sprt
    data["matches"] = [{"id": m.pk, "status": m.status} for m in result.matches]
    return data


@extend_schema_view(
    list=extend_schema(
        summary="List your challenges and version tests",
        responses={200: ChallengeListItemSerializer(many=True), 401: ERROR},
    ),
    retrieve=extend_schema(
        summary="Get a challenge with its results",
        parameters=[ID],
        responses={200: ChallengeSerializer, 404: ERROR},
    ),
    create=extend_schema(
        examples=[
            OpenApiExample(
                "Bot 12 against bots 3 and 5",
                value={"kind": "challenge", "bot": 12, "opponents": [3, 5], "games": 20},
                request_only=True,
            )
        ],
        summary="Start a challenge or a version test",
        request={"application/json": ChallengeCreateSerializer},
        responses={201: ChallengeSerializer, **errors(400, 401, 403, 409, 429)},
    ),
)
class ChallengeViewSet(viewsets.GenericViewSet[Challenge]):
    """Challenges and version tests: unrated games between your bot and chosen bots, or two of its versions."""

    lookup_value_regex = "[0-9]+"
    serializer_class = ChallengeSerializer
    queryset = Challenge.objects.none()  # for the schema; the views query through league.challenges.queries

    def _mine(self, request: Request) -> QuerySet[Challenge]:
        if not request.user.is_authenticated:
            raise NotAuthenticated("sign in, or send an API token, to see your challenges")
        return challenges_for(request.user).order_by("-created", "-id")

    def list(self, request: Request) -> Response:
        paginator = self._paginator()
        page = paginator.paginate_queryset(self._mine(request), request, view=self)
        data = [challenge_json(challenge, request, with_results=False) for challenge in page or []]
        return cache_headers.private(paginator.get_paginated_response(data))

    def retrieve(self, request: Request, pk: str) -> Response:
        found = visibility.challenges(request.user).select_related("owner", "version__bot__owner")
        challenge = get_object_or_404(found, pk=pk)
        return Response(challenge_json(challenge, request))

    @answers_rate_limits
    def create(self, request: Request) -> Response:
        if not request.user.is_authenticated:
            raise NotAuthenticated("sign in, or send an API token, to ask for a challenge")
        form = ChallengeCreateSerializer(data=request.data)
        form.is_valid(raise_exception=True)
        data = form.validated_data
        if data["kind"] == Challenge.Kind.VERSION_TEST:
            challenge = do_create_version_test(request.user, data["bot"], data["games"], data["field"])
        else:
            challenge = do_create_challenge(request.user, data["bot"], data["opponents"], data["games"])
        return Response(challenge_json(challenge, request), status=status.HTTP_201_CREATED)

    def _paginator(self) -> BasePagination:
        from rest_framework.settings import api_settings

        pagination: type[BasePagination] = api_settings.DEFAULT_PAGINATION_CLASS  # type: ignore[assignment]  # a class once imported; the stubs say str
        return pagination()
