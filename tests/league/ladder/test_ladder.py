"""The ladder scheduler and the automatic pause, through the services and the database."""

from __future__ import annotations

import random
from datetime import timedelta

import pytest
from django.contrib.auth.models import User
from django.core.exceptions import ImproperlyConfigured
from django.test.utils import override_settings
from django.utils import timezone

from league.bots.models import Bot, BotVersion
from league.bots.services import (
    do_add_version,
    do_create_bot,
    do_disable_bot,
    do_record_validation,
    do_register_builtin_bots,
)
from league.ladder.pairing import seat_spread
from league.ladder.scheduling import do_schedule_ladder, ladder_config
from league.play.matches import do_claim_match, do_create_match
from league.play.models import Match, Seat
from league.play.recording import do_record_match_result
from league.ratings.models import Rating
from tests.results import runner_result


def _ready_bot(owner, name: str, game: str = "love_letter") -> Bot:
    bot = do_create_bot(owner, game, name, b"print('hi')\n", "bot.py")
    do_record_validation(bot.versions.get().pk, True, "ok", "")
    return bot


def _owned_bots(names: str, game: str = "love_letter") -> list[Bot]:
    """One ready bot per name, each of its own owner (one owner's bots never meet on the ladder)."""
    return [_ready_bot(User.objects.create_user(f"owner-{name}"), name, game) for name in names]


def _finish_all(ranks_of=lambda match: None) -> None:  # type: ignore[no-untyped-def]
    for match in Match.objects.filter(status=Match.Status.QUEUED).order_by("id"):
        do_claim_match(match.pk)
        seats = match.seats.count()
        faults = ranks_of(match) or [None] * seats
        result = {
            "seats": [
                {"rank": number + 1, "score": 0.0, "fault": fault}
                for number, fault in zip(range(seats), faults, strict=True)
            ],
            "replay": {"moves": []},
            "wall_ms": 1,
        }
        do_record_match_result(match.pk, runner_result(result))


def _ladder(game: str = "love_letter") -> list[Match]:
    return [m for m in do_schedule_ladder(random.Random(7), games=[game])]


@override_settings(LADDER_WORKER_CAPACITY=3, LADDER_QUEUE_DEPTH=10)
def test_the_queue_never_outgrows_the_workers(alice) -> None:
    _owned_bots("abcdef")
    do_register_builtin_bots(["high_society"])
    assert len(do_schedule_ladder(random.Random(1))) == 3
    assert do_schedule_ladder(random.Random(2)) == []
    first = Match.objects.order_by("id").first()
    assert first is not None
    # The whole table: a short game's ladder table is a series of games (the capacity counts tables).
    table = Match.objects.filter(series=first.series) if first.series_id else Match.objects.filter(pk=first.pk)
    table.update(status=Match.Status.FINISHED)
    assert len(do_schedule_ladder(random.Random(3))) == 1


@override_settings(
    LADDER_QUEUE_DEPTH=10, LADDER_WORKER_CAPACITY=50, LADDER_GAMES={"love_letter": {"games_per_hour": 4}}
)
def test_games_per_hour_caps_a_game(alice) -> None:
    _owned_bots("abcd")
    assert len(_ladder()) == 4
    _finish_all()
    assert _ladder() == []
    Match.objects.update(created=timezone.now() - timedelta(hours=2))
    assert len(_ladder()) == 4


@override_settings(
    LADDER_GAMES={"love_letter": {"table_sizes": [3], "time_control": {"move_ms": 500, "bank_ms": 2000}}}
)
def test_table_sizes_and_time_controls_come_from_the_game_settings(alice) -> None:
    _owned_bots("abcd")
    matches = _ladder()
    assert matches and all(m.seats.count() == 3 for m in matches)
    assert all(m.time_control == {"move_ms": 500, "bank_ms": 2000} for m in matches)


@pytest.mark.parametrize(
    "entry",
    [{"table_sizes": [5]}, {"matchmaking": "elo"}, {"time_control": {"move_ms": -1}}, {"games_per_hour": "many"}],
)
def test_bad_game_settings_fail_loudly(entry: dict) -> None:
    with override_settings(LADDER_GAMES={"love_letter": entry}), pytest.raises(ImproperlyConfigured):
        ladder_config("love_letter")


def test_only_the_newest_ready_version_of_an_eligible_bot_is_ever_scheduled(alice, bob, django_user_model) -> None:
    good = _ready_bot(alice, "good")
    v2 = do_add_version(good, b"print(2)\n", "bot.py")
    do_record_validation(v2.pk, True, "ok", "")
    do_add_version(good, b"print(3)\n", "bot.py")  # pending
    v4 = do_add_version(good, b"print(4)\n", "bot.py")
    do_record_validation(v4.pk, False, "crashed", "")
    _ready_bot(bob, "other")
    pending = do_create_bot(alice, "love_letter", "pending", b"x\n", "bot.py")
    rejected = do_create_bot(alice, "love_letter", "rejected", b"x\n", "bot.py")
    do_record_validation(rejected.versions.get().pk, False, "crashed", "")
    disabled = _ready_bot(alice, "disabled")
    do_disable_bot(disabled, alice)
    paused = _ready_bot(alice, "paused")
    Bot.objects.filter(pk=paused.pk).update(paused_at=timezone.now(), paused_reason="faults")
    gone = django_user_model.objects.create_user("gone")
    orphan = _ready_bot(gone, "orphan")
    gone.is_active = False
    gone.save()

    assert list(good.versions.values_list("number", "status")) == [
        (4, "rejected"),
        (3, "pending"),
        (2, "ready"),
        (1, "retired"),
    ]
    seated = set()
    for _ in range(5):
        for match in _ladder():
            seated |= {(s.bot_version.bot_id, s.bot_version.number) for s in match.seats.select_related("bot_version")}
        _finish_all()
    assert seated == {(good.pk, 2), (Bot.objects.get(name="other").pk, 1)}
    excluded = {pending.pk, rejected.pk, disabled.pk, paused.pk, orphan.pk}
    assert not excluded & {bot_id for bot_id, _number in seated}


def test_a_version_validated_out_of_order_does_not_replace_a_newer_one(alice) -> None:
    bot = do_create_bot(alice, "love_letter", "b", b"x\n", "bot.py")
    v2 = do_add_version(bot, b"y\n", "bot.py")
    do_record_validation(v2.pk, True, "ok", "")
    do_record_validation(bot.versions.get(number=1).pk, True, "ok", "")
    assert dict(bot.versions.values_list("number", "status")) == {1: "retired", 2: "ready"}
    assert bot.current_version().number == 2


# Series of 2: seats are counted per table, not per game (the game's own 12 would only make the test slow).
@override_settings(LADDER_QUEUE_DEPTH=3, LADDER_WORKER_CAPACITY=3, LADDER_GAMES={"love_letter": {"series": 2}})
def test_seat_counts_are_kept_and_evened_out(alice) -> None:
    _owned_bots("abcd")
    for _ in range(40):
        _ladder()
        _finish_all()
    for bot in Bot.objects.all():
        assert bot.ladder_seats and seat_spread(bot.ladder_seats) <= 2, bot.ladder_seats
        # Seats are counted per table (a series is one table of several games).
        seats = Seat.objects.filter(bot_version__bot=bot)
        tables = seats.filter(match__series__isnull=True).count()
        tables += seats.filter(match__series__isnull=False).values("match__series").distinct().count()
        assert sum(sum(counts) for counts in bot.ladder_seats.values()) == tables


def test_a_bot_that_faults_in_more_than_a_tenth_of_its_last_50_matches_is_paused(alice, bob, client) -> None:
    flaky, steady = _ready_bot(alice, "flaky"), _ready_bot(bob, "steady")
    versions = [flaky.current_version(), steady.current_version()]
    timeout = {"cause": "timeout", "detail": "no action within 1000 ms", "move": 4}
    ok = {"rank": 1, "score": 0}
    crash = {"cause": "crash", "detail": "exit status 1", "move": 2}
    for n in range(50):
        match = do_create_match("love_letter", versions)
        do_claim_match(match.pk)
        fault = (timeout if n % 2 else crash) if n in (3, 9, 20, 33, 41) else None
        do_record_match_result(
            match.pk,
            runner_result(
                {
                    "seats": [
                        {"rank": 2 if fault else 1, "score": 0, "fault": fault},
                        {**ok, "rank": 1 if fault else 2},
                    ],
                    "replay": {},
                }
            ),
        )
    flaky.refresh_from_db()
    assert not flaky.is_paused  # five faults in fifty: exactly 10%, not more
    match = do_create_match("love_letter", versions)
    do_claim_match(match.pk)
    do_record_match_result(
        match.pk,
        runner_result({"seats": [{"rank": 2, "score": 0, "fault": timeout}, {"rank": 1, "score": 0}], "replay": {}}),
    )
    flaky.refresh_from_db()
    assert flaky.is_paused and "6 of its last 50 matches" in flaky.paused_reason
    assert "ran out of time: 5" in flaky.paused_reason and "crashed: 1" in flaky.paused_reason
    assert "no action within 1000 ms" in flaky.paused_reason
    assert not Bot.objects.get(pk=steady.pk).is_paused
    assert all(seat.bot_version.bot_id != flaky.pk for m in _ladder() for seat in m.seats.all())

    # Its owner sees why, on the bot page and in the API, and can resume it; a new version also lifts the pause.
    client.force_login(alice)
    page = client.get(f"/bots/{flaky.pk}/").content.decode()
    assert "Paused" in page and "6 of its last 50 matches" in page and "Resume it anyway" in page
    assert client.get(f"/api/bots/{flaky.pk}/").json()["paused_reason"] == flaky.paused_reason
    client.force_login(bob)
    assert client.post(f"/bots/{flaky.pk}/ladder/", {"action": "resume"}).status_code == 403
    client.force_login(alice)
    client.post(f"/bots/{flaky.pk}/ladder/", {"action": "resume"})
    flaky.refresh_from_db()
    assert not flaky.is_paused and flaky.fault_window_start is not None

    Bot.objects.filter(pk=flaky.pk).update(paused_at=timezone.now(), paused_reason="again")
    do_record_validation(do_add_version(flaky, b"fixed\n", "bot.py").pk, True, "ok", "")
    flaky.refresh_from_db()
    assert not flaky.is_paused and flaky.paused_reason == ""


def test_ratings_follow_the_version_that_played(alice, bob) -> None:
    mine = _ready_bot(alice, "mine")
    _ready_bot(bob, "theirs")
    for _ in range(3):
        do_schedule_ladder(random.Random(1), games=["love_letter"])
        _finish_all()
    before = Rating.objects.get(bot=mine)
    assert before.games_since_version == before.games > 0 and before.version == 1
    v2 = do_add_version(mine, b"v2\n", "bot.py")
    do_record_validation(v2.pk, True, "ok", "")
    assert BotVersion.objects.get(bot=mine, number=1).status == BotVersion.Status.RETIRED
    do_schedule_ladder(random.Random(2), games=["love_letter"])
    _finish_all()
    rating = Rating.objects.get(bot=mine)
    played = rating.games - before.games
    assert played > 0 and (rating.version, rating.games_since_version) == (2, played)
