"""What a client may send as an id: a whole number from 1 to MAX_ID (the largest bigint, the type of every primary
key here). One bound for the API's fields (league.api.fields), the site's forms (league.site.forms) and the query
filters (league.api.filters): a larger number is a 400 or a form error, never a database overflow (a 500)."""

from __future__ import annotations

import re

MAX_ID = 2**63 - 1
ID_MESSAGE = f"must be an id: a whole number from 1 to {MAX_ID}"

# ASCII digits only: str.isdigit() also takes "²" and "٣", which int() refuses or reads as another number.
_DIGITS = re.compile(r"[0-9]{1,19}")


def parse_id(value: object) -> int | None:
    """``value`` as an id, or None when it is not one. Takes ints and digit strings (forms and query strings send
    text); refuses booleans, floats (even 12.0), signs, spaces and anything out of range."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        number = value
    elif isinstance(value, str) and _DIGITS.fullmatch(value):
        number = int(value)
    else:
        return None
    return number if 1 <= number <= MAX_ID else None
