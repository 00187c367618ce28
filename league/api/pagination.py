"""Every list is a page. Most: ``?limit=`` (at most 200) and ``?offset=``, answered as {count, next, previous,
results}. The match list, a million rows and growing at the head, pages by cursor instead: {next, previous, results}
(docs/decisions.md, "The match list pages by cursor")."""

from __future__ import annotations

from typing import Any

from django.db.models import QuerySet
from django.utils.dateparse import parse_datetime
from rest_framework.exceptions import ValidationError
from rest_framework.pagination import Cursor, CursorPagination, LimitOffsetPagination
from rest_framework.request import Request

from league.api import filters


class Pagination(LimitOffsetPagination):
    default_limit = 50
    max_limit = 200
    max_offset = 10**9  # beyond any list, and inside every database's integers

    def get_offset(self, request):  # type: ignore[no-untyped-def]
        return min(super().get_offset(request), self.max_offset)


def paginate_list(view, rows: list) -> tuple[list, Pagination]:  # type: ignore[no-untyped-def,type-arg]
    """A page of an in-memory list (head-to-head results, the games) with the same parameters as a queryset."""
    paginator = Pagination()
    page = paginator.paginate_queryset(rows, view.request, view=view)
    return list(page or []), paginator


def paginate_with_total(view, rows: QuerySet) -> tuple[list, Pagination]:  # type: ignore[no-untyped-def,type-arg]
    """A page of a queryset whose rows carry ``total`` (queries.with_total): one query for the page and its count,
    the same parameters and answer as ``Pagination``. Only a page past the end asks for the count on its own."""
    paginator = Pagination()
    paginator.request = view.request
    paginator.limit = paginator.get_limit(view.request)
    paginator.offset = paginator.get_offset(view.request)
    page = list(rows[paginator.offset : paginator.offset + paginator.limit])
    paginator.count = page[0].total if page else rows.count()
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
        """A cursor the client altered is a 400 naming ``cursor`` (DRF says 404, or 500 for a position of the
        wrong type: the position goes into the query as it is)."""
        try:
            cursor = super().decode_cursor(request)
        except Exception as error:  # DRF's NotFound, or a UnicodeDecodeError it lets through
            raise _bad_cursor() from error
        if cursor is None or cursor.position is None:
            return cursor
        field = self.ordering[0].lstrip("-")
        if field == "id" and not (cursor.position.isdigit() and len(cursor.position) <= 18):
            raise _bad_cursor()
        if field == "created":
            try:
                valid = parse_datetime(cursor.position) is not None
            except ValueError:
                valid = False
            if not valid:
                raise _bad_cursor()
        return cursor


def _bad_cursor() -> ValidationError:
    return ValidationError({"cursor": ["cursor must be a value from a previous page's next or previous link"]})
