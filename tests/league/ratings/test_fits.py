"""Fitted Elo in the league (issue 21): the refit from recorded games, what it stores, staleness, the pages and
API that show it, the settling matchmaking and the seat advantage."""

from __future__ import annotations

import importlib
import io
import itertools
import random

import pytest
from django.apps import apps
from django.core.management import CommandError, call_command
from django.db import connection, transaction
from django.db.models import F
from django.test import Client
from rest_framework.test import APIClient

from league.bots.models import BotVersion
from league.ladder.pairing import Candidate
from league.ladder.scheduling import do_schedule_ladder, ladder_config
from league.ladder.settling import settle_score
from league.play.matches import do_claim_match, do_create_match
from league.play.models import Match, Seat
from league.play.recording import do_record_match_result
from league.ratings import fits
from league.ratings.models import FitSnapshot, FitStatistics, FittedRating, RatedSequence, Rating, RatingFit
from league.site.views import rank_text
from tests.league.ratings.fits_helpers import league, newest, play_ordered, record
from tests.results import runner_result

pytestmark = pytest.mark.django_db


def test_refit_orders_the_bots_by_their_results_with_intervals_and_rank_ranges() -> None:
    bots = league(4)
    play_ordered(bots, 120)
    fit = fits.refit_game("love_letter")
    assert fit is not None and fit.converged and fit.matches == 120 and fit.bots == 4
    rows = {row.bot_id: row for row in FittedRating.objects.all()}
    elos = [rows[bot.pk].elo for bot in bots]
    assert elos == sorted(elos, reverse=True)
    # Anchored: the league mean is 1500.
    assert sum(elos) / 4 == pytest.approx(1500, abs=0.5)
    for n, bot in enumerate(bots, start=1):
        row = rows[bot.pk]
        assert row.low < row.elo < row.high and row.high - row.low == pytest.approx(2 * 1.959964 * row.sigma)
        assert row.rank == n and row.rank_low <= n <= row.rank_high
        assert row.games == sum(1 for _ in newest(bot).seats.all())
        assert row.version_id == newest(bot).pk
    assert FitSnapshot.objects.filter(fit=fit).count() == 4


def test_nothing_to_fit_before_the_first_rated_game() -> None:
    league(2)
    assert fits.refit_game("love_letter") is None
    assert fits.do_refit_stale(["love_letter"]) == []
    assert not RatingFit.objects.exists()


def test_only_changed_games_are_refitted_warm_and_snapshots_only_for_what_moved() -> None:
    bots = league(3)
    play_ordered(bots, 30)
    assert len(fits.do_refit_stale(["love_letter"])) == 1
    assert fits.do_refit_stale(["love_letter"]) == []  # nothing new
    versions = [newest(bot) for bot in bots]
    record([versions[2], versions[0]], [1, 2])
    assert fits.is_stale("love_letter")
    [fit] = fits.do_refit_stale(["love_letter"])
    assert fit.matches == 31
    moved = set(FitSnapshot.objects.filter(fit=fit).values_list("bot_id", flat=True))
    assert {bots[0].pk, bots[2].pk} <= moved


def test_a_new_version_is_fitted_on_its_own_games_alone() -> None:
    bots = league(3)
    play_ordered(bots, 40)  # bot0 strongest
    second = BotVersion.objects.create(bot=bots[0], number=2, builtin="random", status=BotVersion.Status.READY)
    others = [newest(bot) for bot in bots[1:]]
    for _ in range(6):
        record([second, others[0]], [2, 1])
        record([others[1], second], [1, 2])
    fits.refit_game("love_letter")
    row = FittedRating.objects.get(bot=bots[0])
    assert row.version_id == second.pk and row.games == 12
    assert row.rank == 3


def test_seat_results_count_wins_per_seat_and_table_size() -> None:
    bots = league(3)
    versions = [newest(bot) for bot in bots]
    record(versions[:2], [1, 2])
    record(versions[1:], [1, 2])
    record([versions[0], versions[2]], [1, 1])
    record(versions, [2, 1, 3])
    fit = fits.refit_game("love_letter")
    assert fit is not None
    assert fit.seat_results == {"2": [[3, 2, 1], [3, 0, 1]], "3": [[1, 0, 0], [1, 1, 0], [1, 0, 0]]}


def test_recompute_ratings_refits_from_cold_and_finds_a_wrong_stored_fit() -> None:
    bots = league(4)
    play_ordered(bots, 60)
    assert fits.compare_fit("love_letter") is None  # no fit yet: nothing to compare
    fits.refit_game("love_letter")
    assert fits.compare_fit("love_letter") == []
    out = io.StringIO()
    call_command("recompute_ratings", "--check", "--game", "love_letter", stdout=out)
    assert "fitted Elo equal to a cold refit" in out.getvalue()
    FittedRating.objects.filter(bot=bots[1]).update(elo=F("elo") + 5)
    with pytest.raises(CommandError):
        call_command("recompute_ratings", "--check", "--game", "love_letter", stdout=io.StringIO())
    [difference] = fits.compare_fit("love_letter") or []
    assert difference.startswith(f"bot {bots[1].pk}: fitted elo")
    out = io.StringIO()
    with pytest.raises(CommandError):  # repairs, and still reports what it found
        call_command("recompute_ratings", "--game", "love_letter", stdout=out)
    assert "refitted" in out.getvalue() and fits.compare_fit("love_letter") == []


def test_the_leaderboard_shows_the_win_rate_by_seat(client: Client) -> None:
    bots = league(2)
    versions = [newest(bot) for bot in bots]
    for ranks in ([1, 2], [1, 2], [1, 2], [2, 1]):
        record(versions, ranks)
    fits.refit_game("love_letter")
    html = client.get("/games/love_letter/").content.decode()
    section = html[html.index("Win rate by seat") :]
    assert "seat 1: <strong>75.0%</strong>" in section and "seat 2: <strong>25.0%</strong>" in section


def test_the_bot_page_and_api_give_rank_and_range(client: Client) -> None:
    bots = league(5)
    play_ordered(bots, 150, upset=0.1)
    fits.refit_game("love_letter")
    row = FittedRating.objects.get(bot=bots[2])
    html = client.get(f"/bots/{bots[2].pk}/").content.decode()
    assert rank_text(row) in html and rank_text(row).startswith("3rd, ") and rank_text(row).endswith(" at 95%")
    assert "rated games" in html
    detail = APIClient().get(f"/api/bots/{bots[2].pk}/").json()["fitted"]
    assert detail["elo"] == pytest.approx(row.elo) and detail["rank"] == 3
    assert detail["rank_range"] == [row.rank_low, row.rank_high] and detail["version"] == 1
    listed = APIClient().get("/api/bots/?ordering=-elo").json()["results"]
    assert [bot["id"] for bot in listed] == [bot.pk for bot in bots]
    newcomer = league(1, owner="late")[0]  # not fitted: last either way
    listed = APIClient().get("/api/bots/?ordering=elo").json()["results"]
    assert [bot["id"] for bot in listed] == [bot.pk for bot in reversed(bots)] + [newcomer.pk]
    assert listed[-1]["fitted"] is None


def test_an_unfitted_bot_says_so_on_its_page(client: Client) -> None:
    bots = league(2)
    record([newest(bots[0]), newest(bots[1])], [1, 2])
    html = client.get(f"/bots/{bots[0].pk}/").content.decode()
    assert "not fitted yet" in html and "Not fitted yet" in html  # the stats and the chart


def test_the_settling_ladder_pairs_the_least_certain_neighbours_after_placement(settings) -> None:
    settings.LADDER_GAMES = {"love_letter": {"table_sizes": [2], "max_in_flight": 1}}
    bots = league(6)
    # Established (past placement): 0 and 1 far apart from the rest and from each other; 3 and 4 barely apart.
    play_ordered(bots, 240, upset=0.3)
    Rating.objects.update(games=100, games_since_version=100)
    fits.refit_game("love_letter")
    fitted = {row.bot_id: row for row in FittedRating.objects.all()}
    together = fits.together_of("love_letter")
    expected = max(
        itertools.combinations(sorted(bots, key=lambda b: -fitted[b.pk].elo), 2),
        key=lambda pair: _score(fitted[pair[0].pk], fitted[pair[1].pk], together),
    )
    for seed in range(6):  # whatever the random tie-breaks
        matches = do_schedule_ladder(random.Random(seed))
        assert matches  # the first table is the least certain pair; the next ones avoid its (busy) bots
        seated = [{seat.bot_version.bot_id for seat in match.seats.all()} for match in matches]
        assert seated[0] == {expected[0].pk, expected[1].pk}
        assert all(not (a & b) for a, b in itertools.combinations(seated, 2))  # max_in_flight 1 holds
        Match.objects.filter(pk__in=[match.pk for match in matches]).delete()
    assert ladder_config("love_letter").matchmaking == "settle"


def test_a_new_version_is_placed_again_before_settling(settings) -> None:
    settings.LADDER_GAMES = {"love_letter": {"table_sizes": [2], "max_in_flight": 1}}
    bots = league(6)
    play_ordered(bots, 240, upset=0.3)
    Rating.objects.update(games=100, games_since_version=100)
    fits.refit_game("love_letter")
    Rating.objects.filter(bot=bots[5]).update(games_since_version=0)  # as after its new version's first match
    seated = set()
    for seed in range(6):  # placement tables (pairing.plan_tables) seat the newcomer first, whatever the seed
        matches = do_schedule_ladder(random.Random(seed))
        seated |= {seat.bot_version.bot_id for seat in matches[0].seats.all()}
        Match.objects.filter(pk__in=[match.pk for match in matches]).delete()
    assert bots[5].pk in seated


def _score(a: FittedRating, b: FittedRating, together: dict[tuple[int, int], float]) -> float:
    candidates = [Candidate(bot_id=r.bot_id, version=None, elo=r.elo, sigma=r.sigma, games=100) for r in (a, b)]
    return settle_score(candidates[0], candidates[1], together)


def test_together_keeps_the_games_of_near_pairs() -> None:
    bots = league(3)
    versions = [newest(bot) for bot in bots]
    record(versions[:2], [1, 2])
    record(versions[:2], [2, 1])
    record(versions, [1, 2, 3])  # each pair of a 3-seat table weighs 1/2
    fits.refit_game("love_letter")
    together = fits.together_of("love_letter")
    a, b, c = (bot.pk for bot in bots)
    assert together == {(a, b): 2.5, (a, c): 0.5, (b, c): 0.5}


def test_request_refit_validates_the_game() -> None:
    with pytest.raises(ValueError):
        fits.request_refit("chess")


def test_the_home_page_and_my_bots_show_the_fitted_elo(client: Client) -> None:
    bots = league(3)
    play_ordered(bots, 30)
    client.force_login(bots[0].owner)
    assert "Elo soon" in client.get("/").content.decode()  # (the home page says it in words: issue 32, stumble 14)
    assert "Elo not fitted yet after" in client.get("/account/bots/").content.decode()
    fits.refit_game("love_letter")
    row = FittedRating.objects.get(bot=bots[0])
    assert f">{row.elo:.0f}<" in client.get("/").content.decode()
    mine = client.get("/account/bots/").content.decode()
    assert f"Elo <strong>{row.elo:.0f}</strong> ({row.low:.0f}\u2013{row.high:.0f})" in mine


# The incremental refit (docs/decisions.md, "Incremental refit"): stored statistics plus the matches recorded since.


@pytest.fixture(params=["pending", "compacted"])
def compaction(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Each refit stores its change alone onto the base (never compacting), or the whole statistics each time."""
    monkeypatch.setattr(fits, "COMPACT_SHARE", 1e9 if request.param == "pending" else 0.0)
    return str(request.param)


def _play_tables(versions: list[BotVersion], games: int, seed: int) -> None:
    """Tables of 2 to 4 seats; the lower index tends to win, and equal draws tie."""
    rng = random.Random(seed)
    for _ in range(games):
        table = rng.sample(versions, rng.choice([size for size in (2, 3, 4) if size <= len(versions)]))
        keys = [round(versions.index(version) / 2 + rng.gauss(0, 1)) for version in table]
        record(table, [1 + sum(1 for other in keys if other < key) for key in keys])


def _finish(match: Match, ranks: list[int]) -> None:
    do_claim_match(match.pk)
    seats = [{"rank": rank, "score": float(-rank), "fault": None} for rank in ranks]
    assert do_record_match_result(match.pk, runner_result({"seats": seats, "replay": {}, "wall_ms": 1}))


def test_an_incremental_refit_equals_a_cold_one_and_reads_only_the_new_matches(compaction: str) -> None:
    bots = league(6)
    versions = [newest(bot) for bot in bots]
    _play_tables(versions, 40, seed=1)
    first = fits.refit_game("love_letter")
    assert first is not None and fits.stored_statistics("love_letter").stats.last_seq == 40
    _play_tables(versions, 25, seed=2)
    assert fits.is_stale("love_letter")
    fit = fits.refit_game("love_letter")
    assert fit is not None and fit.matches == 65 and not fits.is_stale("love_letter")
    row = FitStatistics.objects.get(game="love_letter")
    assert (row.pending is None, row.base_seq) == ((False, 40) if compaction == "pending" else (True, 65))
    assert fits.compare_fit("love_letter") == []  # ratings, intervals, ranks, games and the statistics themselves
    # An already counted match changed behind the fit's back (as no code does): the incremental refit does not read
    # it again, so only the cold comparison sees it; a repair rebuilds the statistics from every game.
    oldest = Match.objects.filter(rated_seq=1).get()
    Seat.objects.filter(match=oldest).update(rank=F("rank") % 2 + 1)
    record(versions[:2], [2, 1])
    fits.refit_game("love_letter")
    assert fits.compare_fit("love_letter")
    fits.refit_game("love_letter", cold=True)
    assert fits.compare_fit("love_letter") == []


def test_an_incremental_refit_after_new_versions_counts_their_old_tables_again(compaction: str) -> None:
    bots = league(5)
    versions = [newest(bot) for bot in bots]
    _play_tables(versions, 40, seed=3)
    fits.refit_game("love_letter")
    # bot1's version 2 plays; a table of its version 1 created before finishes after (it counts, without bot1).
    late = do_create_match("love_letter", [versions[0], versions[1], versions[2]], seed=1, kind=Match.Kind.LADDER)
    second = BotVersion.objects.create(bot=bots[1], number=2, builtin="random", status=BotVersion.Status.READY)
    versions[1] = second
    _play_tables(versions, 15, seed=4)
    _finish(late, [3, 1, 2])
    fits.refit_game("love_letter")
    assert fits.compare_fit("love_letter") == []
    row = FittedRating.objects.get(bot=bots[1])
    assert row.version_id == second.pk and row.games == Seat.objects.filter(bot_version=second).count()
    # Then bot2's version 2: tables with both old versions are counted again a second time.
    versions[2] = BotVersion.objects.create(bot=bots[2], number=2, builtin="random", status=BotVersion.Status.READY)
    _play_tables(versions, 12, seed=5)
    fit = fits.refit_game("love_letter")
    assert fit is not None and fit.matches == 68
    assert fits.compare_fit("love_letter") == []
    cold = fits.compute_fit("love_letter", warm=False)
    assert cold is not None
    for bot in bots:
        assert FittedRating.objects.get(bot=bot).games == cold.data.games.get(bot.pk, 0)


def test_matches_finished_out_of_id_order_are_all_counted(compaction: str) -> None:
    bots = league(3)
    play_ordered(bots, 10)
    versions = [newest(bot) for bot in bots]
    early = do_create_match("love_letter", versions[:2], seed=1, kind=Match.Kind.LADDER)
    later = do_create_match("love_letter", versions[1:], seed=2, kind=Match.Kind.LADDER)
    assert early.pk < later.pk
    _finish(later, [1, 2])
    fit = fits.refit_game("love_letter")
    assert fit is not None and fit.matches == 11 and fit.last_match_id == later.pk
    _finish(early, [2, 1])  # recorded after the fit, with a smaller id than the newest it saw
    early.refresh_from_db()
    later.refresh_from_db()
    assert early.rated_seq is not None and later.rated_seq is not None and early.rated_seq > later.rated_seq
    assert fits.is_stale("love_letter")
    fit = fits.refit_game("love_letter")
    assert fit is not None and fit.matches == 12 and fits.compare_fit("love_letter") == []


def test_a_refit_starts_from_the_statistics_it_stored_while_the_row_is_unchanged() -> None:
    if connection.vendor != "postgresql":
        pytest.skip("a row's version (xmin) is PostgreSQL's: elsewhere the statistics are always read")
    versions = [newest(bot) for bot in league(4)]
    _play_tables(versions, 20, seed=6)
    fits.refit_game("love_letter")
    kept = fits.stored_statistics("love_letter")
    assert fits.stored_statistics("love_letter") is kept
    assert fits.stored_statistics("love_letter", from_memory=False) is not kept
    # Another process writes the row (here: the same values, a new version of it): it is read again.
    FitStatistics.objects.filter(game="love_letter").update(matches=F("matches"))
    assert fits.stored_statistics("love_letter") is not kept
    # A refit rolled back with its matches: the next matches take the same numbers, and must all be counted.
    fits.refit_game("love_letter")
    with transaction.atomic():
        _play_tables(versions, 10, seed=7)
        fits.refit_game("love_letter")
        transaction.set_rollback(True)
    _play_tables(versions, 10, seed=8)
    fit = fits.refit_game("love_letter")
    assert fit is not None and fit.matches == 30 and fits.compare_fit("love_letter") == []


def test_the_migration_numbers_existing_rated_matches_in_finish_order() -> None:
    bots = league(3)
    versions = [newest(bot) for bot in bots]
    made = [record(versions[:2], [1, 2]), record(versions[1:], [1, 2]), record([versions[0], versions[2]], [2, 1])]
    last = Match.objects.get(pk=made[2].pk).finished_at
    Match.objects.filter(pk=made[0].pk).update(finished_at=last)  # a tie with the last: by id
    Match.objects.update(rated_seq=None)
    RatedSequence.objects.all().delete()
    importlib.import_module("league.migrations.0011_rated_sequence").number_rated_matches(apps, None)
    numbers = dict(Match.objects.values_list("pk", "rated_seq"))
    assert numbers == {made[1].pk: 1, made[0].pk: 2, made[2].pk: 3}
    assert RatedSequence.objects.get(game="love_letter").last == 3
