"""Live regions: a part of a page that htmx asks for again, every few seconds, while what it shows can still change.

The page and its fragment endpoint render the region through the same function, so without JavaScript the page is
complete as served. The region carries a digest of its content; the fragment endpoint answers ``?seen=<digest>``
with 204 No Content when nothing changed (htmx swaps nothing on a 204), and a settled region is rendered without
its trigger, so polling stops by itself."""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from urllib.parse import urlencode

from django.http import HttpRequest, HttpResponse
from django.template.loader import render_to_string
from django.utils.safestring import SafeString

DIGEST_CHARS = 16
# Django masks the CSRF token afresh at every render: a form's hidden token alone would make every poll look like a
# change. The digest leaves it out (any masking of the session's token stays valid in the page).
_CSRF_INPUT = re.compile(r'<input type="hidden" name="csrfmiddlewaretoken" value="[^"]*">')


@dataclass(frozen=True)
class Region:
    """One live region: ``html`` is the whole element (its wrapper with the trigger), ``digest`` its content's."""

    html: SafeString
    digest: str


def digest(content: str) -> str:
    return hashlib.blake2b(content.encode(), digest_size=DIGEST_CHARS // 2).hexdigest()


def region(
    element_id: str, url: str, content: str, *, seconds: int, settled: bool, query: dict[str, str] | None = None
) -> Region:
    """The wrapper element around ``content`` (already-rendered, safe HTML) that asks ``url`` again every
    ``seconds`` until ``settled``."""
    seen = digest(_CSRF_INPUT.sub("", content))
    poll = f"{url}?{urlencode({**(query or {}), 'seen': seen})}"
    html = render_to_string(
        "league/_live.html",
        {"id": element_id, "poll": poll, "seconds": seconds, "settled": settled, "content": SafeString(content)},
    )
    return Region(html=SafeString(html), digest=seen)


def fragment(request: HttpRequest, live: Region) -> HttpResponse:
    """The fragment endpoint's answer: 204 when the client has seen this content already, else the region."""
    if request.GET.get("seen") == live.digest:  # compared, never stored: any length is harmless
        return HttpResponse(status=204)
    return HttpResponse(live.html)
