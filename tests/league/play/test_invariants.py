"""The league's invariant check (league/play/invariants.py, ``manage.py check_league``): quiet on a league played by the
book, and a readable report of every kind of damage a fault could do."""

from __future__ import annotations

import io
from datetime import timedelta

import pytest
from django.core.management import CommandError, call_command
from django.utils import timezone

from league.bots.models import Bot, BotVersion
from league.bots.services import do_create_bot, do_record_validation
from league.play.invariants import check_league
from league.play.matches import do_claim_match, do_create_match, do_fail_match
from league.play.models import Match
from league.play.recording import do_record_match_result
from league.ratings.models import Rating, RatingChange
from tests.results import runner_result


def _bot(owner, name: str) -> BotVersion:
    bot = do_create_bot(owner, "love_letter", name, b"print('hi')\n", "bot.py")
    version = bot.versions.get()
    do_record_validation(version.pk, True, "ok", "")
    return BotVersion.objects.get(pk=version.pk)


def _result(ranks: list[int]) -> dict:
    return {
        "seats": [{"rank": rank, "score": float(-rank), "fault": None, "moves": 3, "time_ms": 5} for rank in ranks],
        "replay": {"format": "parlour-replay/1", "moves": []},
        "wall_ms": 7,
    }


def _play(versions: list[BotVersion], ranks: list[int], kind: str = Match.Kind.LADDER) -> Match:
    match = do_create_match("love_letter", versions, seed=1, kind=kind)
    claimed = do_claim_match(match.pk, worker="test")
    assert claimed is not None
    assert do_record_match_result(match.pk, runner_result(_result(ranks)), claim_token=claimed.claim_token)
    return Match.objects.get(pk=match.pk)


def _rules(**kwargs) -> set[str]:
    return {violation.rule for violation in check_league(**kwargs).violations}


@pytest.fixture
def played(alice) -> dict[str, Match]:
    """A small league: two- and three-player ladder matches, a challenge (unrated), a bot against itself (unrated),
    a failed match, a queued one and a running one."""
    a, b, c = _bot(alice, "a"), _bot(alice, "b"), _bot(alice, "c")
    matches = {
        "duel": _play([a, b], [1, 2]),
        "draw": _play([b, c], [1, 1]),
        "three": _play([a, b, c], [2, 1, 3]),
        "challenge": _play([a, c], [1, 2], kind=Match.Kind.CHALLENGE),
        "mirror": _play([a, a], [1, 2]),
    }
    failed = do_create_match("love_letter", [a, b])
    do_claim_match(failed.pk)
    do_fail_match(failed.pk, "ValueError: a bug")
    matches["queued"] = do_create_match("love_letter", [b, c])
    running = do_create_match("love_letter", [c, a])
    do_claim_match(running.pk, worker="w1")
    matches["running"] = Match.objects.get(pk=running.pk)
    return matches


def test_a_league_played_by_the_book_has_no_violations(played) -> None:
    report = check_league()
    assert report.ok, [str(violation) for violation in report.violations]
    assert report.checked["rating_changes"] == 5 and report.checked["elo_sum"] == 3
    assert report.checked["claims"] == 1 and report.checked["queue"] == 1
    out = io.StringIO()
    call_command("check_league", stdout=out)
    assert "the league's records are consistent" in out.getvalue()


def test_an_established_bot_against_a_provisional_one_conserves_elo_weighted_by_k(alice) -> None:
    a, b, newcomer = _bot(alice, "a"), _bot(alice, "b"), _bot(alice, "newcomer")
    for n in range(21):
        _play([a, b], [1 + n % 2, 2 - n % 2])
    match = _play([a, newcomer], [2, 1])
    before_after = {change.bot_id: change.delta for change in match.rating_changes.all()}
    assert before_after[a.bot_id] + before_after[newcomer.bot_id] != pytest.approx(0), "K 24 against K 48"
    assert check_league().ok


def test_a_lost_rating_change_is_reported(played) -> None:
    RatingChange.objects.filter(match=played["duel"]).first().delete()
    report = check_league()
    assert {violation.rule for violation in report.violations} == {"rating_changes", "ratings"}
    assert f"match {played['duel'].pk} (love_letter, finished, rated): 1 rating changes for 2 seats" in [
        violation.message for violation in report.violations
    ]


def test_a_rating_change_of_a_match_that_changes_no_ratings_is_reported(played) -> None:
    challenge = played["challenge"]
    RatingChange.objects.create(match=challenge, bot=challenge.seats.first().bot_version.bot, before=1500, after=1510)
    messages = [str(violation) for violation in check_league().violations]
    assert any("does not change ratings" in message and f"match {challenge.pk} " in message for message in messages)


def test_a_rating_that_is_not_the_sum_of_its_changes_is_reported(played) -> None:
    Rating.objects.filter(bot__name="a").update(elo=1234.5)
    assert _rules() == {"ratings"}


def test_elo_created_from_nothing_is_reported(played) -> None:
    change = RatingChange.objects.filter(match=played["duel"]).order_by("id").first()
    RatingChange.objects.filter(pk=change.pk).update(after=change.after + 1)
    report = check_league()
    assert "elo_sum" in {violation.rule for violation in report.violations}
    assert any("Elo not conserved" in violation.message for violation in report.violations)


def test_a_running_match_whose_lease_ran_out_long_ago_is_reported(played) -> None:
    running = played["running"]
    Match.objects.filter(pk=running.pk).update(lease_until=timezone.now() - timedelta(minutes=10))
    report = check_league()
    assert [violation.rule for violation in report.violations] == ["claims"]
    assert "lease ran out" in report.violations[0].message and "w1" in report.violations[0].message
    assert check_league(grace_seconds=3600).ok, "within the grace the sweeper may still be on its way"


def test_a_running_match_without_a_claim_is_reported(played) -> None:
    Match.objects.filter(pk=played["running"].pk).update(claim_token="", lease_until=None)
    assert _rules() == {"claims"}


def test_a_queued_match_whose_message_was_never_sent_again_is_reported(played) -> None:
    Match.objects.filter(pk=played["queued"].pk).update(enqueued_at=timezone.now() - timedelta(hours=2))
    assert _rules() == {"queue"}


def test_the_command_exits_non_zero_with_a_readable_report(played) -> None:
    RatingChange.objects.filter(match=played["three"]).first().delete()
    Bot.objects.filter(name="b").update(is_active=False)  # irrelevant to the invariants
    out = io.StringIO()
    with pytest.raises(CommandError, match="violations of the league's invariants"):
        call_command("check_league", stdout=out)
    report = out.getvalue()
    assert "rating_changes" in report and "VIOLATIONS" in report
    assert f"match {played['three'].pk} (love_letter, finished, rated): 2 rating changes for 3 seats" in report
