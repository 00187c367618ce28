"""/api/remote/... (docs/remote.md): mounted by league/api/urls.py."""

from __future__ import annotations

from django.urls import path

from league.remote import views

urlpatterns = [
    path("events/", views.events, name="api-remote-events"),
    path("channels/<str:channel>/messages/", views.channel_messages, name="api-remote-messages"),
    path("channels/<str:channel>/replies/<int:seq>/", views.channel_reply, name="api-remote-reply"),
]
