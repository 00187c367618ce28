"""A remote bot's streams under the site's caps (docs/remote.md, "Limits and safety"): its event stream and its games'
message streams each hold a place, as a live page's stream does (league/site/event_stream.py), so they count in
STREAM_MAX_OPEN; they are held under the bot rather than an address (one machine may run many bots, and one bot is
one token), at most REMOTE_STREAMS_PER_BOT at once. A remote stream lives as long as its client keeps it, so its place
is renewed while it lives: a web process that dies leaves places that lapse within a lease."""

from __future__ import annotations

import contextlib
import time
from collections.abc import AsyncGenerator

from django.conf import settings
from django.http import StreamingHttpResponse

from league.core.errors import RemoteStreamsFull
from league.site.event_stream import LEASE_SECONDS, Place, take_place

__all__ = ["RENEW_SECONDS", "Stream", "hold"]

RENEW_SECONDS = LEASE_SECONDS / 4  # a place is renewed this often: a late renewal or two does not lose it


def holder(bot_id: int) -> str:
    return f"remote-bot:{bot_id}"


async def hold(bot_id: int) -> Place:
    """A place for one more stream of the bot: ``RemoteStreamsFull`` (429) past its own cap, ``StreamsFull`` (503)
    past the site's."""
    limit = int(settings.REMOTE_STREAMS_PER_BOT)
    return await take_place(holder(bot_id), limit, RemoteStreamsFull(limit=limit))


class Stream(StreamingHttpResponse):
    """An NDJSON stream holding its place; closing it gives the place back even if it never streamed."""

    def __init__(self, lines: AsyncGenerator[bytes, None], place: Place) -> None:
        super().__init__(_held(lines, place), content_type="application/x-ndjson")
        self.place = place
        self["Cache-Control"] = "no-store"
        self["X-Accel-Buffering"] = "no"  # nginx: pass each line on at once

    def close(self) -> None:
        self.place.release()
        super().close()


async def _held(lines: AsyncGenerator[bytes, None], place: Place) -> AsyncGenerator[bytes, None]:
    renewed = time.monotonic()
    try:
        async with contextlib.aclosing(lines):  # its own clean-up (the drop's count) runs now, not at collection
            async for line in lines:
                yield line
                if time.monotonic() - renewed >= RENEW_SECONDS:  # the streams say something every heartbeat
                    renewed = time.monotonic()
                    await place.renew()
    finally:
        place.release()
