"""The web side of remote seats, on the async path (docs/remote.md): a bot's event stream, a seat's messages from a
sequence number, a reply accepted at most once. Redis only (no database): the views check the token first.

Key names and framing: ``bots.remote``; the runner's side: ``bots.runner.remote``."""

from __future__ import annotations

import asyncio
import json
import time
import uuid
from collections.abc import AsyncGenerator
from dataclasses import dataclass

import redis.asyncio
from django.conf import settings
from redis.commands.core import AsyncScript

from bots import remote

__all__ = [
    "HEARTBEAT_S",
    "CheckIn",
    "accept_reply",
    "check_in",
    "event_lines",
    "goodbye",
    "message_lines",
    "take_connection",
]

HEARTBEAT_S = 10.0  # a stream says something at least this often (a silent connection is known dead by the client)
EVENTS_BACK_MS = 120_000
# A channel silent this long is over for its reader: longer than any wait inside a game (a person's clock at a table
# is minutes), short enough that a client does not follow a dead runner's channel for ever.
CHANNEL_IDLE_S = 900.0  # a new connection without ``after`` is told the games announced in the last two minutes
PING = b'{"ping":true}\n'
ACCEPTED, DUPLICATE, STALE = 1, 2, 0

# A reply is taken only for the request that awaits one, atomically: it is pushed to the runner's inbox once, and a
# retry of the same reply (a client that lost the answer) is recognised as such.
_ACCEPT = """
local pending = redis.call('GET', KEYS[1])
if pending == ARGV[1] then
    redis.call('DEL', KEYS[1])
    redis.call('SET', KEYS[2], ARGV[1], 'EX', ARGV[3])
    redis.call('RPUSH', KEYS[3], ARGV[2])
    redis.call('EXPIRE', KEYS[3], ARGV[3])
    return 1
end
if redis.call('GET', KEYS[2]) == ARGV[1] then
    return 2
end
return 0
"""

# A connection's end, atomically: nothing if the bot's connection key is no longer this one (taken over, or a
# goodbye); else the key goes, and a drop is counted if a channel of the bot's is in play.
_LOST = """
if redis.call('GET', KEYS[1]) ~= ARGV[1] then
    return 0
end
redis.call('DEL', KEYS[1])
local now = tonumber(ARGV[2])
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now - tonumber(ARGV[3]))
if redis.call('ZCARD', KEYS[2]) == 0 then
    return 1
end
redis.call('ZADD', KEYS[3], now, ARGV[4])
redis.call('ZREMRANGEBYSCORE', KEYS[3], 0, now - 3600)
redis.call('EXPIRE', KEYS[3], 3600)
return 2
"""

_clients: dict[int, tuple[redis.asyncio.Redis, AsyncScript, AsyncScript]] = {}


def _loop_client() -> tuple[redis.asyncio.Redis, AsyncScript, AsyncScript]:
    """This event loop's client, its reply script and its connection-lost script (a client belongs to the loop it
    was made on)."""
    loop = id(asyncio.get_running_loop())
    found = _clients.get(loop)
    if found is None:
        client = redis.asyncio.Redis.from_url(str(settings.REDIS_URL))
        found = _clients[loop] = (client, client.register_script(_ACCEPT), client.register_script(_LOST))
    return found


def _redis() -> redis.asyncio.Redis:
    return _loop_client()[0]


@dataclass(frozen=True)
class CheckIn:
    """What one round trip to Redis tells about a request: its token's bot if the token is known live (None: ask
    the database), the token's requests this second, and the bot whose seat the channel is (None: no channel)."""

    bot: int | None
    requests: int
    channel_bot: int | None


async def check_in(key_hash: str, channel: str | None) -> CheckIn:
    """Count one request of the token ``key_hash`` and read what the request needs, in one round trip."""
    rate = remote.rate_key(key_hash, int(time.time()))
    async with _redis().pipeline(transaction=False) as pipe:
        pipe.get(remote.token_key(key_hash))
        pipe.incr(rate)
        pipe.expire(rate, 2)
        if channel is not None:
            pipe.get(remote.channel_bot_key(channel))
        found = await pipe.execute()
    bot, count = found[0], found[1]
    owner = found[3] if channel is not None else None
    return CheckIn(
        bot=int(bot) if bot is not None else None,
        requests=int(count),
        channel_bot=int(owner) if owner is not None else None,
    )


async def take_connection(bot_id: int) -> str:
    """This connection becomes the bot's only one (an older one ends at its next heartbeat), and the bot is online."""
    conn = uuid.uuid4().hex
    await _redis().set(remote.conn_key(bot_id), conn, ex=remote.PRESENCE_TTL_S)
    return conn


async def event_lines(bot_id: int, conn: str, after: str | None) -> AsyncGenerator[bytes, None]:
    """The bot's announced games as NDJSON (``{"type": "game", "channel": ..., "id": ...}``), a ping at least every
    HEARTBEAT_S, for as long as this is the bot's connection."""
    client = _redis()
    key, presence = remote.events_key(bot_id), remote.conn_key(bot_id)
    last = after or f"{int(time.time() * 1000) - EVENTS_BACK_MS}-0"
    try:
        while True:
            current = await client.get(presence)
            if current is None:
                yield b'{"type":"ended"}\n'  # the client said goodbye (or its presence lapsed)
                return
            if current.decode() != conn:
                yield b'{"type":"replaced"}\n'  # another connection of this bot took over
                return
            await client.expire(presence, remote.PRESENCE_TTL_S)
            found = await client.xread({key: last}, count=50, block=int(HEARTBEAT_S * 1000))
            if not found:
                yield PING
                continue
            for entry_id, fields in found[0][1]:
                last = entry_id.decode()
                event = json.loads(fields[b"e"])
                event["id"] = last
                yield json.dumps(event, separators=(",", ":")).encode() + b"\n"
    finally:
        # Gone offline at once, not a presence TTL later, unless another connection took over meanwhile or the
        # client said goodbye (then it was not a drop either).
        await _lost(bot_id, conn)


async def _lost(bot_id: int, conn: str) -> None:
    """The bot's connection ``conn`` ended: unless another one took over or the client said goodbye (its key is then
    another's, or gone), the bot is offline, and it dropped if a game of its was in play (a channel announced and
    not yet closed by its runner, written to in the last CHANNEL_IDLE_S). A client that stops between games has left
    nobody waiting. Drops are counted for the pause of a bot that keeps dropping (services). One script: the drop is
    on record by the time the bot is seen offline."""
    keys = [remote.conn_key(bot_id), remote.playing_key(bot_id), remote.drops_key(bot_id)]
    await _loop_client()[2](keys=keys, args=[conn, time.time(), CHANNEL_IDLE_S, uuid.uuid4().hex])


async def goodbye(bot_id: int) -> None:
    """The client stops on purpose (``DELETE /api/remote/events/``): the bot is offline at once, and its connection
    ending is not a drop, game in play or not (its open stream ends at its next heartbeat)."""
    await _redis().delete(remote.conn_key(bot_id))


async def message_lines(channel: str, after: int) -> AsyncGenerator[bytes, None]:
    """The seat's messages after sequence number ``after`` as NDJSON (``{"seq": n, "message": {...}}``), then
    ``{"seq": n, "closed": true}`` when the runner is done with the seat; a ping at least every HEARTBEAT_S."""
    client = _redis()
    key = remote.outbox_key(channel)
    last = remote.stream_id(after)
    heard = time.monotonic()
    while True:
        found = await client.xread({key: last}, count=100, block=int(HEARTBEAT_S * 1000))
        if not found:
            if time.monotonic() - heard > CHANNEL_IDLE_S:
                # Its runner is gone without closing it (a worker killed mid-game): the lease sweeper plays the game
                # again on a new channel, announced anew. This one is over for the client.
                yield b'{"seq":%d,"closed":true}\n' % remote.seq_of(last)
                return
            yield PING
            continue
        heard = time.monotonic()
        for entry_id, fields in found[0][1]:
            last = entry_id.decode()
            seq = remote.seq_of(last)
            if remote.CLOSED.encode() in fields:
                yield b'{"seq":%d,"closed":true}\n' % seq
                return
            # The runner's own line (bots.protocol.encode: one JSON object, no newline inside): passed on as it is.
            yield b'{"seq":%d,"message":%s}\n' % (seq, fields[b"m"].rstrip(b"\n"))


async def accept_reply(channel: str, seq: int, line: bytes) -> int:
    """ACCEPTED (passed to the runner), DUPLICATE (this reply was taken already) or STALE (no request ``seq``
    awaits a reply: answered with another line, too late, or never asked)."""
    keys = [remote.pending_key(channel), remote.answered_key(channel), remote.inbox_key(channel)]
    result = await _loop_client()[1](keys=keys, args=[str(seq), line, str(remote.CHANNEL_TTL_S)])
    return int(result)
