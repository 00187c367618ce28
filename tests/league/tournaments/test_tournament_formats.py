"""Properties of the tournament formats (league/tournaments/formats/): pure functions, checked with hypothesis."""

from __future__ import annotations

import itertools
import math
import random
from collections import Counter

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from league.tournaments import formats as tf

FAST = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _meetings(plans: list[tf.RoundPlan]) -> Counter:
    met: Counter = Counter()
    for plan in plans:
        for table in plan.tables:
            met.update(tf.pairs_of(table))
    return met


def _check_round(plan: tf.RoundPlan, entrants: list[int]) -> None:
    seated = [entry for table in plan.tables for entry in table] + list(plan.byes)
    assert sorted(seated) == sorted(entrants), "everyone sits at exactly one table or has a bye"


# ----- round robin --------------------------------------------------------------------------------------------


@FAST
@given(n=st.integers(2, 24), seed=st.integers(0, 2**32))
def test_a_two_player_round_robin_plays_every_pairing_exactly_once(n: int, seed: int) -> None:
    entrants = list(range(100, 100 + n))
    plans = tf.round_robin_schedule(entrants, 2, 2, random.Random(seed))
    met = _meetings(plans)
    assert set(met) == set(tf.pairs_of(entrants))
    assert set(met.values()) == {1}
    assert len(plans) == (n - 1 if n % 2 == 0 else n)
    for plan in plans:
        _check_round(plan, entrants)
    byes = Counter(entry for plan in plans for entry in plan.byes)
    assert byes == (Counter(entrants) if n % 2 else Counter())


@FAST
@given(n=st.integers(3, 14), table_size=st.integers(3, 5), min_players=st.integers(2, 3), seed=st.integers(0, 2**32))
def test_a_multiplayer_round_robin_seats_every_pair_together_and_spreads_meetings(
    n: int, table_size: int, min_players: int, seed: int
) -> None:
    assume(n >= table_size)
    entrants = list(range(n))
    plans = tf.round_robin_schedule(entrants, table_size, min_players, random.Random(seed))
    met = _meetings(plans)
    assert set(met) == set(tf.pairs_of(entrants)), "every pair meets at least once"
    for plan in plans:
        _check_round(plan, entrants)
        assert all(min_players <= len(table) <= table_size for table in plan.tables)
        assert all(len(table) >= table_size - 1 for table in plan.tables)
    byes = Counter(entry for plan in plans for entry in plan.byes)
    assert len({byes[entry] for entry in entrants}) == 1, "everyone sits out equally often"
    # About equally often: nobody meets one opponent many more times than the rounds make necessary.
    assert max(met.values()) <= max(3, math.ceil(2 * sum(met.values()) / len(met)) + 1)


def test_a_round_robin_schedule_is_fixed_by_its_seed() -> None:
    first = tf.round_robin_schedule(list(range(9)), 4, 2, random.Random(7))
    again = tf.round_robin_schedule(list(range(9)), 4, 2, random.Random(7))
    assert [p.tables for p in first] == [p.tables for p in again]


# ----- Swiss --------------------------------------------------------------------------------------------------


def _clean_pairing_exists(players: list[int], met: Counter) -> bool:
    if not players:
        return True
    first, rest = players[0], players[1:]
    return any(
        not met[frozenset((first, other))] and _clean_pairing_exists([e for e in rest if e != other], met)
        for other in rest
    )


@st.composite
def swiss_histories(draw, max_players: int = 10):  # type: ignore[no-untyped-def]
    n = draw(st.integers(3, max_players))
    rounds = draw(st.integers(0, n - 1))
    rng = random.Random(draw(st.integers(0, 2**32)))
    entrants = list(range(n))
    met: Counter = Counter()
    byes: Counter = Counter()
    scores: Counter = Counter()
    for _ in range(rounds):  # arbitrary earlier rounds: random pairings, random results
        order = list(entrants)
        rng.shuffle(order)
        if n % 2:
            byes[order.pop()] += 1
        for a, b in zip(order[::2], order[1::2], strict=True):
            met[frozenset((a, b))] += 1
            scores[rng.choice((a, b))] += 1
    ranking = sorted(entrants, key=lambda e: (-scores[e], e))
    return tf.SwissState(ranking=ranking, scores=dict(scores), met=met, byes=byes)


@FAST
@given(state=swiss_histories())
def test_swiss_never_repeats_a_pairing_that_can_be_avoided(state: tf.SwissState) -> None:
    plan = tf.swiss_round(state, 2, 2)
    entrants = list(state.ranking)
    _check_round(plan, entrants)
    repeats = sum(state.met[frozenset(table)] > 0 for table in plan.tables)
    possible = any(
        _clean_pairing_exists([e for e in entrants if e != bye], state.met)
        for bye in (entrants if len(entrants) % 2 else [None])
    )
    assert repeats == 0 or not possible


@FAST
@given(state=swiss_histories())
def test_a_swiss_bye_goes_to_someone_with_the_fewest_byes_when_that_pairs_cleanly(state: tf.SwissState) -> None:
    entrants = list(state.ranking)
    assume(len(entrants) % 2 == 1)
    plan = tf.swiss_round(state, 2, 2)
    assert len(plan.byes) == 1
    fewest = min(state.byes[e] for e in entrants)
    clean_with_fewest = [
        e
        for e in entrants
        if state.byes[e] == fewest and _clean_pairing_exists([o for o in entrants if o != e], state.met)
    ]
    if clean_with_fewest:
        assert state.byes[plan.byes[0]] == fewest
        # ... and the lowest-ranked of them.
        assert plan.byes[0] == max(clean_with_fewest, key=entrants.index)


@FAST
@given(n=st.integers(3, 16), seed=st.integers(0, 2**32))
def test_a_whole_two_player_swiss_pairs_by_score_without_repeats(n: int, seed: int) -> None:
    rng = random.Random(seed)
    entrants = list(range(n))
    met: Counter = Counter()
    byes: Counter = Counter()
    scores: Counter = Counter()
    for _ in range(math.ceil(math.log2(n))):
        ranking = sorted(entrants, key=lambda e: (-scores[e], e))
        plan = tf.swiss_round(tf.SwissState(ranking, dict(scores), met, byes), 2, 2)
        _check_round(plan, entrants)
        assert all(not met[frozenset(table)] for table in plan.tables), "ceil(log2 n) rounds never need a repeat"
        for table in plan.tables:
            met[frozenset(table)] += 1
            scores[rng.choice(table)] += 1
        for entry in plan.byes:
            byes[entry] += 1
            scores[entry] += 1
    assert max(byes.values(), default=0) <= 1


@FAST
@given(n=st.integers(9, 24), table_size=st.integers(3, 4), seed=st.integers(0, 2**32))
def test_a_multiplayer_swiss_avoids_repeat_meetings_in_its_second_round(n: int, table_size: int, seed: int) -> None:
    assume(n >= table_size * table_size)
    rng = random.Random(seed)
    entrants = list(range(n))
    first = tf.swiss_round(tf.SwissState(entrants, {}, Counter(), Counter()), table_size, 2)
    _check_round(first, entrants)
    met = _meetings([first])
    scores = {entry: rng.random() for entry in entrants}
    ranking = sorted(entrants, key=lambda e: -scores[e])
    second = tf.swiss_round(tf.SwissState(ranking, scores, met, Counter(first.byes)), table_size, 2)
    _check_round(second, entrants)
    assert all(met[pair] == 0 for table in second.tables for pair in tf.pairs_of(table))
    assert not set(first.byes) & set(second.byes) or len(first.byes) * 2 > n


# ----- knockout -----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("size", [2, 4, 8, 16, 32, 64])
def test_the_bracket_keeps_the_top_seeds_apart_until_the_late_rounds(size: int) -> None:
    order = tf.bracket_order(size)
    assert sorted(order) == list(range(1, size + 1))
    # In every section of the bracket of 2^k slots, exactly one of the top size/2^k seeds.
    section = size
    while section >= 2:
        tops = size // section
        for start in range(0, size, section):
            assert sum(1 for seed in order[start : start + section] if seed <= tops) == 1
        section //= 2
    # First-round opponents add up to size + 1 (1 v 16, 8 v 9, ...).
    assert all(a + b == size + 1 for a, b in zip(order[::2], order[1::2], strict=True))


def _two_player_knockout(n: int, best_of: int = 1) -> tf.Settings:
    return tf.parse_settings({"table_size": 2, "best_of": best_of}, tf.KNOCKOUT, 2, 4)


@FAST
@given(n=st.integers(2, 40), seed=st.integers(0, 2**32))
def test_a_two_player_knockout_seeds_by_rating_gives_byes_to_the_top_and_crowns_one(n: int, seed: int) -> None:
    rng = random.Random(seed)
    seeded = list(range(1, n + 1))  # entry id == seed number
    settings_ = _two_player_knockout(n)
    plan = tf.knockout_first_round(seeded, settings_, 2)
    bracket = 1 << max(1, (n - 1).bit_length())
    assert len(plan.byes) == bracket - n
    assert sorted(plan.byes) == list(range(1, bracket - n + 1)), "the top seeds draw the byes"
    expected = tf.knockout_round_sizes(n, 2, 1, 2)
    rounds = 0
    while plan is not None:
        rounds += 1
        assert len(plan.entrants()) == expected[rounds - 1]
        assert all(len(table) == 2 for table in plan.tables)
        through = {i: [g[0]] if len(g) == 1 else [rng.choice(g)] for i, g in enumerate(plan.bracket)}
        last = through
        plan = tf.knockout_next_round(plan, through, seeded, settings_, 2)
    assert rounds == len(expected) == max(1, math.ceil(math.log2(n)))
    assert len(last) == 1


@FAST
@given(n=st.integers(2, 40), seed=st.integers(0, 2**32))
def test_favourites_always_winning_meet_in_the_final(n: int, seed: int) -> None:
    seeded = list(range(1, n + 1))
    settings_ = _two_player_knockout(n)
    plan = tf.knockout_first_round(seeded, settings_, 2)
    while True:
        through = {i: [min(g)] for i, g in enumerate(plan.bracket)}
        following = tf.knockout_next_round(plan, through, seeded, settings_, 2)
        if following is None:
            break
        plan = following
    assert plan.tables == [[1, 2]]


@FAST
@given(
    n=st.integers(3, 40),
    table_size=st.integers(3, 5),
    advance=st.integers(1, 4),
    min_players=st.integers(2, 3),
    seed=st.integers(0, 2**32),
)
def test_a_multiplayer_knockout_advances_the_top_of_each_table_to_one_final(
    n: int, table_size: int, advance: int, min_players: int, seed: int
) -> None:
    assume(advance < table_size and n >= table_size)
    rng = random.Random(seed)
    seeded = list(range(1, n + 1))
    try:
        expected = tf.knockout_round_sizes(n, table_size, advance, min_players)
    except tf.FormatError:
        return  # refused up front with a message (the service turns it into a 400)
    settings_ = tf.parse_settings({"table_size": table_size, "advance": advance}, tf.KNOCKOUT, min_players, 5)
    plan = tf.knockout_first_round(seeded, settings_, min_players)
    # Seeds 1..tables sit at different tables in round one.
    tops = [
        next(i for i, t in enumerate(plan.tables) if s in t)
        for s in range(1, len(plan.tables) + 1)
        if s not in plan.byes
    ]
    assert len(tops) == len(set(tops))
    sizes = []
    while plan is not None:
        sizes.append(len(plan.entrants()))
        assert all(min_players <= len(t) <= table_size for t in plan.tables)
        final = len(plan.bracket) == 1
        assert final or all(len(t) > advance for t in plan.tables)
        through = {
            i: (g if len(g) == 1 else rng.sample(g, 1 if final else advance)) for i, g in enumerate(plan.bracket)
        }
        plan = tf.knockout_next_round(plan, through, seeded, settings_, min_players)
    assert sizes == expected


def test_an_impossible_multiplayer_knockout_is_refused_with_advice() -> None:
    with pytest.raises(tf.FormatError, match="final would have 2 players"):
        tf.knockout_round_sizes(8, 4, 1, 3)


@FAST
@given(
    best_of=st.sampled_from([1, 3, 5, 7]),
    results=st.lists(st.sampled_from([1.0, 0.5, 0.0]), min_size=30, max_size=30),
)
def test_a_series_stops_only_when_the_rest_cannot_change_the_winner(best_of: int, results: list[float]) -> None:
    points = {1: 0.0, 2: 0.0}
    created = played = 0
    decision = tf.decide_series(tf.Series((1, 2), points, 0, 0, (1, 2)), best_of, 1, 2)
    while not decision.decided:
        for _ in range(decision.legs_to_create):
            result = results[created % len(results)]
            points[1] += result
            points[2] += 1 - result
            created += 1
            played += 1
        decision = tf.decide_series(tf.Series((1, 2), points, played, created, (1, 2)), best_of, 1, 2)
    winner, loser = decision.advancers[0], 3 - decision.advancers[0]
    assert points[winner] >= points[loser]
    assert created <= 2 * best_of + 2
    if created < best_of:  # stopped early: even winning every game left would not have saved the loser
        assert points[loser] + (best_of - played) < points[winner]
    if points[winner] == points[loser]:
        assert winner == 1, "a tie after every extra game goes to the higher seed"


def test_a_series_with_a_forfeited_player_is_a_walkover() -> None:
    decision = tf.decide_series(tf.Series((1, 2), {}, 0, 0, (2,)), 3, 1, 2)
    assert decision == tf.SeriesDecision(True, [2])


# ----- seats --------------------------------------------------------------------------------------------------


@FAST
@given(n=st.integers(2, 16), games=st.integers(1, 3), seed=st.integers(0, 2**32))
def test_seats_rotate_over_a_two_player_round_robin(n: int, games: int, seed: int) -> None:
    counts: Counter = Counter()
    for plan in tf.round_robin_schedule(list(range(n)), 2, 2, random.Random(seed)):
        for table in plan.tables:
            tf.seat_orders(table, counts, games, duplicate=False, planned=True)
    for entry in range(n):
        assert abs(counts[(entry, 0)] - counts[(entry, 1)]) <= 1


@FAST
@given(size=st.integers(2, 5), games=st.integers(1, 3))
def test_duplicate_plays_each_game_under_every_rotation(size: int, games: int) -> None:
    table = list(range(size))
    counts: Counter = Counter()
    orders = tf.seat_orders(table, counts, games, duplicate=True)
    assert len(orders) == games
    for game in orders:
        assert len(game) == size
        for seat in range(size):
            assert sorted(order[seat] for order in game) == table, "everyone sits in every seat once per game"


@FAST
@given(size=st.integers(3, 5), rounds=st.integers(1, 10))
def test_seats_rotate_at_a_multiplayer_table(size: int, rounds: int) -> None:
    counts: Counter = Counter()
    for _ in range(rounds):
        tf.seat_orders(list(range(size)), counts, 1, duplicate=False)
    for entry in range(size):
        taken = [counts[(entry, seat)] for seat in range(size)]
        assert max(taken) - min(taken) <= 1


# ----- points and standings -----------------------------------------------------------------------------------


@FAST
@given(size=st.integers(2, 5), data=st.data())
def test_game_points_share_out_one_point_per_pair_of_seats(size: int, data) -> None:  # type: ignore[no-untyped-def]
    present = data.draw(st.integers(1 if size > 2 else 2, size))
    ranks = {seat: data.draw(st.integers(1, present)) for seat in range(present)}
    points = tf.game_points(size, ranks)
    pairs = math.comb(present, 2) + (size - present) * present
    assert math.isclose(sum(points.values()), pairs / (size - 1))
    assert all(0 <= value <= 1 for value in points.values())
    best = min(ranks.values())
    assert all(points[e] >= points[o] for e in ranks for o in ranks if ranks[e] == best)


def test_two_player_points_are_win_one_draw_half_loss_nothing() -> None:
    assert tf.game_points(2, {7: 1, 8: 2}) == {7: 1.0, 8: 0.0}
    assert tf.game_points(2, {7: 1, 8: 1}) == {7: 0.5, 8: 0.5}
    assert tf.game_points(2, {7: 1}) == {7: 1.0}  # the other forfeited


@FAST
@given(n=st.integers(2, 10), seed=st.integers(0, 2**32), fmt=st.sampled_from([tf.ROUND_ROBIN, tf.SWISS]))
def test_standings_order_by_score_then_tie_breaks_then_seed(n: int, seed: int, fmt: str) -> None:
    rng = random.Random(seed)
    entries = [tf.EntryInfo(id=10 + i, seed=i + 1) for i in range(n)]
    played = []
    for number, plan in enumerate(tf.round_robin_schedule([e.id for e in entries], 2, 2, rng), start=1):
        for index, table in enumerate(plan.tables):
            played.append(tf.Played(number, index, 2, dict(zip(table, rng.sample([1, 2], 2), strict=True))))
    rows = tf.standings(fmt, entries, played)
    assert [row.position for row in rows] == list(range(1, n + 1))
    keys = [(-r.score, *(-r.tiebreaks[name] for name in tf.TIEBREAKS[fmt]), r.seed) for r in rows]
    assert keys == sorted(keys)
    assert math.isclose(sum(r.score for r in rows), math.comb(n, 2))


def test_buchholz_adds_up_the_opponents_scores() -> None:
    entries = [tf.EntryInfo(id=i, seed=i) for i in (1, 2, 3, 4)]
    played = [
        tf.Played(1, 0, 2, {1: 1, 2: 2}),
        tf.Played(1, 1, 2, {3: 1, 4: 2}),
        tf.Played(2, 0, 2, {1: 1, 3: 2}),
        tf.Played(2, 1, 2, {2: 1, 4: 2}),
    ]
    rows = {row.entry: row for row in tf.standings(tf.SWISS, entries, played)}
    assert [rows[i].score for i in (1, 2, 3, 4)] == [2, 1, 1, 0]
    assert rows[2].tiebreaks["buchholz"] == 2 + 0  # met 1 (2 points) and 4 (0)
    assert rows[3].tiebreaks["buchholz"] == 0 + 2  # met 4 and 1
    assert rows[1].tiebreaks["sonneborn_berger"] == 1 + 1  # beat 2 (1 point) and 3 (1 point)


def test_settings_are_checked_with_clear_messages() -> None:
    with pytest.raises(tf.FormatError, match="table_size must be a whole number from 2 to 4"):
        tf.parse_settings({"table_size": 6}, tf.ROUND_ROBIN, 2, 4)
    with pytest.raises(tf.FormatError, match="unknown settings"):
        tf.parse_settings({"tables": 4}, tf.ROUND_ROBIN, 2, 4)
    with pytest.raises(tf.FormatError, match="advance must be"):
        tf.parse_settings({"table_size": 4, "advance": 4}, tf.KNOCKOUT, 2, 4)
    with pytest.raises(tf.FormatError, match="format must be one of"):
        tf.parse_settings({}, "ladder", 2, 4)
    assert tf.parse_settings({}, tf.KNOCKOUT, 3, 5).to_json()["advance"] == 1
    assert tf.parse_settings({"table_size": 4}, tf.KNOCKOUT, 3, 5).advance == 2


def test_every_game_of_a_duplicate_set_shares_one_seed_and_games_differ() -> None:
    assert tf.match_seed(5, 1, 0, 0) == tf.match_seed(5, 1, 0, 0)
    seeds = {tf.match_seed(5, r, t, g) for r, t, g in itertools.product(range(3), range(3), range(3))}
    assert len(seeds) == 27
