"""Tournaments in the Django admin: create and edit drafts, then start, pause, resume or cancel them with actions
that ask for confirmation first. Every write goes through league.tournaments.services (registered from
league/admin.py)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypedDict, cast

from django import forms
from django.contrib import admin, messages
from django.contrib.admin.helpers import ACTION_CHECKBOX_NAME
from django.db.models import Count, QuerySet
from django.http import HttpRequest, HttpResponse
from django.template.response import TemplateResponse
from django.utils.html import format_html
from django_stubs_ext import WithAnnotations

from league.bots import presence
from league.bots.models import Bot, BotVersion
from league.core.errors import EntrantsOfAnotherGame, ServiceError
from league.site import visibility
from league.site.forms import BoundedModelMultipleChoiceField
from league.tournaments.models import Entry, Round, Tournament
from league.tournaments.services import (
    check_owners,
    check_settings,
    do_cancel_tournament,
    do_create_tournament,
    do_pause_tournament,
    do_resume_tournament,
    do_start_tournament,
    do_update_tournament,
)

# The settings the form offers; an empty field means the format's default (league.tournaments.formats.Settings).
SETTING_FIELDS = [
    "table_size",
    "games_per_pairing",
    "rounds",
    "best_of",
    "advance",
    "duplicate",
    "move_ms",
    "bank_ms",
    "forfeit_after",
]


# Only bots that can play: the start pins each entrant's newest ready version, so a bot without one would fail it.
ENTRANT_CHOICES = (
    Bot.objects.filter(versions__status=BotVersion.Status.READY)
    .distinct()
    .select_related("owner")
    .order_by("game", "owner__username", "name")
)
ENTRY_FIELDS = ("position", "seed", "bot", "bot_version", "score", "games", "tiebreaks", "forfeited", "eliminated_in")
ROUND_FIELDS = ("number", "status", "started_at", "finished_at")


class _Counted(TypedDict):
    entrant_count: int  # TournamentAdmin.get_queryset's annotation


def entrant_label(bot: Bot, online: bool = True) -> str:
    """ "alice/mybot · Love Letter · ready": several games have a "parlour/random", so the game is part of the name.
    A remote bot says whether it is connected (``online``): one that is not when its games are made is not seated."""
    if bot.is_paused:
        state = "paused"
    elif not bot.is_active:
        state = "off the ladder"
    else:
        state = "ready"
    if bot.is_remote:
        state += " · remote, online" if online else " · remote, offline now: not seated while offline"
    return f"{bot} · {bot.get_game_display()} · {state}"


class EntrantsField(BoundedModelMultipleChoiceField[Bot]):
    online: set[int] | None = None  # the remote choices connected now, asked once per form

    def label_from_instance(self, obj: Bot) -> str:
        if obj.is_remote and self.online is None:
            queryset = cast("QuerySet[Bot]", self.queryset)
            self.online = presence.online(queryset.filter(is_remote=True).values_list("pk", flat=True))
        return entrant_label(obj, online=obj.pk in (self.online or set()))


class EntrantCheckboxes(forms.CheckboxSelectMultiple):
    """One checkbox per bot, each marked with its game so that league/static/league/admin_tournament.js can show only
    the bots of the game chosen above (without the script every ready bot is listed, labelled with its game)."""

    def create_option(self, *args: Any, **kwargs: Any) -> dict[str, Any]:
        option = super().create_option(*args, **kwargs)
        instance = getattr(option["value"], "instance", None)
        if isinstance(instance, Bot):
            option["attrs"]["data-game"] = instance.game
        return option


class TournamentForm(forms.ModelForm[Tournament]):
    bots = EntrantsField(
        queryset=ENTRANT_CHOICES,
        required=False,
        widget=EntrantCheckboxes(attrs={"class": "entrants"}),
        help_text="Bots of the tournament's game that have a ready version; that version is pinned at the start.",
    )

    table_size = forms.IntegerField(
        required=False, min_value=2, help_text="Players per table (default: the game's minimum)."
    )
    games_per_pairing = forms.IntegerField(
        required=False, min_value=1, help_text="Round robin and Swiss: games each table plays per round."
    )
    rounds = forms.IntegerField(required=False, min_value=1, help_text="Swiss: rounds (default: log2 of entrants).")
    best_of = forms.IntegerField(required=False, min_value=1, help_text="Knockout: games per series.")
    advance = forms.IntegerField(
        required=False, min_value=1, help_text="Knockout at bigger tables: how many of each table go through."
    )
    duplicate = forms.BooleanField(
        required=False, help_text="Play every game once per seat rotation with the same deal."
    )
    move_ms = forms.IntegerField(required=False, min_value=1, help_text="Time control: per move (ms).")
    bank_ms = forms.IntegerField(required=False, min_value=1, help_text="Time control: bank (ms).")
    forfeit_after = forms.IntegerField(
        required=False, min_value=0, help_text="Faults in a row that make a bot forfeit (0: never; default 3)."
    )

    class Meta:
        model = Tournament
        fields = ["name", "game", "format", "rated", "allow_same_owner"]

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        if self.instance.pk:
            bots = cast(EntrantsField, self.fields["bots"])
            bots.queryset = ENTRANT_CHOICES.filter(game=self.instance.game)
            stored = self.instance.settings or {}
            for key in SETTING_FIELDS:
                self.initial[key] = stored.get(key)
            self.initial["move_ms"] = (stored.get("time_control") or {}).get("move_ms")
            self.initial["bank_ms"] = (stored.get("time_control") or {}).get("bank_ms")
            self.initial["bots"] = list(self.instance.entries.values_list("bot_id", flat=True))

    def settings_json(self) -> dict[str, Any]:
        data = self.cleaned_data
        chosen: dict[str, Any] = {
            key: data[key] for key in SETTING_FIELDS if key not in {"move_ms", "bank_ms", "duplicate"}
        }
        chosen = {key: value for key, value in chosen.items() if value is not None}
        chosen["duplicate"] = bool(data.get("duplicate"))
        time_control = {key: data[key] for key in ("move_ms", "bank_ms") if data.get(key)}
        if time_control:
            chosen["time_control"] = time_control
        if self.instance.pk and "options" in (self.instance.settings or {}):
            chosen["options"] = self.instance.settings["options"]
        return chosen

    def clean(self) -> dict[str, Any]:
        super().clean()
        data = self.cleaned_data  # what ModelForm.clean returns (typed as optional on BaseForm)
        game = data.get("game") or self.instance.game  # read-only once the draft exists
        if self.errors or not game or not data.get("format"):
            return data
        try:
            check_settings(game, data["format"], self.settings_json())
            if wrong := [bot for bot in data.get("bots", []) if bot.game != game]:
                raise EntrantsOfAnotherGame(game=game, bots=wrong)
            check_owners(data.get("bots", []), bool(data.get("rated")), bool(data.get("allow_same_owner")))
        except ServiceError as error:
            raise forms.ValidationError(error.message) from None
        return data


class EntryInline(admin.TabularInline[Entry, Tournament]):
    model = Entry
    fields = (*ENTRY_FIELDS, "connection")
    readonly_fields = (*ENTRY_FIELDS, "connection")
    extra = 0
    can_delete = False
    ordering = ["position", "seed", "id"]

    @admin.display(description="connection")
    def connection(self, entry: Entry) -> str:
        """A remote bot's connection now: one offline when its games are made is not seated (docs/remote.md)."""
        if not entry.bot.is_remote:
            return "uploaded code: always there"
        return "remote, online" if presence.is_online(entry.bot) else "remote, offline: not seated while offline"

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


class RoundInline(admin.TabularInline[Round, Tournament]):
    model = Round
    fields = ROUND_FIELDS
    readonly_fields = ROUND_FIELDS
    extra = 0
    can_delete = False

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


def _confirmed(
    name: str, verb: str, done: str, service: Callable[[Tournament], Tournament], explanation: str
) -> Callable[..., HttpResponse | None]:
    """An admin action that first shows what it will do to the selected tournaments and asks for a yes."""

    def action(modeladmin: TournamentAdmin, request: HttpRequest, queryset: QuerySet[Tournament]) -> Any:
        if request.POST.get("post") == "yes":
            for tournament in queryset.order_by("id"):
                try:
                    service(tournament)
                except ServiceError as error:
                    modeladmin.message_user(request, f"{tournament}: {error.message}", messages.ERROR)
                else:
                    page = tournament.get_absolute_url()
                    said = format_html('{} “{}”: <a href="{}">its public page</a>.', done, tournament, page)
                    modeladmin.message_user(request, said, messages.SUCCESS)
            return None
        context = {
            **modeladmin.admin_site.each_context(request),
            "title": f"{verb.capitalize()} tournaments?",
            "verb": verb,
            "explanation": explanation,
            "queryset": queryset.order_by("id"),
            "action": name,
            "action_checkbox_name": ACTION_CHECKBOX_NAME,
            "opts": modeladmin.model._meta,
        }
        return TemplateResponse(request, "league/tournament_admin_confirm.html", context)

    action.__name__ = name
    return admin.action(description=f"{verb.capitalize()} the selected tournaments…")(action)


@admin.register(Tournament)
class TournamentAdmin(admin.ModelAdmin[Tournament]):
    form = TournamentForm

    class Media:
        js = ["league/admin_tournament.js"]
        css = {"all": ["league/admin_tournament.css"]}

    list_display = ["name", "game", "format", "status", "paused", "rated", "entrants", "created", "finished_at"]
    list_filter = ["status", "game", "format"]
    search_fields = ["name"]
    actions = [
        _confirmed(
            "start_tournaments",
            "start",
            "Started",
            do_start_tournament,
            "Each entrant's newest ready version is pinned, entrants are seeded by Elo, and round 1's games are "
            "queued. Settings and entrants cannot change afterwards.",
        ),
        _confirmed(
            "pause_tournaments",
            "pause",
            "Paused",
            do_pause_tournament,
            "No new games start until resumed; games already queued still play.",
        ),
        _confirmed("resume_tournaments", "resume", "Resumed", do_resume_tournament, "Rounds advance again."),
        _confirmed(
            "cancel_tournaments",
            "cancel",
            "Cancelled",
            do_cancel_tournament,
            "Queued games are withdrawn and nothing more is scheduled; games already played stay on record. "
            "This cannot be undone.",
        ),
    ]

    def get_inlines(self, request: HttpRequest, obj: Tournament | None = None) -> list[type]:
        if obj is None or obj.status == Tournament.Status.DRAFT:
            return []  # a draft's entrants are the "bots" field
        return [EntryInline, RoundInline]

    def get_queryset(self, request: HttpRequest) -> QuerySet[Tournament]:
        return super().get_queryset(request).annotate(entrant_count=Count("entries"))

    @admin.display(description="entrants", ordering="entrant_count")
    def entrants(self, tournament: WithAnnotations[Tournament, _Counted]) -> int:
        return tournament.entrant_count

    def get_readonly_fields(self, request: HttpRequest, obj: Tournament | None = None) -> list[str]:
        if obj is None:
            return []
        if obj.status == Tournament.Status.DRAFT:
            return ["game"]
        return [
            "name",
            "game",
            "format",
            "rated",
            "allow_same_owner",
            "settings",
            "status",
            "paused",
            "seed",
            "started_at",
            "finished_at",
        ]

    def get_fieldsets(self, request: HttpRequest, obj: Tournament | None = None) -> Any:
        if obj is not None and obj.status != Tournament.Status.DRAFT:
            fields = ["name", "game", "format", "rated", "allow_same_owner", "settings", "status", "paused"]
            return [(None, {"fields": [*fields, "started_at", "finished_at"]})]
        return [
            (None, {"fields": ["name", "game", "format", "rated", "allow_same_owner", "bots"]}),
            ("Settings (empty: the format's default)", {"fields": list(SETTING_FIELDS)}),
        ]

    def get_form(
        self, request: HttpRequest, obj: Tournament | None = None, change: bool = False, **kwargs: Any
    ) -> type[forms.ModelForm[Tournament]]:
        if obj is not None and obj.status != Tournament.Status.DRAFT:
            kwargs["form"] = forms.ModelForm  # nothing editable once started
            kwargs["fields"] = []
        return super().get_form(request, obj, change, **kwargs)

    def save_model(
        self, request: HttpRequest, obj: Tournament, form: forms.ModelForm[Tournament], change: bool
    ) -> None:
        if not isinstance(form, TournamentForm):
            return  # started: read-only
        data = form.cleaned_data
        try:
            if change:
                do_update_tournament(
                    obj.pk,
                    data["name"],
                    data["format"],
                    form.settings_json(),
                    data["rated"],
                    data["bots"],
                    data["allow_same_owner"],
                )
            else:
                created = do_create_tournament(
                    visibility.signed_in(request.user),
                    data["game"],
                    data["name"],
                    data["format"],
                    form.settings_json(),
                    data["bots"],
                    data["rated"],
                    data["allow_same_owner"],
                )
                obj.pk = created.pk
        except ServiceError as error:  # a race with a start: shown, nothing saved
            self.message_user(request, error.message, messages.ERROR)
            return
        obj.refresh_from_db()
