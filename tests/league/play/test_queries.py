"""The match lists' read model (league/play/queries.py): the index's filters and pages, and results in words."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User

from league.bots.models import Bot, BotVersion
from league.play.matches import do_claim_match, do_create_match
from league.play.models import Match
from league.play.queries import MatchFilters, finished_matches, match_rows, page_of, result_words
from league.play.recording import do_record_match_result
from league.ratings.models import Rating
from league.tournaments.models import Round, Tournament
from tests.results import runner_result


def _bot(owner: User, name: str, game: str = "love_letter", versions: int = 1) -> Bot:
    bot = Bot.objects.create(owner=owner, game=game, name=name)
    Rating.objects.create(bot=bot)
    for number in range(1, versions + 1):
        BotVersion.objects.create(bot=bot, number=number, builtin="random", status=BotVersion.Status.READY)
    return bot


def _play(
    versions: list[BotVersion], ranks: list[int] | None, kind: str = Match.Kind.LADDER, round_: Round | None = None
) -> Match:
    """A match of ``versions`` in seat order, finished with ``ranks`` (None: left queued)."""
    match = do_create_match(versions[0].bot.game, versions, kind=kind)
    if round_ is not None:
        Match.objects.filter(pk=match.pk).update(round=round_)
    if ranks is not None:
        do_claim_match(match.pk)
        seats = [{"rank": rank, "score": 0.0} for rank in ranks]
        do_record_match_result(match.pk, runner_result({"seats": seats, "replay": {}, "wall_ms": 1}))
    return Match.objects.get(pk=match.pk)


def _v(bot: Bot, number: int = 1) -> BotVersion:
    return bot.versions.get(number=number)


def _ids(matches) -> set[int]:
    return {match.pk for match in matches}


def _tournament(game: str, rated: bool) -> Round:
    tournament = Tournament.objects.create(
        game=game, name=f"{'rated' if rated else 'friendly'} cup", format="round_robin", seed=7, rated=rated,
        status=Tournament.Status.RUNNING,
    )  # fmt: skip
    return Round.objects.create(tournament=tournament, number=1)


@pytest.mark.parametrize(
    ("rank", "ranks", "words"),
    [
        (1, [1, 2], ("won", "won")),
        (2, [1, 2], ("lost", "lost")),
        (1, [1, 1], ("drew", "drew")),
        (1, [1, 2, 3], ("won", "won")),
        (2, [1, 2, 3], ("2nd of 3", "placed")),
        (3, [1, 2, 3], ("3rd of 3", "lost")),
        (1, [1, 1, 3], ("shared 1st of 3", "drew")),
        (2, [1, 2, 2], ("shared 2nd of 3", "lost")),  # last, shared
        (2, [1, 2, 2, 4], ("shared 2nd of 4", "placed")),
        (1, [1, 1, 1], ("drew", "drew")),
        (4, [1, 2, 3, 4], ("4th of 4", "lost")),
        (3, [1, 2, 3, 4], ("3rd of 4", "placed")),
        (None, [None, None], ("", "")),
    ],
)
def test_a_result_is_said_in_words_never_as_a_number_that_reads_like_a_seat(rank, ranks, words) -> None:
    assert result_words(rank, ranks) == words


def test_the_index_lists_only_finished_matches_and_filters_by_game_bot_and_owner(db) -> None:
    alice, bob = User.objects.create(username="alice"), User.objects.create(username="bob")
    a, b, c = _bot(alice, "a"), _bot(bob, "b"), _bot(bob, "c")
    t1, t2 = _bot(alice, "t1", game="ten"), _bot(bob, "t2", game="ten")
    ab, bc, ten = _play([_v(a), _v(b)], [1, 2]), _play([_v(b), _v(c)], [2, 1]), _play([_v(t1), _v(t2)], [1, 2])
    queued = _play([_v(a), _v(c)], None)
    failed = _play([_v(a), _v(c)], None)
    Match.objects.filter(pk=failed.pk).update(status=Match.Status.FAILED)
    everything = Match.objects.all()

    assert _ids(finished_matches(everything, MatchFilters())) == {ab.pk, bc.pk, ten.pk}
    assert queued.pk not in _ids(finished_matches(everything, MatchFilters(bot=a.pk)))
    assert _ids(finished_matches(everything, MatchFilters(game="ten"))) == {ten.pk}
    assert _ids(finished_matches(everything, MatchFilters(bot=b.pk))) == {ab.pk, bc.pk}
    assert _ids(finished_matches(everything, MatchFilters(owner=alice.pk))) == {ab.pk, ten.pk}
    assert _ids(finished_matches(everything, MatchFilters(owner=alice.pk, game="love_letter"))) == {ab.pk}
    # Only what the caller may see: the visible matches are the caller's queryset.
    assert _ids(finished_matches(Match.objects.exclude(pk=ab.pk), MatchFilters(bot=b.pk))) == {bc.pk}


def test_the_result_filter_reads_the_chosen_bots_seats(db) -> None:
    owner = User.objects.create(username="owner")
    a, b, c = _bot(owner, "a"), _bot(owner, "b"), _bot(owner, "c")
    won = _play([_v(a), _v(b)], [1, 2])
    lost = _play([_v(b), _v(a)], [1, 2])
    drew = _play([_v(a), _v(c)], [1, 1])
    shared = _play([_v(a), _v(b), _v(c)], [1, 1, 3])
    second = _play([_v(c), _v(a), _v(b)], [1, 2, 3])
    everything = Match.objects.all()

    def found(result: str) -> set[int]:
        return _ids(finished_matches(everything, MatchFilters(bot=a.pk, result=result)))

    assert found("won") == {won.pk}
    assert found("drew") == {drew.pk, shared.pk}
    assert found("lost") == {lost.pk, second.pk}
    assert _ids(finished_matches(everything, MatchFilters(bot=c.pk, result="won"))) == {second.pk}


def test_a_version_test_is_listed_once_for_its_bot_and_shows_both_of_its_seats_first(db) -> None:
    owner = User.objects.create(username="owner")
    bot, other = _bot(owner, "twice", versions=2), _bot(owner, "other")
    match = _play([_v(bot, 2), _v(other), _v(bot, 1)], [1, 3, 2])
    listed = list(finished_matches(Match.objects.all(), MatchFilters(bot=bot.pk)))
    assert [m.pk for m in listed] == [match.pk]  # not once per seat
    row = match_rows(page_of(finished_matches(Match.objects.all(), MatchFilters(bot=bot.pk))).matches, bot.pk)[0]
    assert [(line.version, line.result) for line in row.focus] == [(2, "won"), (1, "2nd of 3")]
    assert [(str(line.bot), line.result, line.seat_number) for line in row.others] == [("owner/other", "3rd of 3", 2)]


def test_rated_and_tournament_filters(db) -> None:
    owner = User.objects.create(username="owner")
    a, b = _bot(owner, "a"), _bot(owner, "b")
    rated_cup, friendly_cup = _tournament("love_letter", rated=True), _tournament("love_letter", rated=False)
    ladder = _play([_v(a), _v(b)], [1, 2])
    placement = _play([_v(a), _v(b)], [1, 2], kind=Match.Kind.PLACEMENT)
    challenge = _play([_v(a), _v(b)], [1, 2], kind=Match.Kind.CHALLENGE)
    in_rated = _play([_v(a), _v(b)], [2, 1], kind=Match.Kind.TOURNAMENT, round_=rated_cup)
    in_friendly = _play([_v(a), _v(b)], [2, 1], kind=Match.Kind.TOURNAMENT, round_=friendly_cup)
    everything = Match.objects.all()

    assert _ids(finished_matches(everything, MatchFilters(rated=True))) == {ladder.pk, placement.pk, in_rated.pk}
    assert _ids(finished_matches(everything, MatchFilters(rated=False))) == {challenge.pk, in_friendly.pk}
    tournament = friendly_cup.tournament_id
    assert _ids(finished_matches(everything, MatchFilters(tournament=tournament))) == {in_friendly.pk}
    assert _ids(finished_matches(everything, MatchFilters(tournament=tournament, rated=True))) == set()


def test_pages_walk_the_history_newest_first_without_gaps_or_repeats(db) -> None:
    owner = User.objects.create(username="owner")
    a, b = _bot(owner, "a"), _bot(owner, "b")
    played = [_play([_v(a), _v(b)], [1, 2]).pk for _ in range(12)]
    matches = finished_matches(Match.objects.all(), MatchFilters())

    first = page_of(matches, size=5)
    assert [m.pk for m in first.matches] == played[::-1][:5] and first.newer is None and first.older is not None
    second = page_of(matches, before=first.older, size=5)
    last = page_of(matches, before=second.older, size=5)
    assert [m.pk for m in second.matches] == played[::-1][5:10] and second.newer == second.matches[0].pk
    assert [m.pk for m in last.matches] == played[::-1][10:] and last.older is None
    # Back again: the page newer than the last is the second; newer than the second, the newest (a full page).
    assert [m.pk for m in page_of(matches, after=last.newer, size=5).matches] == [m.pk for m in second.matches]
    assert page_of(matches, after=second.newer, size=5) == first
    # New matches at the head leave an older page where it was.
    _play([_v(a), _v(b)], [2, 1])
    assert [m.pk for m in page_of(matches, before=first.older, size=5).matches] == [m.pk for m in second.matches]
    # A position past either end: the newest page, or an empty page with nothing older.
    assert page_of(matches, after=10**12, size=5).matches[0].pk == max(played) + 1
    beyond = page_of(matches, before=1, size=5)
    assert beyond.matches == [] and beyond.older is None and beyond.newer is None


def test_a_page_of_rows_takes_three_queries_whatever_its_length(db, django_assert_max_num_queries) -> None:
    owner = User.objects.create(username="owner")
    bots = [_bot(owner, f"b{i}") for i in range(4)]
    for i in range(30):
        _play([_v(bots[i % 4]), _v(bots[(i + 1) % 4]), _v(bots[(i + 2) % 4])], [1, 2, 3])
    with django_assert_max_num_queries(3):  # the page, its seats with bots and owners, whether a newer page exists
        page = page_of(finished_matches(Match.objects.all(), MatchFilters()), before=10**6)
        rows = match_rows(page.matches, focus=bots[0].pk)
        assert len(rows) == 25 and all(str(line.bot) for row in rows for line in row.focus + row.others)
