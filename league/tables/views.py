"""People's tables in the browser: /play/ (sit down), /tables/<id>/ (play or watch), its event stream (/live/:
league/live/views.py).

The pages stay thin: league.tables.services decides what each viewer may see; the table page's script
(league/static/league/table.js) draws it with the game's replay renderer and sends actions through the API.
The event stream (league/site/event_stream.py) pushes the viewer's view of the table whenever it changes.
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any

from django.conf import settings
from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse, JsonResponse, StreamingHttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_POST

from games.registry import GAMES
from league.accounts.guests import do_create_guest, is_guest
from league.accounts.limits import guest_wait
from league.api.errors import json_error
from league.authors.rules import rules_in_brief
from league.bots.models import Bot
from league.core.errors import NoFinishedTable, ServiceError
from league.core.ids import parse_id
from league.play.replays import renderer_url, replay_frames
from league.site import event_stream
from league.site.stream_hub import Feed, Published
from league.tables import services as tables
from league.tables.models import Table
from league.tables.seating import check_seatable


def _players(raw: str | None, game_id: str) -> int:
    game = GAMES[game_id]
    number = parse_id(raw) if raw else None
    return number if number is not None and game.min_players <= number <= game.max_players else game.min_players


def play_page(request: HttpRequest) -> HttpResponse:
    """Choose a game, the table's size and the bots; the table page follows. Someone not signed in sits as a guest
    (league/accounts/guests.py)."""
    game_id = request.GET.get("game") or request.POST.get("game") or ""
    bot = None
    bot_id = parse_id(request.GET.get("bot"))
    if bot_id is not None:
        bot = Bot.objects.select_related("owner").filter(pk=bot_id).first()
        if bot is not None:
            game_id = bot.game
    guest = {"guest": not request.user.is_authenticated or is_guest(request.user), "guest_hours": settings.GUEST_HOURS}
    if game_id not in GAMES:
        return render(request, "league/play.html", {"games": [GAMES[g] for g in GAMES], "game": None, **guest})
    game = GAMES[game_id]
    players = _players(request.POST.get("players") or request.GET.get("players"), game_id)
    error, status = None, 200
    if request.method == "POST" and not request.user.is_authenticated:
        wait = guest_wait(request)
        if wait is not None:
            error, status = (
                f"Too many guests from your address: sign up, or try again in {wait // 60 + 1} minutes.",
                429,
            )
        else:
            login(request, do_create_guest(), backend="django.contrib.auth.backends.ModelBackend")
    if request.method == "POST" and request.user.is_authenticated:
        chosen = [parse_id(v) for v in request.POST.getlist("bots")]
        picked = [b for b in chosen if b is not None][: players - 1]
        try:
            if len(picked) < players - 1:
                more = [b.pk for b in tables.default_opponents(game_id, players - 1) if b.pk not in picked]
                picked += more[: players - 1 - len(picked)]
            table = tables.do_create_table(request.user, game_id, players, picked)
        except ServiceError as exc:
            error, status = exc.message, (exc.status if exc.status in (400, 403, 404, 409, 429) else 400)
        else:
            messages.success(request, "Your table is set: good luck.")
            return redirect(table)
    choices = tables.opponent_choices(game_id)
    defaults = tables.default_opponents(game_id, game.max_players - 1)
    if bot is not None and bot not in choices:  # ("Play against" on the page of a bot that cannot sit: say why)
        error = error or _why_not_seatable(bot)
    elif bot is not None:
        defaults = [bot, *[b for b in defaults if b.pk != bot.pk]]
    seats = [
        {"index": i + 1, "default": defaults[i].pk if i < len(defaults) else None} for i in range(game.max_players - 1)
    ]
    context = {
        "games": [GAMES[g] for g in GAMES],
        "game": game,
        "players": players,
        "sizes": list(range(game.min_players, game.max_players + 1)),
        "choices": choices,
        "seats": seats,
        "error": error,
        "clock": tables.clock_seconds(game_id),
        "rules": rules_in_brief(game_id),
        **guest,
        "open": Table.objects.filter(
            owner_id=request.user.pk, status__in=[Table.Status.QUEUED, Table.Status.RUNNING]
        ).first(),
    }
    return render(request, "league/play.html", context, status=status)


def table_page(request: HttpRequest, pk: int) -> HttpResponse:
    """The person plays here; anyone else watches (the public view)."""
    try:
        table = tables.get_table(pk)
    except ServiceError as exc:
        return render(request, "404.html", {"message": exc.message}, status=404)
    view = tables.table_view(table, request.user)
    config = {
        "id": table.pk,
        "game": table.game,
        "title": GAMES[table.game].title,
        "renderer": renderer_url(table.game),
        "events": f"/tables/{table.pk}/events/",
        "act": f"/api/tables/{table.pk}/act/",
        "view": view,
    }
    bots = [seat for seat in table.seats if seat["kind"] != "person"]
    context = {
        "table": table,
        "game": GAMES[table.game],
        "config": config,
        "view": view,
        "bots": bots,
        "rules": rules_in_brief(table.game),
        "rematch": [seat["bot_id"] for seat in bots if seat["bot_id"]],
    }
    return render(request, "league/table.html", context)


def _why_not_seatable(bot: Bot) -> str:
    try:
        check_seatable(bot)
    except ServiceError as refusal:
        return refusal.message
    return f"{bot} cannot be seated now."


@require_POST
@login_required
def cancel_table(request: HttpRequest, pk: int) -> HttpResponse:
    """The table page's "Cancel" button (queued tables only; the API's ``cancel`` says the same)."""
    try:
        table = tables.do_cancel_table(request.user, pk)
    except ServiceError as exc:
        if exc.status == 404:
            return render(request, "404.html", {"message": exc.message}, status=404)
        messages.error(request, exc.message)
        return redirect("table", pk=pk)
    messages.success(request, "Your table is cancelled: you may sit at another.")
    return redirect(f"{reverse('play')}?game={table.game}")


@require_POST
@login_required
def resign_table(request: HttpRequest, pk: int) -> HttpResponse:
    """The table page's "Resign" button (the API's ``resign`` says the same)."""
    try:
        tables.do_resign(request.user, pk)
    except ServiceError as exc:
        if exc.status == 404:
            return render(request, "404.html", {"message": exc.message}, status=404)
        messages.error(request, exc.message)
    return redirect("table", pk=pk)


def _table_view(pk: int, person: Hashable, memo: None, published: Published | None) -> tuple[dict[str, Any], bool]:
    table = tables.get_table(pk)
    data = tables.table_view(table, table.owner if person is not None and person == table.owner_id else None)
    return data, data["status"] in Table.Status.finalized()


TABLES = Feed("table", tables.fingerprint, _table_view)


async def table_events(request: HttpRequest, pk: int) -> HttpResponse | StreamingHttpResponse:
    """Server-sent events: the viewer's view of the table each time it changes (and once at the start)."""

    def viewer() -> int | None:  # the person at the table sees their hand; every other viewer the public view
        table = tables.get_table(pk)
        return table.owner_id if request.user.is_authenticated and request.user.pk == table.owner_id else None

    return await event_stream.follow(request, TABLES, pk, viewer)


def table_frames(request: HttpRequest, pk: int) -> JsonResponse:
    """A finished table's replay as viewer frames (the replay viewer on the table page)."""
    table = Table.objects.filter(pk=pk, status=Table.Status.FINISHED).first()
    replay = table.replay if table is not None else None
    if table is None or replay is None:
        return json_error(NoFinishedTable())
    try:
        return JsonResponse(replay_frames(table.game, replay, request.GET.get("seat")))
    except ServiceError as refusal:
        return json_error(refusal)


def table_replay(request: HttpRequest, pk: int) -> JsonResponse:
    table = Table.objects.filter(pk=pk, status=Table.Status.FINISHED).first()
    replay = table.replay if table is not None else None
    if replay is None:
        return json_error(NoFinishedTable())
    return JsonResponse(replay)


@login_required
def my_tables(request: HttpRequest) -> HttpResponse:
    return render(request, "league/my_tables.html", {"tables": tables.tables_of(request.user), "games": GAMES})
