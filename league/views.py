"""The site's pages: thin views that read through queries and write through services."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth.decorators import login_required
from django.contrib.auth.forms import UserCreationForm
from django.core.exceptions import PermissionDenied
from django.db.models import Prefetch
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_POST

from bots.packaging import MAX_UPLOAD_BYTES
from games.registry import GAMES
from league import services
from league.forms import BotUploadForm, TokenForm, VersionUploadForm
from league.models import Bot, Match, Seat
from league.queries import leaderboard

RECENT = 20


def _matches():
    return Match.objects.prefetch_related(
        Prefetch("seats", queryset=Seat.objects.select_related("bot_version__bot__owner").order_by("number"))
    ).order_by("-created", "-id")


def home(request: HttpRequest) -> HttpResponse:
    boards = [(GAMES[game_id], list(leaderboard(game_id)[:5])) for game_id in GAMES]
    recent = _matches().filter(status=Match.Status.FINISHED)[:10]
    return render(request, "league/home.html", {"boards": boards, "recent": recent})


def leaderboard_page(request: HttpRequest, game: str) -> HttpResponse:
    if game not in GAMES:
        raise Http404("no such game")
    return render(request, "league/leaderboard.html", {"game": GAMES[game], "bots": leaderboard(game)})


def bot_page(request: HttpRequest, pk: int) -> HttpResponse:
    bot = get_object_or_404(Bot.objects.select_related("owner", "rating"), pk=pk)
    is_owner = request.user.is_authenticated and request.user.pk == bot.owner_id
    context = {
        "bot": bot,
        "is_owner": is_owner,
        "versions": bot.versions.all(),
        "matches": _matches().filter(seats__bot_version__bot=bot).distinct()[:RECENT],
        "version_form": VersionUploadForm() if is_owner else None,
        "game": GAMES[bot.game],
    }
    return render(request, "league/bot.html", context)


def match_page(request: HttpRequest, pk: int) -> HttpResponse:
    match = get_object_or_404(_matches(), pk=pk)
    replay = match.replay
    names = [str(seat.bot_version.bot) for seat in match.seats.all()]
    moves = []
    if replay:
        moves = [
            {"index": index, "seat": move["seat"], "name": names[move["seat"]], **move}
            for index, move in enumerate(replay.get("moves", []), start=1)
        ]
    user_id = request.user.pk if request.user.is_authenticated else None
    own_seats = [seat for seat in match.seats.all() if seat.bot_version.bot.owner_id == user_id]
    context = {"match": match, "game": GAMES[match.game], "moves": moves, "own_seats": own_seats}
    return render(request, "league/match.html", context)


def _upload_bytes(form) -> tuple[bytes, str]:  # type: ignore[no-untyped-def]
    upload = form.cleaned_data["file"]
    if upload.size > MAX_UPLOAD_BYTES:
        raise services.ServiceError(f"the upload is {upload.size:,} bytes; the limit is {MAX_UPLOAD_BYTES:,} bytes")
    return upload.read(MAX_UPLOAD_BYTES + 1), upload.name


@login_required
def bot_new(request: HttpRequest) -> HttpResponse:
    form = BotUploadForm(request.POST or None, request.FILES or None, initial={"game": request.GET.get("game")})
    if request.method == "POST" and form.is_valid():
        try:
            data, filename = _upload_bytes(form)
            bot = services.do_create_bot(
                request.user,
                form.cleaned_data["game"],
                form.cleaned_data["name"],
                data,
                filename,
                form.cleaned_data["description"],
            )
        except services.ServiceError as error:
            form.add_error("file" if error.code in {"bad_upload", "invalid"} else "name", error.message)
        else:
            messages.success(request, "Uploaded. Your bot is being validated by a smoke match in the sandbox.")
            return redirect(bot)
    return render(request, "league/bot_new.html", {"form": form}, status=400 if form.errors else 200)


@login_required
@require_POST
def bot_version_new(request: HttpRequest, pk: int) -> HttpResponse:
    bot = get_object_or_404(Bot, pk=pk)
    if bot.owner_id != request.user.pk:
        raise PermissionDenied
    form = VersionUploadForm(request.POST, request.FILES)
    if form.is_valid():
        try:
            data, filename = _upload_bytes(form)
            version = services.do_add_version(bot, data, filename)
        except services.ServiceError as error:
            messages.error(request, f"Upload refused: {error.message}")
        else:
            messages.success(request, f"Version {version.number} uploaded; it is being validated.")
    else:
        messages.error(request, "Choose a file to upload.")
    return redirect(bot)


def signup(request: HttpRequest) -> HttpResponse:
    form = UserCreationForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        user = form.save()
        login(request, user)
        messages.success(request, f"Welcome to Parlour, {user.username}!")
        return redirect("home")
    return render(request, "registration/signup.html", {"form": form}, status=400 if form.errors else 200)


@login_required
def tokens(request: HttpRequest) -> HttpResponse:
    form = TokenForm(request.POST or None)
    new_key = None
    if request.method == "POST" and form.is_valid():
        _token, new_key = services.do_create_token(request.user, form.cleaned_data["name"])
        form = TokenForm()
    context = {"form": form, "tokens": request.user.api_tokens.all(), "new_key": new_key}
    return render(request, "league/tokens.html", context)


@login_required
@require_POST
def token_revoke(request: HttpRequest, pk: int) -> HttpResponse:
    try:
        services.do_revoke_token(request.user, pk)
    except services.ServiceError as error:
        messages.error(request, error.message)
    else:
        messages.success(request, "Token revoked.")
    return redirect("tokens")
