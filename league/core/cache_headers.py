"""Cache-Control for answers that are not the same for everyone (pages and API alike).

Django adds ``Vary: Cookie`` when a view reads the session, but a token's answer varies on ``Authorization`` and a
shared cache may still keep what it is allowed to: an owner's logs, their account, a new API key must not be served
to the next visitor. docs/security.md, "Hidden information and visibility"."""

from __future__ import annotations

from typing import TypeVar

from django.http import HttpResponseBase
from django.utils.cache import patch_cache_control

R = TypeVar("R", bound=HttpResponseBase)


def private(response: R) -> R:
    """An answer that carries data only its user may see (their bot's logs, their tokens, their account)."""
    patch_cache_control(response, private=True)
    return response


def private_if_signed_in(response: R, user: object) -> R:
    """An answer whose content depends on who is signed in (owner-only fields, staff-only rows); an anonymous
    visitor's copy is the public one and stays cacheable."""
    return private(response) if getattr(user, "is_authenticated", False) else response


def no_store(response: R) -> R:
    """An answer that carries a new secret (an API key shown once): kept by no cache, the browser's included."""
    patch_cache_control(response, private=True, no_store=True)
    return response
