"""The JSON parser's depth bound (league.api.parsers): right about strings and escapes, and linear on bodies built
to make a scanner backtrack or rescan."""

from __future__ import annotations

import json
import time

import pytest
from rest_framework.exceptions import ParseError

from league.api.parsers import MAX_DEPTH, deeper_than, loads


@pytest.mark.parametrize(
    ("text", "deeper"),
    [
        ("[" * 3 + "]" * 3, False),
        ("[" * 4 + "]" * 4, True),
        ('{"a": {"b": {"c": 1}}}', False),
        ('{"a": {"b": {"c": {}}}}', True),
        ('["[[[[[[[[", "{{{{{{"]', False),  # brackets inside strings are text
        ('["\\"[[[[[[", "]]"]', False),  # an escaped quote does not end the string
        ('["\\\\", [[[]]]]', True),  # an escaped backslash does: the brackets after it count
        ("[[[[" + '"' + "[" * 10, True),  # an unterminated string: the brackets before it still count
        ("[[]]" * 100, False),  # many brackets, never deep
    ],
)
def test_deeper_than_counts_brackets_outside_strings(text: str, deeper: bool) -> None:
    assert deeper_than(text, 3) is deeper


def test_loads_reads_what_json_reads_up_to_the_limit_and_no_further() -> None:
    at_limit = "[" * MAX_DEPTH + "]" * MAX_DEPTH
    assert loads(at_limit) == json.loads(at_limit)
    document = {"name": "x", "ids": [1, 2**64], "nested": {"a": [1.5, None, True, "é\u00e9😀"]}}
    assert loads(json.dumps(document)) == document
    with pytest.raises(ParseError, match=f"deeper than {MAX_DEPTH} levels"):
        loads("[" * (MAX_DEPTH + 1) + "]" * (MAX_DEPTH + 1))
    for refused in ("[1e999]", "[-1e999]", "NaN", "[Infinity]", '"\\ud800"', '"\\udc00 tail"', "1" * 5000):
        with pytest.raises(ParseError):
            loads(refused)
    assert loads('"\\ud83d\\ude00"') == "😀"  # a whole pair is a character


@pytest.mark.parametrize(
    "text",
    [
        '"' + '\\"' * 1_000_000,  # one unterminated string of escaped quotes: must not be rescanned per quote
        '"\\' * 1_000_000,
        "[" * 2_000_000,
        "[]" * 1_000_000,
        "[" + "[1]," * 500_000 + "1]",
        '["a",' + '"[",' * 500_000 + '"a"]',
    ],
)
def test_the_depth_scan_is_linear_on_hostile_bodies(text: str) -> None:
    started = time.perf_counter()
    deeper_than(text, MAX_DEPTH)
    assert time.perf_counter() - started < 2.0  # ~0.1 s on one core; quadratic would be minutes
