"""People's tables with real parts: the API, a real Celery worker on a real Redis, a real sandboxed bot, the
person's actions sent through the API while the worker waits for them; the clock and the HUMAN_TABLES_MAX queue, first
in, first out, through a worker's death."""

from __future__ import annotations

import os
import random
import signal
import time
from datetime import timedelta

import pytest
import redis
from django.conf import settings
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test.utils import override_settings
from django.utils import timezone
from rest_framework.test import APIClient

from league.bots.models import Bot, BotVersion
from league.tables.models import Table
from league.tables.services import people_record
from workers.tasks import requeue_stale_matches

pytestmark = pytest.mark.e2e


def _ready_bot(client: APIClient, source: bytes, workers) -> int:
    response = client.post(
        "/api/bots/",
        {"game": "love_letter", "name": "steady", "file": SimpleUploadedFile("main.py", source)},
        format="multipart",
    )
    assert response.status_code == 201, response.content
    bot = response.json()["id"]
    workers.wait_for(
        lambda: BotVersion.objects.filter(bot_id=bot, status=BotVersion.Status.READY).exists(), 90, "validation"
    )
    return bot


def test_alice_plays_a_whole_game_against_a_sandboxed_bot(celery_workers, alice_api, example_bot_source) -> None:
    celery_workers.start()
    bot = _ready_bot(alice_api, example_bot_source, celery_workers)
    created = alice_api.post("/api/tables/", {"game": "love_letter", "players": 2, "bots": [bot]}, format="json")
    assert created.status_code == 201, created.content
    table_id = created.json()["id"]
    rng = random.Random(3)
    played = 0
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        view = alice_api.get(f"/api/tables/{table_id}/").json()
        if view["status"] in ("finished", "failed"):
            break
        if view.get("legal_actions"):
            action = rng.choice(view["legal_actions"])
            sent = alice_api.post(
                f"/api/tables/{table_id}/act/", {"move": view["move_count"], "action": action}, format="json"
            )
            assert sent.status_code == 202, sent.content
            played += 1
        time.sleep(0.05)
    table = Table.objects.get(pk=table_id)
    assert table.status == Table.Status.FINISHED, (table.status, table.error)
    replay = table.replay
    assert replay is not None
    mine = [move for move in replay["moves"] if move["seat"] == table.person_seat]
    assert len(mine) == played and not any(move["auto"] for move in mine)
    assert table.result["seats"][1 - table.person_seat]["fault"] is None  # the bot played every move itself
    assert people_record(Bot.objects.get(pk=bot)).played == 1


@override_settings(HUMAN_TABLE_CLOCK_SECONDS=5)
def test_a_silent_person_forfeits_on_the_clock_and_the_next_table_waits_its_turn(
    celery_workers, alice_api, bob_api
) -> None:
    celery_workers.start(HUMAN_TABLES_MAX="1")
    first = alice_api.post("/api/tables/", {"game": "love_letter", "players": 2}, format="json").json()["id"]
    celery_workers.wait_for(lambda: Table.objects.get(pk=first).status == Table.Status.RUNNING, 60, "the first table")
    second = bob_api.post("/api/tables/", {"game": "ten", "players": 2}, format="json").json()["id"]
    time.sleep(1.5)
    waiting = bob_api.get(f"/api/tables/{second}/").json()
    assert waiting["status"] == "queued" and "1 of 1 tables are in play" in waiting["message"]
    celery_workers.wait_for(lambda: Table.objects.get(pk=first).is_finalized(), 60, "the forfeit")
    table = Table.objects.get(pk=first)
    assert table.status == Table.Status.FINISHED
    fault = table.result["seats"][table.person_seat]["fault"]
    assert fault["cause"] == "timeout"
    assert table.result["outcome"]["ranks"][table.person_seat] == 2
    assert table.forfeited_at is not None
    celery_workers.wait_for(lambda: Table.objects.get(pk=second).status != Table.Status.QUEUED, 30, "the second table")


def test_a_person_who_resigns_is_ranked_last_and_a_random_player_finishes(celery_workers, alice_api) -> None:
    celery_workers.start()
    table_id = alice_api.post("/api/tables/", {"game": "love_letter", "players": 2}, format="json").json()["id"]
    celery_workers.wait_for(lambda: Table.objects.get(pk=table_id).deadline is not None, 60, "the person's turn")
    assert alice_api.post(f"/api/tables/{table_id}/resign/").status_code == 200
    celery_workers.wait_for(lambda: Table.objects.get(pk=table_id).is_finalized(), 60, "the game's end")
    table = Table.objects.get(pk=table_id)
    assert table.status == Table.Status.FINISHED and table.resigned
    assert table.result["outcome"]["ranks"][table.person_seat] == 2
    assert table.result["seats"][table.person_seat]["fault"] is not None


@override_settings(HUMAN_TABLE_CLOCK_SECONDS=5, MATCH_RESEND_SECONDS=1)
def test_a_restarted_worker_plays_every_queued_table_oldest_first(celery_workers, django_user_model) -> None:
    """Issue 29, hole 9: a worker killed with the tables' messages lost (SIGKILL, then the broker emptied); a new
    worker and the sweeper play every table, one at a time, in the order they were opened, though a table opened
    after the restart has the first message."""

    def sit(name: str) -> int:
        client = APIClient()
        client.force_authenticate(django_user_model.objects.create_user(name, f"{name}@example.org", "pw-not-used"))
        response = client.post("/api/tables/", {"game": "love_letter", "players": 2}, format="json")
        assert response.status_code == 201, response.content
        return int(response.json()["id"])

    first_worker = celery_workers.start(HUMAN_TABLES_MAX="1")
    opened = [sit(name) for name in ("ann", "ben", "cat", "dan")]
    first = opened[0]
    celery_workers.wait_for(lambda: Table.objects.get(pk=first).status == Table.Status.RUNNING, 60, "the first table")
    assert Table.objects.filter(pk__in=opened[1:], status=Table.Status.QUEUED).count() == 3
    os.killpg(first_worker.pid, signal.SIGKILL)
    first_worker.wait()
    celery_workers.killed.add(first_worker.pid)
    redis.Redis.from_url(settings.REDIS_URL).flushdb()  # whatever the broker held is lost
    # Time passes: the dead worker's lease on the first table runs out (MATCH_STALE_SECONDS), the messages age.
    Table.objects.filter(pk=first).update(lease_until=timezone.now() - timedelta(seconds=1))
    time.sleep(1.2)
    celery_workers.start(HUMAN_TABLES_MAX="1")
    opened.append(sit("eve"))  # the newest table: its message is the only one the new worker has
    requeue_stale_matches()  # beat's sweeper (every MATCH_SWEEP_SECONDS), called here once
    celery_workers.wait_for(
        lambda: all(Table.objects.get(pk=pk).is_finalized() for pk in opened), 150, "every table to be played"
    )
    rows = list(Table.objects.filter(pk__in=opened).order_by("pk").values_list("pk", "status", "started_at", "error"))
    played = [(pk, started) for pk, status, started, _error in rows if status == Table.Status.FINISHED]
    # The first was killed mid-game (abandoned, with the page's note) or before any move (played again, first).
    _pk, status, _started, error = rows[0]
    assert status == Table.Status.FINISHED or "cannot be resumed" in error, (status, error)
    assert [pk for pk, _started in played] == [pk for pk in opened if pk != first or status == Table.Status.FINISHED]
    assert [pk for pk, _started in sorted(played, key=lambda row: row[1])] == [pk for pk, _started in played]
