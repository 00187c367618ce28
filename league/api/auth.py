"""API authentication by the named tokens users create on the site: ``Authorization: Token <key>`` (or Bearer)."""

from __future__ import annotations

from django.contrib.auth.models import User
from django.utils import timezone
from rest_framework import authentication, exceptions
from rest_framework.request import Request

from league.accounts.models import ApiToken
from league.accounts.tokens import hash_token


class ApiTokenAuthentication(authentication.BaseAuthentication):
    keywords = ("token", "bearer")

    def authenticate(self, request: Request) -> tuple[User, ApiToken] | None:
        header = authentication.get_authorization_header(request).split()
        if not header or header[0].decode(errors="replace").lower() not in self.keywords:
            return None
        if len(header) != 2:
            raise exceptions.AuthenticationFailed("the Authorization header must be 'Token <key>'")
        key = header[1].decode(errors="replace")
        token = ApiToken.objects.select_related("user").filter(key_hash=hash_token(key)).first()
        if token is None or not token.user.is_active:
            raise exceptions.AuthenticationFailed("unknown or revoked token")
        ApiToken.objects.filter(pk=token.pk).update(last_used=timezone.now())
        return token.user, token

    def authenticate_header(self, request: Request) -> str:
        return "Token"
