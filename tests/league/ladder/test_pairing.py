from __future__ import annotations

import random

from league.ladder.pairing import Candidate, pick_table


def _candidates(n: int) -> list[Candidate]:
    return [Candidate(bot_id=i, version=None, elo=1500 + 10 * i, games=i) for i in range(n)]


def test_too_few_bots_make_no_table() -> None:
    assert pick_table(_candidates(1), 2, 4, random.Random(1)) is None


def test_the_bot_with_fewest_games_always_gets_a_seat() -> None:
    for seed in range(50):
        assert 0 in pick_table(_candidates(6), 2, 4, random.Random(seed))


def test_tables_have_distinct_bots_and_a_legal_size() -> None:
    for seed in range(50):
        table = pick_table(_candidates(6), 2, 4, random.Random(seed))
        assert 2 <= len(table) <= 4 and len(set(table)) == len(table)


def test_seat_order_varies() -> None:
    firsts = {pick_table(_candidates(2), 2, 2, random.Random(seed))[0] for seed in range(20)}
    assert firsts == {0, 1}
