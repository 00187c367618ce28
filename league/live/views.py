"""Watching league matches live: /matches/<id>/live/ (the page), its event stream, and /live/ with its live list.

Thin: league.live.watch decides what a spectator may see (the public view only, never the seed or a hand). The
page reuses the people's table script (league/static/league/table.js) in spectator mode: the game's own renderer
draws the public view pushed by server-sent events (league/site/event_stream.py: one read per change, however many
watch).
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any

from django.http import HttpRequest, HttpResponse, StreamingHttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.template.loader import render_to_string
from django.urls import reverse

from games.registry import GAMES
from league.core import cache_headers
from league.core.errors import NoSuchMatch
from league.live import watch
from league.play.models import Match
from league.play.replays import renderer_url
from league.site import event_stream, visibility
from league.site import parts as live
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


def _match_view(pk: int, viewer: Hashable, live_view: watch.LiveView) -> tuple[dict[str, Any], bool]:
    data, status = live_view.build(pk)
    return data, status not in (Match.Status.RUNNING, Match.Status.QUEUED)


MATCHES = Feed("match", watch.fingerprint, _match_view, memo=watch.LiveView)


async def match_live_events(request: HttpRequest, pk: int) -> HttpResponse | StreamingHttpResponse:
    """Server-sent events: the spectator's view each time the published moves (or the status) change."""

    def viewer() -> None:  # every spectator of a match sees the same public view
        if not visibility.matches(request.user).filter(pk=pk).exists():
            raise NoSuchMatch(match_id=pk)

    return await event_stream.follow(request, MATCHES, pk, viewer)


def _live_list() -> live.Region:
    content = render_to_string(
        "league/_live_lists.html", {"tables": tables.live_tables(), "matches": watch.live_matches(), "games": GAMES}
    )
    return live.region("live-lists", reverse("live-lists"), content, seconds=LIVE_LIST_SECONDS, settled=False)


def live_page(request: HttpRequest) -> HttpResponse:
    """Every game in progress, league matches (tournament games first) and people's tables: watch any of them."""
    return cache_headers.no_store(render(request, "league/live.html", {"live": _live_list()}))


def live_lists(request: HttpRequest) -> HttpResponse:
    """/live/'s lists alone, for htmx every few seconds; 204 when the asker has seen them already."""
    return cache_headers.no_store(live.fragment(request, _live_list()))
