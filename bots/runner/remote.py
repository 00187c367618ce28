"""A remote bot's seat (docs/remote.md): to the match it is a bot process like any other, so ``Match``, ``Series``
and ``Pipes`` drive it, time it and classify its faults exactly as a sandboxed bot's.

``RemoteProcess`` gives the runner the pipes a process would: what the runner writes to "stdin" a relay thread
appends to the channel's outbox (a Redis stream, one entry per message, numbered); a second relay thread waits on
the channel's inbox with a blocking pop and writes each reply to "stdout". Both threads block in the kernel or in
Redis while the bot thinks: a remote seat holds no CPU. The clock is the runner's own, on the wall (there is no CPU
to measure): it starts when the runner writes the request, just before the relay appends it to the outbox.

The web side (league/remote/) accepts only a reply to the request that awaits one (``pending``) and bounds its size,
so a reply reaches the runner at most once and as one line; the runner then checks it as any bot's line.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import select
import threading
import time
from typing import cast

import redis

from bots import remote
from bots.results import RemoteChannel
from bots.runner.pipes import read_available
from bots.sandbox import BotProcess

__all__ = ["RemoteProcess"]

log = logging.getLogger("bots.runner")

_EXPECTS_REPLY = frozenset({"start", "act"})
_JOIN_S = 2.0


def _drain(fd: int) -> tuple[bytes, bool]:
    """Everything a non-blocking pipe holds now, and whether its writer has closed it."""
    chunks: list[bytes] = []
    while (chunk := read_available(fd)) is not None:
        if not chunk:
            return b"".join(chunks), True
        chunks.append(chunk)
    return b"".join(chunks), False


class RemoteProcess(BotProcess):
    """A remote seat behind the interface of a started bot: no process, no CPU clock, no throttling."""

    def __init__(self, channel: RemoteChannel) -> None:  # (BotProcess's own set-up is a real process's: not called)
        self.channel = channel.channel
        self._playing = remote.playing_key(channel.bot_id) if channel.bot_id is not None else None
        self._redis = redis.Redis.from_url(channel.redis_url)
        self._blocking = redis.Redis.from_url(channel.redis_url)  # its own connection: it sits in BLPOP
        self.uid = None
        self.pid = 0
        self.setup_marker = None
        self.pidfd = None
        self._cgroups = None
        self._cleanup = []
        self._resting_since = None
        self._closed = False
        self._killed = False
        self.started_at = time.monotonic()
        self._to_bot_r, self.stdin_fd = os.pipe()
        self.stdout_fd, self._from_bot_w = os.pipe()
        self.stderr_fd, stderr_w = os.pipe()
        os.close(stderr_w)  # a remote bot's log stays on its owner's machine
        self._wake_r, self._wake_w = os.pipe()
        for fd in (self.stdin_fd, self.stdout_fd, self.stderr_fd):
            os.set_blocking(fd, False)
        self._stdin_open = True
        self._threads = [
            threading.Thread(target=self._relay_out, name=f"remote-out-{self.channel[:6]}", daemon=True),
            threading.Thread(target=self._relay_in, name=f"remote-in-{self.channel[:6]}", daemon=True),
        ]
        for thread in self._threads:
            thread.start()

    # -- the relays --
    def _relay_out(self) -> None:
        """The runner's messages to the outbox, numbered 1, 2, ...; the channel is closed when the runner has no
        further request (it closed "stdin") or the seat is torn down."""
        seq = 0
        partial = b""
        keys = (remote.outbox_key(self.channel), remote.pending_key(self.channel))
        os.set_blocking(self._to_bot_r, False)
        try:
            ended = False
            while not ended:
                ready, _, _ = select.select([self._to_bot_r, self._wake_r], [], [])
                # Torn down: what the runner wrote before (the last game's end) still goes out, then the channel closes.
                ended = self._wake_r in ready
                data, at_end = _drain(self._to_bot_r)
                ended = ended or at_end
                partial += data
                *lines, partial = partial.split(b"\n")
                for line in lines:
                    seq += 1
                    kind = json.loads(line).get("type")
                    with self._redis.pipeline() as pipe:
                        if kind in _EXPECTS_REPLY:
                            pipe.set(keys[1], seq, ex=remote.CHANNEL_TTL_S)  # before the message: it can be answered
                        # Bounded: the oldest messages go first (docs/remote.md, "Limits and safety").
                        pipe.xadd(
                            keys[0],
                            {"m": line},
                            id=remote.stream_id(seq),
                            maxlen=remote.OUTBOX_MAXLEN,
                            approximate=True,
                        )
                        pipe.expire(keys[0], remote.CHANNEL_TTL_S)
                        if self._playing is not None:  # the game is in play: a connection lost now is a drop
                            pipe.zadd(self._playing, {self.channel: time.time()})
                            pipe.expire(self._playing, remote.CHANNEL_TTL_S)
                        pipe.execute()
        except (redis.RedisError, OSError, ValueError):
            log.exception("remote seat %s: the outbox relay stopped", self.channel)
        finally:
            with contextlib.suppress(redis.RedisError), self._redis.pipeline() as pipe:
                pipe.delete(keys[1])
                pipe.xadd(keys[0], {remote.CLOSED: b"1"}, id=remote.stream_id(seq + 1))
                if self._playing is not None:
                    pipe.zrem(self._playing, self.channel)
                pipe.execute()
            os.close(self._to_bot_r)

    def _relay_in(self) -> None:
        """The replies the web side accepted, each as one line of "stdout"."""
        key = remote.inbox_key(self.channel)
        try:
            while not self._killed:
                item = cast("list[bytes] | None", self._blocking.blpop([key], timeout=0))
                if item is None or self._killed or item[1] == remote.INBOX_WAKE:
                    break
                os.write(self._from_bot_w, item[1] + b"\n")  # (bounded by the web side: one line of at most 64 KiB)
        except (redis.RedisError, OSError):
            if not self._killed:
                log.exception("remote seat %s: the inbox relay stopped", self.channel)
        finally:
            os.close(self._from_bot_w)

    # -- what the runner calls --
    def cpu_ms(self) -> float | None:
        return None  # wall time is charged

    def poll(self) -> int | None:
        return None  # a remote bot never "exits": it is connected or not, and the clock decides

    def wait_exit(self, timeout: float) -> None:
        return None

    def memory_exhausted(self) -> bool:
        return False

    def close_stdin(self) -> None:
        if self._stdin_open:
            self._stdin_open = False
            os.close(self.stdin_fd)

    def kill(self, *, cgroup: bool = True) -> None:
        """Stop both relays: no message goes out and no reply comes in from now on."""
        if self._killed:
            return
        self._killed = True
        os.write(self._wake_w, b"x")
        with contextlib.suppress(redis.RedisError):
            self._redis.rpush(remote.inbox_key(self.channel), remote.INBOX_WAKE)

    def close_soon(self) -> None:
        self.kill()
        threading.Thread(target=self.close, name="remote-close", daemon=True).start()

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        self.kill()
        for thread in self._threads:
            thread.join(_JOIN_S)
        self.close_stdin()
        for fd in (self.stdout_fd, self.stderr_fd, self._wake_r, self._wake_w):
            with contextlib.suppress(OSError):
                os.close(fd)
        with contextlib.suppress(redis.RedisError):
            self._redis.delete(remote.inbox_key(self.channel))
        self._redis.close()
        self._blocking.close()
