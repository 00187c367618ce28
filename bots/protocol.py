"""The bot protocol: one JSON object per line over the bot's stdin (runner → bot) and stdout (bot → runner).

See docs/protocol.md. A game is ``start``/``ready``, then ``act``/``action`` per decision, then ``end``; after ``end``
the runner may send a new ``start`` (the next game of a series, same process) or close stdin, and a bot may exit
after ``end`` instead (it is started again for the next game). The runner builds ``start``, ``act`` and ``end``
messages with the functions below and parses each line a bot writes with ``parse_reply``, which is deliberately
strict: a reply is exactly one JSON object with the expected ``type`` and no unknown keys. Anything else is a
``ProtocolError`` whose ``cause`` is the fault cause recorded for the bot (``malformed`` or ``oversized``).
"""

from __future__ import annotations

import json
from typing import Any, Literal

import orjson

from bots.text import NOTE_MAX_CHARS, clean_text
from games.base import Outcome

__all__ = [
    "DEFAULT_MAX_LINE_BYTES",
    "NOTE_MAX_CHARS",
    "PROTOCOL_VERSION",
    "ProtocolError",
    "ReplyType",
    "act_message",
    "encode",
    "end_message",
    "parse_reply",
    "start_message",
]

PROTOCOL_VERSION = 1

# The default cap for one line a bot writes (the runner's ``Limits.max_line_bytes`` is what is enforced).
DEFAULT_MAX_LINE_BYTES = 64 * 1024

ReplyType = Literal["ready", "action"]

_START_KEYS = frozenset({"type", "protocol", "game", "seat", "players", "options", "time"})


class ProtocolError(ValueError):
    """A reply a bot must not send. ``cause`` is the fault cause (``malformed`` or ``oversized``)."""

    def __init__(self, detail: str, cause: str = "malformed") -> None:
        super().__init__(detail)
        self.detail = detail
        self.cause = cause


# ----- runner → bot ------------------------------------------------------------------------------------------------
def start_message(
    game: str,
    seat: int,
    players: int,
    options: dict[str, Any],
    time: dict[str, Any],
    start_info: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """The first message of each game: who the bot is, the game's options, the time control and the game's
    ``start_info``.

    ``seat`` is 0-based, like every seat number in observations and outcomes."""
    message: dict[str, Any] = {
        "type": "start",
        "protocol": PROTOCOL_VERSION,
        "game": game,
        "seat": seat,
        "players": players,
        "options": options,
        "time": time,
    }
    for key, value in (start_info or {}).items():
        if key in _START_KEYS:
            raise ValueError(f"start_info of {game} must not override the protocol field {key!r}")
        message[key] = value
    return message


def act_message(obs: dict[str, Any], legal: list[dict[str, Any]], time_left_ms: int) -> dict[str, Any]:
    """Ask the bot for an action. ``time_left_ms`` is the most this move may take (per-move limit + bank left)."""
    return {"type": "act", "obs": obs, "legal": legal, "time_left_ms": int(time_left_ms)}


def end_message(outcome: Outcome, obs: dict[str, Any]) -> dict[str, Any]:
    """The last message: the final outcome (faults applied) and the bot's final observation."""
    return {"type": "end", "outcome": outcome.to_json(), "obs": obs}


def encode(message: dict[str, Any]) -> bytes:
    """One message as a line of compact JSON (non-ASCII escaped, so any reader can decode it).

    orjson writes it: an act message goes out at every decision, and orjson takes ~1 µs where the standard library
    takes ~14 (docs/decisions.md). The standard library takes over where orjson's line would break the contract or
    refuses: text outside ASCII (orjson writes UTF-8), non-string keys and integers beyond 64 bits."""
    try:
        line = orjson.dumps(message, option=orjson.OPT_APPEND_NEWLINE)
    except orjson.JSONEncodeError:
        line = b""
    if line and line.isascii():
        return line
    return json.dumps(message, separators=(",", ":"), allow_nan=False).encode("ascii") + b"\n"


# ----- bot → runner ------------------------------------------------------------------------------------------------
def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not valid JSON")


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result: dict[str, Any] = {}
    for key, value in pairs:
        if key in result:
            raise ValueError(f"duplicate key {key!r}")
        result[key] = value
    return result


# Built once: ``json.loads`` with hooks builds a decoder and its scanner at every call (a few µs per reply).
_REPLY_DECODER = json.JSONDecoder(parse_constant=_reject_constant, object_pairs_hook=_no_duplicates)


def _shorten(text: str, limit: int = 120) -> str:
    return text if len(text) <= limit else text[:limit] + "…"


def parse_reply(line: bytes | str, expected: ReplyType, max_line_bytes: int = DEFAULT_MAX_LINE_BYTES) -> dict[str, Any]:
    """Parse one line written by a bot; ``expected`` is the reply type the runner is waiting for.

    Returns ``{"type": "ready"}`` or ``{"type": "action", "action": {...}, "note": str | None}``; raises
    ``ProtocolError`` with a message a bot author can act on."""
    raw = line.encode("utf-8", "surrogatepass") if isinstance(line, str) else bytes(line)
    if raw.endswith(b"\n"):
        raw = raw[:-1]
    if raw.endswith(b"\r"):
        raw = raw[:-1]
    if len(raw) > max_line_bytes:
        raise ProtocolError(f"line of {len(raw)} bytes exceeds the limit of {max_line_bytes}", cause="oversized")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ProtocolError(f"line is not UTF-8 ({exc.reason} at byte {exc.start})") from None
    try:
        message = _REPLY_DECODER.decode(text)
    except (ValueError, RecursionError) as exc:
        raise ProtocolError(f"line is not one JSON object ({_shorten(str(exc))}): {_shorten(text)!r}") from None
    if not isinstance(message, dict):
        raise ProtocolError(f"expected a JSON object, got {type(message).__name__}: {_shorten(text)!r}")
    kind = message.get("type")
    if kind != expected:
        raise ProtocolError(f"expected a message of type {expected!r}, got type {kind!r}")
    if expected == "ready":
        unknown = sorted(set(message) - {"type"})
        if unknown:
            raise ProtocolError(f"unknown keys in a ready message: {', '.join(map(repr, unknown))}")
        return {"type": "ready"}
    unknown = sorted(set(message) - {"type", "action", "note"})
    if unknown:
        raise ProtocolError(f"unknown keys in an action message: {', '.join(map(repr, unknown))}")
    if "action" not in message:
        raise ProtocolError('an action message needs an "action" field')
    action = message["action"]
    if not isinstance(action, dict):
        raise ProtocolError(f'"action" must be a JSON object, got {type(action).__name__}')
    note = message.get("note")
    if note is not None:
        if not isinstance(note, str):
            raise ProtocolError(f'"note" must be a string, got {type(note).__name__}')
        # Kept in the replay: cleaned and cut (a "\u0000" or "\ud800" escape must not reach a database or a page).
        note = clean_text(note, NOTE_MAX_CHARS)
    return {"type": "action", "action": action, "note": note}
