"""Hidden information never leaves the server at a person's table, in every game: what the person and a spectator
are sent (the API and the event stream build the same view) is the person's own observation or the public view,
the public narration and the table's facts, and it does not change when another seat's hidden cards do."""

from __future__ import annotations

import json
import random

import pytest
from rest_framework.test import APIClient

from games.registry import GAMES, get_game
from league.tables import services as tables
from league.tables.models import Table
from tests.league.tables.table_helpers import play_person, start, state_of

PERSON_KEYS = {"observation", "legal_actions", "blanks"}
SPECTATOR_KEYS = {"public"}
COMMON_KEYS = {
    "id", "game", "status", "players", "seats", "person_seat", "move_count", "to_move", "narration", "role",
    "clock_seconds", "clock_left", "forfeited", "resigned", "queue", "message", "result", "replay_url",
}  # fmt: skip


@pytest.mark.parametrize("game_id", sorted(GAMES))
def test_no_response_carries_another_seats_hidden_cards(game_id: str, alice, alice_api: APIClient, bob_api) -> None:
    players = min(3, get_game(game_id).max_players)
    created = alice_api.post("/api/tables/", {"game": game_id, "players": players}, format="json")
    assert created.status_code == 201, created.content
    table = start(Table.objects.get(pk=created.json()["id"]))
    rng = random.Random(1)
    checked = {"person": 0, "spectator": 0, "perturbed": 0}

    def check(table: Table, view: dict) -> None:
        state = state_of(table)
        spectator_view = bob_api.get(f"/api/tables/{table.pk}/").json()
        person_view = alice_api.get(f"/api/tables/{table.pk}/").json()
        assert {**person_view, "clock_left": 0} == json.loads(json.dumps({**view, "clock_left": 0}))
        assert set(person_view) <= COMMON_KEYS | PERSON_KEYS and "public" not in person_view
        assert set(spectator_view) <= COMMON_KEYS | SPECTATOR_KEYS and "observation" not in spectator_view
        assert person_view["observation"] == state.observation(table.person_seat)
        assert spectator_view["public"] == state.public_view()
        # Another seat's hidden cards swapped: the person's and the spectator's answers stay the same.
        for observer in range(table.players):
            twin = state.perturb_hidden(observer, rng)
            if twin is None:
                continue
            if observer == table.person_seat:
                assert twin.observation(observer) == person_view["observation"]
                # The choices offered for the blanks (words, cards) tell nothing hidden either.
                legal = person_view["legal_actions"]
                assert json.loads(json.dumps(twin.blanks(legal))) == person_view["blanks"]
            assert twin.public_view() == spectator_view["public"]
            checked["perturbed"] += 1
        checked["person"] += 1
        checked["spectator"] += 1

    play_person(table, alice, choose=check)
    table.refresh_from_db()
    assert table.status == Table.Status.FINISHED
    assert checked["person"] > 0 and checked["perturbed"] > 0, checked
    # the person's view needs the API to agree with the service the event stream uses
    assert tables.table_view(table, alice)["status"] == "finished"
