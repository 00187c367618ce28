from collections.abc import Callable
from typing import TypedDict

from django.http import HttpRequest

class Usage(TypedDict):
    count: int
    limit: int
    should_limit: bool
    time_left: int

def get_usage(
    request: HttpRequest,
    group: str | None = None,
    fn: Callable[..., object] | None = None,
    key: str | Callable[[str, HttpRequest], str] | None = None,
    rate: str | tuple[int, int] | Callable[[str, HttpRequest], str | None] | None = None,
    method: str | list[str] | tuple[str, ...] | None = ...,
    increment: bool = False,
) -> Usage | None: ...
