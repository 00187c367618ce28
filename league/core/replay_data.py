"""How a finished game's replay is stored: compact JSON, zlib-compressed (a Match's or a people's Table's
``replay_data``)."""

from __future__ import annotations

import json
import re
import zlib
from typing import Any

from bots.text import clean_json

# How ``json.dumps`` writes a NUL or a surrogate (a lone one, or half of a pair: "\ud83d\ude00"): a replay stored
# before bots' text was cleaned (bots.text) may hold a lone surrogate in a note, which no page or API answer can
# send. Only a replay holding such an escape is walked and cleaned on reading; the others are read as they are.
_SUSPECT_ESCAPE = re.compile(rb"\\u(?:0000|[dD][89a-fA-F])")


def pack_replay(replay: dict[str, Any]) -> bytes:
    return zlib.compress(json.dumps(replay, separators=(",", ":")).encode(), 6)


def unpack_replay(data: bytes | memoryview | None) -> dict[str, Any] | None:
    if data is None:
        return None
    raw = zlib.decompress(bytes(data))
    replay: dict[str, Any] = json.loads(raw)
    if _SUSPECT_ESCAPE.search(raw) is not None:
        replay = clean_json(replay)
    return replay
