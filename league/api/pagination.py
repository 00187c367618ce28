"""Every list is a page: ``?limit=`` (at most 200) and ``?offset=``, answered as {count, next, previous, results}."""

from __future__ import annotations

from rest_framework.pagination import LimitOffsetPagination


class Pagination(LimitOffsetPagination):
    default_limit = 50
    max_limit = 200
    max_offset = 10**9  # beyond any list, and inside every database's integers

    def get_offset(self, request):  # type: ignore[no-untyped-def]
        return min(super().get_offset(request), self.max_offset)


def paginate_list(view, rows: list) -> tuple[list, Pagination]:  # type: ignore[no-untyped-def,type-arg]
    """A page of an in-memory list (a leaderboard, head-to-head results) with the same parameters as a queryset."""
    paginator = Pagination()
    page = paginator.paginate_queryset(rows, view.request, view=view)
    return list(page or []), paginator
