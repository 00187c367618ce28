"""Watching league matches live: /matches/<id>/live/ (the page), its event stream, and /live/ with its live list.

Thin: league.live.watch decides what a spectator may see (the public view only, never the seed or a hand). The
page reuses the people's table script (league/static/league/table.js) in spectator mode: the game's own renderer
draws the public view pushed by server-sent events (league/site/event_stream.py: one read per change, however many
watch).
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any

from django.conf import settings
from django.http import HttpRequest, HttpResponse, JsonResponse, StreamingHttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.template.loader import render_to_string
from django.urls import reverse

from games.registry import GAMES
from league.api.errors import json_error
from league.core import cache_headers
from league.core.errors import NoSuchMatch
from league.core.ids import parse_id
from league.live import broadcasts, watch
from league.play.models import Match
from league.play.replays import renderer_url
from league.site import event_stream, parts, visibility
from league.site.stream_hub import Feed
from league.tables import services as tables

LIVE_LIST_SECONDS = 3  # /live/'s list is asked for again this often


def match_live_page(request: HttpRequest, pk: int) -> HttpResponse:
    """A running match, watched: public information only. Once it is over, its page (the result, the replay)."""
    match = get_object_or_404(visibility.matches(request.user), pk=pk)
    if match.status in Match.Status.finalized():
        return redirect(match)
    view = watch.match_view(match)
    config = {
        "id": f"match-{match.pk}",
        "game": match.game,
        "title": GAMES[match.game].title,
        "renderer": renderer_url(match.game),
        "events": reverse("match-live-events", args=[match.pk]),
        "act": "",
        "view": view,
    }
    context = {"match": match, "game": GAMES[match.game], "config": config, "view": view}
    return cache_headers.no_store(render(request, "league/match_live.html", context))


def _match_view(
    pk: int, viewer: Hashable, live_view: watch.LiveView, published: dict[str, Any] | None
) -> tuple[dict[str, Any], bool]:
    data, status = live_view.build(pk, published)
    return data, status not in (Match.Status.RUNNING, Match.Status.QUEUED)


MATCHES = Feed(
    "match",
    watch.fingerprint,
    _match_view,
    memo=watch.LiveView,
    published_fingerprint=watch.published_fingerprint,
    public=True,  # visibility.matches: every match is the league's public record
)


async def match_live_events(request: HttpRequest, pk: int) -> HttpResponse | StreamingHttpResponse:
    """Server-sent events: the spectator's view each time the published moves (or the status) change."""

    def viewer() -> None:  # every spectator of a match sees the same public view
        if not visibility.matches(request.user).filter(pk=pk).exists():
            raise NoSuchMatch(match_id=pk)

    return await event_stream.follow(request, MATCHES, pk, viewer)


def _live_list() -> parts.Region:
    content = render_to_string(
        "league/_live_lists.html", {"tables": tables.live_tables(), "matches": watch.live_matches(), "games": GAMES}
    )
    return parts.region("live-lists", reverse("live-lists"), content, seconds=LIVE_LIST_SECONDS, settled=False)


def _broadcast(item: broadcasts.Broadcast | None) -> dict[str, Any] | None:
    """A featured game as the page's script takes it (league/static/league/tv.js)."""
    if item is None:
        return None
    found: dict[str, Any] = {
        "kind": item.kind,
        "match": item.match_id,
        "game": item.game,
        "title": item.title,
        "caption": item.caption(),
        "seats": list(item.seats),
        "renderer": renderer_url(item.game),
        "match_url": reverse("match", args=[item.match_id]),
    }
    if item.kind == "live":
        found["events"] = reverse("match-live-events", args=[item.match_id])
        found["live_url"] = reverse("match-live", args=[item.match_id])
    else:
        found["frames"] = reverse("live-broadcast-frames", args=[item.match_id])
    return found


def live_page(request: HttpRequest) -> HttpResponse:
    """Parlour TV (one featured game at a human pace: a league match in play worth watching, else a replay of the
    top bots' latest game), then every game in progress, league matches and people's tables: watch any of them."""
    featured = _broadcast(broadcasts.next_broadcast(None))
    tv = {
        "next": reverse("live-next"),
        "move_ms": settings.LIVE_BROADCAST_MOVE_MS,
        "result_ms": settings.LIVE_BROADCAST_RESULT_MS,
        "max_ms": settings.LIVE_BROADCAST_MAX_SECONDS * 1000,
        "first": featured,
    }
    context = {"live": _live_list(), "featured": featured, "tv": tv}
    return cache_headers.no_store(render(request, "league/live.html", context))


def live_next(request: HttpRequest) -> HttpResponse:
    """The featured game after the one of match ``?after=`` (JSON for tv.js); 204 when there is nothing to show."""
    item = _broadcast(broadcasts.next_broadcast(parse_id(request.GET.get("after", ""))))
    if item is None:
        return cache_headers.no_store(HttpResponse(status=204))
    return cache_headers.no_store(JsonResponse(item))


def live_broadcast_frames(request: HttpRequest, pk: int) -> HttpResponse:
    """A finished match replayed as a broadcast: public views only (league.live.broadcasts.broadcast_frames). It never
    changes, so anyone may keep it; 404 in the API's error shape for a match that cannot be broadcast."""
    try:
        document = broadcasts.broadcast_frames(pk)
    except NoSuchMatch as error:
        return json_error(error)
    response = JsonResponse(document)
    response["Cache-Control"] = "public, max-age=86400, immutable"
    return response


def live_lists(request: HttpRequest) -> HttpResponse:
    """/live/'s lists alone, for htmx every few seconds; 204 when the asker has seen them already."""
    return cache_headers.no_store(parts.fragment(request, _live_list()))
