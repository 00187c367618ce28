"""The tables' queue (issue 29, holes 9 and 10): first in, first out whichever message comes first, the person's place
shown, cancelling a queued table, the sweeper that sends lost tables again and re-queues those whose worker died
before a move, and who may be seated (a disabled, paused or rejected bot may not, when created nor when it starts)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.test.utils import override_settings
from django.utils import timezone
from rest_framework.test import APIClient

from league.accounts.tokens import do_create_token
from league.bots.models import Bot
from league.bots.services import do_create_bot, do_disable_bot, do_record_validation
from league.core import outbox
from league.tables import services as tables
from league.tables.models import Table
from tests.league.tables.table_helpers import start

User = get_user_model()


@pytest.fixture
def sent(monkeypatch) -> list[tuple[str, int]]:
    """The ``play_table`` messages the services send (held back: nothing goes to a broker)."""
    messages: list[tuple[str, int]] = []
    monkeypatch.setattr(outbox, "enqueue", lambda task, object_id: messages.append((task, object_id)))
    monkeypatch.setattr(outbox, "enqueue_later", lambda task, object_id, delay: messages.append((task, object_id)))
    return messages


def _person(name: str) -> APIClient:
    user = User.objects.create_user(name, f"{name}@example.org", "correct horse battery")
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {do_create_token(user, 'ci')[1]}")
    return client


def _table(client: APIClient, **more: object) -> Table:
    response = client.post("/api/tables/", {"game": "love_letter", "players": 2, **more}, format="json")
    assert response.status_code == 201, response.content
    return Table.objects.get(pk=response.json()["id"])


def _error(response, status: int, code: str) -> dict:
    assert response.status_code == status, response.content
    body = response.json()
    assert body["error"]["code"] == code and body["error"]["message"]
    return body


def _ready_bot(owner, name: str = "villain") -> Bot:
    bot = do_create_bot(owner, "love_letter", name, b"print('hi')\n", "bot.py")
    do_record_validation(bot.versions.get().pk, True, "ok", "")
    return bot


# ----- first in, first out ----------------------------------------------------------------------------------------


@override_settings(HUMAN_TABLES_MAX=1)
def test_the_oldest_queued_table_starts_first_whichever_message_comes_first(db, sent) -> None:
    first, second, third = (_table(_person(name)) for name in ("ann", "ben", "cat"))
    claimed = tables.do_claim_table(third.pk)  # the newest table's message is delivered first
    assert claimed is not None and claimed.pk == first.pk
    with pytest.raises(tables.TablesFull):
        tables.do_claim_table(second.pk)  # its table waits: the message is dropped, the table stays queued
    assert tables.do_claim_table(first.pk) is None  # a duplicate delivery does nothing
    assert Table.objects.get(pk=second.pk).status == Table.Status.QUEUED
    views = [tables.table_view(Table.objects.get(pk=t.pk), t.owner) for t in (second, third)]
    assert [view["queue"]["place"] for view in views] == [1, 2]
    assert "2nd in line" in views[1]["message"] and "1 game waits ahead" in views[1]["message"]


@override_settings(HUMAN_TABLES_MAX=1)
def test_a_place_that_frees_goes_to_the_oldest_queued_table(db, sent) -> None:
    first, second, third = (_table(_person(name)) for name in ("ann", "ben", "cat"))
    claimed = tables.do_claim_table(second.pk)
    assert claimed is not None and claimed.pk == first.pk
    sent.clear()
    tables.do_fail_table(claimed.pk, claimed.claim_token, "a bug")
    assert sent == [(outbox.PLAY_TABLE_TASK, second.pk)], "the place is passed on: the second's message was spent"
    claimed = tables.do_claim_table(third.pk)
    assert claimed is not None and claimed.pk == second.pk


# ----- the sweeper ------------------------------------------------------------------------------------------------


def test_the_sweeper_sends_again_a_queued_table_whose_message_was_lost_once_per_period(db, sent) -> None:
    table = _table(_person("ann"))
    sent.clear()
    assert tables.do_sweep_tables() == [], "a fresh message is not presumed lost"
    Table.objects.filter(pk=table.pk).update(enqueued_at=timezone.now() - timedelta(seconds=301))
    assert tables.do_sweep_tables() == [table.pk]
    assert tables.do_sweep_tables() == [], "not again until another period has passed"
    assert sent == [(outbox.PLAY_TABLE_TASK, table.pk)]


def test_beats_sweeper_task_sweeps_the_tables_too(db, sent) -> None:
    from workers.tasks import requeue_stale_matches

    table = _table(_person("ann"))
    Table.objects.filter(pk=table.pk).update(enqueued_at=timezone.now() - timedelta(seconds=301))
    assert requeue_stale_matches() == 1
    assert sent[-1] == (outbox.PLAY_TABLE_TASK, table.pk)


@override_settings(MATCH_MAX_ATTEMPTS=2)
def test_a_table_whose_worker_died_before_a_move_is_queued_again_in_its_place_then_given_up(db, sent) -> None:
    first, second = _table(_person("ann")), _table(_person("ben"))
    claimed = tables.do_claim_table(second.pk)
    assert claimed is not None and claimed.pk == first.pk and claimed.attempts == 1
    Table.objects.filter(pk=first.pk).update(lease_until=timezone.now() - timedelta(seconds=1))
    assert tables.do_sweep_tables() == [first.pk]
    again = Table.objects.get(pk=first.pk)
    assert again.status == Table.Status.QUEUED and again.claim_token == "" and again.started_at is None
    assert "lease ran out" in again.error and (outbox.PLAY_TABLE_TASK, first.pk) in sent
    tables.do_renew_table(first.pk, claimed.claim_token)  # the worker presumed dead changes nothing
    assert Table.objects.get(pk=first.pk).lease_until is None
    claimed = tables.do_claim_table(second.pk)  # still first in line
    assert claimed is not None and claimed.pk == first.pk and claimed.attempts == 2
    Table.objects.filter(pk=first.pk).update(lease_until=timezone.now() - timedelta(seconds=1))
    assert tables.do_sweep_tables() == [first.pk]
    given_up = Table.objects.get(pk=first.pk)
    assert given_up.status == Table.Status.FAILED and "gave up after 2 attempts" in given_up.error
    claimed = tables.do_claim_table(first.pk)  # the next table starts
    assert claimed is not None and claimed.pk == second.pk


# ----- cancelling -------------------------------------------------------------------------------------------------


def test_the_owner_cancels_a_queued_table_and_may_sit_again(alice_api: APIClient, bob_api: APIClient, sent) -> None:
    table = _table(alice_api)
    _error(alice_api.post("/api/tables/", {"game": "ten", "players": 2}, format="json"), 409, "table_in_progress")
    _error(bob_api.post(f"/api/tables/{table.pk}/cancel/"), 403, "forbidden")
    _error(APIClient().post(f"/api/tables/{table.pk}/cancel/"), 401, "not_authenticated")
    _error(alice_api.post("/api/tables/99999999/cancel/"), 404, "not_found")
    assert Table.objects.get(pk=table.pk).status == Table.Status.QUEUED
    response = alice_api.post(f"/api/tables/{table.pk}/cancel/")
    assert response.status_code == 200, response.content
    assert response.json()["status"] == "cancelled" and "cancelled" in response.json()["message"]
    _error(alice_api.post(f"/api/tables/{table.pk}/cancel/"), 409, "not_queued")
    assert tables.do_claim_table(table.pk) is None  # its message finds nothing to play
    _table(alice_api)  # no longer her game in progress


def test_a_table_in_play_or_over_cannot_be_cancelled(alice_api: APIClient, sent) -> None:
    table = start(_table(alice_api))
    body = _error(alice_api.post(f"/api/tables/{table.pk}/cancel/"), 409, "not_queued")
    assert "running" in body["error"]["message"]
    Table.objects.filter(pk=table.pk).update(status=Table.Status.FINISHED)
    _error(alice_api.post(f"/api/tables/{table.pk}/cancel/"), 409, "not_queued")


def test_the_table_page_cancels_a_queued_table(alice, bob, alice_api: APIClient, sent) -> None:
    table = _table(alice_api)
    owner, stranger = Client(), Client()
    owner.force_login(alice)
    stranger.force_login(bob)
    page = owner.get(f"/tables/{table.pk}/").content.decode()
    assert f'action="/tables/{table.pk}/cancel/"' in page and "1st in line" in page
    assert "cancel/" not in stranger.get(f"/tables/{table.pk}/").content.decode()
    assert stranger.post(f"/tables/{table.pk}/cancel/").status_code == 302
    assert Table.objects.get(pk=table.pk).status == Table.Status.QUEUED
    response = owner.post(f"/tables/{table.pk}/cancel/", follow=True)
    assert response.redirect_chain[-1][0] == "/play/?game=love_letter"
    assert "Your table is cancelled" in response.content.decode()
    assert Table.objects.get(pk=table.pk).status == Table.Status.CANCELLED


# ----- who may sit ------------------------------------------------------------------------------------------------


def _paused(bot: Bot) -> None:
    Bot.objects.filter(pk=bot.pk).update(paused_at=timezone.now(), paused_reason="too many faults")


@pytest.mark.parametrize("state", ["disabled", "paused"])
def test_a_disabled_or_paused_bot_cannot_be_seated(alice_api: APIClient, alice, bob, state: str) -> None:
    bot = _ready_bot(bob)
    do_disable_bot(bot, bob) if state == "disabled" else _paused(bot)
    body = {"game": "love_letter", "players": 2, "bots": [bot.pk]}
    answer = _error(alice_api.post("/api/tables/", body, format="json"), 409, "bot_unavailable")
    assert "bob/villain cannot be seated" in answer["error"]["message"]
    assert not Table.objects.exists()
    page = Client()
    page.force_login(alice)
    picker = page.get("/play/?game=love_letter").content.decode()
    assert f'<option value="{bot.pk}"' not in picker, "the picker offers only seatable bots"
    refused = page.post("/play/", {"game": "love_letter", "players": "2", "bots": [str(bot.pk)]})
    assert refused.status_code == 409 and "cannot be seated" in refused.content.decode()
    asked = page.get(f"/play/?bot={bot.pk}").content.decode()  # "Play against" on the bot's page
    assert "bob/villain cannot be seated" in asked and f'<option value="{bot.pk}"' not in asked
    assert not Table.objects.exists()


def test_a_rejected_version_cannot_be_seated(alice_api: APIClient, alice, bob) -> None:
    bot = do_create_bot(bob, "love_letter", "broken", b"print('hi')\n", "bot.py")
    do_record_validation(bot.versions.get().pk, False, "it crashed", "")
    body = {"game": "love_letter", "players": 2, "bots": [bot.pk]}
    answer = _error(alice_api.post("/api/tables/", body, format="json"), 400, "rejected_version")
    assert "rejected" in answer["error"]["message"]
    page = Client()
    page.force_login(alice)
    assert f'<option value="{bot.pk}"' not in page.get("/play/?game=love_letter").content.decode()
    refused = page.post("/play/", {"game": "love_letter", "players": "2", "bots": [str(bot.pk)]})
    assert refused.status_code == 400 and "rejected" in refused.content.decode()


@pytest.mark.parametrize("state", ["disabled", "paused"])
def test_a_bot_disabled_or_paused_while_the_table_waits_does_not_play(alice_api: APIClient, bob, state, sent) -> None:
    bot = _ready_bot(bob)
    table = _table(alice_api, bots=[bot.pk])
    do_disable_bot(bot, bob) if state == "disabled" else _paused(bot)
    assert tables.do_claim_table(table.pk) is None
    table.refresh_from_db()
    assert table.status == Table.Status.CANCELLED and table.started_at is None
    view = alice_api.get(f"/api/tables/{table.pk}/").json()
    assert "bob/villain cannot be seated" in view["message"] and "choose other bots" in view["message"]
    assert tables.people_record(bot) == tables.PeopleRecord(beaten=0, played=0)
    _table(alice_api)  # not her game in progress any more


def test_the_default_opponents_skip_a_paused_ranked_bot(alice_api: APIClient, bob) -> None:
    from league.ratings.models import Rating

    bot = _ready_bot(bob)
    Rating.objects.update_or_create(bot=bot, defaults={"elo": 1900, "games": 5})
    assert tables.default_opponents("love_letter", 1) == [bot]
    _paused(bot)
    assert bot not in tables.default_opponents("love_letter", 1)
    assert bot.pk not in [seat["bot_id"] for seat in _table(alice_api).seats]
