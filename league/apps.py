from __future__ import annotations

import django_stubs_ext
from django.apps import AppConfig

# Django's admin and form classes are generic only in django-stubs (ModelAdmin[Bot], ModelForm[Tournament]); this
# lets the same subscripts run. Here rather than in a model or admin module: an app's config is imported before any
# of them.
django_stubs_ext.monkeypatch()


class LeagueConfig(AppConfig):
    name = "league"
