"""league/rows.py: several rows of one table, each with its own values, in one statement, on either database; and
many new rows at once (COPY on PostgreSQL)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from django.contrib.auth.models import User
from django.db import connection
from django.test.utils import CaptureQueriesContext

from league.models import Bot, Rating
from league.rows import insert_rows, update_rows


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
    moment = datetime(2026, 12, 1, 1, 2, 3, 456789, tzinfo=UTC)
    insert_rows(
        Rating,
        [
            Rating(bot=bots[0], elo=1612.25, games=7, recent=[1500.0, 1612.25], last_match_at=moment),
            Rating(bot=bots[1], elo=1388.5, recent={"it's": 'a "quoted"\tvalue\n'}),
        ],
    )
    insert_rows(Rating, [])
    first, second = Rating.objects.get(bot=bots[0]), Rating.objects.get(bot=bots[1])
    assert (first.elo, first.games, first.recent, first.last_match_at) == (1612.25, 7, [1500.0, 1612.25], moment)
    assert (second.elo, second.games, second.recent, second.last_match_at) == (
        1388.5,
        0,
        {"it's": 'a "quoted"\tvalue\n'},
        None,
    )
    assert first.updated is not None and first.pk != second.pk  # auto_now set, keys from the database
