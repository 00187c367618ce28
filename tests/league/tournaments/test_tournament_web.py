"""Tournaments on the web: the admin (create, then start / pause / resume / cancel with a confirmation page), the
API (reads for everyone, writes for staff only), and the pages (list, standings, progress, rounds, bracket)."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from django.test import Client
from rest_framework.test import APIClient

from league.accounts.tokens import do_create_token
from league.bots.models import Bot
from league.play.matches import do_claim_match
from league.play.models import Match
from league.play.recording import do_record_match_result
from league.tournaments.models import Tournament
from league.tournaments.services import (
    do_advance_tournament,
    do_create_tournament,
    do_pause_tournament,
    do_start_tournament,
)
from tests.league.tournaments.tournament_helpers import by_strength, make_bots, play_out, result
from tests.results import runner_result


@pytest.fixture
def staff(db) -> User:
    return User.objects.create_user("staff", "staff@example.org", is_staff=True, is_superuser=True)


@pytest.fixture
def staff_client(staff) -> Client:
    client = Client()
    client.force_login(staff)
    return client


@pytest.fixture
def staff_api(staff) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {do_create_token(staff, 'ops')[1]}")
    return client


def _strength(bots) -> dict[str, float]:  # type: ignore[no-untyped-def]
    return {bot.name: -index for index, bot in enumerate(bots)}


# ----- admin --------------------------------------------------------------------------------------------------


def test_staff_create_a_tournament_in_the_admin(staff, staff_client) -> None:
    bots = make_bots(staff, "love_letter", 4)
    response = staff_client.get("/admin/league/tournament/add/")
    assert response.status_code == 200 and b"Games per pairing" in response.content
    response = staff_client.post(
        "/admin/league/tournament/add/",
        {
            "name": "Winter cup",
            "game": "love_letter",
            "format": "round_robin",
            "bots": [bot.pk for bot in bots],
            "games_per_pairing": "2",
            "move_ms": "800",
            "forfeit_after": "",
            "_save": "Save",
        },
    )
    assert response.status_code == 302, response.content.decode()[:2000]
    tournament = Tournament.objects.get()
    assert (tournament.name, tournament.status, tournament.created_by) == ("Winter cup", "draft", staff)
    assert tournament.settings["games_per_pairing"] == 2 and tournament.settings["forfeit_after"] == 3
    assert tournament.settings["time_control"] == {"move_ms": 800}
    assert tournament.entries.count() == 4


def test_staff_edit_a_draft_in_the_admin(staff, staff_client) -> None:
    bots = make_bots(staff, "high_society", 5)
    tournament = do_create_tournament(staff, "high_society", "Draft", "swiss", {}, bots[:3])
    url = f"/admin/league/tournament/{tournament.pk}/change/"
    page = staff_client.get(url)
    assert page.status_code == 200 and b'name="table_size"' in page.content
    response = staff_client.post(
        url,
        {
            "name": "HS open",
            "format": "knockout",
            "bots": [bot.pk for bot in bots],
            "table_size": "4",
            "advance": "2",
            "duplicate": "on",
            "_save": "Save",
        },
    )
    assert response.status_code == 302, response.content.decode()[:3000]
    tournament.refresh_from_db()
    assert (tournament.name, tournament.format, tournament.game) == ("HS open", "knockout", "high_society")
    assert tournament.settings["table_size"] == 4 and tournament.settings["duplicate"] is True
    assert tournament.entries.count() == 5
    listing = staff_client.get("/admin/league/tournament/")
    assert listing.status_code == 200 and b"HS open" in listing.content


def test_the_admin_form_refuses_bots_of_another_game(staff, staff_client) -> None:
    bots = make_bots(staff, "love_letter", 2) + make_bots(staff, "ten", 1, prefix="ten")
    response = staff_client.post(
        "/admin/league/tournament/add/",
        {"name": "Mixed", "game": "love_letter", "format": "swiss", "bots": [bot.pk for bot in bots]},
    )
    assert response.status_code == 200
    assert "these bots play another game than love_letter: staff/ten0 (ten)" in response.content.decode()
    assert not Tournament.objects.exists()


@pytest.mark.parametrize(
    ("action", "before", "after"),
    [
        ("start_tournaments", {}, {"status": "running"}),
        ("pause_tournaments", {"start": True}, {"paused": True}),
        ("resume_tournaments", {"start": True, "pause": True}, {"paused": False}),
        ("cancel_tournaments", {"start": True}, {"status": "cancelled"}),
    ],
)
def test_admin_actions_ask_for_confirmation_then_act(staff, staff_client, action, before, after) -> None:
    bots = make_bots(staff, "love_letter", 3)
    tournament = do_create_tournament(staff, "love_letter", "Cup", "round_robin", {}, bots)
    if before.get("start"):
        do_start_tournament(tournament)
    if before.get("pause"):
        do_pause_tournament(tournament)
    url = "/admin/league/tournament/"
    page = staff_client.post(url, {"action": action, "_selected_action": [tournament.pk]})
    assert page.status_code == 200
    text = page.content.decode()
    assert "Are you sure you want to" in text and "Cup" in text and 'name="post" value="yes"' in text
    tournament.refresh_from_db()
    assert all(getattr(tournament, key) != value for key, value in after.items()), "nothing happens before yes"
    done = staff_client.post(url, {"action": action, "_selected_action": [tournament.pk], "post": "yes"}, follow=True)
    past = {"start": "Started", "pause": "Paused", "resume": "Resumed", "cancel": "Cancelled"}[action.split("_")[0]]
    said = done.content.decode()
    link = f'<a href="/tournaments/{tournament.pk}/">its public page</a>'
    assert done.status_code == 200 and f"{past} “Cup”: {link}." in said
    tournament.refresh_from_db()
    assert all(getattr(tournament, key) == value for key, value in after.items())


def test_an_admin_action_that_is_refused_says_why(staff, staff_client) -> None:
    bots = make_bots(staff, "love_letter", 1)
    tournament = do_create_tournament(staff, "love_letter", "Tiny", "round_robin", {}, bots)
    response = staff_client.post(
        "/admin/league/tournament/",
        {"action": "start_tournaments", "_selected_action": [tournament.pk], "post": "yes"},
        follow=True,
    )
    assert "Tiny: a round robin at tables of 2 needs at least 2 entrants; this one has 1" in response.content.decode()
    tournament.refresh_from_db()
    assert tournament.status == "draft"


def test_a_started_tournament_is_read_only_in_the_admin(staff, staff_client) -> None:
    bots = make_bots(staff, "love_letter", 2)
    tournament = do_create_tournament(staff, "love_letter", "Cup", "round_robin", {}, bots)
    do_start_tournament(tournament)
    page = staff_client.get(f"/admin/league/tournament/{tournament.pk}/change/")
    assert page.status_code == 200 and b'name="name"' not in page.content
    staff_client.post(f"/admin/league/tournament/{tournament.pk}/change/", {"name": "Renamed"})
    tournament.refresh_from_db()
    assert tournament.name == "Cup"


# ----- API ----------------------------------------------------------------------------------------------------


def _create_payload(bots) -> dict:  # type: ignore[no-untyped-def]
    return {
        "name": "API cup",
        "game": "love_letter",
        "format": "knockout",
        "settings": {"best_of": 3},
        "bots": [bot.pk for bot in bots],
    }


def test_only_staff_write_tournaments_through_the_api(staff, staff_api, alice_api, anon_api) -> None:
    bots = make_bots(staff, "love_letter", 4)
    anonymous = anon_api.post("/api/tournaments/", _create_payload(bots), format="json")
    assert anonymous.status_code == 401
    refused = alice_api.post("/api/tournaments/", _create_payload(bots), format="json")
    assert refused.status_code == 403
    assert refused.json()["error"]["message"] == "only staff can change tournaments"
    assert not Tournament.objects.exists()
    created = staff_api.post("/api/tournaments/", _create_payload(bots), format="json")
    assert created.status_code == 201, created.content
    tournament_id = created.json()["id"]
    for verb in ("start", "pause", "resume", "cancel"):
        assert alice_api.post(f"/api/tournaments/{tournament_id}/{verb}/").status_code == 403
        assert anon_api.post(f"/api/tournaments/{tournament_id}/{verb}/").status_code == 401
    assert alice_api.patch(f"/api/tournaments/{tournament_id}/", {"name": "x"}, format="json").status_code == 403
    assert Tournament.objects.get().status == "draft"


def test_staff_run_a_tournament_through_the_api_and_everyone_reads_it(staff, staff_api, anon_api) -> None:
    bots = make_bots(staff, "love_letter", 4)
    tournament_id = staff_api.post("/api/tournaments/", _create_payload(bots), format="json").json()["id"]
    # A draft is staff's, as on the site (league/site/visibility.py); everyone reads it once started.
    assert anon_api.get("/api/tournaments/").json()["count"] == 0
    assert staff_api.get("/api/tournaments/").json()["count"] == 1
    started = staff_api.post(f"/api/tournaments/{tournament_id}/start/")
    assert started.status_code == 200 and started.json()["status"] == "running"
    assert anon_api.get("/api/tournaments/").json()["count"] == 1
    again = staff_api.post(f"/api/tournaments/{tournament_id}/start/")
    assert again.status_code == 409 and again.json()["error"]["code"] == "already_started"
    tournament = play_out(Tournament.objects.get(pk=tournament_id), by_strength(_strength(bots)))
    assert tournament.status == "finished"
    detail = anon_api.get(f"/api/tournaments/{tournament_id}/").json()
    assert detail["progress"] == 100 and detail["planned_rounds"] == 2
    assert [row["name"] for row in detail["standings"][:2]] == ["staff/bot0", "staff/bot1"]
    assert set(detail["standings"][0]["tiebreaks"]) == {"round_reached", "series_points"}
    first = detail["rounds"][0]
    assert first["status"] == "finished" and len(first["tables"]) == 2
    match = first["tables"][0]["matches"][0]
    assert match["url"].endswith(f"/matches/{match['id']}/") and match["status"] == "finished"
    assert anon_api.get(f"/api/tournaments/{tournament_id}/standings/").json()["results"][0]["position"] == 1
    assert anon_api.get(f"/api/tournaments/{tournament_id}/rounds/").json()["count"] == 2


def test_bad_api_input_is_a_clear_400_and_creates_nothing(staff, staff_api) -> None:
    bots = make_bots(staff, "love_letter", 2) + make_bots(staff, "ten", 1, prefix="ten")
    response = staff_api.post("/api/tournaments/", _create_payload(bots), format="json")
    assert response.status_code == 400 and response.json()["error"]["code"] == "wrong_game"
    response = staff_api.post(
        "/api/tournaments/", {**_create_payload(bots[:2]), "settings": {"best_of": "three"}}, format="json"
    )
    assert response.status_code == 400 and "best_of must be a whole number" in response.json()["error"]["message"]
    response = staff_api.post("/api/tournaments/", {"name": "x"}, format="json")
    assert response.status_code == 400 and response.json()["error"]["code"] == "invalid"
    assert not Tournament.objects.exists()


def test_staff_add_entrants_to_a_draft_through_the_api(staff, staff_api) -> None:
    bots = make_bots(staff, "love_letter", 3)
    tournament_id = staff_api.post("/api/tournaments/", _create_payload(bots[:2]), format="json").json()["id"]
    added = staff_api.post(f"/api/tournaments/{tournament_id}/entries/", {"bot": bots[2].pk}, format="json")
    assert added.status_code == 201 and len(added.json()["standings"]) == 3
    twice = staff_api.post(f"/api/tournaments/{tournament_id}/entries/", {"bot": bots[2].pk}, format="json")
    assert twice.status_code == 409


# ----- pages --------------------------------------------------------------------------------------------------


def test_the_list_shows_running_and_finished_tournaments_but_drafts_only_to_staff(staff, staff_client, client) -> None:
    bots = make_bots(staff, "love_letter", 2)
    do_create_tournament(staff, "love_letter", "Secret draft", "round_robin", {}, bots)
    done = do_create_tournament(staff, "love_letter", "Done cup", "round_robin", {}, bots)
    do_start_tournament(done)
    play_out(done, by_strength(_strength(bots)))
    public = client.get("/tournaments/").content.decode()
    assert "Done cup" in public and "Secret draft" not in public and "staff/bot0" in public
    assert "Secret draft" in staff_client.get("/tournaments/").content.decode()
    assert client.get(f"/tournaments/{Tournament.objects.get(name='Secret draft').pk}/").status_code == 404
    assert 'href="/tournaments/"' in client.get("/").content.decode(), "the nav links to the tournaments"


def test_the_page_shows_standings_with_tie_breaks_progress_and_every_match(staff, client) -> None:
    bots = make_bots(staff, "love_letter", 4)
    tournament = do_create_tournament(staff, "love_letter", "Swiss open", "swiss", {}, bots)
    do_start_tournament(tournament)
    first = Match.objects.filter(round__tournament=tournament).order_by("id").first()
    do_claim_match(first.pk)
    do_record_match_result(first.pk, runner_result(result([1, 2])))
    do_advance_tournament(tournament.pk)
    page = client.get(f"/tournaments/{tournament.pk}/").content.decode()
    assert "<progress" in page and "round 1 of 2: 1 of 2 games played" in page
    assert "Buchholz" in page and "Sonneborn-Berger" in page and "Wins" in page
    for match in Match.objects.filter(round__tournament=tournament):
        assert f'href="/matches/{match.pk}/"' in page
    assert "<svg" not in page, "only knockouts draw a bracket"


def test_a_knockout_page_draws_its_bracket_without_javascript(staff, client, django_assert_max_num_queries) -> None:
    bots = make_bots(staff, "love_letter", 6)
    tournament = do_create_tournament(staff, "love_letter", "KO", "knockout", {}, bots)
    do_start_tournament(tournament)
    page = client.get(f"/tournaments/{tournament.pk}/").content.decode()
    assert "<svg" in page and "Semi-finals" in page and "Final" in page
    # Drawn on the server: the scripts are htmx, which only asks for the live part again, and the site's own (the
    # phone menu, scrolling boxes named for the keyboard).
    assert page.count("<script") == 2 and '<script src="/static/league/htmx.min.js" defer>' in page
    assert '<script src="/static/league/site.js">' in page
    assert page.count('class="box placeholder"') == 2 + 1, "the semi-finals and the final are still to come"
    assert "Quarter-finals" in page
    play_out(tournament, by_strength(_strength(bots)))
    with django_assert_max_num_queries(15):
        page = client.get(f"/tournaments/{tournament.pk}/").content.decode()
    assert 'class="through">1. staff/bot0' in page
    assert "Final standings" in page


def test_a_four_player_knockout_bracket_has_a_box_per_table(staff, client) -> None:
    bots = make_bots(staff, "high_society", 8)
    tournament = do_create_tournament(staff, "high_society", "HS KO", "knockout", {"table_size": 4, "advance": 2}, bots)
    do_start_tournament(tournament)
    play_out(tournament, by_strength(_strength(bots)))
    page = client.get(f"/tournaments/{tournament.pk}/").content.decode()
    assert page.count('<g class="box"') == 3 and page.count('class="link"') == 2


def test_the_admin_form_offers_ready_bots_labelled_with_their_game(staff, staff_client) -> None:
    ready = make_bots(staff, "love_letter", 1, prefix="ll") + make_bots(staff, "ten", 1, prefix="tn")
    Bot.objects.create(owner=staff, game="love_letter", name="never-validated")  # no ready version
    page = staff_client.get("/admin/league/tournament/add/").content.decode()
    assert "staff/ll0 · Love Letter · ready" in page and f"staff/tn0 · {ready[1].get_game_display()} · ready" in page
    assert 'data-game="love_letter"' in page and "never-validated" not in page
    assert "league/admin_tournament.js" in page
    draft = do_create_tournament(staff, "love_letter", "Draft", "swiss", {}, ready[:1])
    change = staff_client.get(f"/admin/league/tournament/{draft.pk}/change/").content.decode()
    assert "staff/ll0 · Love Letter" in change and "staff/tn0" not in change  # the draft's game only


def test_a_tournament_over_before_its_page_opens_offers_its_games_replays(staff, client) -> None:
    """Stumble 32: the page of a tournament that finished before it loaded leads to its games' replays."""
    bots = make_bots(staff, "love_letter", 4)
    tournament = do_create_tournament(staff, "love_letter", "KO", "knockout", {}, bots)
    do_start_tournament(tournament)
    assert "data-watch-final" not in client.get(f"/tournaments/{tournament.pk}/").content.decode()  # not over yet
    play_out(tournament, by_strength(_strength(bots)))
    assert tournament.status == Tournament.Status.FINISHED
    page = client.get(f"/tournaments/{tournament.pk}/").content.decode()
    final = Match.objects.filter(round__tournament=tournament).order_by("-round__number", "id").first()
    assert final is not None
    assert f'<a class="button small" href="/matches/{final.pk}/" data-watch-final>Watch the final</a>' in page
    for match in Match.objects.filter(round__tournament=tournament):
        assert f'href="/matches/{match.pk}/"' in page  # every game, by its number
