"""Fitted Elo in the league (issue 21): the refit from recorded games, what it stores, staleness, the pages and
API that show it, the settling matchmaking and the seat advantage."""

from __future__ import annotations

import pytest

from league.models import BotVersion, FitSnapshot, FittedRating, RatingFit
from league.services import fits
from tests.league.fits_helpers import league, newest, play_ordered, record

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
