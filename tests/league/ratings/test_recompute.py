"""``recompute_ratings`` replays the match history and proves the stored ratings equal to it, bit for bit."""

from __future__ import annotations

import io
import random
from datetime import timedelta
from unittest import mock

import pytest
from django.contrib.auth.models import User
from django.core.management import CommandError, call_command
from django.utils import timezone

from league.bots.models import Bot, BotVersion
from league.play.matches import do_claim_match, do_create_match
from league.play.models import Match, Seat
from league.play.recording import distinct_bots, do_record_match_result
from league.ratings.models import Rating, RatingChange
from tests.results import runner_result

GAMES_TO_RECORD = 2000


def _league(bots: int, game: str = "love_letter") -> list[Bot]:
    owner = User.objects.create(username="league")
    league = []
    for n in range(bots):
        bot = Bot.objects.create(owner=owner, game=game, name=f"bot{n}")
        Rating.objects.create(bot=bot)
        BotVersion.objects.create(bot=bot, number=1, builtin="random", status=BotVersion.Status.READY)
        league.append(bot)
    return league


def _record(versions: list[BotVersion], ranks: list[int], kind: str = Match.Kind.LADDER) -> Match:
    match = do_create_match(versions[0].bot.game, versions, seed=1, kind=kind)
    do_claim_match(match.pk)
    _finish(match, ranks)
    return match


def _finish(match: Match, ranks: list[int]) -> None:
    seats = [{"rank": rank, "score": float(-rank), "fault": None} for rank in ranks]
    assert do_record_match_result(match.pk, runner_result({"seats": seats, "replay": {}, "wall_ms": 1}))


def _running(tables: list[tuple[list[BotVersion], str]]) -> list[Match]:
    """Matches as a worker has them: created and claimed (in bulk, to keep the test fast)."""
    matches = Match.objects.bulk_create(
        Match(game="love_letter", kind=kind, seed=n, engine_version="1", status=Match.Status.RUNNING, attempts=1)
        for n, (_versions, kind) in enumerate(tables)
    )
    Seat.objects.bulk_create(
        Seat(match=match, number=number, bot_version=version)
        for match, (versions, _kind) in zip(matches, tables, strict=True)
        for number, version in enumerate(versions)
    )
    return matches


def _check(*args: str) -> str:
    out = io.StringIO()
    call_command("recompute_ratings", "--check", *args, stdout=out)
    return out.getvalue()


def test_recompute_equals_the_incremental_ratings_exactly_after_thousands_of_matches(db) -> None:
    """2-, 3- and 4-player tables, ties, new versions mid-way, late results of retired versions, a clock that jumps
    back, challenge matches (unrated) and a bot seated twice (unrated): the replay still matches bit for bit."""
    rng = random.Random(8)
    bots = _league(12)
    current = {bot.pk: bot.versions.get() for bot in bots}
    retired: list[BotVersion] = []
    clock = [timezone.now()]
    stopped = mock.patch("league.play.recording.timezone.now", side_effect=lambda: clock[0])
    stopped.start()
    for chunk in range(0, GAMES_TO_RECORD, 100):
        tables, results = [], []
        for n in range(chunk, chunk + 100):
            table = rng.sample(bots, rng.choice([2, 2, 3, 4]))
            versions = [current[bot.pk] for bot in table]
            if retired and n % 97 == 0 and retired[-1].bot_id not in {v.bot_id for v in versions}:
                versions[0] = retired[-1]  # a match queued before the new version went live finishes late
            if n % 200 == 13:
                versions[1] = versions[0]  # the same bot twice at one table
            tables.append((versions, Match.Kind.CHALLENGE if n % 50 == 7 else Match.Kind.LADDER))
            results.append([rng.randint(1, len(table)) for _ in table])  # ties are frequent
        for match, ranks in zip(_running(tables), results, strict=True):
            # Worker machines' clocks disagree: now and then a result is stamped seconds in the past.
            clock[0] += timedelta(milliseconds=rng.choice([40, 40, 40, -5000]))
            _finish(match, ranks)
        bot = rng.choice(bots)  # a bot uploads a new version
        new = BotVersion.objects.create(
            bot=bot, number=current[bot.pk].number + 1, builtin="random", status=BotVersion.Status.READY
        )
        retired.append(current[bot.pk])
        current[bot.pk] = new
    stopped.stop()

    ladder = Match.objects.filter(kind=Match.Kind.LADDER).prefetch_related("seats__bot_version")
    twice = [match for match in ladder if not distinct_bots(list(match.seats.all()))]
    assert len(twice) == GAMES_TO_RECORD // 200
    unrated_seats = sum(len(match.seats.all()) for match in twice)
    assert RatingChange.objects.count() == Seat.objects.filter(match__kind=Match.Kind.LADDER).count() - unrated_seats
    output = _check()
    assert f"love_letter: {len(ladder) - len(twice)} rated matches" in output
    assert "every stored rating equals the recomputation" in output
    assert Rating.objects.filter(games_since_version__lt=Rating.objects.get(bot=bots[0]).games).exists()


def test_any_difference_is_found_named_and_fails_the_check(db) -> None:
    bots = _league(3)
    versions = [bot.versions.get() for bot in bots]
    matches = [_record([versions[n % 3], versions[(n + 1) % 3]], [1, 2]) for n in range(6)]
    _check()

    Rating.objects.filter(bot=bots[0]).update(elo=Rating.objects.get(bot=bots[0]).elo + 1e-9)
    with pytest.raises(CommandError, match="1 differences"):
        _check("--game", "love_letter")

    out = io.StringIO()
    with pytest.raises(CommandError):
        call_command("recompute_ratings", "--game", "love_letter", stdout=out)  # repairs the rating
    assert f"bot {bots[0].pk}: elo" in out.getvalue() and "1 ratings rewritten" in out.getvalue()
    _check()

    RatingChange.objects.filter(match=matches[2], bot=bots[2]).delete()  # a lost rating change
    out = io.StringIO()
    with pytest.raises(CommandError):
        call_command("recompute_ratings", "--check", stdout=out)
    assert f"match {matches[2].pk} bot {bots[2].pk}: rating change missing" in out.getvalue()


def test_a_result_recorded_twice_changes_ratings_once(db) -> None:
    bots = _league(2)
    match = _record([bot.versions.get() for bot in bots], [1, 2])
    again = {"seats": [{"rank": 2, "score": 0}, {"rank": 1, "score": 0}], "replay": {}}
    assert not do_record_match_result(match.pk, runner_result(again))
    assert RatingChange.objects.filter(match=match).count() == 2
    _check()
