"""Who sees which records: one rule per model, used by the pages and the API alike, so they cannot disagree.

What may be shown *of* a visible match (its seed, replay, frames) is league.play.disclosure's rule; this module says
which rows a user may see at all, and which owner-only fields (a bot's logs) they may read. docs/security.md, "Hidden
information and visibility"; docs/decisions.md.
"""

from __future__ import annotations

from django.contrib.auth import models as auth
from django.contrib.auth.base_user import AbstractBaseUser
from django.contrib.auth.models import AnonymousUser
from django.core.exceptions import PermissionDenied
from django.db.models import QuerySet

from league.accounts.models import ApiToken
from league.bots.models import Bot
from league.challenges.models import Challenge
from league.play.models import Match
from league.tournaments.models import Tournament

User = AbstractBaseUser | AnonymousUser


def signed_in(user: auth.User | AnonymousUser) -> auth.User:
    """The account behind a request only a signed-in user gets to (login_required, DRF's IsAuthenticated, the
    admin), typed as one. An anonymous user here means the view lost its guard: refused, never served as nobody."""
    if isinstance(user, AnonymousUser):
        raise PermissionDenied
    return user


def tournaments(user: User) -> QuerySet[Tournament]:
    """Staff see every tournament; everyone else those that have started: a draft is staff's work in progress."""
    found = Tournament.objects.all()
    return found if getattr(user, "is_staff", False) else found.exclude(status=Tournament.Status.DRAFT)


def matches(user: User) -> QuerySet[Match]:
    """Every match: the league's public record (a draft tournament has none). Their hidden information is withheld
    by league.play.disclosure, their bots' logs by ``sees_owner_data``."""
    return Match.objects.all()


def bots(user: User) -> QuerySet[Bot]:
    """Every bot, built-in or uploaded, whatever its versions' state: a rejected or disabled bot's page is its
    owner's place to read why."""
    return Bot.objects.all()


def challenges(user: User) -> QuerySet[Challenge]:
    """Any challenge, to anyone who has its address: its games are public matches anyway. Lists show only the
    user's own (league.challenges.queries.challenges_for); a challenge's seed is never shown."""
    return Challenge.objects.all()


def tokens(user: User) -> QuerySet[ApiToken]:
    """A user's own API tokens; nobody else's, staff included (the admin shows prefixes, never keys)."""
    if not user.is_authenticated:
        return ApiToken.objects.none()
    return ApiToken.objects.filter(user_id=user.pk)


def sees_owner_data(user: User, bot: Bot) -> bool:
    """Whether ``user`` may read ``bot``'s owner-only data: its stderr, validation logs and fault view."""
    return bool(user.is_authenticated and user.pk == bot.owner_id)
