"""Account pages around django-axes and Django's password views: sign-up (limited per address), the lock-out page,
password reset (limited per address and per recipient, and lifting a lock), password change, and e-mail
verification. A new password revokes the user's API tokens (league/accounts/services.py) and ends their other
sessions (Django's session auth hash)."""

from __future__ import annotations

import math
from typing import Any

from axes.utils import reset as reset_login_failures
from django.conf import settings
from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth import views as auth_views
from django.contrib.auth.decorators import login_required
from django.contrib.auth.models import User
from django.core.mail import send_mail
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import redirect, render
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.http import require_http_methods

from league.accounts.limits import may_mail, password_reset_wait, signup_wait
from league.accounts.services import do_verify_email, is_email_verified, may_upload, verification_key
from league.core import cache_headers
from league.core.errors import ServiceError
from league.site import visibility
from league.site.forms import SignupForm, upload_game

PASSWORD_BACKEND = "django.contrib.auth.backends.ModelBackend"  # the one that checked the new password


def too_many(request: HttpRequest, what: str, seconds: int) -> HttpResponse:
    """429 with Retry-After and a page that says what was refused and for how long."""
    context = {"what": what, "minutes": math.ceil(seconds / 60)}
    response = render(request, "registration/too_many.html", context, status=429)
    response["Retry-After"] = str(seconds)
    return response


def locked_out(
    request: HttpRequest, original_response: HttpResponse | None = None, credentials: Any = None
) -> HttpResponse:
    """AXES_LOCKOUT_CALLABLE: 429 with Retry-After and a page that says why and for how long."""
    seconds = int(settings.AXES_COOLOFF_TIME.total_seconds())
    context = {"failure_limit": settings.AXES_FAILURE_LIMIT, "cooloff_minutes": math.ceil(seconds / 60)}
    response = render(request, "registration/locked_out.html", context, status=settings.AXES_HTTP_RESPONSE_CODE)
    response["Retry-After"] = str(seconds)
    return response


def signup(request: HttpRequest) -> HttpResponse:
    """Sign-up, then the page the new user was on their way to (``next``, as the log-in page passes it on), or the
    welcome page with the next steps."""
    form = SignupForm(request.POST or None)
    next_url = _safe_next(request)
    if request.method == "POST" and form.is_valid():
        if (wait := signup_wait(request)) is not None:
            return too_many(request, "new accounts from your address", wait)
        user = form.save()
        login(request, user, backend=PASSWORD_BACKEND)
        if next_url:
            messages.success(request, f"Welcome to Parlour, {user.username}!")
        if settings.REQUIRE_EMAIL_VERIFICATION:
            send_verification_mail(request, user)
            messages.info(request, f"We sent a link to {user.email}: follow it to be able to upload bots.")
        return redirect(next_url or "welcome")
    context = {"form": form, "next": next_url}
    return render(request, "registration/signup.html", context, status=400 if form.errors else 200)


def _safe_next(request: HttpRequest) -> str:
    """The ``next`` asked for, if it is a page of this site (never another host)."""
    wanted = request.POST.get("next") or request.GET.get("next") or ""
    allowed = url_has_allowed_host_and_scheme(wanted, {request.get_host()}, require_https=request.is_secure())
    return wanted if wanted and allowed else ""


@login_required
def welcome(request: HttpRequest) -> HttpResponse:
    """What to do after signing up: write a bot, upload it, use the API, or play the bots yourself."""
    context = {
        "must_verify": not may_upload(visibility.signed_in(request.user)),
        "upload_game": upload_game(request),
    }
    return cache_headers.private(render(request, "registration/welcome.html", context))


# ----- password reset and change -------------------------------------------------------------------------------


class PasswordResetView(auth_views.PasswordResetView):
    """Django's view, limited: PASSWORD_RESETS_PER_HOUR requests from one address (then 429), and
    MAILS_PER_RECIPIENT_PER_HOUR mails to one e-mail address (past it the same "check your e-mail" page, no mail:
    the answer never tells whether an address has an account)."""

    def post(self, request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        if (wait := password_reset_wait(request)) is not None:
            return too_many(request, "password-reset requests from your address", wait)
        return super().post(request, *args, **kwargs)

    def form_valid(self, form: Any) -> HttpResponse:
        if not may_mail(self.request, "password-reset", form.cleaned_data["email"]):
            return HttpResponseRedirect(self.get_success_url())
        return super().form_valid(form)


class PasswordResetConfirmView(auth_views.PasswordResetConfirmView):
    """Django's view; a password chosen through a link sent to the account's address also clears the account's
    failed log-ins, so the owner is not kept out by whoever guessed at it."""

    def form_valid(self, form: Any) -> HttpResponse:
        response = super().form_valid(form)
        reset_login_failures(username=form.user.get_username())
        return response


# ----- e-mail verification -------------------------------------------------------------------------------------


def send_verification_mail(request: HttpRequest, user: User) -> bool:
    """Mails ``user`` a link that verifies their address; False if that address has had its hourly share."""
    if not user.email or not may_mail(request, "verify-email", user.email):
        return False
    link = request.build_absolute_uri(reverse("verify-email-link", args=[verification_key(user)]))
    context = {"user": user, "link": link, "hours": settings.EMAIL_VERIFICATION_TIMEOUT // 3600}
    body = render_to_string("registration/verify_email_email.txt", context)
    send_mail("Verify your Parlour e-mail address", body, None, [user.email])
    return True


@login_required
@require_http_methods(["GET", "POST"])
def verify_email(request: HttpRequest) -> HttpResponse:
    """Whether the user's address is verified, and (POST) a new link by mail."""
    user = visibility.signed_in(request.user)
    if request.method == "POST" and not is_email_verified(user):
        if not user.email:
            messages.error(request, "Your account has no e-mail address: ask the site's staff to add one.")
        elif send_verification_mail(request, user):
            messages.success(request, f"We sent a new link to {user.email}.")
        else:
            messages.error(request, "Enough links were sent to that address this hour: try again later.")
        return redirect("verify-email")
    context = {"verified": is_email_verified(user), "required": settings.REQUIRE_EMAIL_VERIFICATION}
    return render(request, "registration/verify_email.html", context)


def verify_email_link(request: HttpRequest, key: str) -> HttpResponse:
    """The link from the mail: verifies the address, or says why it cannot (expired, altered, address changed)."""
    try:
        user = do_verify_email(key)
    except ServiceError as error:
        return render(request, "registration/verify_email_failed.html", {"reason": error.message}, status=error.status)
    return render(request, "registration/verify_email_done.html", {"verified_user": user})
