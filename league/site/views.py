"""The site's pages: thin views that read through queries and write through services."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import timedelta
from typing import Any
from urllib.parse import urlencode

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.contrib.auth.models import AnonymousUser
from django.core.exceptions import PermissionDenied
from django.core.paginator import Paginator
from django.db.models import Prefetch, QuerySet
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone
from django.utils.safestring import mark_safe
from django.views.decorators.http import require_http_methods, require_POST

from bots.packaging import MAX_UPLOAD_BYTES
from games.registry import GAMES
from league.accounts.guests import is_guest
from league.accounts.services import may_upload, upload_refusal
from league.accounts.tokens import do_create_token, do_revoke_token
from league.bots import presence
from league.bots.models import Bot, BotVersion
from league.bots.services import do_add_version, do_create_bot, do_create_remote_bot, do_disable_bot, do_resume_bot
from league.core import cache_headers
from league.core.errors import ErrorCode, GuestsOnlyPlay, RateLimited, ServiceError, UploadTooLarge
from league.core.time_ago import time_ago
from league.ladder.bot_status import BotStatus, bot_status
from league.ladder.placement import placement_progress
from league.play import disclosure
from league.play.models import Match, Seat
from league.play.queries import NOT_SHOWN, finished_matches, match_rows, page_of, with_seats
from league.ratings import caching, fits
from league.ratings import elo as ratings
from league.ratings.models import FittedRating, Rating, RatingFit
from league.ratings.queries import (
    SORTS,
    BoardRow,
    FitPoint,
    board_rows,
    fault_counts,
    fit_history,
    head_to_head,
    leaderboard,
    not_ranked,
    ordinal,
    versions_with_games,
)
from league.remote.services import do_issue_remote_token, do_revoke_remote_token
from league.site import parts, visibility
from league.site.forms import REMOTE, BotUploadForm, MatchFilterForm, TokenForm, VersionUploadForm, upload_game
from league.site.remote_panel import connect_panel
from league.tables.seating import seatable
from league.tables.services import people_record, tables_of

RECENT = 20
LATEST_MATCHES = 10  # on the home page and a game's page; /matches/ lists them all
ACTIVITY_SECONDS = 10  # a playing bot's page asks for its recent matches this often
BOARD_SECONDS = 10  # a leaderboard page asks for its board this often

MY_TABLES_SHOWN = 5  # the account page's latest games against the bots; /account/tables/ lists them all
HEAD_TO_HEAD_SHOWN = 20  # the most-met opponents; the API has them all


_NOT_SHOWN = NOT_SHOWN  # (the owner's bots page reads faults' seats without them too)


def _matches(user: visibility.User | None = None) -> QuerySet[Match]:
    """Matches with their seats, as ``user`` may see them (by default as any visitor: for the shared caches)."""
    return with_seats(visibility.matches(user or AnonymousUser())).order_by("-created", "-id")


def home(request: HttpRequest) -> HttpResponse:
    # The five top fives and the latest results change only with the league's fingerprint (league/ratings/caching.py).
    tops, recent = caching.cached(f"home:{caching.board_fingerprint(None)}", _home_data)
    # Each board with whether a bot on it has played rated games but has no fitted Elo yet (the page says why).
    boards = [(GAMES[game_id], bots, any(not hasattr(bot, "fitted") for bot in bots)) for game_id, bots in tops]
    context = {"boards": boards, "recent": match_rows(recent), "all_matches": reverse("matches")}
    return render(request, "league/home.html", context)


def _home_data() -> tuple[list[tuple[str, list[Bot]]], list[Match]]:
    tops = [(game_id, list(leaderboard(game_id)[:5])) for game_id in GAMES]
    return tops, list(_matches().filter(status=Match.Status.FINISHED)[:LATEST_MATCHES])


def matches_url(**filters: object) -> str:
    """The match index narrowed by ``filters`` (game=..., bot=...)."""
    return f"{reverse('matches')}?{urlencode(filters)}"


def matches_page(request: HttpRequest) -> HttpResponse:
    """Every finished match a user may see, newest first, a page at a time, narrowed by filters (game, bot, owner,
    the bot's result, rated or not, tournament). Bad filters: the form says which, with a 400."""
    form = MatchFilterForm(
        request.GET, bots=visibility.bots(request.user), tournaments=visibility.tournaments(request.user)
    )
    context: dict[str, Any] = {"form": form}
    if not form.is_valid():
        response = render(request, "league/matches.html", context, status=400)
        return cache_headers.private_if_signed_in(response, request.user)
    filters, query = form.filters(), form.query()
    matches = finished_matches(visibility.matches(request.user), filters)
    page = page_of(matches, before=form.cleaned_data["before"], after=form.cleaned_data["after"])

    def at(position: dict[str, int]) -> str:
        return "?" + urlencode({**query, **position})

    context |= {
        "rows": match_rows(page.matches, filters.bot),
        "focus": form.cleaned_data["bot"],
        "show_game": filters.game is None and filters.bot is None,
        "filtered": bool(query),
        "newer": at({"after": page.newer}) if page.newer else None,
        "older": at({"before": page.older}) if page.older else None,
        "newest": at({}) if page.newer else None,
    }
    return cache_headers.private_if_signed_in(render(request, "league/matches.html", context), request.user)


BOARD_PAGE_SIZE = 100
# Leaderboard columns: (sort key or None, heading, numeric).
BOARD_COLUMNS = [
    ("name", "Bot", False),
    ("elo", "Elo", True),
    ("interval", "95% interval", True),
    (None, "Rank at 95%", True),
    ("games", "Rated games", True),
    ("wins", "W / L / D", True),
    (None, "Win %", True),
    ("last", "Last match", False),
    (None, "Trend", False),
]


def leaderboard_page(request: HttpRequest, game: str) -> HttpResponse:
    """The ladder of one game, sortable by its column headings (plain links: no JavaScript needed); htmx asks for
    its board again every few seconds (leaderboard_board)."""
    return render(request, "league/leaderboard.html", {"game": _game(game), "board": _live_board(request, game)})


def leaderboard_board(request: HttpRequest, game: str) -> HttpResponse:
    """The leaderboard page's board alone, for the same sort, order and page; 204 if the asker has seen it."""
    _game(game)
    return cache_headers.no_store(parts.fragment(request, _live_board(request, game)))


def _game(game: str) -> Any:
    if game not in GAMES:
        raise Http404("no such game")
    return GAMES[game]


def _live_board(request: HttpRequest, game: str) -> parts.Region:
    """Everything below the navigation bar is the same for every visitor: it is rendered once per (sort, order,
    page) and fingerprint of the game's ratings (league/ratings/caching.py), then served from the cache in one query. A
    ladder never settles: the board is asked for as long as the page is open (mostly answered 204)."""
    sort = request.GET.get("sort", "elo")
    sort = sort if sort in SORTS else "elo"
    backwards = request.GET.get("order") == "reverse"
    number = request.GET.get("page")
    try:
        page_key = str(int(number))  # type: ignore[arg-type]  # None raises TypeError, caught below
    except (TypeError, ValueError):
        page_key = "1"  # what Paginator.get_page shows for a missing or malformed number
    key = f"board:{game}:{sort}:{int(backwards)}:{page_key}:{caching.board_fingerprint(game)}"
    content = caching.cached(key, lambda: _leaderboard_content(game, sort, backwards, number))
    query = {"sort": sort, **({"order": "reverse"} if backwards else {}), "page": page_key}
    url = reverse("leaderboard-board", args=[game])
    return parts.region("board", url, content, seconds=BOARD_SECONDS, settled=False, query=query)


def _leaderboard_content(game: str, sort: str, reverse: bool, number: str | None) -> str:
    page = Paginator(leaderboard(game, sort, reverse), BOARD_PAGE_SIZE).get_page(number)
    rows = [_board_line(row) for row in board_rows(page.object_list)]
    columns = []
    for key, heading, numeric in BOARD_COLUMNS:
        current = key == sort
        query = {"sort": key, **({"order": "reverse"} if current and not reverse else {})}
        columns.append(
            {
                "heading": heading,
                "numeric": numeric,
                "url": f"?{urlencode(query)}" if key else None,
                "current": current,
                "descending": key is not None and SORTS[key][1] != reverse,
            }
        )
    context = {
        "game": GAMES[game],
        "rows": rows,
        "page": page,
        "columns": columns,
        "sort_query": urlencode({"sort": sort, **({"order": "reverse"} if reverse else {})}),
        "provisional_games": ratings.PROVISIONAL_GAMES,
        "not_ranked": not_ranked(game),
        "seats": seat_advantage(fits.latest_fit(game)),
        # Cached with the board: its fingerprint changes whenever a match of the game finishes, rated or not.
        "latest": match_rows(_matches().filter(game=game, status=Match.Status.FINISHED)[:LATEST_MATCHES]),
        "all_matches": matches_url(game=game),
    }
    return render_to_string("league/_leaderboard_content.html", context)


def seat_advantage(fit: RatingFit | None) -> list[dict[str, Any]]:
    """Win rate by seat over every rated game, per table size (from the newest fit, which counts them): is seat 1
    favoured? A first place shared counts half a win."""
    tables = []
    for size, counts in sorted((fit.seat_results if fit else {}).items(), key=lambda item: int(item[0])):
        games = counts[0][0] if counts else 0
        if not games:
            continue
        rates = [(wins + shared / 2) / played if played else 0.0 for played, wins, shared in counts]
        tables.append(
            {
                "size": int(size),
                "games": games,
                "fair": f"{100 / int(size):.0f}%",
                "seats": [{"number": n, "rate": f"{100 * rate:.1f}%"} for n, rate in enumerate(rates, start=1)],
            }
        )
    return tables


def _board_line(row: BoardRow) -> dict[str, Any]:
    """One leaderboard line, formatted here: a page of 100 rows renders several times faster without filters."""
    rating, fitted, now = row.rating, row.fitted, timezone.now()
    return {
        "position": row.position,
        "bot": row.bot,
        "provisional": row.provisional,
        "paused": row.paused,
        "fitted": fitted is not None,
        **shown_fit(fitted),
        "rank_range": row.rank_range,
        "games": rating.games,
        "wld": f"{rating.wins} / {rating.losses} / {rating.draws}",
        "win": "\u2013" if row.win_percent is None else f"{row.win_percent:.0f}%",
        "last": time_ago(rating.last_match_at, now, depth=1) if rating.last_match_at else "never",
        "spark": sparkline_svg(fitted.recent if fitted else []),
    }


def bot_page(request: HttpRequest, pk: int, remote_key: str | None = None) -> HttpResponse:
    """A bot's page: its summary (``_bot_summary``: everything that changes by itself, asked for again while it can
    change), the owner's upload form (a remote bot's: its Connect panel, with ``remote_key`` a token just issued),
    and its recent matches (a live region of their own)."""
    bot = _visible_bot(request, pk)
    is_owner = visibility.sees_owner_data(request.user, bot)
    summary, versions = _bot_summary(request, bot, is_owner)
    context = {
        "bot": bot,
        "summary": summary.html,
        "matches": _live_activity(bot, versions).html,
        "version_form": VersionUploadForm() if is_owner and not bot.is_remote else None,
        "connect": connect_panel(request, bot, remote_key),
    }
    response = render(request, "league/bot.html", context)
    if remote_key:
        return cache_headers.no_store(response)  # the key is shown this once: kept by no cache
    return cache_headers.private(response) if is_owner else response  # its owner reads the versions' stderr


@login_required
@require_POST
def bot_remote_token(request: HttpRequest, pk: int) -> HttpResponse:
    """A remote bot's owner issues its token (the page again, with the key shown once and the command that connects
    the bot) or revokes it (docs/remote.md)."""
    bot = get_object_or_404(Bot, pk=pk)
    owner = visibility.signed_in(request.user)
    action = request.POST.get("action")
    try:
        if action == "issue":
            _token, key = do_issue_remote_token(bot, owner)
            return bot_page(request, pk, remote_key=key)
        if action == "revoke":
            revoked = do_revoke_remote_token(bot, owner)
            said = "Token revoked: its connection is refused from its next request." if revoked else "No live token."
            messages.success(request, said)
        else:
            messages.error(request, "Nothing done: issue or revoke the token with the buttons below.")
    except ServiceError as error:
        if error.status == 403:
            raise PermissionDenied(error.message) from None
        messages.error(request, error.message)
    return redirect(bot.get_absolute_url() + "#connect")


def bot_status_fragment(request: HttpRequest, pk: int) -> HttpResponse:
    """The bot page's summary alone: what htmx asks for while it can change; 204 if the asker has seen it."""
    bot = _visible_bot(request, pk)
    summary, _versions = _bot_summary(request, bot, visibility.sees_owner_data(request.user, bot))
    return cache_headers.no_store(parts.fragment(request, summary))


def _visible_bot(request: HttpRequest, pk: int) -> Bot:
    return get_object_or_404(visibility.bots(request.user).select_related("owner", "rating", "fitted"), pk=pk)


def _bot_summary(request: HttpRequest, bot: Bot, is_owner: bool) -> tuple[parts.Region, Sequence[BotVersion]]:
    """The bot page's summary as a live region: its name and tags, status, Elo, rank, rated games, chart, head to
    head, faults and versions, rendered together so that no part of it says something another part has moved past
    (issue 19: "Placing… rank so far 2nd" beside "Not ranked yet"). With ``versions_with_games(bot)``."""
    versions = list(versions_with_games(bot))
    fitted: FittedRating | None = getattr(bot, "fitted", None)
    rating: Rating | None = getattr(bot, "rating", None)
    ready = next((v for v in versions if v.status == BotVersion.Status.READY), None)
    status = bot_status(bot, versions, placement_progress(bot))
    played = sum(v.games for v in versions) > 0 or (rating is not None and rating.games > 0)
    context = {
        "bot": bot,
        "is_owner": is_owner,
        "rating": rating,
        "fitted": fitted,
        "shown": shown_fit(fitted),
        # While a version places, its banner gives the rank so far: one rank on the page at a time.
        "rank_text": "" if status.state == "placing" else rank_text(fitted),
        "provisional": rating is None or rating.provisional or (ready is not None and ready.number > rating.version),
        "provisional_games": ratings.PROVISIONAL_GAMES,
        "versions": versions,
        "status": status,
        "unranked": unranked(versions),
        "history": _bot_history_html(bot, versions, rating, fitted) if played else "",
        "game": GAMES[bot.game],
        "playable": seatable(Bot.objects.filter(pk=bot.pk)).exists(),
        "online": presence.is_online(bot),  # a remote bot's connection (docs/remote.md); always for the others
        "people": people_record(bot),
        # Taking a bot off the ladder means something only while a version of it plays there.
        "ladder_control": is_owner and bot.is_active and not bot.is_paused and ready is not None,
    }
    content = render_to_string("league/_bot_summary.html", context, request=request)
    seconds = summary_pace(bot, status, versions, rating, fitted)
    region = parts.region(
        "bot-summary",
        reverse("bot-status", args=[bot.pk]),
        content,
        seconds=seconds or SUMMARY_SECONDS,
        settled=seconds is None,
    )
    return region, versions


SUMMARY_FAST_SECONDS = 2  # a bot's summary while a worker is on it: validating, placing, its first fit due
SUMMARY_SECONDS = 10  # while it plays: every rated game and every refit moves its numbers


def summary_pace(
    bot: Bot, status: BotStatus, versions: Sequence[BotVersion], rating: Rating | None, fitted: FittedRating | None
) -> int | None:
    """How often a bot's summary (its page's, or its card on My bots) is asked for again, in seconds; None once
    nothing can change it: no version waits for validation, none plays (rejected, paused, off the ladder) and none of
    its matches is queued or running. (The fitted Elo of a bot that no longer plays still drifts a little as others
    play: its page shows that at the next visit.)"""
    if not status.settled or first_fit_due(versions, rating, fitted):
        return SUMMARY_FAST_SECONDS
    plays = bot.is_active and bot.paused_at is None and any(v.status == BotVersion.Status.READY for v in versions)
    if plays:
        return SUMMARY_SECONDS
    in_flight = Seat.objects.filter(
        bot_version__bot=bot, match__status__in=(Match.Status.QUEUED, Match.Status.RUNNING)
    ).exists()
    return SUMMARY_SECONDS if in_flight else None


def first_fit_due(versions: Sequence[BotVersion], rating: Rating | None, fitted: FittedRating | None) -> bool:
    """The version that plays rated has games but no fitted Elo of its own yet, and its last game was recent: the
    refit that follows a placement burst (or the next beat's) is on its way."""
    if rating is None or not rating.games or rating.last_match_at is None:
        return False
    if timezone.now() - rating.last_match_at > timedelta(seconds=2 * settings.RATINGS_REFIT_SECONDS):
        return False
    playing = next((v.pk for v in versions if v.number == rating.version), None)
    return fitted is None or fitted.version_id != playing


def shown_fit(fitted: FittedRating | None) -> dict[str, str]:
    """The fitted Elo and its interval as every page writes them (leaderboard, bot page, My bots): one rounding."""
    if fitted is None:
        return {"elo": "", "interval": "", "sigma": ""}
    return {
        "elo": f"{fitted.elo:.0f}",
        "interval": f"{fitted.low:.0f}\u2013{fitted.high:.0f}",
        "sigma": f"{fitted.sigma:.0f}",
    }


def unranked(versions: Sequence[BotVersion]) -> dict[str, str]:
    """What a bot without a rated game says of its rank: its tag and its sentence, by why it has none."""
    statuses = {v.status for v in versions}
    if BotVersion.Status.READY in statuses or BotVersion.Status.RETIRED in statuses:
        return {
            "tag": "not ranked yet",
            "text": "Not ranked yet: no rated game so far, so it has no Elo of its own. "
            "It is ranked after its first rated game on the ladder.",
        }
    if BotVersion.Status.PENDING in statuses:
        return {
            "tag": "not ranked yet",
            "text": "Not ranked yet: it plays its first rated games once a version passes validation.",
        }
    return {
        "tag": "not ranked",
        "text": "Not ranked: no version has passed validation, so it plays no games. "
        "A version that passes is placed on the ladder within a minute.",
    }


def rank_text(fitted: FittedRating | None) -> str:
    """For example "3rd, 2nd to 5th at 95%" (with an en dash); "" when not fitted, or off the ladder at the fit."""
    if fitted is None or not fitted.rank:
        return ""
    low, high = ordinal(fitted.rank_low), ordinal(fitted.rank_high)
    span = low if low == high else low + "\u2013" + high
    return f"{ordinal(fitted.rank)}, {span} at 95%"


def _bot_history_html(
    bot: Bot, versions: Sequence[BotVersion], rating: Rating | None, fitted: FittedRating | None
) -> str:
    """The chart, head to head and faults: the same for every visitor, cached as HTML. They change only when one of
    the bot's matches finishes, which adds one to the finished games its versions count (a finished match never
    changes again), or when its rating is rewritten or refitted."""
    finished = sum(getattr(v, "games", 0) for v in versions)
    stamp = f"{rating.games}.{rating.updated.timestamp():.6f}.{fitted.fit_id if fitted else 0}" if rating else "-"
    history_key = f"bot:{bot.pk}:{finished}:{stamp}"
    number = next((v.number for v in versions if fitted is not None and v.pk == fitted.version_id), None)
    return caching.cached(
        f"{history_key}:html",
        lambda: render_to_string(
            "league/_bot_history.html",
            {"bot": bot, **caching.cached(history_key, lambda: _bot_history(bot, fitted, number), timeout=600)},
        ),
    )


def bot_activity(request: HttpRequest, pk: int) -> HttpResponse:
    """The bot page's recent matches alone: what htmx asks for while the bot plays; 204 if unchanged."""
    bot = get_object_or_404(visibility.bots(request.user), pk=pk)
    versions = list(BotVersion.objects.filter(bot=bot).only("id", "status"))
    return cache_headers.no_store(parts.fragment(request, _live_activity(bot, versions)))


def _live_activity(bot: Bot, versions: Sequence[BotVersion]) -> parts.Region:
    """Recent matches, asked for again while the bot can play: on the ladder with a ready version, with a version
    waiting for validation (its placement burst follows at once), or with a match still queued or running (a
    challenge's or a tournament's)."""
    recent = _recent_matches(bot, [v.pk for v in versions])
    matches = caching.cached(
        f"bot-matches:{bot.pk}:{caching.digest(recent)}",
        lambda: render_to_string(
            "league/_matches.html",
            {
                "rows": match_rows(_matches().filter(pk__in=[i for i, _ in recent]), focus=bot.pk),
                "focus": bot,
                "all_matches": matches_url(bot=bot.pk),
            },
        ),
    )
    playing = bot.is_active and not bot.is_paused and any(v.status == BotVersion.Status.READY for v in versions)
    waiting = bot.is_active and any(v.status == BotVersion.Status.PENDING for v in versions)
    in_flight = any(status not in Match.Status.finalized() for _, status in recent)
    return parts.region(
        "bot-activity",
        reverse("bot-activity", args=[bot.pk]),
        matches,
        seconds=ACTIVITY_SECONDS,
        settled=not (playing or waiting or in_flight),
    )


def _recent_matches(bot: Bot, version_ids: list[int]) -> list[tuple[int, str]]:
    """The ids and statuses of ``bot``'s RECENT newest matches (ids grow with creation), newest first: the key of
    the cached list. A match's id, game, seats and creation never change; its status does, and its ranks and faults
    are written in the same transaction that makes it finished; a new match is a new id. So equal keys show equal
    lists. The ids come from the bot's seats alone: sorting every match it ever played by ``created`` first (and
    dropping duplicates) reads hundreds of rows of the big match table."""
    seats = Seat.objects.filter(bot_version_id__in=version_ids).order_by("-match_id").values("match_id")[:RECENT]
    return list(Match.objects.filter(pk__in=seats).order_by("-id").values_list("id", "status"))


def _bot_history(bot: Bot, fitted: FittedRating | None = None, number: int | None = None) -> dict[str, Any]:
    """The data of the bot page's costly, visitor-independent parts. The chart ends at the fitted Elo the page shows
    (``fitted``, of version ``number``): a snapshot is written only when the Elo moved by SNAPSHOT_MOVE or more."""
    opponents = head_to_head(bot)
    points = fit_history(bot)
    if fitted is not None and points and points[-1].version == number:
        points[-1] = points[-1]._replace(elo=fitted.elo, low=fitted.low, high=fitted.high)
    return {
        "chart": history_chart(points),
        "head_to_head": opponents[:HEAD_TO_HEAD_SHOWN],
        "more_opponents": max(0, len(opponents) - HEAD_TO_HEAD_SHOWN),
        "faults": fault_counts(bot),
    }


@login_required
@require_POST
def bot_ladder(request: HttpRequest, pk: int) -> HttpResponse:
    """Its owner takes a bot off the ladder, or puts it back (which also lifts an automatic pause)."""
    bot = get_object_or_404(Bot, pk=pk)
    try:
        if request.POST.get("action") == "disable":
            do_disable_bot(bot, visibility.signed_in(request.user))
            messages.success(request, "Taken off the ladder. It keeps its rating; resume it at any time.")
        else:
            do_resume_bot(bot, visibility.signed_in(request.user))
            messages.success(request, "Back on the ladder: it will be scheduled within a few seconds.")
    except ServiceError as error:
        if error.status == 403:
            raise PermissionDenied(error.message) from None
        messages.error(request, error.message)
    return redirect(bot)


# ----- charts: inline SVG drawn on the server ------------------------------------------------------------------

SPARK_WIDTH, SPARK_HEIGHT = 80, 20
CHART_WIDTH, CHART_HEIGHT, CHART_PAD = 640, 220, 36
CHART_MAX_POINTS = 400


def sparkline_svg(values: list[float]) -> str:
    """A small inline SVG trend line of ``values`` (a dash with fewer than two)."""
    if len(values) < 2:
        return mark_safe('<span class="muted">\u2013</span>')
    low, high = min(values), max(values)
    span = (high - low) or 1.0
    step = SPARK_WIDTH / (len(values) - 1)
    points = [(i * step, SPARK_HEIGHT - 2 - (v - low) / span * (SPARK_HEIGHT - 4)) for i, v in enumerate(values)]
    label = f"Elo over the last {len(values)} games: {values[0]:.0f} to {values[-1]:.0f}"
    # Only numbers and this fixed label go into the markup.
    return mark_safe(
        f'<svg class="spark{"" if values[-1] >= values[0] else " falling"}" viewBox="-2 0 84 20" width="84" '
        f'height="20" role="img" aria-label="{label}"><title>{label}</title><polyline points="'
        + " ".join(f"{x:.1f},{y:.1f}" for x, y in points)
        + f'"/><circle cx="{points[-1][0]:.1f}" cy="{points[-1][1]:.1f}" r="2"/></svg>'
    )


def history_chart(points: list[FitPoint]) -> dict[str, Any] | None:
    """The fitted Elo over time, one point per fit that moved it, with its 95% band, as SVG coordinates (None
    before the bot's first fit). The band is clipped to the plot: the chart spans the card, the band stays inside."""
    if not points:
        return None
    if len(points) > CHART_MAX_POINTS:  # thin out evenly, always keeping the latest fit
        stride = len(points) / CHART_MAX_POINTS
        points = [points[int(i * stride)] for i in range(CHART_MAX_POINTS)] + [points[-1]]
    elos = [p.elo for p in points]
    # Scale to the Elo line and the settled part of the band, not to the ±700 of the very first games.
    low = min(min(elos), min(max(p.low, min(elos) - 150) for p in points))
    high = max(max(elos), max(min(p.high, max(elos) + 150) for p in points))
    low, high = (low - 10, high + 10) if high - low < 20 else (low, high)
    first, span = points[0].at, max((points[-1].at - points[0].at).total_seconds(), 1.0)
    inner_w, inner_h = CHART_WIDTH - 2 * CHART_PAD, CHART_HEIGHT - 2 * CHART_PAD

    def x(p: FitPoint) -> float:
        if len(points) == 1:
            return CHART_PAD + inner_w
        return CHART_PAD + (p.at - first).total_seconds() / span * inner_w

    def y(elo: float) -> float:
        elo = min(max(elo, low), high)
        return CHART_PAD + (high - elo) / (high - low) * inner_h

    line = [(x(p), y(p.elo)) for p in points]
    band = [(x(p), y(p.high)) for p in points] + [(x(p), y(p.low)) for p in reversed(points)]
    if len(points) == 1:  # one fit: a band across the plot, so it shows
        line = [(CHART_PAD, line[0][1]), line[0]]
        band = [(CHART_PAD, y(points[0].high)), (CHART_PAD + inner_w, y(points[0].high))]
        band += [(CHART_PAD + inner_w, y(points[0].low)), (CHART_PAD, y(points[0].low))]
    step = _nice_step((high - low) / 4)
    ticks = [value for value in range(int(low // step + 1) * int(step), int(high) + 1, int(step))]
    ends = [points[0]] if len(points) == 1 else [points[0], points[-1]]
    last = points[-1]
    return {
        "width": CHART_WIDTH,
        "height": CHART_HEIGHT,
        "line": " ".join(f"{px:.1f},{py:.1f}" for px, py in line),
        "band": " ".join(f"{px:.1f},{py:.1f}" for px, py in band),
        "y_ticks": [{"y": f"{y(value):.1f}", "label": value} for value in ticks],
        "x_ticks": [{"x": f"{x(p):.1f}", "label": f"{p.at:%d %b %H:%M}"} for p in ends],
        "left": CHART_PAD,
        "right": CHART_WIDTH - CHART_PAD,
        "bottom": CHART_HEIGHT - CHART_PAD,
        "last": {"x": f"{line[-1][0]:.1f}", "y": f"{line[-1][1]:.1f}"},
        # Each point says when and of which version, not how many games: the games a fit counts (those of the
        # current version against current versions) are not the bot's rated games, and one page gives one count.
        "points": [
            {"x": f"{x(p):.1f}", "y": f"{y(p.elo):.1f}", "title": f"{p.elo:.0f} on {p.at:%d %b %H:%M}, v{p.version}"}
            for p in points
            if len(points) <= 60
        ],
        "summary": (
            f"Fitted Elo over {len(points)} fits, from {points[0].elo:.0f} to {last.elo:.0f} "
            f"(v{last.version}, {last.low:.0f}\u2013{last.high:.0f} at 95%)"
        ),
    }


def _nice_step(raw: float) -> float:
    for step in (10, 20, 25, 50, 100, 200, 250, 500, 1000):
        if raw <= step:
            return step
    return 1000


def match_page(request: HttpRequest, pk: int) -> HttpResponse:
    match = get_object_or_404(disclosure.with_disclosure(_matches(request.user)), pk=pk)
    replay = disclosure.public_replay(match)  # none while its deal is in play: the moves would show the hands
    names = [str(seat.bot_version.bot) for seat in match.seats.all()]
    moves = []
    if replay:
        moves = [
            {"index": index, "seat": move["seat"], "name": names[move["seat"]], **move}
            for index, move in enumerate(replay.get("moves", []), start=1)
        ]
    own_seats = [seat for seat in match.seats.all() if visibility.sees_owner_data(request.user, seat.bot_version.bot)]
    context = {
        "match": match,
        "seed": disclosure.public_seed(match),
        "game": GAMES[match.game],
        "moves": moves,
        "own_seats": own_seats,
        "log_retention_days": settings.LOG_RETENTION_DAYS,
    }
    response = render(request, "league/match.html", context)
    return cache_headers.private(response) if own_seats else response  # the owner's fault view and stderr


def _upload_bytes(form: BotUploadForm | VersionUploadForm) -> tuple[bytes, str]:
    upload = form.cleaned_data["file"]
    if upload.size > MAX_UPLOAD_BYTES:
        raise UploadTooLarge(size=upload.size)
    return upload.read(MAX_UPLOAD_BYTES + 1), upload.name


@login_required
def bot_new(request: HttpRequest) -> HttpResponse:
    refusal = upload_refusal(visibility.signed_in(request.user))
    if refusal is not None:
        return _sign_up_first(request) if isinstance(refusal, GuestsOnlyPlay) else _verify_email_first(request)
    form = BotUploadForm(request.POST or None, request.FILES or None, initial={"game": upload_game(request)})
    if request.method == "POST" and form.is_valid():
        fields = form.cleaned_data
        try:
            if fields["runs"] == REMOTE:
                user = visibility.signed_in(request.user)
                bot = do_create_remote_bot(user, fields["game"], fields["name"], fields["description"])
            else:
                data, filename = _upload_bytes(form)
                bot = do_create_bot(
                    visibility.signed_in(request.user),
                    fields["game"],
                    fields["name"],
                    data,
                    filename,
                    fields["description"],
                )
        except ServiceError as error:
            if error.code in FAIR_USE_CODES:  # over the user's share: about the user, not a field
                form.add_error(None, error.message)
                return _fair_use_refusal(render(request, "league/bot_new.html", {"form": form}), error)
            form.add_error("file" if error.code in UPLOAD_CODES else "name", error.message)
        else:
            if bot.is_remote:
                messages.success(request, "Created. Issue its token below, then connect it from your machine.")
                return redirect(bot.get_absolute_url() + "#connect")
            messages.success(request, "Uploaded. Your bot is being validated by a smoke match in the sandbox.")
            return redirect(bot)
    return render(request, "league/bot_new.html", {"form": form}, status=400 if form.errors else 200)


def _sign_up_first(request: HttpRequest) -> HttpResponse:
    """A guest (league/accounts/guests.py) may only play: 403, and how to sign up."""
    return render(request, "registration/guest_sign_up.html", status=403)


def _verify_email_first(request: HttpRequest) -> HttpResponse:
    """An upload by a user who must verify their e-mail address first (REQUIRE_EMAIL_VERIFICATION): 403, and how."""
    return render(request, "registration/verify_email_needed.html", status=403)


MY_FAULTS_SHOWN = 3  # the latest faults of each bot on its owner's list; its page has them all


@login_required
def my_bots(request: HttpRequest) -> HttpResponse:
    """The signed-in user's bots: each one's status, versions, rating and latest faults (a live region, asked for
    again while any of them can change), with the upload form."""
    context = {
        "bots": _my_bots(request).html,
        "form": BotUploadForm(),
        "tables": list(tables_of(request.user)[:MY_TABLES_SHOWN]),
    }
    return cache_headers.private(render(request, "league/my_bots.html", context))


@login_required
def my_bots_live(request: HttpRequest) -> HttpResponse:
    """My bots' list alone: what htmx asks for while one of them can change; 204 if the asker has seen it."""
    return cache_headers.no_store(parts.fragment(request, _my_bots(request)))


def _my_bots(request: HttpRequest) -> parts.Region:
    user = visibility.signed_in(request.user)
    versions = Prefetch("versions", queryset=BotVersion.objects.defer("archive").order_by("-number"))
    bots = list(
        Bot.objects.filter(owner=user)
        .select_related("owner", "rating", "fitted")
        .prefetch_related(versions)
        .order_by("game", "name")
    )
    faults: dict[int, list[Seat]] = {}
    recent = (
        Seat.objects.filter(bot_version__bot__owner=user, match__status=Match.Status.FINISHED)
        .exclude(fault="")
        .select_related("bot_version")
        .defer(*_NOT_SHOWN, "stderr")
        .order_by("-match_id")[: MY_FAULTS_SHOWN * max(len(bots), 1) * 4]
    )
    for seat in recent:
        mine = faults.setdefault(seat.bot_version.bot_id, [])
        if len(mine) < MY_FAULTS_SHOWN:
            mine.append(seat)
    rows, paces = [], []
    for bot in bots:
        listed = list(bot.versions.all())
        status = bot_status(bot, listed, placement_progress(bot))
        rating, fitted = getattr(bot, "rating", None), getattr(bot, "fitted", None)
        rows.append(
            {
                "bot": bot,
                "status": status,
                "versions": listed,
                "rating": rating,
                "fitted": fitted,
                "shown": shown_fit(fitted),
                "unranked": unranked(listed),
                "faults": faults.get(bot.pk, []),
            }
        )
        paces.append(summary_pace(bot, status, listed, rating, fitted))
    content = render_to_string("league/_my_bots.html", {"rows": rows}, request=request)
    asking = [seconds for seconds in paces if seconds is not None]
    return parts.region(
        "my-bots", reverse("my-bots-live"), content, seconds=min(asking, default=SUMMARY_SECONDS), settled=not asking
    )


# The refusals of _check_fair_use: too many bots (403) or uploads in the last hour (429); and of the file itself.
FAIR_USE_CODES = {ErrorCode.TOO_MANY_BOTS, ErrorCode.RATE_LIMITED}
UPLOAD_CODES = {ErrorCode.BAD_UPLOAD, ErrorCode.TOO_LARGE}


def _fair_use_refusal(response: HttpResponse, error: ServiceError) -> HttpResponse:
    """The page that says why, with the refusal's status and, for an hourly limit, when to try again."""
    response.status_code = error.status
    if isinstance(error, RateLimited):
        response["Retry-After"] = str(error.retry_after)
    return response


@login_required
@require_POST
def bot_version_new(request: HttpRequest, pk: int) -> HttpResponse:
    bot = get_object_or_404(Bot, pk=pk)
    if bot.owner_id != request.user.pk:
        raise PermissionDenied
    if not may_upload(visibility.signed_in(request.user)):
        return _verify_email_first(request)
    form = VersionUploadForm(request.POST, request.FILES)
    if form.is_valid():
        try:
            data, filename = _upload_bytes(form)
            version = do_add_version(bot, data, filename)
        except RateLimited as error:
            messages.error(request, f"Upload refused: {error.message}")
            return _fair_use_refusal(bot_page(request, pk), error)  # the bot's page, saying so, with a 429
        except ServiceError as error:
            messages.error(request, f"Upload refused: {error.message}")
        else:
            messages.success(request, f"Version {version.number} uploaded; it is being validated.")
    else:
        messages.error(request, "Choose a file to upload.")
    return redirect(bot)


@login_required
def tokens(request: HttpRequest) -> HttpResponse:
    if is_guest(request.user):
        return _sign_up_first(request)
    form = TokenForm(request.POST or None)
    new_key = None
    if request.method == "POST" and form.is_valid():
        _token, new_key = do_create_token(visibility.signed_in(request.user), form.cleaned_data["name"])
        form = TokenForm()
    context = {
        "form": form,
        "tokens": visibility.tokens(request.user),
        "new_key": new_key,
        "site": request.build_absolute_uri("/").rstrip("/"),
    }
    response = render(request, "league/tokens.html", context)
    return cache_headers.no_store(response) if new_key else cache_headers.private(response)


@login_required
@require_http_methods(["GET", "POST"])
def token_revoke(request: HttpRequest, pk: int) -> HttpResponse:
    """GET asks "Revoke X?" (a page of its own: no script needed, none allowed by the CSP); POST revokes."""
    if request.method == "GET":
        token = get_object_or_404(visibility.tokens(request.user), pk=pk)
        return cache_headers.private(render(request, "league/token_revoke.html", {"token": token}))
    try:
        do_revoke_token(visibility.signed_in(request.user), pk)
    except ServiceError as error:
        messages.error(request, error.message)
    else:
        messages.success(request, "Token revoked.")
    return redirect("tokens")
