"""How a finished game's replay is stored: compact JSON, zlib-compressed (a Match's or a people's Table's
``replay_data``)."""

from __future__ import annotations

import json
import zlib
from typing import Any


def pack_replay(replay: dict[str, Any]) -> bytes:
    return zlib.compress(json.dumps(replay, separators=(",", ":")).encode(), 6)


def unpack_replay(data: bytes | memoryview | None) -> dict[str, Any] | None:
    if data is None:
        return None
    replay: dict[str, Any] = json.loads(zlib.decompress(bytes(data)))
    return replay
