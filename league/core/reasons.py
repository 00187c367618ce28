"""What a worker reports about a failure, made fit to show: everyone may read a version's validation log.

A worker's error can name files on its machine (``OSError``'s file name, a sandbox's stderr) and be as long as the
input that caused it (a 3,000-level path in an upload); what is stored is bounded and has its paths cut out.
"""

from __future__ import annotations

import re

MAX_REASON_CHARS = 500
# An absolute path: a slash not inside a word (so "1/2", "and/or" and a name cut short with "…" stay), then at least
# one name; it ends at a space, a quote, or the punctuation of the message around it.
_ABSOLUTE_PATH = re.compile(r"(?<![\w.~…-])/[^\s/'\"():,]+(?:/[^\s/'\"():,]*)*")
_SPACE = re.compile(r"\s+")


def public_reason(text: str, limit: int = MAX_REASON_CHARS) -> str:
    """``text`` on one line, its absolute paths replaced by ``<path>``, at most ``limit`` characters."""
    text = _SPACE.sub(" ", _ABSOLUTE_PATH.sub("<path>", text)).strip()
    return text if len(text) <= limit else text[: limit - 1] + "…"
