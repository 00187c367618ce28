"""A placement burst with real parts: an upload through the API, validated in the sandbox by a real Celery worker on
a real Redis, then its placement series played by the same bot processes (the bot counts the games its process has
started) and recorded; progress and rank in the API; the ratings reproducible by recompute_ratings."""

from __future__ import annotations

import io

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from rest_framework.test import APIClient

from league.bots.models import BotVersion
from league.bots.services import do_register_builtin_bots
from league.play.invariants import check_league
from league.play.models import Match, Seat
from league.ratings.models import RatingChange

pytestmark = pytest.mark.e2e

# Stays up after ``end`` (a series bot) and writes to its log how many games this process has started.
SERIES_BOT = b"""import json, sys
games = 0
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "start":
        games += 1
        sys.stderr.write("game %d of this process\\n" % games)
        sys.stderr.flush()
        print(json.dumps({"type": "ready"}), flush=True)
    elif message["type"] == "act":
        print(json.dumps({"type": "action", "action": message["legal"][0]}), flush=True)
"""


def test_an_upload_places_in_series_played_by_the_same_processes(celery_workers, alice_api: APIClient) -> None:
    do_register_builtin_bots(["love_letter"])
    worker = celery_workers.start(beat=True, PLACEMENT_GAMES="12", SERIES_GAMES="6", LADDER_ENABLED="0")
    response = alice_api.post(
        "/api/bots/",
        {"game": "love_letter", "name": "placer", "file": SimpleUploadedFile("main.py", SERIES_BOT)},
        format="multipart",
    )
    assert response.status_code == 201, response.content
    bot_id = response.json()["id"]

    def placed() -> bool:
        placement = APIClient().get(f"/api/bots/{bot_id}/").json()["placement"]
        return placement is not None and placement["played"] == placement["planned"]

    celery_workers.wait_for(placed, 120, "the placement burst to be played")
    version = BotVersion.objects.get(bot_id=bot_id)
    placement = APIClient().get(f"/api/bots/{bot_id}/").json()["placement"]
    assert placement["planned"] == 12 and placement["version"] == 1 and placement["rank"] >= 1
    matches = Match.objects.filter(series__placing_version=version).order_by("pk")
    assert {m.status for m in matches} == {Match.Status.FINISHED} and {m.kind for m in matches} == {"placement"}
    for match in matches:
        assert RatingChange.objects.filter(match=match).count() == match.seats.count()
    # The same process played every game of a series: its log counts 1, 2, ... 6 within each series.
    for series_id in {m.series_id for m in matches}:
        logs = Seat.objects.filter(
            match__series_id=series_id, bot_version=version, match__status=Match.Status.FINISHED
        ).order_by("match_id")
        assert [seat.stderr.strip() for seat in logs] == [f"game {n} of this process" for n in range(1, 7)]
    log = celery_workers.processes[0][1].read_text(errors="replace")
    assert "(6 games): claimed" in log and "6 games recorded, 0 rescheduled" in log
    assert worker.poll() is None
    out = io.StringIO()
    call_command("recompute_ratings", "--check", stdout=out)
    report = check_league()
    assert report.ok, [str(v) for v in report.violations]


# Plays two games per process, then crashes at its first move of the third (a fault: exiting between games is not).
CRASHES_THIRD = SERIES_BOT.replace(
    b'    elif message["type"] == "act":\n',
    b'    elif message["type"] == "act":\n        if games == 3:\n            sys.exit(3)\n',
)
assert CRASHES_THIRD != SERIES_BOT


def test_a_fault_ends_the_series_and_fresh_processes_play_the_rest(celery_workers, alice) -> None:
    from bots.packaging import package_upload
    from league.bots.models import Bot
    from league.play.models import MatchSeries
    from league.play.series import do_create_series
    from league.ratings.models import Rating

    do_register_builtin_bots(["love_letter"])
    bot = Bot.objects.create(owner=alice, game="love_letter", name="crasher")
    Rating.objects.create(bot=bot)
    package = package_upload(CRASHES_THIRD, "main.py")
    version = BotVersion.objects.create(
        bot=bot, number=1, archive=package.archive, language=package.language, status=BotVersion.Status.READY
    )
    rival = BotVersion.objects.filter(bot__is_builtin=True, builtin="random").first()
    assert rival is not None
    celery_workers.start(LADDER_ENABLED="0")
    series = do_create_series("love_letter", [version, rival], seeds=[21, 22, 23, 24, 25])
    games = list(series.matches.order_by("pk"))
    celery_workers.wait_for(
        lambda: Match.objects.filter(pk__in=[g.pk for g in games], status=Match.Status.FINISHED).count() == 5,
        90,
        "all five games to be played",
    )
    seats = [Seat.objects.get(match=game, bot_version=version) for game in games]
    assert [seat.fault for seat in seats] == ["", "", "crash", "", ""]
    assert [seat.stderr.strip() for seat in seats][:2] == ["game 1 of this process", "game 2 of this process"]
    # The third game's fault ended the series: the last two went to a new series, played by a fresh process.
    for game in games:
        game.refresh_from_db()
    assert {g.series_id for g in games[:3]} == {series.pk} and games[3].series_id == games[4].series_id != series.pk
    assert MatchSeries.objects.get(pk=games[3].series_id).placing_version is None
    assert [seat.stderr.strip() for seat in seats[3:]] == ["game 1 of this process", "game 2 of this process"]
    assert all(RatingChange.objects.filter(match=g).count() == 2 for g in games)
    assert check_league().ok
