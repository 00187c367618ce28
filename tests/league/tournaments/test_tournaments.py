"""Tournament services (league/tournaments/services.py): set-up and its refusals, each format end to end for two-player
and four-player tables (results recorded through the services as a worker records them), forfeits, failures, pausing,
cancelling, and whether the games change ladder Elo."""

from __future__ import annotations

import itertools
from collections import Counter

import pytest
from django.contrib.auth.models import User
from django.utils import timezone

from league.bots.models import Bot, BotVersion
from league.core.errors import ServiceError
from league.play.matches import do_claim_match, do_release_match
from league.play.models import Match
from league.play.recording import do_record_match_result
from league.ratings import fits
from league.ratings.models import FittedRating, Rating, RatingChange
from league.ratings.recompute import do_recompute_ratings
from league.tournaments.models import Entry, Round, Tournament
from league.tournaments.services import (
    do_add_entry,
    do_advance_running_tournaments,
    do_advance_tournament,
    do_cancel_tournament,
    do_create_tournament,
    do_pause_tournament,
    do_resume_tournament,
    do_start_tournament,
    do_update_tournament,
)
from tests.league.ratings import fits_helpers
from tests.league.tournaments.tournament_helpers import by_strength, make_bots, play_out, result
from tests.results import runner_result


@pytest.fixture
def staff(db) -> User:
    return User.objects.create_user("staff", "staff@example.org", is_staff=True)  # no password: fast to make


def _strength(bots: list[Bot]) -> dict[str, float]:
    return {bot.name: -index for index, bot in enumerate(bots)}  # bot0 (seed 1) is the strongest


def _pairs_met(tournament: Tournament) -> Counter:
    met: Counter = Counter()
    for match in Match.objects.filter(round__tournament=tournament, status=Match.Status.FINISHED):
        bots = sorted(match.seats.values_list("bot_version__bot_id", flat=True))
        met.update(frozenset(pair) for pair in itertools.combinations(bots, 2))
    return met


def _nothing_started(tournament: Tournament) -> None:
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.DRAFT and tournament.started_at is None
    assert not Round.objects.filter(tournament=tournament).exists()
    assert not Match.objects.filter(round__tournament=tournament).exists()
    assert not tournament.entries.filter(bot_version__isnull=False).exists()
    assert not tournament.entries.filter(seed__isnull=False).exists()


# ----- creating and refusing ----------------------------------------------------------------------------------


def test_it_creates_a_draft_with_its_entrants_and_every_setting_filled_in(staff) -> None:
    bots = make_bots(staff, "love_letter", 3)
    tournament = do_create_tournament(staff, "love_letter", " Spring cup ", "round_robin", {}, bots)
    assert (tournament.name, tournament.status, tournament.rated) == ("Spring cup", "draft", False)
    assert tournament.settings["table_size"] == 2 and tournament.settings["games_per_pairing"] == 1
    assert tournament.settings["forfeit_after"] == 3 and tournament.settings["duplicate"] is False
    assert sorted(tournament.entries.values_list("bot_id", flat=True)) == [bot.pk for bot in bots]


@pytest.mark.parametrize(
    ("game", "fmt", "given", "code", "message"),
    [
        ("chess", "round_robin", {}, "unknown_game", "no game called 'chess'"),
        ("love_letter", "ladder", {}, "invalid_settings", "format must be one of"),
        ("love_letter", "round_robin", {"table_size": 6}, "invalid_settings", "table_size must be"),
        ("love_letter", "knockout", {"table_size": 4, "advance": 4}, "invalid_settings", "advance must be"),
        ("love_letter", "swiss", {"rounds": 0}, "invalid_settings", "rounds must be"),
        ("love_letter", "swiss", {"colour": "red"}, "invalid_settings", "unknown settings"),
        ("love_letter", "swiss", {"time_control": {"move_ms": -1}}, "invalid_settings", "time_control"),
    ],
)
def test_it_refuses_bad_settings_and_stores_nothing(staff, game, fmt, given, code, message) -> None:
    bots = make_bots(staff, "love_letter", 3)
    with pytest.raises(ServiceError, match=message) as error:
        do_create_tournament(staff, game, "Cup", fmt, given, bots)
    assert (error.value.status, error.value.code) == (400, code)
    assert not Tournament.objects.exists() and not Entry.objects.exists()


def test_it_refuses_entrants_of_another_game_and_stores_nothing(staff) -> None:
    bots = make_bots(staff, "love_letter", 2) + make_bots(staff, "high_society", 1, prefix="hs")
    with pytest.raises(ServiceError, match=r"another game than love_letter: staff/hs0 \(high_society\)"):
        do_create_tournament(staff, "love_letter", "Cup", "round_robin", {}, bots)
    assert not Tournament.objects.exists()


def test_it_refuses_the_same_bot_twice(staff) -> None:
    bot = make_bots(staff, "love_letter", 1)[0]
    with pytest.raises(ServiceError, match="only once"):
        do_create_tournament(staff, "love_letter", "Cup", "round_robin", {}, [bot, bot])


@pytest.mark.parametrize(
    ("fmt", "given", "count", "needed"),
    [("round_robin", {}, 1, 2), ("round_robin", {"table_size": 4}, 3, 4), ("swiss", {}, 2, 3), ("knockout", {}, 1, 2)],
)
def test_starting_with_too_few_entrants_is_a_400_and_nothing_starts(staff, fmt, given, count, needed) -> None:
    bots = make_bots(staff, "love_letter", count)
    tournament = do_create_tournament(staff, "love_letter", "Cup", fmt, given, bots)
    with pytest.raises(ServiceError, match=f"needs at least {needed} entrants; this one has {count}") as e:
        do_start_tournament(tournament)
    assert (e.value.status, e.value.code) == (400, "too_few_entrants")
    _nothing_started(tournament)


def test_starting_with_a_rejected_or_unvalidated_version_is_a_400_and_nothing_starts(staff) -> None:
    bots = make_bots(staff, "love_letter", 4)
    BotVersion.objects.filter(bot=bots[1]).update(status=BotVersion.Status.REJECTED)
    BotVersion.objects.filter(bot=bots[2]).update(status=BotVersion.Status.PENDING)
    tournament = do_create_tournament(staff, "love_letter", "Cup", "round_robin", {}, bots)
    with pytest.raises(ServiceError) as error:
        do_start_tournament(tournament)
    assert (error.value.status, error.value.code) == (400, "rejected_version")
    assert "staff/bot1 has no version that passed validation (its newest version is rejected)" in error.value.message
    assert "staff/bot2 has no version that passed validation (its newest version is pending)" in error.value.message
    _nothing_started(tournament)


def test_a_pinned_rejected_version_is_refused_when_entered(staff) -> None:
    bots = make_bots(staff, "love_letter", 2)
    tournament = do_create_tournament(staff, "love_letter", "Cup", "round_robin", {}, bots[:1])
    rejected = BotVersion.objects.create(bot=bots[1], number=2, builtin="random", status=BotVersion.Status.REJECTED)
    with pytest.raises(ServiceError, match="was rejected by validation"):
        do_add_entry(tournament, bots[1], rejected)
    assert tournament.entries.count() == 1


def test_a_knockout_the_entrants_cannot_fill_is_refused_with_advice(staff) -> None:
    bots = make_bots(staff, "high_society", 8)
    tournament = do_create_tournament(staff, "high_society", "Cup", "knockout", {"table_size": 4, "advance": 1}, bots)
    with pytest.raises(ServiceError, match="the final would have 2 players") as error:
        do_start_tournament(tournament)
    assert error.value.status == 400
    _nothing_started(tournament)


def test_a_second_start_is_a_409(staff) -> None:
    bots = make_bots(staff, "love_letter", 4)
    tournament = do_create_tournament(staff, "love_letter", "Cup", "round_robin", {}, bots)
    do_start_tournament(tournament)
    matches = Match.objects.count()
    with pytest.raises(ServiceError, match="already running") as error:
        do_start_tournament(tournament)
    assert (error.value.status, error.value.code) == (409, "already_started")
    assert Match.objects.count() == matches


def test_a_started_tournament_cannot_be_edited(staff) -> None:
    bots = make_bots(staff, "love_letter", 3)
    tournament = do_create_tournament(staff, "love_letter", "Cup", "round_robin", {}, bots[:2])
    do_update_tournament(tournament, bots=bots, settings={"games_per_pairing": 2})
    assert tournament.entries.count() == 3
    do_start_tournament(tournament)
    with pytest.raises(ServiceError, match="only a draft can be changed") as error:
        do_update_tournament(tournament, rated=True)
    assert error.value.status == 409


# ----- starting -----------------------------------------------------------------------------------------------


def test_starting_seeds_by_elo_and_pins_versions_that_a_later_upload_does_not_change(staff) -> None:
    bots = make_bots(staff, "love_letter", 4)
    Rating.objects.filter(bot=bots[3]).update(elo=2500)  # the weakest name, the best rating: seed 1
    tournament = do_create_tournament(staff, "love_letter", "Cup", "round_robin", {}, bots)
    do_start_tournament(tournament)
    seeds = dict(tournament.entries.values_list("bot__name", "seed"))
    assert seeds == {"bot3": 1, "bot0": 2, "bot1": 3, "bot2": 4}
    first = {entry.bot_id: entry.bot_version_id for entry in tournament.entries.all()}
    # A new version goes live on the ladder; the tournament keeps playing the pinned one.
    newer = BotVersion.objects.create(bot=bots[0], number=2, builtin="heuristic", status=BotVersion.Status.READY)
    play_out(tournament, by_strength(_strength(bots)))
    played = set(Match.objects.filter(round__tournament=tournament).values_list("seats__bot_version", flat=True))
    assert newer.pk not in played and played == set(first.values())


def test_seeds_follow_the_fitted_elo_the_leaderboard_shows_and_the_online_elo_before_a_fit(staff) -> None:
    bots = make_bots(staff, "love_letter", 4)  # online Elo 1800, 1790, 1780, 1770
    versions = [bot.versions.get() for bot in bots[:3]]
    for _ in range(12):  # bot2 beats bot0 and bot1, bot1 beats bot0: fitted, the online order is upside down
        fits_helpers.record([versions[2], versions[0]], [1, 2])
        fits_helpers.record([versions[2], versions[1]], [1, 2])
        fits_helpers.record([versions[1], versions[0]], [1, 2])
    Rating.objects.filter(bot__in=bots[:3]).update(elo=1500)  # the online Elo no longer tells them apart
    Rating.objects.filter(bot=bots[3]).update(elo=1510)  # never played: not fitted, seeded by its online Elo
    assert fits.refit_game("love_letter") is not None
    fitted = dict(FittedRating.objects.values_list("bot__name", "elo"))
    assert fitted["bot2"] > 1510 > fitted["bot1"] > fitted["bot0"] and "bot3" not in fitted
    tournament = do_create_tournament(staff, "love_letter", "Cup", "round_robin", {}, bots)
    do_start_tournament(tournament)
    seeds = dict(tournament.entries.values_list("bot__name", "seed"))
    assert seeds == {"bot2": 1, "bot3": 2, "bot1": 3, "bot0": 4}


def test_round_one_matches_are_queued_tournament_games_with_the_time_control(staff) -> None:
    bots = make_bots(staff, "love_letter", 4)
    settings = {"time_control": {"move_ms": 500, "bank_ms": 5000}}
    tournament = do_create_tournament(staff, "love_letter", "Cup", "round_robin", settings, bots)
    do_start_tournament(tournament)
    matches = list(Match.objects.filter(round__tournament=tournament))
    assert len(matches) == 2 and {m.round.number for m in matches} == {1}
    assert all(m.kind == Match.Kind.TOURNAMENT and m.status == Match.Status.QUEUED for m in matches)
    assert all(m.time_control == {"move_ms": 500, "bank_ms": 5000} for m in matches)
    assert tournament.rounds.count() == 3  # a round robin plans every round at the start


def test_advancing_twice_changes_nothing(staff) -> None:
    bots = make_bots(staff, "love_letter", 4)
    tournament = do_create_tournament(staff, "love_letter", "Cup", "swiss", {}, bots)
    do_start_tournament(tournament)
    do_advance_tournament(tournament.pk)
    do_advance_tournament(tournament.pk)
    assert Match.objects.filter(round__tournament=tournament).count() == 2
    assert tournament.rounds.count() == 1


# ----- each format end to end ---------------------------------------------------------------------------------


def test_a_two_player_round_robin_plays_every_pairing_and_ranks_by_points(staff) -> None:
    bots = make_bots(staff, "love_letter", 5)
    tournament = do_create_tournament(staff, "love_letter", "RR", "round_robin", {"games_per_pairing": 2}, bots)
    do_start_tournament(tournament)
    tournament = play_out(tournament, by_strength(_strength(bots)))
    assert tournament.status == Tournament.Status.FINISHED and tournament.finished_at
    met = _pairs_met(tournament)
    assert set(met.values()) == {2} and len(met) == 10, "every pairing, games_per_pairing times"
    standings = list(tournament.entries.order_by("position").values_list("bot__name", "score", "games"))
    assert standings == [("bot0", 8, 8), ("bot1", 6, 8), ("bot2", 4, 8), ("bot3", 2, 8), ("bot4", 0, 8)]
    assert set(tournament.rounds.values_list("status", flat=True)) == {Round.Status.FINISHED}
    # Seats rotate: each pairing's two games swap the seats.
    for match_round in tournament.rounds.all():
        for table in match_round.plan["tables"]:
            seatings = {
                tuple(match.seats.order_by("number").values_list("bot_version__bot_id", flat=True))
                for match in match_round.matches.all()
                if set(match.seats.values_list("bot_version__bot_id", flat=True))
                == set(Entry.objects.filter(pk__in=table["entries"]).values_list("bot_id", flat=True))
            }
            assert len(seatings) == 2


def test_a_four_player_round_robin_seats_every_pair_together(staff) -> None:
    bots = make_bots(staff, "love_letter", 6)
    tournament = do_create_tournament(staff, "love_letter", "RR4", "round_robin", {"table_size": 4}, bots)
    do_start_tournament(tournament)
    tournament = play_out(tournament, by_strength(_strength(bots)))
    assert tournament.status == Tournament.Status.FINISHED
    assert len(_pairs_met(tournament)) == 15
    assert all(1 <= m.seats.count() <= 4 for m in Match.objects.filter(round__tournament=tournament))
    assert tournament.entries.get(position=1).bot == bots[0]


def test_a_two_player_swiss_gives_byes_and_never_repeats_a_pairing(staff) -> None:
    bots = make_bots(staff, "love_letter", 7)
    tournament = do_create_tournament(staff, "love_letter", "Swiss", "swiss", {"rounds": 3}, bots)
    do_start_tournament(tournament)
    tournament = play_out(tournament, by_strength(_strength(bots)))
    assert tournament.status == Tournament.Status.FINISHED and tournament.rounds.count() == 3
    assert set(_pairs_met(tournament).values()) == {1}
    byes = [entry for r in tournament.rounds.all() for entry in r.plan["byes"]]
    assert len(byes) == 3 and len(set(byes)) == 3
    leader = tournament.entries.get(position=1)
    assert leader.bot == bots[0] and leader.score == 3
    assert set(leader.tiebreaks) == {"buchholz", "sonneborn_berger", "wins"}
    # A bye is worth a win (bye_points 1 for two-player tables).
    bye_entry = Entry.objects.get(pk=byes[0])
    assert bye_entry.score == bye_entry.games - (bye_entry.games - bye_entry.tiebreaks["wins"]) + 1


def test_a_four_player_swiss_on_high_society(staff) -> None:
    bots = make_bots(staff, "high_society", 9)
    tournament = do_create_tournament(staff, "high_society", "HS", "swiss", {"table_size": 4}, bots)
    do_start_tournament(tournament)
    tournament = play_out(tournament, by_strength(_strength(bots)))
    assert tournament.status == Tournament.Status.FINISHED
    assert tournament.planned_rounds == 4 == tournament.rounds.count()
    for match_round in tournament.rounds.all():  # 9 at tables of 4: three tables of 3 rather than a bye
        assert [len(table["entries"]) for table in match_round.plan["tables"]] == [3, 3, 3]
        assert match_round.plan["byes"] == []
    assert tournament.entries.get(position=1).bot == bots[0]


def test_a_two_player_knockout_seeds_the_bracket_and_plays_best_of_series(staff) -> None:
    bots = make_bots(staff, "love_letter", 6)
    tournament = do_create_tournament(staff, "love_letter", "KO", "knockout", {"best_of": 3}, bots)
    do_start_tournament(tournament)
    first = tournament.rounds.get(number=1)
    assert first.plan["bracket"] == [[e] for e in first.plan["byes"][:1]] + first.plan["bracket"][1:]
    seeds = dict(Entry.objects.filter(tournament=tournament).values_list("pk", "seed"))
    assert [[seeds[e] for e in group] for group in first.plan["bracket"]] == [[1], [4, 5], [2], [3, 6]]
    tournament = play_out(tournament, by_strength(_strength(bots)))
    assert tournament.status == Tournament.Status.FINISHED and tournament.rounds.count() == 3
    # Best of 3 between a stronger and a weaker bot: decided 2-0, the third game never created.
    assert all(len(t["advancers"]) == 1 for r in tournament.rounds.all() for t in r.plan["tables"])
    assert Match.objects.filter(round__tournament=tournament).count() == 2 * (2 + 2 + 1)
    order = list(tournament.entries.order_by("position").values_list("bot__name", flat=True))
    assert order[:2] == ["bot0", "bot1"]
    assert tournament.entries.get(bot=bots[0]).eliminated_in is None
    assert tournament.entries.get(bot=bots[1]).eliminated_in == 3


def test_a_tied_series_goes_on_beyond_best_of(staff) -> None:
    bots = make_bots(staff, "love_letter", 2)
    tournament = do_create_tournament(staff, "love_letter", "KO", "knockout", {"best_of": 1}, bots)
    do_start_tournament(tournament)
    games = iter([[1, 1], [1, 1], [2, 1]])  # two draws, then seat 1 wins
    tournament = play_out(tournament, lambda match, seats: (next(games), [None, None]))
    assert Match.objects.filter(round__tournament=tournament).count() == 3
    winner = Match.objects.filter(round__tournament=tournament).order_by("id").last().seats.get(number=1)
    assert tournament.entries.get(position=1).bot_version_id == winner.bot_version_id


def test_a_four_player_knockout_advances_the_top_two_of_each_table_in_duplicate(staff) -> None:
    bots = make_bots(staff, "high_society", 8)
    settings = {"table_size": 4, "advance": 2, "duplicate": True}
    tournament = do_create_tournament(staff, "high_society", "HS KO", "knockout", settings, bots)
    do_start_tournament(tournament)
    tournament = play_out(tournament, by_strength(_strength(bots)))
    assert tournament.status == Tournament.Status.FINISHED and tournament.rounds.count() == 2
    final = tournament.rounds.get(number=2)
    names = set(Entry.objects.filter(pk__in=final.plan["tables"][0]["entries"]).values_list("bot__name", flat=True))
    assert names == {"bot0", "bot1", "bot2", "bot3"}
    # Duplicate: every game is played under all four rotations with one seed.
    by_seed: dict[int, list[Match]] = {}
    for match in Match.objects.filter(round__tournament=tournament):
        by_seed.setdefault(match.seed, []).append(match)
    assert all(len(group) == 4 for group in by_seed.values())
    for group in by_seed.values():
        first_seats = {m.seats.get(number=0).bot_version_id for m in group}
        assert len(first_seats) == 4
    assert tournament.entries.get(position=1).bot == bots[0]


def test_a_three_player_final_on_love_letter_with_byes(staff) -> None:
    bots = make_bots(staff, "love_letter", 5)
    tournament = do_create_tournament(staff, "love_letter", "KO", "knockout", {"table_size": 4, "advance": 2}, bots)
    do_start_tournament(tournament)
    first = tournament.rounds.get(number=1)
    assert len(first.plan["byes"]) == 1 and [len(t["entries"]) for t in first.plan["tables"]] == [4]
    tournament = play_out(tournament, by_strength(_strength(bots)))
    assert tournament.status == Tournament.Status.FINISHED
    final = tournament.rounds.get(number=2).plan["tables"][0]
    assert len(final["entries"]) == 3 and final["order"][0] == tournament.entries.get(bot=bots[0]).pk


# ----- faults, failures, forfeits -----------------------------------------------------------------------------


def test_a_bot_that_keeps_faulting_forfeits_and_its_opponents_score(staff) -> None:
    bots = make_bots(staff, "love_letter", 4)
    tournament = do_create_tournament(
        staff, "love_letter", "RR", "round_robin", {"games_per_pairing": 2, "forfeit_after": 3}, bots
    )
    do_start_tournament(tournament)
    strength = _strength(bots)

    def crashing_bot3(match, seats):  # type: ignore[no-untyped-def]
        ranks, _ = by_strength(strength)(match, seats)
        return ranks, ["crash" if seat.bot_version.bot == bots[3] else None for seat in seats]

    tournament = play_out(tournament, crashing_bot3)
    assert tournament.status == Tournament.Status.FINISHED
    quitter = tournament.entries.get(bot=bots[3])
    assert quitter.forfeited and "faulted in its last 3 games in a row (crashed: 3)" in quitter.forfeit_reason
    played = Match.objects.filter(round__tournament=tournament, seats__bot_version__bot=bots[3]).count()
    assert played == 4, "two games in each of its first two rounds; then walkovers"
    walkovers = [t for r in tournament.rounds.all() for t in r.plan["tables"] if t["walkover"]]
    assert len(walkovers) == 1 and walkovers[0]["absent"] == [quitter.pk]
    # Everyone else still played or was awarded all six of their games.
    assert all(e.games == 6 for e in tournament.entries.exclude(pk=quitter.pk))
    assert quitter.position == 4


def test_a_forfeited_entrant_loses_its_knockout_series(staff) -> None:
    bots = make_bots(staff, "love_letter", 4)
    tournament = do_create_tournament(staff, "love_letter", "KO", "knockout", {"best_of": 5, "forfeit_after": 2}, bots)
    do_start_tournament(tournament)

    def bot0_times_out(match, seats):  # type: ignore[no-untyped-def]
        ranks = [2 if seat.bot_version.bot == bots[0] else 1 for seat in seats]
        return ranks, ["timeout" if seat.bot_version.bot == bots[0] else None for seat in seats]

    tournament = play_out(tournament, bot0_times_out)
    assert tournament.status == Tournament.Status.FINISHED
    assert tournament.entries.get(bot=bots[0]).forfeited
    assert tournament.entries.get(bot=bots[0]).eliminated_in == 1
    assert Match.objects.filter(round__tournament=tournament, seats__bot_version__bot=bots[0]).count() == 3


def test_a_match_that_fails_for_good_is_void_and_the_round_still_completes(staff, settings) -> None:
    settings.MATCH_MAX_ATTEMPTS = 1
    bots = make_bots(staff, "love_letter", 4)
    tournament = do_create_tournament(staff, "love_letter", "RR", "round_robin", {}, bots)
    do_start_tournament(tournament)
    broken = Match.objects.filter(round__tournament=tournament).order_by("id").first()
    do_claim_match(broken.pk)
    released = do_release_match(broken.pk, "SandboxError: no bubblewrap")
    assert released.status == Match.Status.FAILED
    tournament = play_out(tournament, by_strength(_strength(bots)))
    assert tournament.status == Tournament.Status.FINISHED
    losers = set(broken.seats.values_list("bot_version__bot_id", flat=True))
    assert sorted(e.games for e in tournament.entries.all() if e.bot_id in losers) == [2, 2]
    assert sorted(e.games for e in tournament.entries.all() if e.bot_id not in losers) == [3, 3]


# ----- pause, resume, cancel ----------------------------------------------------------------------------------


def test_a_paused_tournament_starts_no_new_round_until_resumed(staff) -> None:
    bots = make_bots(staff, "love_letter", 4)
    tournament = do_create_tournament(staff, "love_letter", "RR", "round_robin", {}, bots)
    do_start_tournament(tournament)
    do_pause_tournament(tournament)
    with pytest.raises(ServiceError, match="already paused"):
        do_pause_tournament(tournament)
    for match in Match.objects.filter(round__tournament=tournament):  # the queued games still play
        do_claim_match(match.pk)
        do_record_match_result(match.pk, runner_result(result([1, 2])))
    do_advance_tournament(tournament.pk)
    assert Match.objects.filter(round__tournament=tournament).count() == 2
    assert tournament.entries.filter(score=1).count() == 2, "the standings are live even while paused"
    do_resume_tournament(tournament)
    do_advance_tournament(tournament.pk)
    assert Match.objects.filter(round__tournament=tournament).count() == 4
    with pytest.raises(ServiceError, match="only a paused tournament") as error:
        do_resume_tournament(tournament)
    assert error.value.status == 409


def test_cancelling_withdraws_the_queued_games_and_keeps_the_played_ones(staff) -> None:
    bots = make_bots(staff, "love_letter", 4)
    tournament = do_create_tournament(staff, "love_letter", "RR", "round_robin", {}, bots)
    do_start_tournament(tournament)
    played, queued = Match.objects.filter(round__tournament=tournament).order_by("id")
    do_claim_match(played.pk)
    do_record_match_result(played.pk, runner_result(result([1, 2])))
    do_cancel_tournament(tournament)
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.CANCELLED and tournament.finished_at
    queued.refresh_from_db()
    assert queued.status == Match.Status.FAILED and "cancelled" in queued.error
    assert do_claim_match(queued.pk) is None, "a worker that picks the task up finds nothing to play"
    assert Match.objects.get(pk=played.pk).status == Match.Status.FINISHED
    do_advance_tournament(tournament.pk)
    assert Match.objects.filter(round__tournament=tournament).count() == 2
    with pytest.raises(ServiceError, match="already cancelled") as error:
        do_cancel_tournament(tournament)
    assert error.value.status == 409
    with pytest.raises(ServiceError, match="only a running tournament can be paused"):
        do_pause_tournament(tournament)


# ----- ratings ------------------------------------------------------------------------------------------------


def test_tournament_games_leave_ladder_elo_alone_by_default(staff) -> None:
    bots = make_bots(staff, "love_letter", 3)
    Rating.objects.update(elo=1500)  # as a history with no rated games has it
    tournament = do_create_tournament(staff, "love_letter", "RR", "round_robin", {}, bots)
    do_start_tournament(tournament)
    before = dict(Rating.objects.values_list("bot_id", "elo"))
    play_out(tournament, by_strength(_strength(bots)))
    assert not RatingChange.objects.exists()
    assert dict(Rating.objects.values_list("bot_id", "elo")) == before
    assert do_recompute_ratings(["love_letter"])[0].differences == []


def test_a_rated_tournament_changes_elo_and_the_recompute_agrees(staff) -> None:
    bots = make_bots(None, "love_letter", 3)  # one owner each: a rated tournament takes one bot per owner
    Rating.objects.update(elo=1500)
    tournament = do_create_tournament(staff, "love_letter", "RR", "round_robin", {}, bots, rated=True)
    do_start_tournament(tournament)
    play_out(tournament, by_strength(_strength(bots)))
    assert RatingChange.objects.count() == 6
    assert Rating.objects.get(bot=bots[0]).elo > 1500 > Rating.objects.get(bot=bots[2]).elo
    report = do_recompute_ratings(["love_letter"])[0]
    assert report.differences == [] and report.matches == 3


def test_the_safety_net_advances_every_running_tournament(staff) -> None:
    bots = make_bots(staff, "love_letter", 2)
    running = do_create_tournament(staff, "love_letter", "A", "round_robin", {}, bots)
    do_start_tournament(running)
    do_create_tournament(staff, "love_letter", "B", "round_robin", {}, bots)  # a draft: left alone
    match = Match.objects.get(round__tournament=running)
    do_claim_match(match.pk)
    do_record_match_result(match.pk, runner_result(result([2, 1])))
    assert do_advance_running_tournaments() == [running.pk]
    running.refresh_from_db()
    assert running.status == Tournament.Status.FINISHED
    assert running.entries.get(position=1).bot_version_id == match.seats.get(number=1).bot_version_id
    assert timezone.now() >= running.finished_at
