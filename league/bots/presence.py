"""Which remote bots are online (docs/remote.md): a remote bot is while its connection's key lives in Redis (set by
its open event stream, league/remote/relay.py). Scheduling asks here, so an offline bot is never seated. Without
Redis no remote bot can connect, so none is online."""

from __future__ import annotations

import logging
from collections.abc import Iterable
from functools import cache

import redis
from django.conf import settings

from bots import remote
from league.bots.models import Bot

__all__ = ["is_online", "offline_remote_bots", "online"]

log = logging.getLogger(__name__)
_TIMEOUT_S = 2.0


@cache
def _client(url: str) -> redis.Redis:
    return redis.Redis.from_url(url, socket_timeout=_TIMEOUT_S, socket_connect_timeout=_TIMEOUT_S)


def online(bot_ids: Iterable[int]) -> set[int]:
    """Which of these bots have a live connection now."""
    ids = list(bot_ids)
    if not ids or not settings.REDIS_URL:
        return set()
    try:
        with _client(str(settings.REDIS_URL)).pipeline(transaction=False) as pipe:
            for bot_id in ids:
                pipe.exists(remote.conn_key(bot_id))
            found = pipe.execute()
    except redis.RedisError as error:  # no seat for a bot the league cannot reach: the same as offline
        log.warning("remote bots' presence unknown (%s): none is scheduled", error)
        return set()
    return {bot_id for bot_id, there in zip(ids, found, strict=True) if there}


def is_online(bot: Bot) -> bool:
    """A bot that is not remote is always there (its code is the league's); a remote one when connected."""
    return not bot.is_remote or bot.pk in online([bot.pk])


def offline_remote_bots(games: list[str]) -> list[int]:
    """The ids of the remote bots of these games that are not connected now."""
    remote_ids = list(Bot.objects.filter(game__in=games, is_remote=True).values_list("pk", flat=True))
    connected = online(remote_ids)
    return [bot_id for bot_id in remote_ids if bot_id not in connected]
