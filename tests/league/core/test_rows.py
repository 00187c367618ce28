"""league/core/rows.py: several rows of one table, each with its own values, in one statement, on either database; and
many new rows at once (COPY on PostgreSQL)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from django.contrib.auth.models import User
from django.db import connection
from django.test.utils import CaptureQueriesContext

from league.bots.models import Bot, BotVersion
from league.core.rows import insert_rows, update_rows
from league.ratings.models import FitSnapshot, FittedRating, Rating, RatingFit


@pytest.fixture
def ratings(db) -> list[Rating]:
    owner = User.objects.create(username="alice")
    return [
        Rating.objects.create(bot=Bot.objects.create(owner=owner, game="love_letter", name=f"b{n}")) for n in range(3)
    ]


def test_each_row_gets_its_own_values_of_every_type_in_one_statement(ratings) -> None:
    first, second, untouched = ratings
    moment = datetime(2026, 12, 1, 1, 2, 3, 456789, tzinfo=UTC)
    fields = ["elo", "games", "recent", "last_match_at"]
    with CaptureQueriesContext(connection) as captured:
        count = update_rows(
            Rating, fields, [[first.pk, 1612.25, 7, [1500.0, 1612.25], moment], [second.pk, 1388.5, 0, [], None]]
        )
    assert count == 2 and len(captured.captured_queries) == 1
    first.refresh_from_db()
    second.refresh_from_db()
    untouched.refresh_from_db()
    assert (first.elo, first.games, first.recent, first.last_match_at) == (1612.25, 7, [1500.0, 1612.25], moment)
    assert (second.elo, second.games, second.recent, second.last_match_at) == (1388.5, 0, [], None)
    assert (untouched.elo, untouched.games) == (Rating._meta.get_field("elo").default, 0)


def test_text_with_quotes_and_no_rows_at_all(ratings) -> None:
    bot = ratings[0].bot
    update_rows(Bot, ["name"], [[bot.pk, 'it\'s "quoted"; DROP TABLE x --']])
    bot.refresh_from_db()
    assert bot.name == 'it\'s "quoted"; DROP TABLE x --'
    assert update_rows(Bot, ["name"], []) == 0


def test_a_row_of_the_wrong_length_is_refused(ratings) -> None:
    with pytest.raises(ValueError, match="a key and 1 values"):
        update_rows(Bot, ["name"], [[ratings[0].bot.pk]])


def test_inserted_rows_read_back_with_every_value_as_given(db) -> None:
    owner = User.objects.create(username="alice")
    bots = [Bot.objects.create(owner=owner, game="love_letter", name=f"b{n}") for n in range(2)]
    version = BotVersion.objects.create(bot=bots[0], number=1, builtin="random")
    fit = RatingFit.objects.create(game="love_letter")
    moment = datetime(2026, 12, 1, 1, 2, 3, 456789, tzinfo=UTC)
    odd = {"it's": 'a "quoted"\tvalue\n'}
    insert_rows(
        FittedRating,
        ["bot", "version", "fit", "elo", "sigma", "low", "high", "rank", "rank_low", "rank_high", "games", "recent"],
        [
            (bots[0].pk, version.pk, fit.pk, 1612.25, 20.5, 1572.0, 1652.5, 1, 1, 2, 7, [1500.0, 1612.25]),
            (bots[1].pk, version.pk, fit.pk, 1388.5, 30.0, 1329.0, 1448.0, 2, 1, 2, 0, odd),
        ],
    )
    insert_rows(FitSnapshot, ["bot", "fit", "version", "at", "elo", "low", "high", "games"], [])
    insert_rows(
        FitSnapshot,
        ["bot", "fit", "version", "at", "elo", "low", "high", "games"],
        [(bots[1].pk, fit.pk, 3, moment, 1.5, 0.5, 2.5, 4)],
    )
    first, second = FittedRating.objects.get(bot=bots[0]), FittedRating.objects.get(bot=bots[1])
    assert (first.elo, first.sigma, first.rank_high, first.games, first.recent) == (
        1612.25,
        20.5,
        2,
        7,
        [1500.0, 1612.25],
    )
    assert (second.elo, second.low, second.rank, second.recent, second.fit_id) == (1388.5, 1329.0, 2, odd, fit.pk)
    snapshot = FitSnapshot.objects.get()
    assert (snapshot.bot_id, snapshot.version, snapshot.at, snapshot.games) == (bots[1].pk, 3, moment, 4)


def test_an_insert_must_give_every_column(db) -> None:
    with pytest.raises(ValueError, match="missing: high, low"):
        insert_rows(FitSnapshot, ["bot", "fit", "version", "at", "elo", "games"], [(1, 1, 1, None, 1.0, 1)])
