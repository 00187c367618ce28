"""The site's URLs: the league's pages and API, Django's sign-in and password reset, the admin, the API's docs."""

from __future__ import annotations

from csp.decorators import csp_update
from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView, SpectacularRedocView, SpectacularSwaggerSplitView

from league.accounts import views as views_accounts

# Included without a namespace: the names ("home", "password_reset", ...) are the site's, used as they always were.
urlpatterns = [
    path("", include("league.urls")),
    path("account/login/", auth_views.LoginView.as_view(), name="login"),
    path("account/logout/", auth_views.LogoutView.as_view(), name="logout"),
    # Django's view: the session that changes the password stays signed in, every other one ends.
    path("account/password/", auth_views.PasswordChangeView.as_view(), name="password_change"),
    path("account/password/done/", auth_views.PasswordChangeDoneView.as_view(), name="password_change_done"),
    path("account/password-reset/", views_accounts.PasswordResetView.as_view(), name="password_reset"),
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
