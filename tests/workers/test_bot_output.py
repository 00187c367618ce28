"""What a bot writes is data: a bot that writes NUL bytes and lone surrogates (to stderr, in its notes, in a malformed
line) has its games recorded and rated like any other, and every page showing them answers; a game whose result the
database refuses anyway costs only itself, charged to the bot whose output it was (docs/security.md, "Bot output").

Real parts: uploads through the API, a real Celery worker on a real Redis, the sandbox. The hole showed on PostgreSQL
only (``text fields cannot contain NUL``); on SQLite the bytes were stored as they came."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from django.test import Client
from rest_framework.test import APIClient

from bots.text import is_clean
from league.bots.models import BotVersion
from league.bots.services import do_register_builtin_bots
from league.play.invariants import check_league
from league.play.models import Match, MatchSeries, Seat
from league.play.series import do_create_series
from league.ratings.models import Rating, RatingChange
from tests.workers.conftest import upload_bot

pytestmark = pytest.mark.e2e

# Writes a NUL to stderr at every start, and a note that is a lone surrogate and a NUL written as JSON escapes (plain
# ASCII on the wire); in the third game of its process it writes a malformed line holding a raw NUL (a fault).
HOSTILE_BOT = rb"""import json, sys
games = 0
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "start":
        games += 1
        sys.stderr.write("game %d \x00 of this process\n" % games)
        sys.stderr.flush()
        print(json.dumps({"type": "ready"}), flush=True)
    elif message["type"] == "act":
        if games == 3:
            sys.stdout.write('{"type": "action", "\x00": broken}\n')
            sys.stdout.flush()
            continue
        action = json.dumps(message["legal"][0])
        sys.stdout.write('{"type":"action","action":%s,"note":"half \\ud800 nul \\u0000"}\n' % action)
        sys.stdout.flush()
"""


def _assert_pages_answer(match: Match, owner: User) -> None:
    """The match page (its owner's view, stderr included), its replay and its frames: 200, the text cleaned."""
    page = Client()
    page.force_login(owner)
    response = page.get(f"/matches/{match.pk}/")
    assert response.status_code == 200
    assert b"\x00" not in response.content
    replay = APIClient().get(f"/api/matches/{match.pk}/replay/")
    assert replay.status_code == 200, replay.content
    notes = [move["note"] for move in replay.json()["moves"] if move["note"]]
    assert all(is_clean(note) for note in notes)
    assert APIClient().get(f"/api/matches/{match.pk}/frames/").status_code == 200


def test_a_bot_writing_nul_bytes_and_lone_surrogates_is_validated_and_its_games_recorded_and_rated(
    celery_workers, alice: User, alice_api: APIClient
) -> None:
    do_register_builtin_bots(["love_letter"])
    celery_workers.start(LADDER_ENABLED="0")
    bot_id = upload_bot(alice_api, "hostile", HOSTILE_BOT)
    celery_workers.wait_for(
        lambda: not BotVersion.objects.filter(bot_id=bot_id, status=BotVersion.Status.PENDING).exists(),
        90,
        "the upload to be validated",
    )
    version = BotVersion.objects.get(bot_id=bot_id)
    assert version.status == BotVersion.Status.READY, version.validation_log
    assert "game 1 \ufffd of this process" in version.validation_stderr

    rival = BotVersion.objects.filter(bot__is_builtin=True, builtin="random").order_by("pk")[0]
    series = do_create_series("love_letter", [version, rival], seeds=[31, 32, 33, 34])
    games = list(series.matches.order_by("pk"))
    celery_workers.wait_for(
        lambda: Match.objects.filter(pk__in=[g.pk for g in games], status=Match.Status.FINISHED).count() == 4,
        90,
        "the four games to be recorded",
    )
    seats = [Seat.objects.get(match=game, bot_version=version) for game in games]
    # The third game of its process: the malformed line (with its NUL) is a fault, the detail quotes it cleanly; the
    # last game went to fresh processes, as after any fault.
    assert [seat.fault for seat in seats] == ["", "", "malformed", ""]
    assert "\x00" not in seats[2].fault_detail and "not one JSON object" in seats[2].fault_detail
    assert [seat.stderr.strip() for seat in seats] == [
        "game 1 \ufffd of this process",
        "game 2 \ufffd of this process",
        "game 3 \ufffd of this process",
        "game 1 \ufffd of this process",
    ]
    assert MatchSeries.objects.filter(matches__in=games).distinct().count() == 2
    for game in games:
        assert RatingChange.objects.filter(match=game).count() == 2
        game.refresh_from_db()
        notes = [move["note"] for move in game.replay["moves"] if move["seat"] == 0 and move["note"]]
        if game != games[2]:  # (the fault came at its first move of that game: no note)
            assert set(notes) == {"half \ufffd nul \ufffd"}
        _assert_pages_answer(game, alice)
    assert Rating.objects.get(bot_id=bot_id).games == 4
    assert check_league().ok


# Writes MARKER to stderr in the second game of its process only: the worker's database refuses any text holding it
# (PARLOUR_FAULTS=refuse_text, workers/faults.py), as PostgreSQL refused a NUL before bots' text was cleaned.
MARKER = "REFUSED-BY-THE-DATABASE"
REFUSED_IN_SECOND_GAME = b"""import json, sys
games = 0
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "start":
        games += 1
        sys.stderr.write("game %d%s\\n" % (games, " MARKER" if games == 2 else ""))
        sys.stderr.flush()
        print(json.dumps({"type": "ready"}), flush=True)
    elif message["type"] == "act":
        print(json.dumps({"type": "action", "action": message["legal"][0], "note": "fine"}), flush=True)
""".replace(b"MARKER", MARKER.encode())


def test_a_game_the_database_refuses_is_charged_to_the_bot_that_wrote_it_and_the_series_is_recorded(
    celery_workers, alice: User
) -> None:
    from tests.workers.fault_helpers import league_bot

    do_register_builtin_bots(["love_letter"])
    source = celery_workers.tmp_path / "refused.py"
    source.write_bytes(REFUSED_IN_SECOND_GAME)
    version = league_bot(alice, "refused", source=source)
    rival = BotVersion.objects.filter(bot__is_builtin=True, builtin="random").order_by("pk")[0]
    celery_workers.start(LADDER_ENABLED="0", PARLOUR_FAULTS=f"refuse_text={MARKER}")
    series = do_create_series("love_letter", [version, rival], seeds=[41, 42, 43])
    games = list(series.matches.order_by("pk"))
    celery_workers.wait_for(
        lambda: not Match.objects.filter(pk__in=[g.pk for g in games], status__in=["queued", "running"]).exists(),
        90,
        "the series to be recorded",
    )
    for game in games:
        game.refresh_from_db()
    assert [game.status for game in games] == [Match.Status.FINISHED] * 3, [game.error for game in games]
    mine = [Seat.objects.get(match=game, bot_version=version) for game in games]
    theirs = [Seat.objects.get(match=game, bot_version=rival) for game in games]
    # The refused game is recorded with its writer charged a fault, ranked last, its log dropped; the others as played.
    assert [seat.fault for seat in mine] == ["", "malformed", ""]
    assert "could not be stored" in mine[1].fault_detail and mine[1].stderr == ""
    assert (mine[1].rank, theirs[1].rank, theirs[1].fault) == (2, 1, "")
    assert [seat.stderr.strip() for seat in (mine[0], mine[2])] == ["game 1", "game 3"]
    replay = games[1].replay
    assert replay is not None and [fault["seat"] for fault in replay["faults"]] == [0]
    assert not [move for move in replay["moves"] if move["seat"] == 0 and move["note"]]
    for game in games:
        assert RatingChange.objects.filter(match=game).count() == 2
    assert Rating.objects.get(bot=version.bot).games == 3
    log = celery_workers.processes[0][1].read_text(errors="replace")
    assert "seat 0 charged a fault" in log
    assert check_league().ok
