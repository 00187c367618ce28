"""A remote bot end to end with real parts: `python -m bots connect` running a bot program on "its owner's machine",
the site under uvicorn (the async streams), a real Celery worker with beat, a real Redis. The bot is validated by a
smoke game when it first connects, then plays rated ladder matches to the end (docs/remote.md)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from django.contrib.auth.models import User

from games import registry
from league.bots.models import BotVersion
from league.bots.services import do_create_remote_bot, do_register_builtin_bots
from league.play.models import Match, Seat
from league.ratings.models import Rating
from league.remote.services import do_issue_remote_token
from tests.serve.conftest import ROOT, Server
from tests.workers.conftest import Workers, celery_workers  # noqa: F401 (a fixture)

pytestmark = pytest.mark.e2e


@pytest.fixture
def connect(tmp_path: Path) -> Iterator[list[subprocess.Popen[bytes]]]:
    """`python -m bots connect` processes, stopped at the end of the test (their logs printed)."""
    started: list[subprocess.Popen[bytes]] = []
    yield started
    for process in started:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGTERM)
            process.wait(10)
    for log in sorted(tmp_path.glob("connect-*.log")):
        print(f"--- {log.name}\n" + "\n".join(log.read_text(errors="replace").splitlines()[-30:]))


def start_connect(started: list[subprocess.Popen[bytes]], tmp_path: Path, server: Server, key: str, bot: Path) -> None:
    log = (tmp_path / f"connect-{len(started)}.log").open("wb")
    command = [sys.executable, "-m", "bots", "connect", "--token", key, "--url", server.url, str(bot)]
    started.append(subprocess.Popen(command, cwd=ROOT, stdout=log, stderr=subprocess.STDOUT, start_new_session=True))


def test_a_remote_bot_connected_from_its_owners_machine_plays_rated_matches(
    asgi_server,
    celery_workers: Workers,  # noqa: F811
    connect,
    tmp_path: Path,
) -> None:
    do_register_builtin_bots(["love_letter"])
    owner = User.objects.create_user("carol", "carol@example.org", "correct horse battery")
    bot = do_create_remote_bot(owner, "love_letter", "far-away")
    _, key = do_issue_remote_token(bot, owner)
    version = bot.versions.get()
    assert version.remote and version.status == BotVersion.Status.PENDING

    server = asgi_server()
    celery_workers.start(beat=True)
    start_connect(connect, tmp_path, server, key, registry.example_dir("love_letter"))

    def validated() -> bool:
        return BotVersion.objects.get(pk=version.pk).status != BotVersion.Status.PENDING

    celery_workers.wait_for(validated, 90, "the smoke game on the bot's first connection")
    version.refresh_from_db()
    assert version.status == BotVersion.Status.READY, version.validation_log

    def rated() -> bool:
        return Rating.objects.get(bot=bot).games >= 2

    celery_workers.wait_for(rated, 120, "two rated ladder matches of the remote bot")
    seats = Seat.objects.filter(bot_version=version, match__status=Match.Status.FINISHED).select_related("match")
    assert seats.count() >= 2
    for seat in seats:
        assert seat.fault == "", (seat.fault, seat.fault_detail)
        moves = [move for move in seat.match.replay["moves"] if move["seat"] == seat.number]
        assert moves and not any(move["auto"] for move in moves)  # every decision was the remote program's own
