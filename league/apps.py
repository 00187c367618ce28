from __future__ import annotations

import django_stubs_ext
from django.apps import AppConfig

# Django's admin and form classes are generic only in django-stubs (ModelAdmin[Bot], ModelForm[Tournament]); this
# lets the same subscripts run. Here rather than in a model or admin module: an app's config is imported before any
# of them.
django_stubs_ext.monkeypatch()


class LeagueConfig(AppConfig):
    name = "league"

    def ready(self) -> None:
        from django.contrib.auth.models import User
        from django.db.models.signals import post_save

        from league.services.accounts import revoke_tokens_on_new_password

        post_save.connect(
            revoke_tokens_on_new_password, sender=User, dispatch_uid="league.revoke_tokens_on_new_password"
        )
