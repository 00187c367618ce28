from __future__ import annotations

from typing import Any, TypeVar, cast

from django import forms
from django.conf import settings
from django.contrib.auth.forms import UserCreationForm
from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.db.models import Model, QuerySet
from django.http import HttpRequest

from games.registry import GAMES
from league.bots.models import Bot
from league.challenges.models import Challenge
from league.core.ids import MAX_ID, parse_id
from league.play.queries import RESULTS, MatchFilters
from league.tournaments.models import Tournament

ID_ERROR = f"Enter an id: a whole number from 1 to {MAX_ID}."

_M = TypeVar("_M", bound=Model)


class IdsField(forms.Field):
    """Ids posted under one name (checkboxes), each within league.core.ids' bound: a larger one is a form error, not a
    database overflow (a 500)."""

    widget = forms.MultipleHiddenInput  # reads every value of the name, as getlist does
    default_error_messages = {"invalid": ID_ERROR, "too_many": "At most %(limit)s ids."}

    def __init__(self, *, max_count: int = 1000, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.max_count = max_count

    def to_python(self, value: Any) -> list[int]:
        values = list(value or [])
        if len(values) > self.max_count:
            raise ValidationError(self.error_messages["too_many"], code="too_many", params={"limit": self.max_count})
        ids = [parse_id(item.strip() if isinstance(item, str) else item) for item in values]
        if None in ids:
            raise ValidationError(self.error_messages["invalid"], code="invalid")
        return [number for number in ids if number is not None]


class BoundedModelMultipleChoiceField(forms.ModelMultipleChoiceField[_M]):
    """ModelMultipleChoiceField whose values are ids within league.core.ids' bound: Django looks a larger one up with
    ``pk__in``, which overflows (a 500) instead of finding nothing."""

    def _check_values(self, value: Any) -> Any:
        for item in value:
            if parse_id(str(item)) is None:
                raise ValidationError(
                    self.error_messages["invalid_pk_value"], code="invalid_pk_value", params={"pk": item}
                )
        return super()._check_values(value)  # type: ignore[misc]  # private in Django, so absent from django-stubs


UPLOADED, REMOTE = "upload", "remote"


class BotUploadForm(forms.Form):
    """A new bot: its code uploaded (run in the league's sandbox), or played from its owner's machine (remote: no
    file; docs/remote.md)."""

    game = forms.ChoiceField(choices=[])
    name = forms.SlugField(max_length=40, help_text="Letters, digits, - and _.")
    description = forms.CharField(max_length=200, required=False)
    runs = forms.ChoiceField(
        label="Where it runs",
        choices=[
            (UPLOADED, "In the league: I upload its code, which plays in the league's sandbox"),
            (REMOTE, "On my machine (remote): no file; it connects to the league and plays from there"),
        ],
        initial=UPLOADED,
        required=False,  # (a form posted without it uploads, as before the choice existed)
        widget=forms.RadioSelect,
    )
    file = forms.FileField(
        required=False,
        help_text="A single .py file, or a .zip with main.py (or bot.toml) at its top. Max 1 MB. None for a remote "
        "bot.",
    )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        cast(forms.ChoiceField, self.fields["game"]).choices = [(game_id, GAMES[game_id].title) for game_id in GAMES]

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        data["runs"] = data.get("runs") or UPLOADED
        if data["runs"] == UPLOADED and not data.get("file") and "file" not in self.errors:
            self.add_error("file", "Choose its file (a .py or a .zip), or that it runs on your machine.")
        if data["runs"] == REMOTE and data.get("file"):
            self.add_error("file", "A bot that runs on your machine has no file here: its program stays with you.")
        return data


KIT_GAME_COOKIE = "parlour_kit_game"  # the game of the last starter kit downloaded (league/authors/views.py)


def upload_game(request: HttpRequest) -> str | None:
    """The game the upload form opens on: the one asked for (``?game=``), else that of the last starter kit this
    browser downloaded; none (the form's first) if neither is a game here."""
    for game in (request.GET.get("game"), request.COOKIES.get(KIT_GAME_COOKIE)):
        if game in GAMES:
            return game
    return None


class VersionUploadForm(forms.Form):
    file = forms.FileField(help_text="A single .py file, or a .zip with main.py (or bot.toml) at its top. Max 1 MB.")


class TokenForm(forms.Form):
    name = forms.CharField(max_length=60, help_text="What the token is for, e.g. 'my laptop'.")


class SignupForm(UserCreationForm[User]):
    """Django's sign-up form with an e-mail address: the only way back into an account whose password is lost."""

    email = forms.EmailField(
        required=False, max_length=254, help_text="Optional: where a password-reset link can be sent."
    )

    class Meta(UserCreationForm.Meta):  # type: ignore[name-defined,misc]  # django-stubs omits this Meta
        fields = ("username", "email")

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        if settings.REQUIRE_EMAIL_VERIFICATION:  # uploading needs the address verified: a link is mailed to it
            email = self.fields["email"]
            email.required, email.help_text = True, "We mail you a link to verify it before you can upload a bot."


class ChallengeForm(forms.Form):
    """What the challenge page posts. Only the shapes are checked here; the league's rules (table sizes, games per
    challenge, the hourly budget) are league.challenges.services'."""

    kind = forms.ChoiceField(choices=Challenge.Kind.choices, required=False)
    games = forms.IntegerField(required=False)
    opponents = IdsField(required=False)


BOT_OPTIONS = 300  # the bot filter's choices, narrowed by the game and owner chosen; the chosen bot is always one
TOURNAMENT_OPTIONS = 100  # the newest tournaments, narrowed by the game chosen
RESULT_CHOICES = [("", "Any result"), ("won", "Won"), ("drew", "Drew (shared first place)"), ("lost", "Lost")]
RATED_CHOICES = [("", "Rated or not"), ("yes", "Rated only"), ("no", "Unrated only")]
POSITION_ERROR = "That page of matches does not exist; start again from the newest matches."


class MatchFilterForm(forms.Form):
    """The match index's filters, read from the query string. A value that is not among the choices, a bot, owner
    or tournament nobody may see, a result without a bot, or a bot or tournament of another game than the one chosen
    is a message on its field (the page answers 400), never a 500. ``before`` and ``after`` are the page's position
    (league.play.queries.page_of), never shown: choosing filters starts again from the newest matches."""

    game = forms.ChoiceField(required=False, choices=[])
    bot = forms.CharField(required=False, widget=forms.Select)
    owner = forms.CharField(required=False, max_length=150, label="Owner (username)")
    result = forms.ChoiceField(required=False, choices=RESULT_CHOICES, label="The bot's result")
    rated = forms.ChoiceField(required=False, choices=RATED_CHOICES)
    tournament = forms.CharField(required=False, widget=forms.Select)
    before = forms.CharField(required=False, widget=forms.HiddenInput)
    after = forms.CharField(required=False, widget=forms.HiddenInput)

    def __init__(self, data: Any, *, bots: QuerySet[Bot], tournaments: QuerySet[Tournament]) -> None:
        super().__init__(data)
        self.bots, self.tournaments = bots, tournaments
        game = data.get("game") if data.get("game") in GAMES else None
        cast(forms.ChoiceField, self.fields["game"]).choices = [("", "Every game")] + [
            (game_id, GAMES[game_id].title) for game_id in GAMES
        ]
        owner = data.get("owner") or None  # not yet checked: only a name without NUL (PostgreSQL refuses it) narrows
        owner = owner if owner and "\x00" not in owner else None
        cast(forms.Select, self.fields["bot"].widget).choices = self._bot_options(game, owner)
        cast(forms.Select, self.fields["tournament"].widget).choices = self._tournament_options(game)

    def _bot_options(self, game: str | None, owner: str | None) -> list[Any]:
        listed = self.bots.select_related("owner").only("game", "name", "owner__username")
        listed = listed.filter(game=game) if game else listed
        listed = listed.filter(owner__username=owner[:150]) if owner else listed
        bots = list(listed.order_by("game", "owner__username", "name")[:BOT_OPTIONS])
        if len(bots) == BOT_OPTIONS:
            self.fields["bot"].help_text = f"The first {BOT_OPTIONS} are listed: choose a game or an owner to narrow."
        chosen = parse_id(self.data.get("bot"))
        if chosen is not None and chosen not in {bot.pk for bot in bots}:
            bots += list(self.bots.select_related("owner").filter(pk=chosen))
        if game:
            return [("", "Any bot")] + [(str(bot.pk), str(bot)) for bot in bots]
        groups: dict[str, list[tuple[str, str]]] = {}
        for bot in bots:
            groups.setdefault(GAMES[bot.game].title, []).append((str(bot.pk), str(bot)))
        return [("", "Any bot"), *groups.items()]

    def _tournament_options(self, game: str | None) -> list[tuple[str, str]]:
        listed = self.tournaments.filter(game=game) if game else self.tournaments
        chosen = parse_id(self.data.get("tournament"))
        tournaments = list(listed.order_by("-created", "-id")[:TOURNAMENT_OPTIONS])
        if chosen is not None and chosen not in {t.pk for t in tournaments}:
            tournaments += list(self.tournaments.filter(pk=chosen))
        return [("", "Any match")] + [(str(t.pk), t.name) for t in tournaments]

    def clean_bot(self) -> Bot | None:
        value = self.cleaned_data["bot"]
        if not value:
            return None
        bot = self.bots.select_related("owner").filter(pk=number).first() if (number := parse_id(value)) else None
        if bot is None:
            raise ValidationError("No such bot: choose one from the list.", code="unknown")
        return bot

    def clean_owner(self) -> User | None:
        value = self.cleaned_data["owner"].strip()
        if not value:
            return None
        owner = User.objects.filter(username=value).first()
        if owner is None:
            raise ValidationError(f"Nobody here is called “{value}”.", code="unknown")
        return owner

    def clean_tournament(self) -> Tournament | None:
        value = self.cleaned_data["tournament"]
        if not value:
            return None
        found = self.tournaments.filter(pk=number).first() if (number := parse_id(value)) else None
        if found is None:
            raise ValidationError("No such tournament: choose one from the list.", code="unknown")
        return found

    def clean_rated(self) -> bool | None:
        return {"yes": True, "no": False}.get(self.cleaned_data["rated"])

    def clean_before(self) -> int | None:
        return self._position("before")

    def clean_after(self) -> int | None:
        return self._position("after")

    def _position(self, name: str) -> int | None:
        value = self.cleaned_data[name]
        if not value:
            return None
        if (number := parse_id(value)) is None:
            raise ValidationError(POSITION_ERROR, code="invalid")
        return number

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        game, bot, tournament = data.get("game"), data.get("bot"), data.get("tournament")
        if data.get("result") and bot is None and "bot" not in self.errors:
            self.add_error("result", "Choose a bot as well: it is that bot's result.")
        if game and bot is not None and bot.game != game:
            self.add_error("bot", f"{bot} plays {GAMES[bot.game].title}: choose that game, or another bot.")
        if game and tournament is not None and tournament.game != game:
            self.add_error("tournament", f"{tournament.name} is a {GAMES[tournament.game].title} tournament.")
        return data

    def filters(self) -> MatchFilters:
        """The valid form's filters, for league.play.queries.finished_matches."""
        data = self.cleaned_data
        return MatchFilters(
            game=data["game"] or None,
            bot=data["bot"].pk if data["bot"] else None,
            owner=data["owner"].pk if data["owner"] else None,
            result=data["result"] if data["result"] in RESULTS else None,
            rated=data["rated"],
            tournament=data["tournament"].pk if data["tournament"] else None,
        )

    def query(self) -> dict[str, str]:
        """The valid form's filters as the query string carries them (the empty ones left out), positions aside."""
        data = self.cleaned_data
        values = {
            "game": data["game"],
            "bot": str(data["bot"].pk) if data["bot"] else "",
            "owner": data["owner"].username if data["owner"] else "",
            "result": data["result"],
            "rated": {True: "yes", False: "no", None: ""}[data["rated"]],
            "tournament": str(data["tournament"].pk) if data["tournament"] else "",
        }
        return {name: value for name, value in values.items() if value}


def first_error(form: forms.Form) -> str:
    """The form's first error, prefixed with its field's label: what the page shows in its one error line."""
    for name, messages in form.errors.items():
        label = (form.fields[name].label or name) if name in form.fields else ""
        return f"{label}: {messages[0]}" if label else str(messages[0])
    return "invalid form"
