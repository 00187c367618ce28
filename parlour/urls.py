from __future__ import annotations

from csp.decorators import csp_update
from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView, SpectacularRedocView, SpectacularSwaggerSplitView

from league import views, views_accounts, views_authors, views_tournaments

urlpatterns = [
    path("", views.home, name="home"),
    path("games/<str:game>/", views.leaderboard_page, name="leaderboard"),
    path("bots/new/", views.bot_new, name="bot-new"),
    path("bots/<int:pk>/", views.bot_page, name="bot"),
    path("bots/<int:pk>/versions/", views.bot_version_new, name="bot-version-new"),
    path("bots/<int:pk>/ladder/", views.bot_ladder, name="bot-ladder"),
    path("matches/<int:pk>/", views.match_page, name="match"),
    path("first-bot/", views_authors.first_bot, name="first-bot"),
    path("games/<str:game>/reference/", views_authors.game_reference, name="game-reference"),
    path("games/<str:game>/starter.zip", views_authors.starter_zip, name="starter-kit"),
    path("challenges/", views_authors.challenge_list, name="challenges"),
    path("challenges/<int:pk>/", views_authors.challenge_page, name="challenge"),
    path("bots/<int:pk>/challenge/", views_authors.challenge_new, name="challenge-new"),
    path("tournaments/", views_tournaments.tournament_list, name="tournaments"),
    path("tournaments/<int:pk>/", views_tournaments.tournament_page, name="tournament"),
    path("account/signup/", views.signup, name="signup"),
    path("account/login/", auth_views.LoginView.as_view(), name="login"),
    path("account/logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("account/password-reset/", auth_views.PasswordResetView.as_view(), name="password_reset"),
    path("account/password-reset/sent/", auth_views.PasswordResetDoneView.as_view(), name="password_reset_done"),
    path(
        "account/password-reset/<uidb64>/<token>/",
        views_accounts.PasswordResetConfirmView.as_view(),
        name="password_reset_confirm",
    ),
    path(
        "account/password-reset/done/",
        auth_views.PasswordResetCompleteView.as_view(),
        name="password_reset_complete",
    ),
    path("account/tokens/", views.tokens, name="tokens"),
    path("account/tokens/<int:pk>/revoke/", views.token_revoke, name="token-revoke"),
    path("admin/", admin.site.urls),
    path("api/schema/", SpectacularAPIView.as_view(), name="api-schema"),
    # The docs pages under the strict Content-Security-Policy: Swagger UI's start-up script is served from its own
    # URL (the split view). Redoc's bundle writes <style> elements as it renders and runs its search in a worker made
    # from a blob: URL, so its page alone allows inline styles and blob: workers (never inline scripts).
    path(
        "api/docs/",
        SpectacularSwaggerSplitView.as_view(url_name="api-schema", template_name="league/api/swagger_ui.html"),
        name="api-docs",
    ),
    path(
        "api/redoc/",
        csp_update({"style-src": ["'unsafe-inline'"], "worker-src": ["'self'", "blob:"]})(
            SpectacularRedocView.as_view(url_name="api-schema", template_name="league/api/redoc.html")
        ),
        name="api-redoc",
    ),
    path("api/", include("league.api.urls")),
]
