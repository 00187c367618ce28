"""OpenAPI (drf-spectacular) support: the token scheme, the one error shape, and documentation serializers for the
responses the views build as plain JSON. These serializers describe; they never validate requests."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from django.core.exceptions import FieldDoesNotExist
from django.db import models
from drf_spectacular.extensions import OpenApiAuthenticationExtension, OpenApiSerializerExtension
from drf_spectacular.openapi import AutoSchema as BaseAutoSchema
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, inline_serializer
from rest_framework import serializers

from games.registry import GAMES
from league.api.examples import HOST, examples_for
from league.core.ids import MAX_ID

# These serializers only describe JSON the views build: they never take an instance, so it has no type.
Describes = serializers.Serializer[Any]

if TYPE_CHECKING:
    from drf_spectacular.openapi import AutoSchema


# A model's integer column bounds its field in the schema: Django takes the bound from the database in use, and
# SQLite's is 2**63 - 1 for every kind, which Swagger UI showed as 9223372036854776000. The schema states
# PostgreSQL's (the production database), the same whichever database generated it.
_COLUMN_MAXIMUM = {
    models.PositiveSmallIntegerField: 32767,
    models.SmallIntegerField: 32767,
    models.PositiveIntegerField: 2147483647,
    models.IntegerField: 2147483647,
}


class ExampleSchema(BaseAutoSchema):
    """The API's schema class (REST_FRAMEWORK["DEFAULT_SCHEMA_CLASS"]): every operation's examples from
    league.api.examples, then any its view's @extend_schema gives; integer columns bounded as in PostgreSQL."""

    def get_examples(self) -> list[Any]:
        return [*examples_for(self.get_operation_id()), *super().get_examples()]

    def _map_serializer_field(self, field: Any, direction: Any, bypass_extensions: bool = False) -> Any:
        schema = super()._map_serializer_field(field, direction, bypass_extensions)  # type: ignore[no-untyped-call]  # drf-spectacular is untyped
        column = _model_field(field)
        bound = next((b for kind, b in _COLUMN_MAXIMUM.items() if type(column) is kind), None)
        if bound is not None and isinstance(schema, dict) and schema.get("type") == "integer":
            schema["maximum"] = min(schema.get("maximum", bound), bound)
            schema["format"] = "int32"
        return schema


def _model_field(field: Any) -> Any:
    """The model field a ModelSerializer's field reads, if it reads one directly."""
    meta = getattr(getattr(field, "parent", None), "Meta", None)
    model = getattr(meta, "model", None)
    if model is None or "." in (field.source or ""):
        return None
    try:
        return model._meta.get_field(field.source)
    except FieldDoesNotExist:  # a method field, or a name the model does not have
        return None


class OwnersStderr(OpenApiSerializerExtension):
    """A version's ``validation_stderr`` is added to the answer for its bot's owner only (BotVersionSerializer's
    to_representation), so DRF cannot see it: the schema says so here."""

    target_class = "league.api.serializers.BotVersionSerializer"

    def map_serializer(self, auto_schema: AutoSchema, direction: Any) -> Any:
        schema = auto_schema._map_serializer(self.target, direction, bypass_extensions=True)
        schema["properties"]["validation_stderr"] = {
            "type": "string",
            "readOnly": True,
            "description": "The version's stderr during validation (its last 64 KiB): only for the bot's owner, "
            "absent for anyone else.",
        }
        return schema


class ApiTokenScheme(OpenApiAuthenticationExtension):
    target_class = "league.api.auth.ApiTokenAuthentication"
    name = "tokenAuth"

    def get_security_definition(self, auto_schema: AutoSchema) -> dict[str, Any]:
        return {
            "type": "apiKey",
            "in": "header",
            "name": "Authorization",
            "description": "`Token <key>` (or `Bearer <key>`): a key from /api/tokens/ or the account page.",
        }


class ErrorDetailSerializer(Describes):
    code = serializers.CharField()
    message = serializers.CharField()
    # (DRF's metaclass moves declared fields off the class: this does not replace Serializer.fields.)
    fields = serializers.DictField(required=False, help_text="Per-field messages (400 only).")  # type: ignore[assignment]  # see above
    retry_after_seconds = serializers.IntegerField(required=False, help_text="429 only: when to try again.")
    retry_at = serializers.DateTimeField(required=False)


class ErrorSerializer(Describes):
    error = ErrorDetailSerializer()


ERROR = OpenApiResponse(ErrorSerializer, description="The one error shape of the API.")


# An object's id in a path: a whole number (the routes match digits only; anything else is the API's 404) up to
# league.core.ids.MAX_ID (a larger one finds nothing: a 404 too).
ID = OpenApiParameter("id", {"type": "integer", "minimum": 0, "maximum": MAX_ID}, OpenApiParameter.PATH)


def errors(*codes: int) -> dict[int, OpenApiResponse]:
    return dict.fromkeys(codes, ERROR)


class GameSerializer(Describes):
    id = serializers.CharField()
    title = serializers.CharField()
    min_players = serializers.IntegerField()
    max_players = serializers.IntegerField()
    version = serializers.CharField()
    summary = serializers.CharField()
    options_schema = serializers.JSONField(help_text="A JSON schema of the game's options.")
    builtin_players = serializers.ListField(child=serializers.CharField())


class BoardRowSerializer(Describes):
    rank = serializers.IntegerField()
    bot = serializers.IntegerField()
    name = serializers.CharField()
    owner = serializers.CharField()
    is_builtin = serializers.BooleanField()
    fitted = serializers.BooleanField(help_text="Whether the bot has a fitted Elo yet (refitted every minute).")
    elo = serializers.FloatField(allow_null=True, help_text="The fitted Elo; null before the bot's first fit.")
    sigma = serializers.FloatField(allow_null=True)
    interval = serializers.ListField(
        child=serializers.FloatField(), allow_null=True, help_text="The fitted Elo's 95% interval."
    )
    rank_range = serializers.ListField(
        child=serializers.IntegerField(), allow_null=True, help_text="Best and worst rank at 95% (bootstrap)."
    )
    online_elo = serializers.FloatField(help_text="The per-match Elo (moved by each result).")
    provisional = serializers.BooleanField()
    paused = serializers.BooleanField()
    games = serializers.IntegerField()
    wins = serializers.IntegerField()
    losses = serializers.IntegerField()
    draws = serializers.IntegerField()
    last_match = serializers.DateTimeField(allow_null=True)
    recent = serializers.JSONField()


class _Page(Describes):
    count = serializers.IntegerField()
    next = serializers.URLField(allow_null=True)
    previous = serializers.URLField(allow_null=True)


class LeaderboardSerializer(_Page):
    game = serializers.CharField()
    sort = serializers.CharField()
    reverse = serializers.BooleanField()
    results = BoardRowSerializer(many=True)


class HeadToHeadRowSerializer(Describes):
    opponent = serializers.IntegerField()
    name = serializers.CharField()
    games = serializers.IntegerField()
    wins = serializers.IntegerField()
    losses = serializers.IntegerField()
    draws = serializers.IntegerField()
    score = serializers.FloatField()
    last_match = serializers.DateTimeField(allow_null=True)


class HeadToHeadSerializer(_Page):
    bot = serializers.IntegerField()
    results = HeadToHeadRowSerializer(many=True)


class EntrySerializer(Describes):
    position = serializers.IntegerField(allow_null=True)
    entry = serializers.IntegerField()
    bot = serializers.IntegerField()
    name = serializers.CharField()
    version = serializers.IntegerField(allow_null=True)
    seed = serializers.IntegerField(allow_null=True)
    score = serializers.FloatField()
    games = serializers.FloatField()
    tiebreaks = serializers.JSONField()
    forfeited = serializers.BooleanField()
    forfeit_reason = serializers.CharField(allow_blank=True, allow_null=True)
    eliminated_in = serializers.IntegerField(allow_null=True)


class ChallengeVersionSerializer(Describes):
    bot = serializers.IntegerField()
    name = serializers.CharField()
    version = serializers.IntegerField()


class _ChallengeBase(Describes):
    id = serializers.IntegerField()
    url = serializers.URLField()
    kind = serializers.CharField()
    game = serializers.CharField()
    owner = serializers.CharField()
    bot = ChallengeVersionSerializer()
    games = serializers.IntegerField()
    created = serializers.DateTimeField()


class ChallengeListItemSerializer(_ChallengeBase):
    opponents = serializers.ListField(child=serializers.IntegerField(), help_text="Opponent version ids.")
    progress = inline_serializer(
        "ChallengeListProgress",
        {
            "finished": serializers.IntegerField(allow_null=True),
            "failed": serializers.IntegerField(allow_null=True),
        },
    )


class ChallengeSerializer(_ChallengeBase):
    opponents = ChallengeVersionSerializer(many=True)
    status = serializers.CharField()
    progress = inline_serializer(
        "ChallengeProgress",
        {
            "finished": serializers.IntegerField(),
            "failed": serializers.IntegerField(),
            "in_flight": serializers.IntegerField(),
        },
    )
    results = serializers.ListField(child=serializers.JSONField(), help_text="One row per opponent.")
    faults = serializers.JSONField()
    sprt = serializers.JSONField(allow_null=True)
    matches = serializers.ListField(child=serializers.JSONField())


class TournamentDetailSerializer(Describes):
    """The tournament, its progress in percent, its standings and its rounds (the list's fields, and more)."""

    id = serializers.IntegerField()
    url = serializers.URLField()
    name = serializers.CharField()
    game = serializers.CharField()
    format = serializers.CharField()
    status = serializers.CharField()
    paused = serializers.BooleanField()
    rated = serializers.BooleanField()
    settings = serializers.JSONField()
    entrants = serializers.IntegerField()
    planned_rounds = serializers.IntegerField(allow_null=True)
    rounds_played = serializers.IntegerField()
    created = serializers.DateTimeField()
    started_at = serializers.DateTimeField(allow_null=True)
    finished_at = serializers.DateTimeField(allow_null=True)
    progress = serializers.IntegerField()
    standings = EntrySerializer(many=True)
    rounds = serializers.ListField(child=serializers.JSONField())


# JavaScript's numbers are exact only up to 2**53: Swagger UI shows a model field's bound 2**63 - 1 as its example
# "9223372036854776000". A field bounded that high gets a small example instead (its bound stays in the schema).
_JS_SAFE = 2**53
# Swagger UI fills a string with a pattern with random text matching it; a real-looking value reads better.
# The first registered game stands for any in examples (no module outside a game's folder names one).
EXAMPLE_GAME = next(iter(GAMES))
_PATTERN_EXAMPLES = {"^[-a-zA-Z0-9_]+$": "my-first-bot", "^[a-z_]+$": EXAMPLE_GAME}  # a bot's name, a game id


def _small_examples(node: Any) -> None:
    if isinstance(node, dict):
        if node.get("type") == "integer" and node.get("maximum", 0) > _JS_SAFE and "example" not in node:
            node["example"] = max(node.get("minimum", 1), 1)
        if node.get("type") == "string" and node.get("pattern") in _PATTERN_EXAMPLES and "example" not in node:
            node["example"] = _PATTERN_EXAMPLES[node["pattern"]]
        for value in node.values():
            _small_examples(value)
    elif isinstance(node, list):
        for value in node:
            _small_examples(value)


# DRF's paginators give their links the example http://api.example.org/accounts/…: each list's own URL reads better.
_DRF_LINK = "http://api.example.org/accounts/"


def _own_links(node: Any, url: str) -> Any:
    if isinstance(node, str):
        return node.replace(_DRF_LINK, url)
    if isinstance(node, dict):
        return {key: _own_links(value, url) for key, value in node.items()}
    if isinstance(node, list):
        return [_own_links(value, url) for value in node]
    return node


def _page_links(result: dict[str, Any]) -> None:
    components = result.get("components", {}).get("schemas", {})
    for path, item in result.get("paths", {}).items():
        url = HOST + path.replace("{id}", "21")
        for op in item.values():
            if not isinstance(op, dict) or "responses" not in op:
                continue
            for answer in op["responses"].values():
                for media in answer.get("content", {}).values():
                    if "examples" in media:
                        media["examples"] = _own_links(media["examples"], url)
                    name = media.get("schema", {}).get("$ref", "").rsplit("/", 1)[-1]
                    if name.startswith("Paginated") and name in components:
                        components[name] = _own_links(components[name], url)


def small_integer_examples(result: dict[str, Any], generator: Any, request: Any, public: Any) -> dict[str, Any]:
    """drf-spectacular postprocessing hook (SPECTACULAR_SETTINGS["POSTPROCESSING_HOOKS"])."""
    _small_examples(result)
    _page_links(result)
    return result
