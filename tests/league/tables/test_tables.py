"""People's tables through the services, the API and the pages: sitting down, the queue, acting, refusals in the
API's error shape, spectators, the event stream, the records on the bot page ("people beaten: N of M")."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest
from asgiref.sync import async_to_sync, sync_to_async
from django.test import AsyncClient, Client
from django.test.utils import override_settings
from django.utils import timezone
from rest_framework.test import APIClient

from league.bots.models import Bot
from league.bots.services import do_create_bot, do_record_validation
from league.core.errors import ServiceError
from league.tables import services as tables
from league.tables.models import Table
from tests.league.tables.table_helpers import play_bots, play_person, start, state_of


def _table(client: APIClient, game: str = "love_letter", players: int = 2, **more: object) -> dict:
    response = client.post("/api/tables/", {"game": game, "players": players, **more}, format="json")
    assert response.status_code == 201, response.content
    return response.json()


def _error(response, status: int, code: str) -> None:
    assert response.status_code == status, response.content
    assert response.json()["error"]["code"] == code


def test_alice_sits_at_a_table_of_built_in_bots_when_none_is_ranked(alice_api: APIClient) -> None:
    data = _table(alice_api, "ranczo", 3)
    assert data["status"] == "queued" and data["role"] == "person"
    kinds = [seat["kind"] for seat in data["seats"]]
    assert kinds.count("person") == 1 and kinds[data["person_seat"]] == "person"
    assert kinds.count("builtin") == 2
    assert "queued" in data["message"] and "starts by itself" in data["message"]
    table = Table.objects.get(pk=data["id"])
    assert table.bots.count() == 2 and table.clock_seconds == 120


def test_alice_chooses_the_bots(alice_api: APIClient, alice, bob) -> None:
    bot = do_create_bot(bob, "love_letter", "villain", b"print('hi')\n", "bot.py")
    do_record_validation(bot.versions.get().pk, True, "ok", "")
    data = _table(alice_api, bots=[bot.pk])
    other = next(seat for seat in data["seats"] if seat["kind"] != "person")
    assert other == {"kind": "bot", "label": "bob/villain v1", "bot_id": bot.pk}


@pytest.mark.parametrize(
    ("body", "status", "code"),
    [
        ({"game": "chess", "players": 2}, 400, "unknown_game"),
        ({"game": "love_letter", "players": 9}, 400, "invalid"),
        ({"game": "love_letter", "players": 2, "bots": [1, 2]}, 400, "invalid"),
        ({"game": "love_letter", "players": 2, "bots": [999999]}, 400, "unknown_bot"),
        ({"game": "love_letter", "players": "two"}, 400, "invalid"),
        ({"game": ["love_letter"], "players": 2}, 400, "invalid"),
    ],
)
def test_a_bad_table_request_is_refused_in_the_error_shape(alice_api: APIClient, body, status, code) -> None:
    _error(alice_api.post("/api/tables/", body, format="json"), status, code)


def test_a_bot_of_another_game_cannot_sit(alice_api: APIClient, bob) -> None:
    bot = do_create_bot(bob, "ten", "tenbot", b"print('hi')\n", "bot.py")
    do_record_validation(bot.versions.get().pk, True, "ok", "")
    _error(
        alice_api.post("/api/tables/", {"game": "love_letter", "players": 2, "bots": [bot.pk]}, format="json"),
        400,
        "wrong_game",
    )


def test_charlie_must_sign_in_to_sit(anon_api: APIClient) -> None:
    _error(anon_api.post("/api/tables/", {"game": "ten", "players": 2}, format="json"), 401, "not_authenticated")


def test_one_game_in_progress_per_person(alice_api: APIClient) -> None:
    _table(alice_api)
    _error(alice_api.post("/api/tables/", {"game": "ten", "players": 2}, format="json"), 409, "table_in_progress")


@override_settings(HUMAN_TABLES_MAX=1)
def test_tables_beyond_the_maximum_wait_queued_and_say_so(alice_api: APIClient, bob_api: APIClient, bob) -> None:
    first = Table.objects.get(pk=_table(alice_api)["id"])
    second = Table.objects.get(pk=_table(bob_api)["id"])
    start(first)
    with pytest.raises(tables.TablesFull):
        tables.do_claim_table(second.pk)
    view = bob_api.get(f"/api/tables/{second.pk}/").json()
    assert view["status"] == "queued" and view["queue"] == {"ahead": 0, "place": 1, "running": 1, "max": 1}
    assert "1 of 1 tables are in play" in view["message"]
    assert tables.do_claim_table(first.pk) is None  # already running: a duplicate delivery does nothing


@override_settings(HUMAN_TABLE_CLOCKS={"ten": 30})
def test_the_clock_is_per_game(alice_api: APIClient) -> None:
    assert Table.objects.get(pk=_table(alice_api, "ten")["id"]).clock_seconds == 30


def test_alice_plays_a_legal_action_and_it_stays_sent_until_the_worker_records_it(alice_api: APIClient, alice) -> None:
    table = start(Table.objects.get(pk=_table(alice_api)["id"]))
    view = alice_api.get(f"/api/tables/{table.pk}/").json()
    assert view["to_move"] == table.person_seat and view["legal_actions"]
    assert view["observation"] == state_of(table).observation(table.person_seat)
    assert 0 < view["clock_left"] <= 120
    response = alice_api.post(
        f"/api/tables/{table.pk}/act/", {"move": view["move_count"], "action": view["legal_actions"][0]}, format="json"
    )
    assert response.status_code == 202
    assert response.json()["legal_actions"] == []  # sent: nothing more to play until the bots have answered
    _error(
        alice_api.post(
            f"/api/tables/{table.pk}/act/",
            {"move": view["move_count"], "action": view["legal_actions"][0]},
            format="json",
        ),
        409,
        "stale_move",
    )
    # The worker has the action from here on, but until it records the move the page must not offer it again.
    assert tables.person_reply(table.pk, view["move_count"]).action == view["legal_actions"][0]
    again = alice_api.get(f"/api/tables/{table.pk}/").json()
    assert again["move_count"] == view["move_count"] and again["legal_actions"] == []
    played = play_bots(table)
    assert tables.person_reply(table.pk, view["move_count"]).action is None
    assert played.pending is None and played.pending_index is None and played.move_count > view["move_count"]


def test_refusals_when_acting(alice_api: APIClient, bob_api: APIClient, alice) -> None:
    table = start(Table.objects.get(pk=_table(alice_api)["id"]))
    url = f"/api/tables/{table.pk}/act/"
    move = table.move_count
    _error(alice_api.post(url, {"move": move, "action": {"card": 99}}, format="json"), 400, "illegal_action")
    _error(alice_api.post(url, {"move": move, "action": [1]}, format="json"), 400, "invalid")
    _error(alice_api.post(url, {"move": move + 5, "action": {"card": 1}}, format="json"), 409, "stale_move")
    _error(bob_api.post(url, {"move": move, "action": {"card": 1}}, format="json"), 403, "forbidden")
    _error(alice_api.post("/api/tables/99999999/act/", {"move": 0, "action": {}}, format="json"), 404, "not_found")
    _error(APIClient().post(url, {"move": move, "action": {}}, format="json"), 401, "not_authenticated")


def test_acting_out_of_turn_or_before_the_start_is_refused(alice_api: APIClient, alice) -> None:
    table = Table.objects.get(pk=_table(alice_api)["id"])
    _error(
        alice_api.post(f"/api/tables/{table.pk}/act/", {"move": 0, "action": {"card": 1}}, format="json"),
        409,
        "not_running",
    )
    tables.do_claim_table(table.pk)
    state = state_of(table)
    if state.to_move() != table.person_seat:
        with pytest.raises(ServiceError) as refused:
            tables.do_act(alice, table.pk, 0, state.legal_actions()[0])
        assert refused.value.code == "not_your_turn"


def test_a_spectator_sees_the_public_view_only(alice_api: APIClient, bob_api: APIClient) -> None:
    table = start(Table.objects.get(pk=_table(alice_api)["id"]))
    for client in (bob_api, APIClient()):
        view = client.get(f"/api/tables/{table.pk}/").json()
        assert view["role"] == "spectator"
        assert "observation" not in view and "legal_actions" not in view
        assert view["public"] == state_of(table).public_view()


def test_a_whole_game_ends_with_the_result_the_replay_and_the_records(alice_api: APIClient, alice) -> None:
    table = start(Table.objects.get(pk=_table(alice_api)["id"]))
    play_person(table, alice)
    table.refresh_from_db()
    assert table.status == "finished" and table.replay is not None
    view = alice_api.get(f"/api/tables/{table.pk}/").json()
    assert view["result"]["outcome"]["ranks"] and view["replay_url"]
    bot = Bot.objects.get(pk=next(s["bot_id"] for s in table.seats if s["kind"] != "person"))
    ranks = table.result["outcome"]["ranks"]
    beaten = int(ranks[1 - table.person_seat] < ranks[table.person_seat])
    assert tables.people_record(bot) == tables.PeopleRecord(beaten=beaten, played=1)
    assert alice_api.get(f"/api/bots/{bot.pk}/").json()["people"] == {"beaten": beaten, "played": 1}
    page = Client().get(f"/bots/{bot.pk}/").content.decode()
    assert f"People beaten: <strong>{beaten}</strong> of 1" in page
    frames = Client().get(f"/tables/{table.pk}/frames/")
    assert frames.status_code == 200 and frames.json()["players"] == 2
    assert Client().get(f"/tables/{table.pk}/replay.json").json()["moves"]


def test_the_event_stream_pushes_the_viewers_view(alice_api: APIClient, alice, transactional_db) -> None:
    # The stream is async (an ASGI coroutine): read it through Django's AsyncClient, in one event loop.
    table = start(Table.objects.get(pk=_table(alice_api)["id"]))

    async def watching() -> None:
        client = AsyncClient()
        await client.aforce_login(alice)
        response = await client.get(f"/tables/{table.pk}/events/")
        assert response["Content-Type"] == "text/event-stream"
        chunks = aiter(response.streaming_content)
        assert (await anext(chunks)).startswith(b"retry:")
        event = (await anext(chunks)).decode()
        view = json.loads(event.removeprefix("data: "))
        assert view["role"] == "person" and view["move_count"] == table.move_count
        # a move: the same stream pushes the new view (the action sent, then the bots' replies)
        await sync_to_async(tables.do_act)(alice, table.pk, view["move_count"], view["legal_actions"][0])
        assert json.loads((await anext(chunks)).decode().removeprefix("data: "))["legal_actions"] == []
        played = await sync_to_async(play_bots)(table)
        pushed = json.loads((await anext(chunks)).decode().removeprefix("data: "))
        assert pushed["move_count"] == played.move_count > view["move_count"]
        spectator = await AsyncClient().get(f"/tables/{table.pk}/events/")
        chunks = aiter(spectator.streaming_content)
        await anext(chunks)
        assert json.loads((await anext(chunks)).decode().removeprefix("data: "))["role"] == "spectator"
        assert (await AsyncClient().get("/tables/999999/events/")).status_code == 404

    async_to_sync(watching)()


def test_the_pages(alice, alice_api: APIClient) -> None:
    client = Client()
    assert (
        client.get("/play/").status_code == 200
    )  # no account needed: a guest may play (tests/league/accounts/test_guests.py)
    client.force_login(alice)
    assert "Play Ranczo" in client.get("/play/").content.decode()
    page = client.get("/play/?game=ten").content.decode()
    assert "Sit down" in page and 'name="bots"' in page
    response = client.post("/play/", {"game": "ten", "players": "2"})
    assert response.status_code == 302
    table = Table.objects.get(owner=alice)
    assert response["Location"] == f"/tables/{table.pk}/"
    page = client.get(f"/tables/{table.pk}/").content.decode()
    assert "table-config" in page and "league/table.js" in page
    assert client.post("/play/", {"game": "ten", "players": "2"}).status_code == 409
    start(table)
    assert f"/tables/{table.pk}/" in Client().get("/live/").content.decode()
    assert f"/tables/{table.pk}/" in client.get("/account/tables/").content.decode()
    assert f"/tables/{table.pk}/" in client.get("/account/bots/").content.decode()  # the account page
    assert Client().get(f"/tables/{table.pk}/").status_code == 200  # anyone may watch
    assert Client().get("/tables/999999/").status_code == 404


def test_a_game_page_and_a_bot_page_offer_a_game(alice) -> None:
    bot = do_create_bot(alice, "ten", "tenbot", b"print('hi')\n", "bot.py")
    assert "/play/?game=ten" in Client().get("/games/ten/").content.decode()
    assert f"/play/?bot={bot.pk}" in Client().get(f"/bots/{bot.pk}/").content.decode()
    do_record_validation(bot.versions.get().pk, True, "ok", "")
    client = Client()
    client.force_login(alice)
    page = client.get(f"/play/?bot={bot.pk}").content.decode()  # ready, not ranked yet: still offered, first
    assert f'<option value="{bot.pk}" selected>' in page and "Play TEN against bots" in page


def test_play_bots_helper_reaches_the_persons_turn(alice_api: APIClient) -> None:
    table = start(Table.objects.get(pk=_table(alice_api, "high_society", 3)["id"]))
    assert state_of(table).to_move() == table.person_seat
    assert play_bots(table).move_count == table.move_count  # nothing pending: nothing moves


@override_settings(HUMAN_TABLES_MAX=1)
def test_a_table_whose_worker_died_mid_game_is_abandoned_and_frees_its_place(
    alice_api: APIClient, bob_api: APIClient
) -> None:
    first = start(Table.objects.get(pk=_table(alice_api, "ten")["id"]))
    second = Table.objects.get(pk=_table(bob_api)["id"])
    with pytest.raises(tables.TablesFull):
        tables.do_claim_table(second.pk)
    tables.do_renew_table(first.pk, first.claim_token)
    first.refresh_from_db()
    assert first.lease_until is not None and first.lease_until > timezone.now()
    state = state_of(first)  # the worker records the person's first move, then dies
    moves = [*first.moves, {"seat": state.to_move(), "action": state.legal_actions()[0], "auto": False}]
    tables.do_record_moves(first.pk, first.claim_token, moves)
    Table.objects.filter(pk=first.pk).update(lease_until=timezone.now() - timedelta(seconds=1))
    claimed = tables.do_claim_table(second.pk)
    assert claimed is not None and claimed.pk == second.pk
    view = alice_api.get(f"/api/tables/{first.pk}/").json()
    assert view["status"] == "failed" and f"stopped at move {len(moves)}" in view["message"]
    assert "cannot be resumed" in view["message"] and "start a new one" in view["message"]
    # the dead worker's late writes change nothing
    tables.do_record_moves(first.pk, first.claim_token, [])
    assert Table.objects.get(pk=first.pk).move_count == len(moves)
    _table(alice_api)  # her abandoned game no longer counts as one in progress


def test_a_person_whose_clock_ran_out_is_asked_nothing_more(alice_api: APIClient, bob_api: APIClient) -> None:
    table = start(Table.objects.get(pk=_table(alice_api)["id"]))
    legal = alice_api.get(f"/api/tables/{table.pk}/").json()["legal_actions"]
    tables.do_forfeit(table.pk, table.claim_token)
    view = alice_api.get(f"/api/tables/{table.pk}/").json()
    assert view["forfeited"] and view["legal_actions"] == [] and "you forfeited" in view["message"]
    assert "clock ran out" in bob_api.get(f"/api/tables/{table.pk}/").json()["message"]
    sent = alice_api.post(f"/api/tables/{table.pk}/act/", {"move": table.move_count, "action": legal[0]}, format="json")
    _error(sent, 409, "not_running")


def test_a_person_resigns_and_is_asked_nothing_more(alice_api: APIClient, bob_api: APIClient) -> None:
    table = start(Table.objects.get(pk=_table(alice_api)["id"]))
    legal = alice_api.get(f"/api/tables/{table.pk}/").json()["legal_actions"]
    _error(bob_api.post(f"/api/tables/{table.pk}/resign/"), 403, "forbidden")
    resigned = alice_api.post(f"/api/tables/{table.pk}/resign/")
    assert resigned.status_code == 200, resigned.content
    view = resigned.json()
    assert view["resigned"] and view["forfeited"] and view["legal_actions"] == []
    assert view["message"] == "You resigned: a random player finishes your game."
    assert bob_api.get(f"/api/tables/{table.pk}/").json()["message"].startswith("The person resigned")
    assert tables.person_reply(table.pk, table.move_count).resigned  # what the worker's seat sees
    _error(alice_api.post(f"/api/tables/{table.pk}/resign/"), 409, "not_running")
    sent = alice_api.post(f"/api/tables/{table.pk}/act/", {"move": table.move_count, "action": legal[0]}, format="json")
    _error(sent, 409, "not_running")


def test_resigning_a_queued_or_unknown_table_is_refused(alice_api: APIClient, anon_api: APIClient) -> None:
    table = _table(alice_api)
    _error(alice_api.post(f"/api/tables/{table['id']}/resign/"), 409, "not_running")
    _error(alice_api.post("/api/tables/999999/resign/"), 404, "not_found")
    assert anon_api.post(f"/api/tables/{table['id']}/resign/").status_code == 401


def test_the_table_page_offers_resign_the_rules_and_a_rematch(alice, alice_api: APIClient) -> None:
    table = start(Table.objects.get(pk=_table(alice_api)["id"]))
    client = Client()
    client.force_login(alice)
    page = client.get(f"/tables/{table.pk}/").content.decode()
    assert "How to play Love Letter" in page and "Princess" in page  # the rules in brief, folded
    assert f'action="/tables/{table.pk}/resign/"' in page and "data-rematch hidden" in page
    assert "How to play Love Letter" in client.get("/play/?game=love_letter").content.decode()
    response = client.post(f"/tables/{table.pk}/resign/")
    assert response.status_code == 302 and Table.objects.get(pk=table.pk).resigned
    assert Client().post(f"/tables/{table.pk}/resign/").status_code == 302  # to the log-in page; nothing changes
