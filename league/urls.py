from __future__ import annotations

from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.urls import include, path

from league import views

urlpatterns = [
    path("", views.home, name="home"),
    path("games/<str:game>/", views.leaderboard_page, name="leaderboard"),
    path("bots/new/", views.bot_new, name="bot-new"),
    path("bots/<int:pk>/", views.bot_page, name="bot"),
    path("bots/<int:pk>/versions/", views.bot_version_new, name="bot-version-new"),
    path("matches/<int:pk>/", views.match_page, name="match"),
    path("account/signup/", views.signup, name="signup"),
    path("account/login/", auth_views.LoginView.as_view(), name="login"),
    path("account/logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("account/tokens/", views.tokens, name="tokens"),
    path("account/tokens/<int:pk>/revoke/", views.token_revoke, name="token-revoke"),
    path("admin/", admin.site.urls),
    path("api/", include("league.api.urls")),
]
