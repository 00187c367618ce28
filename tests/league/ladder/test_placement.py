"""Placement bursts and series, through the services and the database: a validated version's burst (opponents
spread, seats rotated), series claimed and recorded, a batch in one transaction (ratings game by game, reproduced
exactly by recompute_ratings), a fault rescheduling the rest, placement's lane in the claim order, and the progress
the API and the bot page show. The games recorded are really played (the built-in players, in process)."""

from __future__ import annotations

import io
import itertools
import random
from datetime import timedelta

import pytest
from django.contrib.auth.models import User
from django.core.management import call_command
from django.db import DataError, connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone
from rest_framework.test import APIClient

from bots.results import BotSeat
from bots.runner import SeriesGame, run_series
from league.bots.models import Bot, BotVersion
from league.bots.services import do_create_bot, do_record_validation
from league.ladder.bot_status import bot_status, ordinal
from league.ladder.placement import placement_progress, spread
from league.ladder.scheduling import do_schedule_ladder, ladder_config
from league.play.invariants import check_league
from league.play.matches import do_claim_next_match
from league.play.models import Match, MatchSeries, Seat
from league.play.series import (
    ClaimedSeries,
    do_claim_fairest_series,
    do_claim_next_series,
    do_claim_series,
    do_create_series,
    do_record_series,
    fair_series_order,
)
from league.ratings.models import Rating, RatingChange

GAME = "love_letter"


def _house(count: int) -> list[Bot]:
    """``count`` ready bots of the built-in random player (unrated: the leaderboard's order is then by id)."""
    owner = User.objects.create(username="house")
    bots = []
    for n in range(count):
        bot = Bot.objects.create(owner=owner, game=GAME, name=f"house{n}", is_builtin=True)
        Rating.objects.create(bot=bot)
        BotVersion.objects.create(bot=bot, number=1, builtin="random", status=BotVersion.Status.READY)
        bots.append(bot)
    return bots


def _validated(owner: User, name: str = "newbie") -> BotVersion:
    bot = do_create_bot(owner, GAME, name, b"print('hi')\n", "bot.py")
    version = bot.versions.get()
    do_record_validation(version.pk, True, "ok", "")
    version.refresh_from_db()
    return version


def _play(claimed: ClaimedSeries, games: int | None = None) -> list:  # type: ignore[type-arg]
    """Really play the claimed series' games (built-in random players in every seat, in process)."""
    seats = [BotSeat(label=seat.label, builtin="random") for seat in claimed.seats]
    specs = [SeriesGame(game.seed) for game in claimed.games[:games]]
    return run_series(GAME, seats, specs).games


def _check_ratings() -> str:
    out = io.StringIO()
    call_command("recompute_ratings", "--check", stdout=out)
    return out.getvalue()


@pytest.fixture
def placing(settings, alice, db) -> BotVersion:
    settings.PLACEMENT_GAMES, settings.SERIES_GAMES = 30, 6
    settings.LADDER_GAMES = {GAME: {"table_sizes": [2, 3]}}
    _house(8)
    return _validated(alice)


def test_a_validated_version_gets_a_burst_of_series_spread_over_the_leaderboard(placing: BotVersion) -> None:
    series = list(MatchSeries.objects.filter(placing_version=placing).order_by("pk"))
    assert len(series) == 5
    matches = Match.objects.filter(series__placing_version=placing)
    assert matches.count() == 30 and set(matches.values_list("kind", "placing").distinct()) == {("placement", True)}
    assert len(set(matches.values_list("seed", flat=True))) == 30  # no deal twice
    met, sizes, my_seats = set(), [], []
    for one in series:
        tables = {tuple(m.seats.order_by("number").values_list("bot_version_id", flat=True)) for m in one.matches.all()}
        assert len(tables) == 1, "the same versions in the same seats in every game of a series"
        (table,) = tables
        sizes.append(len(table))
        my_seats.append(table.index(placing.pk))
        met |= set(table) - {placing.pk}
    assert sizes == [2, 3, 2, 3, 2]  # the game's ladder table sizes in turn
    assert my_seats == [0, 0, 1, 1, 0]  # rotated, at each table size in turn
    board = list(BotVersion.objects.filter(bot__is_builtin=True).order_by("-bot__rating__elo", "bot_id"))
    assert board[0].pk in met and board[-1].pk in met and len(met) >= 6  # the top, the bottom, most between


def test_spread_takes_distinct_strata_and_never_seats_one_bot_twice() -> None:
    board = list(range(10))
    picks = [spread(board, 2, index, 5) for index in range(5)]  # type: ignore[arg-type]
    assert all(len(set(table)) == 2 for table in picks)
    assert sorted(b for table in picks for b in table) == board
    assert spread([1, 2], 2, 0, 5) in ([1, 2], [2, 1])  # type: ignore[list-item]


def test_a_series_is_recorded_in_one_transaction_and_recompute_reproduces_it(placing: BotVersion) -> None:
    first = MatchSeries.objects.filter(placing_version=placing).order_by("pk").first()
    assert first is not None
    claimed = do_claim_series(first.pk, "w")
    assert claimed is not None and len(claimed.games) == 6
    assert do_claim_series(first.pk, "other") is None  # held
    results = _play(claimed)
    with CaptureQueriesContext(connection) as queries:
        recorded = do_record_series(claimed, results)
    assert recorded == [game.match_id for game in claimed.games]
    transactions = [q["sql"] for q in queries.captured_queries if q["sql"].upper().startswith(("BEGIN", "SAVEPOINT"))]
    assert len(transactions) <= 1
    changes = list(RatingChange.objects.filter(bot=placing.bot).order_by("id"))
    assert [c.match_id for c in changes] == recorded  # game by game, in order
    assert all(a.after == b.before for a, b in itertools.pairwise(changes))
    assert "differ" not in _check_ratings().lower() and check_league().ok
    assert do_record_series(claimed, results) == []  # exactly once
    # One match's eight statements (tests/league/play/test_services.py), whatever the series' length, and two for
    # placement (the series' placing version; is its burst over?).
    statements = [
        q["sql"] for q in queries.captured_queries if not q["sql"].upper().startswith(("SAVEPOINT", "RELEASE"))
    ]
    assert len(statements) == 10, statements


def test_a_series_recorded_in_batches_survives_a_game_the_database_refuses(placing: BotVersion) -> None:
    first = MatchSeries.objects.filter(placing_version=placing).order_by("pk").first()
    assert first is not None
    claimed = do_claim_series(first.pk, "w")
    assert claimed is not None
    results = _play(claimed)
    seat = next(seat.number for seat in claimed.seats if seat.version_id == placing.pk)
    results[1].seats[seat].stderr = "log REFUSED-HERE"

    def refuse(execute, sql, params, many, context):  # type: ignore[no-untyped-def]
        if "REFUSED-HERE" in repr(params):
            raise DataError("refused, as PostgreSQL refuses a NUL")
        return execute(sql, params, many, context)

    with connection.execute_wrapper(refuse):
        recorded = do_record_series(claimed, results[:3])
        recorded += do_record_series(claimed, results[3:], first=3)
    assert recorded == [game.match_id for game in claimed.games]  # every game, the refused one included
    faults = [Seat.objects.get(match_id=game.match_id, number=seat).fault for game in claimed.games]
    assert faults == ["", "malformed", "", "", "", ""]
    refused = Seat.objects.get(match_id=claimed.games[1].match_id, number=seat)
    assert "could not be stored" in refused.fault_detail and refused.stderr == ""
    assert refused.rank == max(s.rank for s in Seat.objects.filter(match_id=claimed.games[1].match_id))
    for game in claimed.games:
        assert RatingChange.objects.filter(match_id=game.match_id).count() == len(claimed.seats)
    assert "differ" not in _check_ratings().lower() and check_league().ok


def test_a_fault_ends_the_series_and_its_other_games_are_rescheduled_on_fresh_processes(
    placing: BotVersion,
) -> None:
    first = MatchSeries.objects.filter(placing_version=placing).order_by("pk").first()
    assert first is not None
    claimed = do_claim_series(first.pk, "w")
    assert claimed is not None
    results = _play(claimed, games=2)
    unplayed = [game.match_id for game in claimed.games[2:]]
    assert len(do_record_series(claimed, results, unplayed)) == 2
    moved = Match.objects.filter(pk__in=unplayed)
    assert {m.status for m in moved} == {Match.Status.QUEUED} and {m.attempts for m in moved} == {0}
    (fresh,) = {m.series_id for m in moved}
    assert fresh != first.pk and MatchSeries.objects.get(pk=fresh).placing_version_id == placing.pk
    again = do_claim_series(fresh, "w2")
    assert again is not None and [g.match_id for g in again.games] == unplayed
    progress = placement_progress(placing.bot)
    assert progress is not None and (progress.played, progress.planned) == (2, 30)


def test_placement_goes_first_with_owners_taking_turns_and_single_claims_leave_series_alone(
    settings, alice, bob, db
) -> None:
    settings.PLACEMENT_GAMES, settings.SERIES_GAMES = 4, 2
    _house(3)
    a1, a2 = _validated(alice, "a1"), _validated(alice, "a2")
    b1 = _validated(bob, "b1")
    owners = {s.pk: s.placing_version.bot.owner.username for s in MatchSeries.objects.select_related()}
    order = fair_series_order(timezone.now(), 10)
    assert [owners[s] for s in order][:4] == ["alice", "bob", "alice", "bob"]
    assert {a1.pk, a2.pk, b1.pk} == set(MatchSeries.objects.values_list("placing_version_id", flat=True))
    assert do_claim_next_match("w") is None  # every queued game is in a series
    claimed = do_claim_next_series("w")
    assert claimed is not None and claimed.series_id == order[0]


def _spent(series: MatchSeries, wall_ms: int) -> None:
    """The series' games finished now, having taken ``wall_ms`` of worker time each."""
    series.matches.update(status=Match.Status.FINISHED, finished_at=timezone.now(), wall_ms=wall_ms)


def test_the_owner_who_spent_less_worker_time_is_served_first(settings, alice, bob, db) -> None:
    settings.PLACEMENT_GAMES, settings.SERIES_GAMES = 4, 2
    _house(3)
    _validated(alice, "slow")  # Alice's burst comes first, so she would have the turn
    _validated(bob, "quick")
    first = {s.placing_version.bot.owner.username: s for s in MatchSeries.objects.select_related().order_by("pk")}
    assert [s.pk for s in first.values()] == sorted(s.pk for s in first.values())  # (one series each: the first)
    _spent(first["alice"], 20_000)  # two games of a slow bot: 40 s
    _spent(first["bob"], 150)  # two quick games: 0.3 s
    owners = {s.pk: s.placing_version.bot.owner.username for s in MatchSeries.objects.select_related()}
    # Both have had one series; by turns Alice's second (created first) would go next. By worker time, Bob's does.
    assert [owners[s] for s in fair_series_order(timezone.now(), 10)] == ["bob", "alice"]


def test_an_owner_over_the_worker_budget_waits_and_others_are_served(settings, alice, bob, db) -> None:
    settings.PLACEMENT_GAMES, settings.SERIES_GAMES = 4, 2
    settings.FAIR_USE_WORKER_SECONDS_PER_HOUR = 30
    _house(3)
    _validated(alice, "slow")
    _validated(bob, "quick")
    alices = list(MatchSeries.objects.filter(placing_version__bot__owner=alice).order_by("pk"))
    _spent(alices[0], 20_000)  # 40 s of the 30 s budget
    owners = {s.pk: s.placing_version.bot.owner.username for s in MatchSeries.objects.select_related()}
    assert {owners[s] for s in fair_series_order(timezone.now(), 10)} == {"bob"}  # Alice is off the priority lane
    # Her series' own message (run_match) does not claim it either: its games wait until the budget frees.
    assert do_claim_series(alices[1].pk, "w") is None
    waiting = alices[1].matches.get(pk=alices[1].matches.order_by("pk").first().pk)
    assert waiting.status == Match.Status.QUEUED
    assert timezone.now() + timedelta(minutes=59) < waiting.enqueued_at <= timezone.now() + timedelta(hours=1)
    claimed = do_claim_next_series("w")
    assert claimed is not None and owners[claimed.series_id] == "bob"


def test_a_placement_series_message_claims_the_fairest_placement_series(settings, alice, bob, db) -> None:
    settings.PLACEMENT_GAMES, settings.SERIES_GAMES = 4, 2
    _house(3)
    _validated(alice, "slow")
    _validated(bob, "quick")
    alices = list(MatchSeries.objects.filter(placing_version__bot__owner=alice).order_by("pk"))
    bobs = list(MatchSeries.objects.filter(placing_version__bot__owner=bob).order_by("pk"))
    _spent(alices[0], 20_000)  # her first series: two slow games
    # The message of Alice's second series (queued before any of Bob's) comes first: Bob's first series is played.
    claimed = do_claim_fairest_series(alices[1].pk, "w")
    assert claimed is not None and claimed.series_id == bobs[0].pk
    # A ladder series' message claims its own.
    (ladder,) = [do_create_series(GAME, [bobs[0].placing_version, alices[0].placing_version], [7, 8])]
    claimed = do_claim_fairest_series(ladder.pk, "w")
    assert claimed is not None and claimed.series_id == ladder.pk


def test_placement_progress_in_the_api_and_on_the_status_banner(placing: BotVersion, anon_api: APIClient) -> None:
    bot = placing.bot
    for one in MatchSeries.objects.filter(placing_version=placing).order_by("pk")[:2]:
        claimed = do_claim_series(one.pk, "w")
        assert claimed is not None
        do_record_series(claimed, _play(claimed))
    progress = placement_progress(bot)
    assert progress is not None and (progress.played, progress.planned) == (12, 30)
    assert progress.rank is not None and 1 <= progress.rank <= 9
    data = anon_api.get(f"/api/bots/{bot.pk}/").json()
    assert data["placement"] == {"version": 1, "played": 12, "planned": 30, "rank": progress.rank}
    status = bot_status(bot, list(bot.versions.all()), progress)
    assert status.state == "placing" and not status.settled
    assert status.title == "Placing v1: 12 of 30 games"
    assert status.detail == f"Rank so far {ordinal(progress.rank)}."
    page = anon_api.get(f"/bots/{bot.pk}/status/")
    assert page.status_code == 200 and "Placing v1: 12 of 30 games." in page.content.decode()
    house = Bot.objects.filter(is_builtin=True).first()
    assert house is not None and anon_api.get(f"/api/bots/{house.pk}/").json()["placement"] is None


def test_ordinals() -> None:
    assert [ordinal(n) for n in (1, 2, 3, 4, 11, 12, 13, 21, 22, 101, 111)] == [
        "1st",
        "2nd",
        "3rd",
        "4th",
        "11th",
        "12th",
        "13th",
        "21st",
        "22nd",
        "101st",
        "111th",
    ]


def test_after_placement_runs_once_when_the_last_game_of_the_burst_commits(
    placing: BotVersion, django_capture_on_commit_callbacks
) -> None:
    series = list(MatchSeries.objects.filter(placing_version=placing).order_by("pk"))
    hooks = []
    for index, one in enumerate(series):
        claimed = do_claim_series(one.pk, "w")
        assert claimed is not None
        with django_capture_on_commit_callbacks() as callbacks:
            do_record_series(claimed, _play(claimed))
        names = [getattr(callback, "__qualname__", "") for callback in callbacks]
        hooks.append(sum("on_series_recorded" in name for name in names))
        assert placement_progress(placing.bot).done is (index == len(series) - 1)  # type: ignore[union-attr]
    assert hooks == [0, 0, 0, 0, 1]
    assert bot_status(placing.bot, list(placing.bot.versions.all()), placement_progress(placing.bot)).state == "ready"


def test_a_bot_off_the_ladder_gets_no_burst(settings, alice, db) -> None:
    settings.PLACEMENT_GAMES = 30
    _house(3)
    bot = do_create_bot(alice, GAME, "off", b"print('hi')\n", "bot.py")
    Bot.objects.filter(pk=bot.pk).update(is_active=False)
    do_record_validation(bot.versions.get().pk, True, "ok", "")
    assert not MatchSeries.objects.exists() and placement_progress(bot) is None


def test_a_ladder_with_series_queues_tables_of_several_games_and_counts_each_table_once(settings, db) -> None:
    settings.LADDER_GAMES = {GAME: {"series": 3, "table_sizes": [2], "max_in_flight": 1}}
    settings.LADDER_QUEUE_DEPTH, settings.LADDER_WORKER_CAPACITY = 2, 10
    _house(4)
    first = do_schedule_ladder(random.Random(1), games=[GAME])
    assert len(first) == 2 and MatchSeries.objects.count() == 2 and Match.objects.count() == 6
    assert do_schedule_ladder(random.Random(2), games=[GAME]) == []  # the queue holds 2 tables: full
    for one in MatchSeries.objects.order_by("pk"):
        assert len(set(one.matches.values_list("seed", flat=True))) == 3
        claimed = do_claim_series(one.pk, "w")
        assert claimed is not None
        do_record_series(claimed, _play(claimed))
    assert Match.objects.filter(status=Match.Status.FINISHED, kind="ladder").count() == 6
    assert RatingChange.objects.count() == 12 and check_league().ok
    assert "differ" not in _check_ratings().lower()
    assert len(do_schedule_ladder(random.Random(3), games=[GAME])) == 2


def test_the_ladder_series_setting_is_checked(settings) -> None:
    from django.core.exceptions import ImproperlyConfigured

    settings.LADDER_GAMES = {GAME: {"series": 0}}
    with pytest.raises(ImproperlyConfigured):
        ladder_config(GAME)
    settings.LADDER_GAMES = {GAME: {"series": 4}}
    assert ladder_config(GAME).series == 4
    settings.LADDER_GAMES = {GAME: {"series": 4, "matchmaking": "random"}}
    assert ladder_config(GAME).series == 1  # random tables are played once each (docs/ratings.md)


def test_the_short_games_ladder_plays_series_by_default() -> None:
    from django.conf import settings

    assert ladder_config("love_letter").series == settings.LADDER_GAMES["love_letter"]["series"] == 12
    assert ladder_config("high_society").series == ladder_config("ranczo").series == 6
    assert ladder_config("ten").series == ladder_config("barbarossa").series == 1
