from __future__ import annotations

from typing import Any, TypeVar, cast

from django import forms
from django.conf import settings
from django.contrib.auth.forms import UserCreationForm
from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.db.models import Model
from django.http import HttpRequest

from games.registry import GAMES
from league.challenges.models import Challenge
from league.core.ids import MAX_ID, parse_id

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


class BotUploadForm(forms.Form):
    game = forms.ChoiceField(choices=[])
    name = forms.SlugField(max_length=40, help_text="Letters, digits, - and _.")
    description = forms.CharField(max_length=200, required=False)
    file = forms.FileField(help_text="A single .py file, or a .zip with main.py (or bot.toml) at its top. Max 1 MB.")

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        cast(forms.ChoiceField, self.fields["game"]).choices = [(game_id, GAMES[game_id].title) for game_id in GAMES]


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


def first_error(form: forms.Form) -> str:
    """The form's first error, prefixed with its field's label: what the page shows in its one error line."""
    for name, messages in form.errors.items():
        label = (form.fields[name].label or name) if name in form.fields else ""
        return f"{label}: {messages[0]}" if label else str(messages[0])
    return "invalid form"
