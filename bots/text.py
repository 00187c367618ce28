"""The one rule for text a bot wrote (its stderr, move notes, the faults that quote it, its validation log): what
leaves the runner is text every database and every JSON encoder accepts, and it is bounded.

Two kinds of character are refused somewhere downstream and become U+FFFD (the replacement character, so a reader
sees that something was there): NUL, which a PostgreSQL ``text`` column and ``jsonb`` refuse (SQLite stores it, so
only production failed), and the lone surrogates U+D800..U+DFFF, which JSON's ``"\\ud800"`` escape decodes to in
Python and which no UTF-8 encoder writes (a page or an API answer holding one fails as it is sent). Everything else,
non-ASCII text included, is kept as it is. Bytes are decoded as UTF-8, an invalid sequence becoming U+FFFD too.
"""

from __future__ import annotations

import re
from typing import Any, Literal

__all__ = ["DETAIL_MAX_CHARS", "NOTE_MAX_CHARS", "STDERR_MAX_CHARS", "clean_json", "clean_text", "is_clean"]

NOTE_MAX_CHARS = 200  # a move's note, kept in the replay
DETAIL_MAX_CHARS = 2000  # a fault's detail (it may quote a line the bot wrote)
STDERR_MAX_CHARS = 64 * 1024  # a bot's log of one game or of its validation (its tail is kept)

REPLACEMENT = "\ufffd"
CUT = "…"
_REFUSED = re.compile("[\x00\ud800-\udfff]")


def clean_text(text: str | bytes, max_chars: int, keep: Literal["head", "tail"] = "head") -> str:
    """``text`` without NUL or lone surrogates (each becomes U+FFFD), at most ``max_chars`` characters: the first
    ones (``keep="head"``) or, for a log whose end says most, the last ones; a cut is marked with "…"."""
    if isinstance(text, bytes | bytearray | memoryview):
        text = bytes(text).decode("utf-8", "replace")  # (decoding never makes a surrogate: only NUL to look for)
        if "\x00" in text:
            text = text.replace("\x00", REPLACEMENT)
    elif not is_clean(text):
        text = _REFUSED.sub(REPLACEMENT, text)
    if len(text) > max_chars:
        if max_chars <= len(CUT):
            return text[:max_chars] if keep == "head" else text[len(text) - max_chars :]
        room = max_chars - len(CUT)
        text = text[:room] + CUT if keep == "head" else CUT + text[len(text) - room :]
    return text


def is_clean(text: str) -> bool:
    """No NUL and no lone surrogate: ``clean_text`` would leave it as it is (length aside)."""
    # (A substring test and isascii run at memory speed: a 64 KiB ASCII log in a few µs, where the regular expression
    # took ~190. Other text goes through the UTF-8 encoder, which refuses exactly the surrogates: ~110 µs.)
    if "\x00" in text:
        return False
    if text.isascii():
        return True
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def clean_json(value: Any) -> Any:
    """A decoded JSON document with every string (keys too) cleaned as ``clean_text`` does, lengths kept: for what
    was stored before this rule existed (a replay's notes), so that reading it cannot fail either."""
    if isinstance(value, str):
        return value if is_clean(value) else _REFUSED.sub(REPLACEMENT, value)
    if isinstance(value, list):
        return [clean_json(item) for item in value]
    if isinstance(value, dict):
        return {clean_json(key): clean_json(item) for key, item in value.items()}
    return value
