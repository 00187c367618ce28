"""A remote bot's Connect panel on its page (docs/remote.md), for its owner: whether it is connected now, its token
(issued here, shown once with the command that connects it; revoked here), through the same services as the API."""

from __future__ import annotations

from django.http import HttpRequest
from django.template.loader import render_to_string
from django.utils.safestring import SafeString, mark_safe

from league.bots import presence
from league.bots.models import Bot
from league.remote.models import RemoteToken
from league.site import visibility

__all__ = ["connect_panel"]


def connect_panel(request: HttpRequest, bot: Bot, key: str | None = None) -> SafeString:
    """The panel for the bot's owner (nothing for anyone else, or for a bot that is not remote); ``key``: a token
    just issued, shown this once."""
    if not bot.is_remote or not visibility.sees_owner_data(request.user, bot):
        return mark_safe("")
    context = {
        "bot": bot,
        "online": presence.is_online(bot),
        "token": RemoteToken.objects.filter(bot=bot, revoked__isnull=True).first(),
        "key": key,
        "site": request.build_absolute_uri("/").rstrip("/"),
    }
    return mark_safe(render_to_string("league/_remote_connect.html", context, request=request))
