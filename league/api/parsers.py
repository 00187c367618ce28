"""The API's JSON parser: DRF's, with the body's nesting bounded before json reads it.

Python's json module recurses once per level, so a body of 10,000 ``[`` was a RecursionError (a 500). The bound
is checked first by a scan that does not recurse and is linear in the body (strings dropped by a regex that cannot
fail or backtrack, then the brackets' running total); json then never sees more than MAX_DEPTH levels. Two values json
accepts and a database refuses are refused here too: 1e999 (infinity) and lone UTF-16 surrogates ("\\ud800")."""

from __future__ import annotations

import codecs
import json
import math
import re
from array import array
from itertools import accumulate
from typing import IO, Any

from django.conf import settings
from rest_framework.exceptions import ParseError
from rest_framework.parsers import BaseParser
from rest_framework.renderers import JSONRenderer

# Our deepest real body is a tournament's settings (an object in an object); 32 leaves room for any client.
MAX_DEPTH = 32

# A string, to its closing quote or to the end of an unterminated one: it must not fail, or the scan would try
# again from each quote inside it (quadratic). Possessive, so that it never backtracks either.
_STRING = re.compile(r'"(?:[^"\\]++|\\.)*+(?:"|\\?\Z)', re.DOTALL)
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")
_STEPS = bytes.maketrans(b"[{]}", b"\x01\x01\xff\xff")  # read as signed bytes: +1 to open, -1 to close
_NOT_BRACKETS = bytes(set(range(256)) - set(b"[]{}"))


def deeper_than(text: str, limit: int) -> bool:
    """Whether the JSON ``text`` opens more than ``limit`` arrays and objects inside one another: the deepest
    running total of its brackets outside strings, all in C but the running total (a 2 MB body: ~0.1 s)."""
    if text.count("[") + text.count("{") <= limit:
        return False  # most bodies: too few brackets to be too deep
    brackets = _STRING.sub("", text).encode("utf-8", "replace").translate(_STEPS, _NOT_BRACKETS)
    return max(accumulate(array("b", brackets)), default=0) > limit


def _finite(number: str) -> float:
    value = float(number)
    if not math.isfinite(value):
        raise ValueError(f"the number {number[:20]} is out of range")
    return value


def _refuse_constant(name: str) -> None:
    raise ValueError(f"{name} is not JSON")


def loads(text: str, max_depth: int = MAX_DEPTH) -> Any:
    """One JSON document, or a ParseError (a 400) saying what is wrong with it."""
    if deeper_than(text, max_depth):
        raise ParseError(f"JSON nested deeper than {max_depth} levels (the limit)")
    try:
        data = json.loads(text, parse_float=_finite, parse_constant=_refuse_constant)
        if _SURROGATE_ESCAPE.search(text):  # a pair is a character; a lone half cannot be stored
            json.dumps(data, ensure_ascii=False).encode("utf-8")
    except ValueError as error:  # JSONDecodeError, a number past 4,300 digits, a lone surrogate
        raise ParseError(f"JSON parse error - {error}") from None
    return data


class JSONParser(BaseParser):
    """DRF's JSONParser with loads() in place of json.load: the same media type and errors, depth bounded."""

    media_type = "application/json"
    renderer_class = JSONRenderer

    def parse(self, stream: IO[bytes], media_type: str | None = None, parser_context: Any = None) -> Any:
        encoding = (parser_context or {}).get("encoding") or settings.DEFAULT_CHARSET
        try:
            text = codecs.decode(stream.read(), encoding)
        except (LookupError, ValueError) as error:  # an unknown charset, bytes that are not in it
            raise ParseError(f"JSON parse error - {error}") from None
        return loads(text)
