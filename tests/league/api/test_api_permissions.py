"""Every operation of the schema, tried by the owner (alice), another user (bob), anonymous and staff.

The table below must name every operation the schema has: a new endpoint without a row fails the first test."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.core.management import call_command
from drf_spectacular.generators import SchemaGenerator
from rest_framework.test import APIClient

from league.accounts.tokens import do_create_token
from league.bots.models import Bot
from league.bots.services import do_create_bot, do_record_validation, do_register_builtin_bots
from league.play.matches import do_claim_match, do_create_match
from league.play.recording import do_record_match_result
from league.tournaments.models import Tournament
from tests.conftest import EXAMPLE_BOT
from tests.results import runner_result

SECRET = "SECRET-STDERR-of-alice"
ANON_WRITE = {401, 403}
DENIED = {403, 404}
OK = {200}

# (method, path): expected statuses for anon, alice (the owner of bot {bot}), bob, staff.
PUBLIC_READ = (OK, OK, OK, OK)
USER_READ = (ANON_WRITE, OK, OK, OK)
OWNER_WRITE = (ANON_WRITE, {200, 201, 400, 409}, DENIED, DENIED)
STAFF_WRITE = (ANON_WRITE, {403}, {403}, {200, 201, 400, 409})
ANY_USER_WRITE = (ANON_WRITE, {201, 400}, {201, 400}, {201, 400})
DRAFT_READ = ({404}, {404}, {404}, OK)  # this world's tournament is a draft: staff's alone (league/site/visibility.py)
TABLE: dict[tuple[str, str], tuple[set[int], ...]] = {
    ("get", "/api/games/"): PUBLIC_READ,
    ("get", "/api/games/{id}/"): PUBLIC_READ,
    ("get", "/api/leaderboards/{game}/"): PUBLIC_READ,
    ("get", "/api/bots/"): PUBLIC_READ,
    ("post", "/api/bots/"): ANY_USER_WRITE,
    ("get", "/api/bots/{id}/"): PUBLIC_READ,
    ("get", "/api/bots/{id}/ratings/"): PUBLIC_READ,
    ("get", "/api/bots/{id}/fitted-history/"): PUBLIC_READ,
    ("get", "/api/bots/{id}/head-to-head/"): PUBLIC_READ,
    ("post", "/api/bots/{id}/versions/"): OWNER_WRITE,
    ("post", "/api/bots/{id}/resume/"): OWNER_WRITE,
    ("post", "/api/bots/{id}/disable/"): OWNER_WRITE,
    ("post", "/api/bots/{id}/remote-token/"): OWNER_WRITE,  # 400 for alice: her bot is not remote
    ("delete", "/api/bots/{id}/remote-token/"): OWNER_WRITE,
    ("get", "/api/matches/"): PUBLIC_READ,
    ("get", "/api/matches/{id}/"): PUBLIC_READ,
    ("get", "/api/matches/{id}/replay/"): PUBLIC_READ,
    ("get", "/api/matches/{id}/frames/"): ({200, 409},) * 4,  # 409: this world's replay is too short to re-simulate
    ("get", "/api/tournaments/"): PUBLIC_READ,
    ("post", "/api/tournaments/"): STAFF_WRITE,
    ("get", "/api/tournaments/{id}/"): DRAFT_READ,
    ("patch", "/api/tournaments/{id}/"): STAFF_WRITE,
    ("get", "/api/tournaments/{id}/standings/"): DRAFT_READ,
    ("get", "/api/tournaments/{id}/rounds/"): DRAFT_READ,
    ("post", "/api/tournaments/{id}/entries/"): STAFF_WRITE,
    ("post", "/api/tournaments/{id}/start/"): STAFF_WRITE,
    ("post", "/api/tournaments/{id}/pause/"): STAFF_WRITE,
    ("post", "/api/tournaments/{id}/resume/"): STAFF_WRITE,
    ("post", "/api/tournaments/{id}/cancel/"): STAFF_WRITE,
    ("get", "/api/challenges/"): USER_READ,
    ("post", "/api/challenges/"): ANY_USER_WRITE,
    ("get", "/api/challenges/{id}/"): (OK, OK, OK, OK),
    ("get", "/api/me/"): USER_READ,
    ("post", "/api/tables/"): ANY_USER_WRITE,
    ("get", "/api/tables/{id}/"): ({404},) * 4,  # no table in this world
    ("post", "/api/tables/{id}/act/"): (ANON_WRITE, {400, 404}, {400, 404}, {400, 404}),
    ("post", "/api/tables/{id}/cancel/"): (ANON_WRITE, {404}, {404}, {404}),
    ("post", "/api/tables/{id}/resign/"): (ANON_WRITE, {404}, {404}, {404}),
    ("get", "/api/tokens/"): USER_READ,
    ("post", "/api/tokens/"): (ANON_WRITE, {403}, {403}, {201, 400}),  # by session only: alice and bob send tokens
    ("delete", "/api/tokens/{id}/"): (ANON_WRITE, {204}, {404}, {404}),
}


def _operations() -> list[tuple[str, str]]:
    schema = SchemaGenerator().get_schema(request=None, public=True)
    return sorted(
        (method, path)
        for path, item in schema["paths"].items()
        for method in item
        if method in {"get", "post", "put", "patch", "delete"}
    )


def test_every_operation_of_the_schema_is_in_the_table() -> None:
    assert sorted(TABLE) == _operations()


def _build_world() -> dict[str, Any]:
    alice = User.objects.create_user("alice", "alice@example.org", "x")
    bob = User.objects.create_user("bob", "bob@example.org", "x")
    staff = User.objects.create_user("carol", password="x", is_staff=True)
    do_register_builtin_bots()
    bot = do_create_bot(alice, "love_letter", "mine", EXAMPLE_BOT, "b.py")
    do_record_validation(bot.versions.get().pk, False, "crashed", SECRET)
    rand, heur = (Bot.objects.get(name=n, game="love_letter") for n in ("random", "heuristic"))
    match = do_create_match("love_letter", [rand.current_version(), heur.current_version()])
    do_claim_match(match.pk)
    do_record_match_result(
        match.pk,
        runner_result(
            {
                "seats": [{"rank": 1, "score": 1, "fault": None}, {"rank": 2, "score": 0, "fault": None}],
                "replay": {"format": "parlour-replay/1", "moves": []},
                "wall_ms": 1,
            }
        ),
    )
    tournament = Tournament.objects.create(
        name="cup", game="love_letter", format="round_robin", created_by=staff, seed=1
    )
    keys = {user.username: do_create_token(user, "api")[1] for user in (alice, bob)}
    token = do_create_token(alice, "spare")[0]
    return {"bot": bot, "match": match, "tournament": tournament, "token": token, "staff": staff, "keys": keys}


@pytest.fixture(scope="module")
def world(django_db_setup: None, django_db_blocker: Any) -> Iterator[dict[str, Any]]:
    """Built once for the module and committed; each test's own writes are rolled back at its end (the ``db``
    fixture), so every operation still meets this same world. Emptied afterwards for the modules that follow."""
    with django_db_blocker.unblock():
        built = _build_world()
        try:
            yield built
        finally:
            call_command("flush", interactive=False, verbosity=0)


def _client(key: str | None = None, user: User | None = None) -> APIClient:
    client = APIClient()
    if key:
        client.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    if user:
        client.force_authenticate(user)
    return client


def _url(path: str, world: dict[str, Any]) -> str:
    ids = {
        "/api/bots/": world["bot"].pk,
        "/api/matches/": world["match"].pk,
        "/api/tournaments/": world["tournament"].pk,
        "/api/tokens/": world["token"].pk,
        "/api/tables/": 999_999,  # no table in this world
        "/api/challenges/": 999999,
    }
    prefix = next((p for p in ids if path.startswith(p)), "")
    return path.replace("{id}", str(ids.get(prefix, "love_letter"))).replace("{game}", "love_letter")


@pytest.mark.parametrize(("method", "path"), sorted(TABLE))
def test_who_may_do_what(method: str, path: str, world: dict[str, Any], db: None) -> None:
    keys = world["keys"]
    clients = (_client(), _client(keys["alice"]), _client(keys["bob"]), _client(user=world["staff"]))
    url = _url(path, world)
    expected = TABLE[(method, path)]
    if path == "/api/challenges/{id}/":
        expected = ({404},) * 4  # no challenge in this world: a clean 404 for everyone
    for who, client, allowed in zip(("anon", "alice", "bob", "staff"), clients, expected, strict=True):
        response = getattr(client, method)(url, {}, format="json")
        got = f"{method.upper()} {url} as {who}: {response.status_code}, expected one of {sorted(allowed)}"
        assert response.status_code in allowed, f"{got}: {response.content[:300]!r}"
        if response.status_code >= 400:
            assert "error" in response.json(), f"{got}: not the API's error shape"
        if who != "alice" and method == "get":
            assert SECRET not in response.content.decode(), f"{got}: alice's secret stderr leaked"


def test_the_owner_sees_her_logs(world: dict[str, Any], db: None) -> None:
    response = _client(world["keys"]["alice"]).get(f"/api/bots/{world['bot'].pk}/")
    assert SECRET in response.content.decode()
