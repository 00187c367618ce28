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

        from league.accounts.services import revoke_tokens_on_new_password
        from league.bots.signals import version_ready
        from league.ladder import placement
        from league.play.signals import series_recorded

        # (Imported here, as Django requires of anything that loads models.) The features' wiring: a later feature
        # acts on an earlier one's events, so the earlier one never imports it (docs/architecture.md, league/).
        post_save.connect(
            revoke_tokens_on_new_password, sender=User, dispatch_uid="league.revoke_tokens_on_new_password"
        )
        version_ready.connect(placement.on_version_ready, dispatch_uid="league.placement_on_version_ready")
        series_recorded.connect(placement.on_series_recorded, dispatch_uid="league.placement_on_series_recorded")
