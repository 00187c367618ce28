"""Server-sent events that follow a row in the database: people's tables and league matches watched live.

The stream polls a cheap fingerprint and sends the (re)built view when it changes, so it needs no Redis and works on
`make run`. One response lasts STREAM_SECONDS; EventSource reconnects by itself after STREAM_RETRY_MS.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator
from typing import Any

from django.http import StreamingHttpResponse

STREAM_SECONDS = 25.0
STREAM_POLL_SECONDS = 0.05
STREAM_RETRY_MS = 300


def follow(fingerprint: Callable[[], Any], view: Callable[[], tuple[dict[str, Any], bool]]) -> StreamingHttpResponse:
    """Send ``view()``'s first value, then again each time ``fingerprint()`` changes; ``view`` also says whether the
    thing is over (then an ``over`` event ends the stream). A fingerprint of None (the row is gone) ends it too."""

    def stream() -> Iterator[bytes]:
        yield f"retry: {STREAM_RETRY_MS}\n\n".encode()
        seen: Any = None
        until = time.monotonic() + STREAM_SECONDS
        while time.monotonic() < until:
            mark = fingerprint()
            if mark is None:
                return
            if mark != seen:
                seen = mark
                data, over = view()
                yield f"data: {json.dumps(data, default=str, separators=(',', ':'))}\n\n".encode()
                if over:
                    yield b"event: over\ndata: {}\n\n"
                    return
            time.sleep(STREAM_POLL_SECONDS)

    response = StreamingHttpResponse(stream(), content_type="text/event-stream")
    response["Cache-Control"] = "no-cache, private"
    response["X-Accel-Buffering"] = "no"  # nginx: pass each event on at once
    return response
