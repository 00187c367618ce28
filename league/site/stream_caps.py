"""The caps on open live streams for the whole site, on Redis: however many web processes and machines serve it, one
address holds at most STREAM_MAX_PER_ADDRESS streams and the site at most STREAM_MAX_OPEN. (A remote bot's streams
are held under its bot rather than an address, with a cap of their own: league/site/remote_streams.py.)

Each open stream is a member of two Redis sorted sets (its address's and everyone's), scored with the moment its place
lapses: a stream lasts at most STREAM_SECONDS + STREAM_JITTER_SECONDS (league/site/event_stream.py), and a longer one
renews its place while it lives (a remote bot's), so a place taken by a process that died frees itself within a
lease, and no count can drift. Taking a place is one Lua script (drop the lapsed,
count, add: atomic on Redis); giving it back is one ZREM. Without Redis (the embedded default: one web process) the
process's own counts are the caps. A Redis that does not answer costs nothing but the site-wide count: the process's
own caps still hold.
"""

from __future__ import annotations

import asyncio
import logging
import math
import time
from typing import Any

import redis
import redis.asyncio

log = logging.getLogger(__name__)
TIMEOUT_SECONDS = 0.5  # a stream's opening never waits longer than this for Redis
PREFIX = "parlour:streams:"

_TAKE = """
local now = tonumber(ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now)
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[3]) then return 1 end
if redis.call('ZCARD', KEYS[2]) >= tonumber(ARGV[4]) then return 2 end
local lapses = now + tonumber(ARGV[5])
redis.call('ZADD', KEYS[1], lapses, ARGV[2])
redis.call('ZADD', KEYS[2], lapses, ARGV[2])
redis.call('EXPIRE', KEYS[1], math.ceil(tonumber(ARGV[5])) + 1)
redis.call('EXPIRE', KEYS[2], math.ceil(tonumber(ARGV[5])) + 1)
return 0
"""

TAKEN, ADDRESS_FULL, SITE_FULL = 0, 1, 2

__all__ = ["ADDRESS_FULL", "SITE_FULL", "TAKEN", "SiteCaps"]


class SiteCaps:
    """Places under the site-wide caps, for one event loop (a web process's)."""

    def __init__(self, url: str, loop: asyncio.AbstractEventLoop) -> None:
        self.client = redis.asyncio.Redis.from_url(
            url, socket_timeout=TIMEOUT_SECONDS, socket_connect_timeout=TIMEOUT_SECONDS
        )
        self.take_script = self.client.register_script(_TAKE)
        self.loop = loop
        self.pending: set[asyncio.Task[None]] = set()

    async def take(self, address: str, member: str, per_address: int, total: int, lease_seconds: float) -> int:
        """TAKEN, ADDRESS_FULL or SITE_FULL; TAKEN as well when Redis does not answer (the process's caps hold)."""
        keys = [_address_key(address), PREFIX + "all"]
        try:
            found = await self.take_script(keys=keys, args=[time.time(), member, per_address, total, lease_seconds])
        except (redis.RedisError, OSError) as error:
            log.warning("stream caps: Redis did not answer (%s): this process's own caps only", error)
            return TAKEN
        return int(found)

    async def renew(self, address: str, member: str, lease_seconds: float) -> None:
        """Hold a place another ``lease_seconds`` (a stream that lives longer than one lease: a remote bot's)."""
        lapses = time.time() + lease_seconds
        try:
            pipeline: Any = self.client.pipeline(transaction=False)
            for key in (_address_key(address), PREFIX + "all"):
                pipeline.zadd(key, {member: lapses}, xx=True)
                pipeline.expire(key, math.ceil(lease_seconds) + 1)
            await pipeline.execute()
        except (redis.RedisError, OSError) as error:
            log.warning("stream caps: a place not renewed (%s): it may lapse early", error)

    def give_back(self, address: str, member: str) -> None:
        """Free the place, from the loop's thread or any other (Django closes a response on a thread of its own)."""
        coroutine = self._give_back(address, member)
        try:
            running: asyncio.AbstractEventLoop | None = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        if running is self.loop:
            task = self.loop.create_task(coroutine)
            self.pending.add(task)  # a task nobody holds may be collected before it runs
            task.add_done_callback(self.pending.discard)
            return
        try:
            asyncio.run_coroutine_threadsafe(coroutine, self.loop)
        except RuntimeError:  # the loop is closed (the server stops): the place lapses by itself
            coroutine.close()

    async def _give_back(self, address: str, member: str) -> None:
        try:
            pipeline: Any = self.client.pipeline(transaction=False)
            pipeline.zrem(_address_key(address), member)
            pipeline.zrem(PREFIX + "all", member)
            await pipeline.execute()
        except (redis.RedisError, OSError) as error:
            log.warning("stream caps: a place not given back (%s): it lapses by itself", error)


def _address_key(address: str) -> str:
    return f"{PREFIX}address:{address[:100]}"
