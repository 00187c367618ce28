"""Challenges and version tests: who may ask, the hourly limit (429), seat rotation, and the results table."""

from __future__ import annotations

import re
from collections import Counter
from datetime import timedelta

import pytest
from django.test import Client
from django.test.utils import override_settings
from django.utils import timezone
from rest_framework.test import APIClient

from league.bots.models import Bot, BotVersion
from league.bots.services import do_add_version, do_create_bot, do_record_validation
from league.challenges.models import Challenge
from league.challenges.queries import challenge_report
from league.challenges.services import do_create_challenge, do_create_version_test
from league.play.matches import do_claim_match
from league.play.models import Match
from league.play.recording import do_record_match_result
from league.ratings.models import RatingChange
from league.tournaments import formats as tf
from tests.results import runner_result


def _ready_bot(owner, name: str, game: str = "love_letter") -> Bot:
    bot = do_create_bot(owner, game, name, b"print('hi')\n", "bot.py")
    do_record_validation(bot.versions.get().pk, True, "ok", "")
    return bot


def _new_version(bot: Bot) -> BotVersion:
    version = do_add_version(bot, b"print('v2')\n", "bot.py")
    do_record_validation(version.pk, True, "ok", "")
    return version


def _play(match: Match, ranks_by_version: dict[int, int], wall_ms: int = 5) -> None:
    """Record a result for ``match``: each seat's rank from its version, played in ``wall_ms``."""
    do_claim_match(match.pk)
    seats = list(match.seats.order_by("number"))
    result = {
        "seats": [
            {"rank": ranks_by_version[s.bot_version_id], "score": 0.0, "fault": None, "stderr": "", "moves": 2}
            for s in seats
        ],
        "replay": {"format": "parlour-replay/1", "moves": []},
        "wall_ms": wall_ms,
    }
    assert do_record_match_result(match.pk, runner_result(result))


@pytest.fixture
def duel(alice, bob) -> tuple[Bot, Bot]:
    return _ready_bot(alice, "hero"), _ready_bot(bob, "villain")


def test_alice_challenges_bob_and_the_seats_rotate(alice_api: APIClient, duel) -> None:
    hero, villain = duel
    response = alice_api.post(
        "/api/challenges/", {"bot": hero.pk, "opponents": [villain.pk], "games": 6}, format="json"
    )
    assert response.status_code == 201, response.content
    data = response.json()
    assert data["kind"] == "challenge" and data["games"] == 6 and data["status"] == "running"
    assert data["opponents"] == [{"bot": villain.pk, "name": "bob/villain", "version": 1}]
    challenge = Challenge.objects.get(pk=data["id"])
    matches = list(challenge.matches.order_by("id"))
    assert len(matches) == 6 and {m.kind for m in matches} == {Match.Kind.CHALLENGE}
    first_seats = Counter(m.seats.get(number=0).bot_version.bot_id for m in matches)
    assert first_seats == {hero.pk: 3, villain.pk: 3}
    # Each deal is played twice, once from each seat; its seed is derived one way from the challenge's secret seed.
    deals = [tf.match_seed(challenge.seed, 0, 0, deal) for deal in range(3)]
    assert Counter(m.seed for m in matches) == dict.fromkeys(deals, 2) and challenge.seed not in deals


@override_settings(SERIES_GAMES=2)
def test_a_rotations_games_are_played_in_series_and_no_series_sees_a_deal_twice(alice_api: APIClient, duel) -> None:
    hero, villain = duel
    response = alice_api.post(
        "/api/challenges/", {"bot": hero.pk, "opponents": [villain.pk], "games": 7}, format="json"
    )
    assert response.status_code == 201, response.content
    matches = list(Challenge.objects.get(pk=response.json()["id"]).matches.order_by("id"))
    by_series: dict[int | None, list[Match]] = {}
    for match in matches:
        by_series.setdefault(match.series_id, []).append(match)
    # hero first: deals 0-3 (series of 2, 2); villain first: deals 0-2 (a series of 2, then a single match)
    assert sorted(len(games) for key, games in by_series.items() if key is not None) == [2, 2, 2]
    assert len(by_series.get(None, [])) == 1
    for key, games in by_series.items():
        if key is not None:
            assert len({m.seed for m in games}) == len(games)  # no deal twice on the same processes
            assert len({tuple(m.seats.values_list("bot_version_id", flat=True)) for m in games}) == 1


def test_bob_cannot_challenge_with_alices_bot(bob_api: APIClient, duel) -> None:
    hero, villain = duel
    response = bob_api.post("/api/challenges/", {"bot": hero.pk, "opponents": [villain.pk], "games": 2}, format="json")
    assert response.status_code == 403
    assert response.json()["error"]["code"] == "forbidden"
    assert not Challenge.objects.exists() and not Match.objects.exists()


def test_anonymous_users_can_read_a_challenge_but_not_ask_for_one(anon_api: APIClient, alice, duel) -> None:
    hero, villain = duel
    response = anon_api.post("/api/challenges/", {"bot": hero.pk, "opponents": [villain.pk], "games": 2}, format="json")
    assert response.status_code in (401, 403)
    assert anon_api.get("/api/challenges/").status_code in (401, 403)
    challenge = do_create_challenge(alice, hero.pk, [villain.pk], 2)
    assert anon_api.get(f"/api/challenges/{challenge.pk}/").status_code == 200


@pytest.mark.parametrize(
    ("payload", "status", "words"),
    [
        ({"opponents": [], "games": 2}, 400, "at least one opponent"),
        ({"opponents": [999999], "games": 2}, 400, "no bot"),
        ({"opponents": ["SELF"], "games": 2}, 400, "cannot challenge itself"),
        ({"opponents": ["OTHER"] * 4, "games": 2}, 400, "2 to 4 players"),
        ({"opponents": ["OTHER"], "games": 0}, 400, ""),
        ({"opponents": ["OTHER"], "games": 101}, 400, "at most 100 games"),
        ({"opponents": ["TEN"], "games": 2}, 400, "plays TEN"),
    ],
)
def test_bad_requests_are_refused_with_a_reason(alice_api, alice, bob, duel, payload, status, words) -> None:
    hero, villain = duel
    ten = _ready_bot(bob, "tenner", "ten")
    names = {"SELF": hero.pk, "OTHER": villain.pk, "TEN": ten.pk}
    payload = {**payload, "bot": hero.pk, "opponents": [names.get(o, o) for o in payload["opponents"]]}
    response = alice_api.post("/api/challenges/", payload, format="json")
    assert response.status_code == status, response.content
    assert words in response.json()["error"]["message"]
    assert not Match.objects.exists()


def test_a_bot_without_a_ready_version_cannot_play(alice_api, alice, duel) -> None:
    _hero, villain = duel
    pending = do_create_bot(alice, "love_letter", "pending", b"print()\n", "bot.py")
    response = alice_api.post("/api/challenges/", {"bot": pending.pk, "opponents": [villain.pk], "games": 2})
    assert response.status_code == 409 and "still being validated" in response.json()["error"]["message"]
    # Rejected: the message gives the validation's reason in plain words (issue #19, finding 3).
    do_record_validation(pending.versions.get().pk, False, "Smoke match failed: the bot crashed at start-up", "")
    response = alice_api.post("/api/challenges/", {"bot": pending.pk, "opponents": [villain.pk], "games": 2})
    message = response.json()["error"]["message"]
    assert response.status_code == 409 and "v1 was rejected" in message and "crashed at start-up" in message
    # As an opponent too, and the challenges page does not offer it to start one.
    response = alice_api.post("/api/challenges/", {"bot": _hero.pk, "opponents": [pending.pk], "games": 2})
    assert response.status_code == 409 and "crashed at start-up" in response.json()["error"]["message"]
    client = Client()
    client.force_login(alice)
    page = client.get("/challenges/").content.decode()
    assert f'href="/bots/{pending.pk}/challenge/"' not in page and f'href="/bots/{_hero.pk}/challenge/"' in page
    assert "1 of your bots cannot play yet" in page


@override_settings(FAIR_USE_WORKER_SECONDS_PER_HOUR=3)
def test_once_an_owners_worker_time_is_spent_challenges_answer_429(alice_api, bob_api, duel) -> None:
    hero, villain = duel
    ask = {"bot": hero.pk, "opponents": [villain.pk], "games": 2}
    response = alice_api.post("/api/challenges/", ask, format="json")
    assert response.status_code == 201
    # Two games well under the game count's limit, but a slow bot's: 2 s of worker time each.
    for match in Challenge.objects.get(pk=response.json()["id"]).matches.all():
        _play(match, {hero.versions.get().pk: 1, villain.versions.get().pk: 2}, wall_ms=2000)
    response = alice_api.post("/api/challenges/", ask, format="json")
    assert response.status_code == 429, response.content
    error = response.json()["error"]
    assert error["code"] == "rate_limited" and "3 s in the last hour" in error["message"], error
    retry = int(response["Retry-After"])
    assert 3500 < retry <= 3600 and error["retry_after_seconds"] == retry
    # Alice's slow games are hers alone: Bob, who spent nothing, is served.
    back = {"bot": villain.pk, "opponents": [hero.pk], "games": 2}
    assert bob_api.post("/api/challenges/", back, format="json").status_code == 201
    # An hour after the games finished, their worker time no longer counts.
    Match.objects.filter(challenges__owner=hero.owner).update(finished_at=timezone.now() - timedelta(minutes=61))
    assert alice_api.post("/api/challenges/", ask, format="json").status_code == 201


@override_settings(CHALLENGE_GAMES_PER_HOUR=10)
def test_over_the_hourly_limit_it_answers_429_with_the_time_to_retry(alice_api, duel) -> None:
    hero, villain = duel
    ask = {"bot": hero.pk, "opponents": [villain.pk]}
    assert alice_api.post("/api/challenges/", {**ask, "games": 4}, format="json").status_code == 201
    assert alice_api.post("/api/challenges/", {**ask, "games": 4}, format="json").status_code == 201
    response = alice_api.post("/api/challenges/", {**ask, "games": 4}, format="json")
    assert response.status_code == 429
    error = response.json()["error"]
    assert error["code"] == "rate_limited" and "limit is 10 an hour" in error["message"]
    retry = int(response["Retry-After"])
    assert 3500 < retry <= 3600 and error["retry_after_seconds"] == retry and error["retry_at"]
    assert Match.objects.count() == 8
    # A smaller request that fits is accepted at once.
    assert alice_api.post("/api/challenges/", {**ask, "games": 2}, format="json").status_code == 201
    # Once the first challenge is over an hour old, its games no longer count.
    first = Challenge.objects.order_by("id").first()
    Challenge.objects.filter(pk=first.pk).update(created=timezone.now() - timedelta(minutes=61))
    assert alice_api.post("/api/challenges/", {**ask, "games": 4}, format="json").status_code == 201


@override_settings(CHALLENGE_GAMES_PER_HOUR=10)
def test_the_limit_is_per_user(alice_api, bob_api, duel) -> None:
    hero, villain = duel
    assert (
        alice_api.post("/api/challenges/", {"bot": hero.pk, "opponents": [villain.pk], "games": 10}).status_code == 201
    )
    assert bob_api.post("/api/challenges/", {"bot": villain.pk, "opponents": [hero.pk], "games": 10}).status_code == 201


def test_results_are_counted_pairwise_with_an_elo_estimate_and_no_rating_change(alice, bob, alice_api) -> None:
    hero, villain, third = _ready_bot(alice, "hero"), _ready_bot(bob, "villain"), _ready_bot(bob, "third")
    challenge = do_create_challenge(alice, hero.pk, [villain.pk, third.pk], 6)
    hv, vv, tv = (bot.current_version().pk for bot in (hero, villain, third))
    matches = list(challenge.matches.order_by("id"))
    for match in matches[:5]:  # hero first each time; villain and third tie once
        _play(match, {hv: 1, vv: 2, tv: 3} if match != matches[4] else {hv: 2, vv: 1, tv: 2})
    report = challenge_report(challenge)
    assert (report.finished, report.in_flight) == (5, 1) and report.status == "running"
    by_bot = {row.version.bot_id: row for row in report.rows}
    assert str(by_bot[villain.pk].tally) == "+4 =0 -1"
    assert str(by_bot[third.pk].tally) == "+4 =1 -0"
    estimate = by_bot[third.pk].estimate
    assert estimate.low < estimate.elo < estimate.high and estimate.elo > 100
    assert not RatingChange.objects.exists()

    data = alice_api.get(f"/api/challenges/{challenge.pk}/").json()
    row = next(r for r in data["results"] if r["opponent"]["bot"] == villain.pk)
    assert (row["games"], row["wins"], row["draws"], row["losses"]) == (5, 4, 0, 1)
    assert row["elo_difference"]["low"] < row["elo_difference"]["estimate"] < row["elo_difference"]["high"]
    assert data["progress"] == {"finished": 5, "failed": 0, "in_flight": 1}
    assert data["sprt"] is None  # only version tests carry the sequential test


def test_the_results_page_shows_the_table(client: Client, alice, bob) -> None:
    hero, villain = _ready_bot(alice, "hero"), _ready_bot(bob, "villain")
    challenge = do_create_challenge(alice, hero.pk, [villain.pk], 2)
    hv, vv = hero.current_version().pk, villain.current_version().pk
    for match in challenge.matches.all():
        _play(match, {hv: 1, vv: 2})
    page = client.get(f"/challenges/{challenge.pk}/").content.decode()
    assert "challenge-results" in page and "bob/villain" in page and "finished" in page
    table = page[page.index("challenge-results") :]
    row = table[table.index("bob/villain</a>") :]
    row = row[: row.index("</tr>")]
    numbers = list(re.findall(r'<td class="num[^"]*">([^<]*)</td>', row))
    assert numbers[:5] == ["2", "2", "0", "0", "100.0%"]


def test_a_version_test_plays_the_new_version_against_the_previous_one(alice, alice_api) -> None:
    bot = _ready_bot(alice, "hero")
    response = alice_api.post("/api/challenges/", {"kind": "version_test", "bot": bot.pk, "games": 4})
    assert response.status_code == 400 and response.json()["error"]["code"] == "no_previous_version"
    v2 = _new_version(bot)
    response = alice_api.post("/api/challenges/", {"kind": "version_test", "bot": bot.pk, "games": 4})
    assert response.status_code == 201
    data = response.json()
    assert data["kind"] == "version_test" and data["bot"]["version"] == 2
    assert data["opponents"] == [{"bot": bot.pk, "name": "alice/hero", "version": 1}]
    challenge = Challenge.objects.get(pk=data["id"])
    v1 = BotVersion.objects.get(bot=bot, number=1)
    assert v1.status == BotVersion.Status.RETIRED  # replaced on the ladder, still playable in a test
    for match in challenge.matches.all():
        _play(match, {v2.pk: 1, v1.pk: 2})
    data = alice_api.get(f"/api/challenges/{challenge.pk}/").json()
    assert data["status"] == "finished" and data["results"][0]["wins"] == 4
    assert data["sprt"]["elo0"] == 0 and data["sprt"]["llr"] > 0 and data["sprt"]["verdict"] is None
    assert not RatingChange.objects.exists()


def test_a_version_test_in_a_three_player_game_fills_the_third_seat_with_a_builtin(alice) -> None:
    bot = _ready_bot(alice, "hero", "high_society")
    _new_version(bot)
    challenge = do_create_version_test(alice, bot.pk, 3)
    field = BotVersion.objects.get(pk=challenge.opponents[1])
    assert field.bot.is_builtin and field.bot.name == "heuristic" and len(challenge.opponents) == 2
    assert all(match.seats.count() == 3 for match in challenge.matches.all())


def test_the_challenge_form_creates_games_and_shows_the_limit(client: Client, alice, bob) -> None:
    hero, villain = _ready_bot(alice, "hero"), _ready_bot(bob, "villain")
    client.force_login(alice)
    page = client.get(f"/bots/{hero.pk}/challenge/")
    assert page.status_code == 200 and b"bob/villain" in page.content
    response = client.post(f"/bots/{hero.pk}/challenge/", {"kind": "challenge", "opponents": [villain.pk], "games": 4})
    challenge = Challenge.objects.get()
    assert response.status_code == 302 and response.url == f"/challenges/{challenge.pk}/"
    listing = client.get("/challenges/").content.decode()
    assert f'href="/challenges/{challenge.pk}/"' in listing and "4 of your 200 games" in listing
    with override_settings(CHALLENGE_GAMES_PER_HOUR=5):
        response = client.post(
            f"/bots/{hero.pk}/challenge/", {"kind": "challenge", "opponents": [villain.pk], "games": 4}
        )
    assert response.status_code == 429 and int(response["Retry-After"]) > 0
    assert b"limit is 5 an hour" in response.content


def test_only_the_owner_may_open_a_bots_challenge_form(client: Client, alice, bob) -> None:
    hero = _ready_bot(alice, "hero")
    assert client.get(f"/bots/{hero.pk}/challenge/").status_code == 302  # to the login page
    client.force_login(bob)
    assert client.get(f"/bots/{hero.pk}/challenge/").status_code == 403
    assert client.post(f"/bots/{hero.pk}/challenge/", {"kind": "version_test", "games": 2}).status_code == 403


def test_the_list_shows_only_your_own_challenges(alice_api, bob_api, alice, bob) -> None:
    hero, villain = _ready_bot(alice, "hero"), _ready_bot(bob, "villain")
    mine = do_create_challenge(alice, hero.pk, [villain.pk], 2)
    do_create_challenge(bob, villain.pk, [hero.pk], 2)
    listed = alice_api.get("/api/challenges/").json()
    assert listed["count"] == 1 and listed["results"][0]["id"] == mine.pk
