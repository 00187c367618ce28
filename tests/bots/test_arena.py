"""``python -m bots arena`` and ``python -m bots compare``: real runs of built-in and example bots (unsandboxed for
speed, plus one sandboxed run of each), the seat rotation, and the results tables."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from bots.authoring.arena import arena_tasks, bradley_terry, compare_tasks
from bots.authoring.cli import main
from bots.authoring.sprt import Tally
from games.registry import example_dir
from tests.bots.conftest import requires_bwrap

LOVE_LETTER = str(example_dir("love_letter"))
HIGH_SOCIETY = str(example_dir("high_society"))


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


def test_a_round_robin_seats_every_bot_in_every_seat_on_shared_deals() -> None:
    tasks = arena_tasks(bots=4, players=3, games=6, seed=10)
    assert len(tasks) == 4 * 6  # C(4, 3) tables of 6 games
    seats = Counter((bot, seat) for task in tasks for seat, bot in enumerate(task.order))
    assert set(seats.values()) == {6}  # each bot: 3 tables x 6 games / 3 seats = 6 times in each seat
    first_table = tasks[:6]
    assert [task.seed for task in first_table] == [10, 10, 10, 11, 11, 11]
    assert {task.order for task in first_table[:3]} == {(0, 1, 2), (1, 2, 0), (2, 0, 1)}


def test_compare_plays_each_deal_twice_with_a_and_b_swapped() -> None:
    tasks = [task for task, _ in zip(compare_tasks(players=3, seed=5), range(6), strict=False)]
    assert [task.seed for task in tasks] == [5, 5, 6, 6, 7, 7]
    for first, second in zip(tasks[::2], tasks[1::2], strict=True):
        assert first.order.index(0) == second.order.index(1) and first.order.index(1) == second.order.index(0)
    assert Counter(task.order.index(1) for task in tasks) == {0: 2, 1: 2, 2: 2}


def test_bradley_terry_orders_bots_by_their_results() -> None:
    beats = lambda w, lo: Tally(w, 0, lo)  # noqa: E731
    table = [
        [Tally(), beats(8, 2), beats(9, 1)],
        [beats(2, 8), Tally(), beats(7, 3)],
        [beats(1, 9), beats(3, 7), Tally()],
    ]
    elo = bradley_terry(table)
    assert elo[0] > elo[1] > elo[2] and abs(sum(elo)) < 1e-6


def test_arena_prints_a_results_table_with_the_stronger_bots_on_top(capsys) -> None:
    status, out, err = _run(
        capsys,
        "arena", "love_letter", "builtin:random", "builtin:heuristic", LOVE_LETTER,
        "--games", "6", "--sandbox", "none", "--seed", "1",
    )  # fmt: skip
    assert status == 0, err
    assert "round robin of 3 bots, 2-player tables, 6 games per table, 18 games" in out
    standings = out.split("Pairwise")[0]
    assert standings.index("builtin:heuristic") < standings.index("builtin:random")
    assert standings.index(LOVE_LETTER) < standings.index("builtin:random")
    assert "[18/18] seed" in err and "SANDBOX DISABLED" in err
    lines = [line for line in standings.splitlines() if "builtin:random" in line]
    assert lines and " 12 " in lines[0]  # 12 games each: 2 opponents x 6


def test_arena_with_three_player_tables_as_json(capsys) -> None:
    status, out, _err = _run(
        capsys,
        "arena", "high_society", "builtin:random", "builtin:heuristic", "builtin:random", HIGH_SOCIETY,
        "--players", "3", "--games", "3", "--sandbox", "none", "--json", "--quiet",
    )  # fmt: skip
    assert status == 0
    data = json.loads(out)
    assert data["games"] == 4 * 3 and data["players"] == 3
    labels = {row["bot"] for row in data["standings"]}
    assert labels == {"builtin:random", "builtin:heuristic", "builtin:random#2", HIGH_SOCIETY}
    assert all(len(record["seats"]) == 3 for record in data["records"])
    assert all(row["games"] == 9 for row in data["standings"])  # each bot sits at 3 of the 4 tables


def test_arena_needs_enough_bots_for_a_table(capsys) -> None:
    status, _out, err = _run(capsys, "arena", "high_society", "builtin:random", "builtin:heuristic", "--quiet")
    assert status == 2 and "need at least 3 bots" in err


def test_compare_finds_the_example_bot_stronger_than_random(capsys) -> None:
    status, out, err = _run(
        capsys,
        "compare", "builtin:random", LOVE_LETTER, "--game", "love_letter",
        "--elo0", "0", "--elo1", "50", "--max-games", "300", "--sandbox", "none", "--every", "5",
    )  # fmt: skip
    assert status == 0, err
    assert out.startswith("H1 accepted after ") and "B is stronger than A" in out
    assert "LLR bounds [-2.944, 2.944]" in err
    progress = [line for line in err.splitlines() if line.strip() and line.split()[0].isdigit()]
    assert len(progress) >= 2 and int(progress[0].split()[0]) == 5


def test_compare_of_a_bot_with_itself_accepts_h0(capsys) -> None:
    status, out, _err = _run(
        capsys,
        "compare", "builtin:heuristic", "builtin:heuristic", "--game", "love_letter",
        "--elo1", "60", "--max-games", "600", "--json",
    )  # fmt: skip
    assert status == 0
    data = json.loads(out)
    assert data["verdict"] == "H0" and data["games"] < 600 and data["a"] == "builtin:heuristic"
    assert data["elo"]["low"] < 0 < data["elo"]["high"] or data["elo"]["elo"] < 0


def test_compare_in_a_three_player_game_counts_the_pairwise_result_of_a_and_b(capsys) -> None:
    status, out, err = _run(
        capsys,
        "compare", "builtin:random", "builtin:heuristic", "--game", "ten", "--players", "3",
        "--field", "builtin:random", "--elo1", "100", "--max-games", "100", "--json", "--jobs", "2",
    )  # fmt: skip
    assert status == 0, err
    data = json.loads(out)
    assert data["verdict"] == "H1" and data["b_wins"] + data["draws"] + data["b_losses"] == data["games"]
    assert "3 players (field: builtin:random#2)" in err  # the field random told apart from A


def test_compare_refuses_bad_bounds(capsys) -> None:
    status, _out, err = _run(capsys, "compare", "builtin:random", "builtin:random", "--game", "ten", "--elo0", "5")
    assert status == 2 and "elo0 must be below elo1" in err


@requires_bwrap
def test_sandboxed_arena_and_compare_runs(capsys, tmp_path: Path) -> None:
    status, out, err = _run(capsys, "arena", "love_letter", LOVE_LETTER, "builtin:random", "--games", "2", "--quiet")
    assert status == 0, err
    assert "SANDBOX DISABLED" not in err and "2 games" in out
    status, out, err = _run(
        capsys,
        "compare", "builtin:random", LOVE_LETTER, "--game", "love_letter",
        "--elo1", "200", "--max-games", "24", "--jobs", "2", "--json",
    )  # fmt: skip
    assert status == 0, err
    data = json.loads(out)
    assert data["games"] <= 24 and data["faults"] == {"A": 0, "B": 0}
    assert data["b_wins"] > data["b_losses"]
