"""The worker's and the scheduler's side of remote seats (docs/remote.md): a seat's channel opened and announced on
the bot's event stream (whether a bot is online: league/bots/presence.py). Key names: ``bots.remote``."""

from __future__ import annotations

import json
import time
from functools import cache
from typing import cast

import redis
from django.conf import settings

from bots import remote
from bots.results import RemoteChannel

__all__ = ["RemoteUnavailable", "drops_since", "forget_tokens", "open_channel", "remember_token"]

_TIMEOUT_S = 2.0


class RemoteUnavailable(RuntimeError):
    """No Redis: remote seats need the production path's Redis (the embedded default has none)."""


@cache
def _client(url: str) -> redis.Redis:
    return redis.Redis.from_url(url, socket_timeout=_TIMEOUT_S, socket_connect_timeout=_TIMEOUT_S)


def _redis() -> tuple[str, redis.Redis]:
    url = str(settings.REDIS_URL or "")
    if not url:
        raise RemoteUnavailable("remote bots need Redis (REDIS_URL)")
    return url, _client(url)


def open_channel(bot_id: int, game: str, what: str) -> RemoteChannel:
    """A new channel for ``bot_id``'s seat in ``what`` (a match or series), announced on the bot's event stream."""
    url, client = _redis()
    channel = remote.new_channel_id()
    event = {"type": "game", "channel": channel, "game": game, "what": what}
    with client.pipeline() as pipe:
        pipe.set(remote.channel_bot_key(channel), bot_id, ex=remote.CHANNEL_TTL_S)
        pipe.xadd(remote.events_key(bot_id), {"e": json.dumps(event)}, maxlen=remote.EVENTS_MAXLEN, approximate=True)
        pipe.expire(remote.events_key(bot_id), remote.CHANNEL_TTL_S)
        pipe.zadd(remote.playing_key(bot_id), {channel: time.time()})  # in play from its announcement
        pipe.expire(remote.playing_key(bot_id), remote.CHANNEL_TTL_S)
        pipe.execute()
    return RemoteChannel(redis_url=url, channel=channel, bot_id=bot_id)


def drops_since(bot_id: int, since: float) -> int:
    """How many times the bot's connection ended since the Unix time ``since`` (the last hour at most)."""
    _, client = _redis()
    return cast(int, client.zcount(remote.drops_key(bot_id), since, "+inf"))


def remember_token(key_hash: str, bot_id: int) -> None:
    """A token just checked against the database: the web side trusts it for TOKEN_TTL_S without asking again."""
    if settings.REDIS_URL:
        _redis()[1].set(remote.token_key(key_hash), bot_id, ex=remote.TOKEN_TTL_S)


def forget_tokens(key_hashes: list[str]) -> None:
    """Revoked tokens: refused from the next request on."""
    if settings.REDIS_URL and key_hashes:
        _redis()[1].delete(*[remote.token_key(key_hash) for key_hash in key_hashes])
