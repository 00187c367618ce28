from __future__ import annotations

from django import forms
from django.contrib.auth.forms import UserCreationForm

from games.registry import GAMES


class BotUploadForm(forms.Form):
    game = forms.ChoiceField(choices=[])
    name = forms.SlugField(max_length=40, help_text="Letters, digits, - and _.")
    description = forms.CharField(max_length=200, required=False)
    file = forms.FileField(help_text="A single .py file, or a .zip with main.py (or bot.toml) at its top. Max 1 MB.")

    def __init__(self, *args, **kwargs) -> None:  # type: ignore[no-untyped-def]
        super().__init__(*args, **kwargs)
        self.fields["game"].choices = [(game_id, GAMES[game_id].title) for game_id in GAMES]


class VersionUploadForm(forms.Form):
    file = forms.FileField(help_text="A single .py file, or a .zip with main.py (or bot.toml) at its top. Max 1 MB.")


class TokenForm(forms.Form):
    name = forms.CharField(max_length=60, help_text="What the token is for, e.g. 'my laptop'.")


class SignupForm(UserCreationForm):
    """Django's sign-up form with an e-mail address: the only way back into an account whose password is lost."""

    email = forms.EmailField(
        required=False, max_length=254, help_text="Optional: where a password-reset link can be sent."
    )

    class Meta(UserCreationForm.Meta):
        fields = ("username", "email")
