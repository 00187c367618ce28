"""Every list is a page. Most: ``?limit=`` (at most 200) and ``?offset=``, answered as {count, next, previous,
results}. The match list, a million rows and growing at the head, pages by cursor instead: {next, previous, results}
(docs/decisions.md, "The match list pages by cursor")."""

from __future__ import annotations

import base64
from typing import Any, TypeVar
from urllib import parse

from django.db.models import Model, QuerySet
from django.utils.dateparse import parse_datetime
from rest_framework.exceptions import ValidationError
from rest_framework.pagination import Cursor, CursorPagination, LimitOffsetPagination
from rest_framework.request import Request
from rest_framework.views import APIView

from league.api import filters
from league.core.ids import parse_id

T = TypeVar("T")
M = TypeVar("M", bound=Model)


class Pagination(LimitOffsetPagination):
    default_limit = 50
    max_limit = 200
    max_offset = 10**9  # beyond any list, and inside every database's integers

    def get_offset(self, request: Request) -> int:
        return min(super().get_offset(request), self.max_offset)


def paginate_list(view: APIView, rows: list[T]) -> tuple[list[T], Pagination]:
    """A page of an in-memory list (head-to-head results, the games) with the same parameters as a queryset."""
    paginator = Pagination()
    page: list[T] | None = paginator.paginate_queryset(rows, view.request, view=view)  # type: ignore[arg-type]  # DRF pages lists too; the stubs want a QuerySet
    return list(page or []), paginator


def paginate_with_total(view: APIView, rows: QuerySet[M]) -> tuple[list[M], Pagination]:
    """A page of a queryset whose rows carry ``total`` (queries.with_total): one query for the page and its count,
    the same parameters and answer as ``Pagination``. Only a page past the end asks for the count on its own."""
    paginator = Pagination()
    paginator.request = view.request
    paginator.limit = limit = paginator.get_limit(view.request) or Pagination.default_limit  # (never None here)
    paginator.offset = offset = paginator.get_offset(view.request)
    page = list(rows[offset : offset + limit])
    paginator.count = page[0].total if page else rows.count()  # type: ignore[attr-defined]  # queries.with_total's annotation
    return page, paginator


# The orderings a cursor can follow: unchanging fields only (a match's finished_at is null until it finishes, so a
# cursor on it would skip or repeat matches). The second field breaks ties between matches created together.
MATCH_CURSOR_ORDERING: dict[str, tuple[str, ...]] = {
    "created": ("created", "id"),
    "id": ("id",),
}


class MatchCursorPagination(CursorPagination):
    """Newest first by default, ``?ordering=`` among MATCH_CURSOR_ORDERING, ``?limit=`` up to 200, ``?cursor=`` from
    ``next``/``previous``. No COUNT(*): each page is one indexed range scan however long the history is."""

    page_size = 50
    page_size_query_param = "limit"
    page_size_query_description = "Number of results to return per page (at most 200)."
    max_page_size = 200
    ordering = ("-created", "-id")

    def get_ordering(self, request: Request, queryset: Any, view: Any) -> tuple[str, ...]:
        return filters.ordering(request, MATCH_CURSOR_ORDERING, "-created")

    def decode_cursor(self, request: Request) -> Cursor | None:
        """A cursor is exactly what ``encode_cursor`` writes (strict base64 of ``o=``, ``r=``, ``p=``); anything
        else, an altered one included, is a 400 naming ``cursor``. DRF's own reading skips characters that are not
        base64 (``?cursor=%%%`` read as the first page), answers 404 otherwise, and puts the position into the query
        as it is (a 500 for a position of the wrong type)."""
        encoded = request.query_params.get(self.cursor_query_param)
        if not encoded:
            return None  # absent or empty: the first page
        cursor = _read_cursor(encoded, self.offset_cutoff)
        position: str | None = cursor.position if cursor else None  # type: ignore[assignment]  # a str in DRF; the stubs say int
        if cursor is None or not _valid_position(position, self.ordering[0].lstrip("-")):
            raise _bad_cursor()
        return cursor


def _read_cursor(encoded: str, offset_cutoff: int) -> Cursor | None:
    try:
        querystring = base64.b64decode(encoded.encode("ascii"), validate=True).decode("ascii")
        tokens = parse.parse_qs(querystring, keep_blank_values=True, strict_parsing=True)
    except ValueError:  # binascii.Error and the Unicode errors are ValueErrors
        return None
    if not tokens or set(tokens) - {"o", "r", "p"} or any(len(values) != 1 for values in tokens.values()):
        return None
    offset, reverse = tokens.get("o", ["0"])[0], tokens.get("r", ["0"])[0]
    if not (offset.isascii() and offset.isdigit() and len(offset) <= 9) or reverse not in {"0", "1"}:
        return None
    position = tokens.get("p", [None])[0]
    return Cursor(offset=min(int(offset), offset_cutoff), reverse=reverse == "1", position=position)  # type: ignore[arg-type]  # a str in DRF; the stubs say int


def _valid_position(position: str | None, field: str) -> bool:
    if position is None:
        return True
    if field == "id":
        return parse_id(position) is not None
    try:
        return parse_datetime(position) is not None
    except ValueError:
        return False


def _bad_cursor() -> ValidationError:
    return ValidationError({"cursor": ["cursor must be a value from a previous page's next or previous link"]})
