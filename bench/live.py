"""What a live page's polling costs the server: the whole page, its fragment when something changed (200), and its
fragment when nothing did (204), in process (Django test client, median of ``--samples``) on a throwaway SQLite
database.

    .venv/bin/python bench/live.py [--bots 300] [--entrants 32] [--samples 30]

A leaderboard of ``--bots`` rated bots, a running Swiss tournament of ``--entrants`` with one round played, and a
bot with 20 recent matches. A browser asks for a tournament's standings every 5 s and for a leaderboard or a bot's
recent matches every 10 s while the page is open (league/site/parts.py)."""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "parlour.settings")
os.environ.setdefault("SECRET_KEY", "bench")
os.environ.setdefault("DEBUG", "0")

import django

django.setup()

from django.conf import settings  # noqa: E402
from django.contrib.auth.models import User  # noqa: E402
from django.db import connection  # noqa: E402
from django.test import Client  # noqa: E402
from django.test.utils import setup_test_environment  # noqa: E402

from bench.common import machine, median, table  # noqa: E402


def _timed(client: Client, path: str, samples: int, status: int) -> float:
    times = []
    for _ in range(samples):
        start = time.perf_counter()
        response = client.get(path)
        times.append((time.perf_counter() - start) * 1000)
        assert response.status_code == status, (path, response.status_code)
    return median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bots", type=int, default=300)
    parser.add_argument("--entrants", type=int, default=32)
    parser.add_argument("--samples", type=int, default=30)
    args = parser.parse_args()
    setup_test_environment()
    # Served without `collectstatic` (as in the tests): the manifest storage would want its manifest.
    settings.STORAGES = {
        **settings.STORAGES,
        "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
    }
    old = connection.creation.create_test_db(verbosity=0)
    try:
        rows = _measure(args)
    finally:
        connection.creation.destroy_test_db(old, verbosity=0)
    print(machine())
    print(table(rows, ["page", "whole page ms", "fragment 200 ms", "fragment 204 ms", "region KiB"]))


def _measure(args: argparse.Namespace) -> list[list[object]]:
    import html
    import re

    from django.utils import timezone

    from bots.runner import BotSeat, play_match
    from league.bots.models import Bot, BotVersion
    from league.core import outbox
    from league.play.matches import do_claim_match
    from league.play.models import Match
    from league.play.recording import do_record_match_result
    from league.ratings.models import Rating
    from league.tournaments.services import do_advance_tournament, do_create_tournament, do_start_tournament

    outbox.enqueue = lambda task_name, object_id: None  # type: ignore[assignment]  # nothing to the broker
    owner = User.objects.create_user("bench", is_staff=True)
    bots = []
    for index in range(args.bots):  # built-in random players, rated as if each had played ten games
        bot = Bot.objects.create(owner=owner, game="love_letter", name=f"bot{index}")
        Rating.objects.create(bot=bot, elo=1800 - index, games=10, wins=5, losses=5)
        BotVersion.objects.create(
            bot=bot, number=1, builtin="random", language="builtin", status=BotVersion.Status.READY,
            validated=timezone.now(),
        )  # fmt: skip
        bots.append(bot)
    tournament = do_create_tournament(owner, "love_letter", "Bench cup", "swiss", {"rounds": 5}, bots[: args.entrants])
    do_start_tournament(tournament)
    for match in Match.objects.filter(round__tournament=tournament).order_by("id"):  # the first round, played
        claimed = do_claim_match(match.pk)
        assert claimed is not None
        seats = [BotSeat(label=seat.label, builtin=seat.builtin) for seat in claimed.seats]
        do_record_match_result(
            match.pk, play_match(claimed.game, seats, claimed.games[0].seed, claimed.games[0].options, sandbox="none")
        )
    do_advance_tournament(tournament.pk)
    client = Client()
    rows = []
    for label, page, element in (
        ("leaderboard", "/games/love_letter/", "board"),
        ("tournament", f"/tournaments/{tournament.pk}/", "tournament-live"),
        ("bot activity", f"/bots/{bots[0].pk}/", "bot-activity"),
    ):
        body = client.get(page).content.decode()
        tag = re.search(rf'<div id="{element}" class="live"[^>]*>', body)
        poll = html.unescape(re.search(r'hx-get="([^"]+)"', tag.group(0)).group(1)) if tag else None  # type: ignore[union-attr]
        assert poll, f"{label}: no live region"
        fresh = poll.split("seen=")[0] + "seen=stale"
        rows.append(
            [
                label,
                round(_timed(client, page, args.samples, 200), 1),
                round(_timed(client, fresh, args.samples, 200), 1),
                round(_timed(client, poll, args.samples, 204), 1),
                round(len(client.get(fresh).content) / 1024, 1),
            ]
        )
    from league.tournaments.queries import live_fingerprint
    from league.tournaments.views import _render_standings

    tournament.refresh_from_db()
    for label, work in (("tournament region, rendered", _render_standings), ("its fingerprint", live_fingerprint)):
        times = []
        for _ in range(args.samples):
            start = time.perf_counter()
            work(tournament)
            times.append((time.perf_counter() - start) * 1000)
        rows.append([label, "", "", round(median(times), 1), ""])
    return rows


if __name__ == "__main__":
    main()
