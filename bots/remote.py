"""A remote seat's channel in Redis: the key names and the framing that the runner, the league's web side and the
worker share (docs/remote.md). No Django, no redis client here: names and plain data only.

One channel per (match or series, seat). The runner appends each protocol message it sends to the seat to the
channel's *outbox*, a Redis stream whose entry ids are ``0-<seq>`` (seq = 1, 2, ...: the sequence number a client
resumes from); the web side serves the outbox to the bot's owner from any sequence number, and pushes the reply
to a request onto the channel's *inbox*, a list the runner waits on with a blocking pop. ``pending`` holds the
sequence number of the request that awaits a reply (a ``start`` or an ``act``); ``answered`` the last one answered.
A bot's games are announced on its *events* stream; its one live connection is ``conn`` (also its presence); its
channels in play are *playing* (a connection lost while one is open is a drop; otherwise it is not).
"""

from __future__ import annotations

import secrets

__all__ = [
    "CHANNEL_TTL_S",
    "CLOSED",
    "EVENTS_MAXLEN",
    "OUTBOX_MAXLEN",
    "PRESENCE_TTL_S",
    "answered_key",
    "channel_bot_key",
    "conn_key",
    "drops_key",
    "events_key",
    "inbox_key",
    "new_channel_id",
    "outbox_key",
    "pending_key",
    "playing_key",
    "rate_key",
    "seq_of",
    "stream_id",
    "token_key",
]

PREFIX = "parlour:remote:"  # every key of remote seats starts so
CHANNEL_TTL_S = 24 * 3600  # a channel's keys outlive any match (a series' lease is minutes)
TOKEN_TTL_S = 60  # a live token is checked against the database at least this often (an owner's account closed)
PRESENCE_TTL_S = 30  # the connection key lapses this long after the event stream's last heartbeat
EVENTS_MAXLEN = 200  # a bot's announced games kept for a client that reconnects
# A channel's outbox keeps about this many of its newest messages (trimmed as the runner appends): a runaway match
# cannot grow Redis without bound, and a client that resumes is never that far behind (a seat is sent a few messages
# for each reply it owes).
OUTBOX_MAXLEN = 1000
CLOSED = "closed"  # the outbox entry's field that ends a channel: the runner is done with the seat
INBOX_WAKE = b""  # pushed onto an inbox by the runner itself to wake its reader when the seat is torn down


def new_channel_id() -> str:
    """An unguessable channel id: knowing it is not enough (the web side checks the bot), but it names nothing."""
    return secrets.token_urlsafe(18)


def outbox_key(channel: str) -> str:
    return f"{PREFIX}ch:{channel}:out"


def inbox_key(channel: str) -> str:
    return f"{PREFIX}ch:{channel}:in"


def pending_key(channel: str) -> str:
    return f"{PREFIX}ch:{channel}:pending"


def answered_key(channel: str) -> str:
    return f"{PREFIX}ch:{channel}:answered"


def channel_bot_key(channel: str) -> str:
    """The bot whose seat the channel is: the web side serves a channel only to that bot's token."""
    return f"{PREFIX}ch:{channel}:bot"


def token_key(key_hash: str) -> str:
    """A live token's bot, remembered for TOKEN_TTL_S so that a reply costs no database query (deleted when the
    token is revoked)."""
    return f"{PREFIX}token:{key_hash}"


def rate_key(key_hash: str, second: int) -> str:
    """A token's requests in one second."""
    return f"{PREFIX}rate:{key_hash}:{second}"


def events_key(bot_id: int) -> str:
    return f"{PREFIX}bot:{bot_id}:events"


def conn_key(bot_id: int) -> str:
    """The id of the bot's one live event-stream connection, with a short TTL: the bot is online while it exists."""
    return f"{PREFIX}bot:{bot_id}:conn"


def playing_key(bot_id: int) -> str:
    """The bot's channels in play (a sorted set: channel -> the Unix time the league last wrote to it), from the game's
    announcement until its runner closes the channel."""
    return f"{PREFIX}bot:{bot_id}:playing"


def drops_key(bot_id: int) -> str:
    """The bot's dropped connections in the last hour (a sorted set of times)."""
    return f"{PREFIX}bot:{bot_id}:drops"


def stream_id(seq: int) -> str:
    return f"0-{seq}"


def seq_of(entry_id: bytes | str) -> int:
    text = entry_id.decode() if isinstance(entry_id, bytes) else entry_id
    return int(text.partition("-")[2])
