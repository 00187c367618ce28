"""Pages for bot authors: "Write your first bot", per-game references and starter kits (generated from the engines
by ``bots.authoring.reference`` and ``bots.authoring.starter``), and challenges / version tests
(``league.challenges.services``).

The first-bot page is ``league/authors/guides/first-bot.md`` rendered here (docs/ points to it: one copy of the
text); the reference pages and kits come from a real game played by the engine, so they cannot drift from the code.
"""

from __future__ import annotations

import json
import logging
import re
from functools import cache
from pathlib import Path
from typing import Any

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import FileResponse, Http404, HttpRequest, HttpResponse, HttpResponseBase
from django.shortcuts import get_object_or_404, redirect, render
from django.template.loader import render_to_string
from django.urls import reverse
from django.views.decorators.http import etag, require_safe

from bots.authoring import starter
from games.registry import GAMES
from league.authors import kit
from league.authors.rules import rules_in_brief
from league.bots.models import Bot, BotVersion
from league.challenges.models import Challenge
from league.challenges.queries import Report, challenge_report, challenges_for, games_in_last_hour, previous_version
from league.challenges.services import do_create_challenge, do_create_version_test
from league.core import cache_headers
from league.core.doc_markdown import render_markdown
from league.core.errors import RateLimited, ServiceError
from league.site import parts, visibility
from league.site.forms import KIT_GAME_COOKIE, ChallengeForm, first_error

logger = logging.getLogger(__name__)

# The site's own guide, in the package: nothing at run time reads docs/.
FIRST_BOT_DOC = Path(__file__).resolve().parent / "guides" / "first-bot.md"
# The guide's page on search bots: docs/search.md (a link here, so the general part and each game's section have one
# copy; the package build copies its text).
SEARCH_DOC = Path(__file__).resolve().parent / "guides" / "search.md"
GAMES_MARKER = "<!-- games -->"
READER_PASSAGE = re.compile(r"<!-- signed-out -->\n?(.*?)<!-- signed-in -->\n?(.*?)<!-- end -->\n?", re.S)
KIT_GAME_COOKIE_SECONDS = 30 * 24 * 3600
WHEEL_CONTENT_TYPE = "application/zip"  # a wheel is a zip archive; no media type of its own is registered
LIVE_SECONDS = 5  # a challenge page with games in flight asks for its results this often


# ----- first bot, references, starter kits ------------------------------------------------------------------------


def _games() -> list[Any]:
    return [GAMES[game_id] for game_id in GAMES]


def first_bot(request: HttpRequest) -> HttpResponse:
    """The guide, with the table of games and their kits where it has its ``<!-- games -->`` marker, the author kit's
    wheel named with this site's address, and what a signed-in reader no longer needs (signing up) left out."""
    site = request.build_absolute_uri("/").rstrip("/")
    text = FIRST_BOT_DOC.read_text(encoding="utf-8")
    text = text.replace("https://SITE", site).replace(starter.RUNTIME_WHEEL_PLACEHOLDER, kit.wheel_name())
    text = for_reader(text, signed_in=request.user.is_authenticated)
    before, marker, after = text.partition(GAMES_MARKER)
    context = {
        "before": render_markdown(before),
        "after": render_markdown(after) if marker else None,
        "games": _games(),
    }
    response = render(request, "league/authors/first_bot.html", context)
    return cache_headers.private_if_signed_in(response, request.user)  # step 3 reads differently when signed in


@require_safe
def search_guide(request: HttpRequest) -> HttpResponse:
    """The guide's page on writing a search bot: the forward model, Seen, the samplers, ISMCTS, the template."""
    context = {"title": "Write a search bot", "body": render_markdown(_search_text())}
    return render(request, "league/authors/guide.html", context)


@cache
def _search_text() -> str:
    return SEARCH_DOC.read_text(encoding="utf-8")


def for_reader(text: str, *, signed_in: bool) -> str:
    """The guide's ``<!-- signed-out -->A<!-- signed-in -->B<!-- end -->`` passages as A or B for this reader."""
    return READER_PASSAGE.sub(lambda match: match.group(2 if signed_in else 1), text)


def _game_or_404(game: str) -> Any:
    if game not in GAMES:
        raise Http404("no such game")
    return GAMES[game]


def game_reference(request: HttpRequest, game: str) -> HttpResponse:
    spec = _game_or_404(game)
    ref = starter.reference(game)
    fields = [
        {
            "name": f.name,
            "type": f.type,
            "description": render_markdown(f.description) if f.description else "",
            "example": _one_line(starter.shorten(f.example, max_items=3, max_keys=8, max_chars=40)),
        }
        for f in ref.fields
    ]
    actions = [
        {
            "keys": shape.keys,
            "description": shape.description,
            "example": starter.pretty(starter.shorten(shape.example, max_items=6), width=80) if shape.example else None,
            "template": starter.pretty(shape.template) if shape.template else None,
            "free": shape.free,
        }
        for shape in ref.actions
    ]
    context = {
        "game": spec,
        "ref": ref,
        "fields": fields,
        "actions": actions,
        "messages_shown": [
            ("start", "Runner → bot, once, first", ref.message_text("start")),
            ("ready", "Bot → runner, within startup_ms", ref.message_text("ready")),
            ("act", "Runner → bot, at each of your decisions", ref.message_text("act")),
            ("action", "Bot → runner, one of legal (note optional)", ref.message_text("action")),
            ("end", "Runner → bot, once, last (no answer)", ref.message_text("end")),
        ],
        "rules": rules_in_brief(game),
        "action_doc": render_markdown(ref.doc_sections.get("actions", "")),
        "options": [(name, schema, str(schema.get("default"))) for name, schema in ref.options],
    }
    return render(request, "league/authors/reference.html", context)


def _one_line(value: Any, limit: int = 180) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= limit else text[: limit - 1] + "…"


@cache
def _kit(game: str, site_url: str, runtime_url: str) -> bytes:
    return starter.build_kit(game, site_url, runtime_url)


def starter_zip(request: HttpRequest, game: str) -> HttpResponse:
    """A game's starter kit; the upload form opens on that game from now on (a cookie: the kit's README sends its
    reader to the form, and so does the site's own "Upload a bot")."""
    _game_or_404(game)
    runtime_url = request.build_absolute_uri(reverse("kit-wheel", args=[kit.wheel_name()]))
    data = _kit(game, request.build_absolute_uri("/").rstrip("/"), runtime_url)
    response = HttpResponse(data, content_type="application/zip")
    response["Content-Disposition"] = f'attachment; filename="{starter.kit_filename(game)}"'
    response["Content-Length"] = str(len(data))
    response.set_cookie(
        KIT_GAME_COOKIE,
        game,
        max_age=KIT_GAME_COOKIE_SECONDS,
        secure=settings.SESSION_COOKIE_SECURE,
        httponly=True,
        samesite="Lax",
    )
    return response


def _wheel_etag(request: HttpRequest, filename: str) -> str | None:
    return f'"{kit.key()}"' if filename == kit.wheel_name() else None


@require_safe
@etag(_wheel_etag)
def kit_wheel(request: HttpRequest, filename: str) -> HttpResponseBase:
    """The author kit (league/authors/kit.py): ``pip install`` takes this address as it is. Built from this checkout
    the first time it is asked for, then kept; revalidated by its ETag (the same name may hold a newer build)."""
    context = {"wheel": kit.wheel_name(), "first_bot": reverse("first-bot")}
    if filename != kit.wheel_name():
        return render(request, "league/authors/kit_unavailable.html", context, status=404)
    try:
        wheel = kit.cached_wheel(settings.VAR_DIR)
    except (kit.KitBuildError, OSError):
        logger.exception("the author kit could not be built")
        return render(request, "league/authors/kit_unavailable.html", {**context, "failed": True}, status=503)
    response = FileResponse(wheel.open("rb"), content_type=WHEEL_CONTENT_TYPE, as_attachment=True, filename=wheel.name)
    response["Cache-Control"] = "no-cache"  # keep it, but ask again: the ETag answers 304 while it is the same
    return response


# ----- challenges ---------------------------------------------------------------------------------------------------


@login_required
def challenge_list(request: HttpRequest) -> HttpResponse:
    user = visibility.signed_in(request.user)
    mine = list(challenges_for(user).order_by("-created", "-id")[:50])
    versions = {
        v.pk: v
        for v in BotVersion.objects.select_related("bot__owner").filter(pk__in={pk for c in mine for pk in c.opponents})
    }
    for challenge in mine:
        challenge.opponent_versions = [versions[pk] for pk in challenge.opponents if pk in versions]  # type: ignore[attr-defined]  # for the template
    context = {
        "challenges": mine,
        # Only bots that can play (a ready version): a rejected or still-validating bot has nothing to challenge with.
        "bots": Bot.objects.filter(owner=user, versions__status=BotVersion.Status.READY)
        .distinct()
        .order_by("game", "name"),
        "unready": Bot.objects.filter(owner=user).exclude(versions__status=BotVersion.Status.READY).count(),
        "used": games_in_last_hour(user),
        "limit": settings.CHALLENGE_GAMES_PER_HOUR,
    }
    return render(request, "league/authors/challenges.html", context)


@login_required
def challenge_new(request: HttpRequest, pk: int) -> HttpResponse:
    """The form to challenge chosen bots with one of your bots, or to run a version test of it."""
    bot = get_object_or_404(Bot.objects.select_related("owner"), pk=pk)
    if bot.owner_id != request.user.pk:
        raise PermissionDenied("only the bot's owner can start its challenges")
    spec = GAMES[bot.game]
    current = bot.current_version()
    previous = previous_version(bot, current) if current else None
    opponents = (
        Bot.objects.filter(game=bot.game, versions__status=BotVersion.Status.READY)
        .exclude(pk=bot.pk)
        .select_related("owner", "rating", "fitted")
        .distinct()
        .order_by("-is_builtin", "owner__username", "name")
    )
    status = 200
    error = None
    retry_after = None
    form = ChallengeForm(request.POST if request.method == "POST" else None)
    if request.method == "POST" and not form.is_valid():  # an id out of range, a games count that is no number
        error, status = first_error(form), 400
    elif request.method == "POST":
        games = form.cleaned_data["games"] or 0  # left empty: the service says what it must be
        try:
            if form.cleaned_data["kind"] == Challenge.Kind.VERSION_TEST:
                challenge = do_create_version_test(request.user, bot.pk, games)
            else:
                challenge = do_create_challenge(request.user, bot.pk, form.cleaned_data["opponents"], games)
        except RateLimited as exc:
            error, status, retry_after = exc.message, 429, exc.retry_after
        except ServiceError as exc:
            error, status = exc.message, (exc.status if exc.status in (400, 403, 404, 409) else 400)
        else:
            messages.success(request, f"{challenge.games} games queued: results appear below as they are played.")
            return redirect(challenge)
    context = {
        "bot": bot,
        "game": spec,
        "current": current,
        "previous": previous,
        "opponents": opponents,
        "seats": range(spec.min_players - 1, spec.max_players),
        "error": error,
        "max_games": settings.CHALLENGE_MAX_GAMES,
        "limit": settings.CHALLENGE_GAMES_PER_HOUR,
        "used": games_in_last_hour(request.user),
        "needs_field": spec.min_players > 2,
    }
    response = render(request, "league/authors/challenge_new.html", context, status=status)
    if retry_after is not None:
        response["Retry-After"] = str(retry_after)
    return response


def challenge_page(request: HttpRequest, pk: int) -> HttpResponse:
    challenge = get_object_or_404(
        visibility.challenges(request.user).select_related("owner", "version__bot__owner"), pk=pk
    )
    result = challenge_report(challenge)
    context = {
        "challenge": challenge,
        "game": GAMES[challenge.game],
        "opponents": [result.versions[pk] for pk in challenge.opponents],
        "live": _live_results(challenge, result),
    }
    return render(request, "league/authors/challenge.html", context)


def challenge_results(request: HttpRequest, pk: int) -> HttpResponse:
    """The challenge page's live part alone (progress, results, games): what htmx asks for while games are queued
    or running; 204 if the asker has seen it already."""
    challenge = get_object_or_404(
        visibility.challenges(request.user).select_related("owner", "version__bot__owner"), pk=pk
    )
    return cache_headers.no_store(parts.fragment(request, _live_results(challenge, challenge_report(challenge))))


def _live_results(challenge: Challenge, result: Report) -> parts.Region:
    context = {"challenge": challenge, "game": GAMES[challenge.game], "report": result}
    return parts.region(
        "challenge-live",
        reverse("challenge-results", args=[challenge.pk]),
        render_to_string("league/authors/_challenge_live.html", context),
        seconds=LIVE_SECONDS,
        settled=not result.in_flight,
    )
