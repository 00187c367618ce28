"""A remote bot played straight on a channel in Redis, as the web side would relay it: for the runner's tests, without
the web (league/remote/relay.py takes a reply the same way, atomically, in a script)."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from typing import Any

import redis

from bots import remote

Reply = Callable[[dict[str, Any]], bytes | None]


def first_legal(message: dict[str, Any]) -> bytes | None:
    if message["type"] == "start":
        return b'{"type":"ready"}'
    if message["type"] == "act":
        return json.dumps({"type": "action", "action": message["legal"][0]}).encode()
    return None


def take_reply(client: redis.Redis, channel: str, seq: int, line: bytes) -> bool:
    """The web side's rule: a reply only to the request that awaits one (not atomic here: one test client)."""
    pending = client.get(remote.pending_key(channel))
    if pending is None or int(pending) != seq:
        return False
    client.delete(remote.pending_key(channel))
    client.set(remote.answered_key(channel), seq)
    client.rpush(remote.inbox_key(channel), line)
    return True


class ChannelBot(threading.Thread):
    """Follows a channel's outbox from sequence number ``after`` and answers with ``reply`` after ``delay(seq)``
    seconds; stops at the channel's close. ``seen``: every message read, in order, with its sequence number."""

    def __init__(
        self, url: str, channel: str, reply: Reply = first_legal, delay: Callable[[int], float] = lambda seq: 0.0
    ) -> None:
        super().__init__(daemon=True)
        self.client = redis.Redis.from_url(url)
        self.channel, self.reply, self.delay = channel, reply, delay
        self.seen: list[tuple[int, dict[str, Any]]] = []
        self.refused: list[int] = []
        self.closed = False

    def run(self) -> None:
        last = "0-0"
        key = remote.outbox_key(self.channel)
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            found = self.client.xread({key: last}, count=100, block=1000)
            for entry_id, fields in found[0][1] if found else []:
                last = entry_id.decode()
                seq = remote.seq_of(last)
                if remote.CLOSED.encode() in fields:
                    self.closed = True
                    return
                message = json.loads(fields[b"m"])
                self.seen.append((seq, message))
                line = self.reply(message)
                if line is not None:
                    time.sleep(self.delay(seq))
                    if not take_reply(self.client, self.channel, seq, line):
                        self.refused.append(seq)
