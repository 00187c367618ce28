"""play_match with real sandboxed bots: normal play, every fault cause, time control, replays."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import pytest

from bots.runner import REPLAY_FORMAT, BotSeat, MatchResult, play_match
from bots.sandbox import Limits, wait_closed
from games.registry import get_game
from tests.bots.conftest import EXAMPLES, FAST, GRACE, example_bot, requires_bwrap

pytestmark = requires_bwrap

RANDOM = BotSeat("builtin:random", builtin="random")


def play(game: str, seats: list[BotSeat], seed: int = 1, limits: Limits = FAST, **kwargs: object) -> MatchResult:
    began = time.monotonic()
    result = play_match(game, seats, seed, limits=limits, **kwargs)  # type: ignore[arg-type]
    assert time.monotonic() - began < 30
    return result


def hostile(bot: Callable[..., Path], name: str, **placeholders: str) -> BotSeat:
    return BotSeat(name, code_dir=bot(name, **placeholders))


def assert_completed_with_fault(result: MatchResult, seat: int, cause: str) -> None:
    fault = result.seats[seat].fault
    assert fault is not None and fault.cause == cause, (fault, result.seats[seat].stderr[-2000:])
    assert result.outcome.ranks[seat] == max(result.outcome.ranks)
    assert (
        get_game(result.game)
        .replay(len(result.seats), result.seed, result.replay["options"], [m["action"] for m in result.replay["moves"]])
        .is_over()
    )
    assert {"seat": seat, **fault.to_json()} in result.replay["faults"]
    # every later move of the faulted seat was played by the built-in random player
    later = [m for i, m in enumerate(result.replay["moves"]) if m["seat"] == seat and i >= (fault.move or 0)]
    assert later and all(m["auto"] for m in later)


# ----- normal play -----------------------------------------------------------------------------------------------
def test_a_normal_match_completes_with_a_full_replay(pile: str, bot: Callable[..., Path]) -> None:
    result = play(pile, [hostile(bot, "echo_start"), RANDOM, RANDOM], seed=4)
    assert [s.fault for s in result.seats] == [None, None, None]
    assert sorted(result.outcome.ranks)[0] == 1
    replay = result.replay
    assert replay["format"] == REPLAY_FORMAT
    assert replay["game"] == pile and replay["version"] == "1" and replay["players"] == 3 and replay["seed"] == 4
    assert replay["seats"] == ["echo_start", "builtin:random", "builtin:random"]
    assert replay["faults"] == [] and replay["outcome"] == result.outcome.to_json()
    assert all(set(m) >= {"seat", "action", "ms", "note", "auto"} for m in replay["moves"])
    mine = [m for m in replay["moves"] if m["seat"] == 0]
    assert mine and all(m["note"] == "first" and not m["auto"] and "cpu_ms" in m for m in mine)
    assert result.seats[0].moves == len(mine)
    final = get_game(pile).replay(3, 4, {}, [m["action"] for m in replay["moves"]])
    assert final.outcome() == result.outcome
    json.dumps(result.to_json())


def test_the_bot_receives_start_act_and_end_messages(pile: str, bot: Callable[..., Path]) -> None:
    result = play(pile, [RANDOM, hostile(bot, "echo_start")], options={"pile": 7}, limits=GRACE)
    messages = [json.loads(line) for line in result.seats[1].stderr.splitlines()]
    start, *acts, end = messages
    assert start == {
        "type": "start",
        "protocol": 1,
        "game": pile,
        "seat": 1,
        "players": 2,
        "options": {"pile": 7},
        "time": GRACE.time_control(),
        "rules": "take 1-3; last counter wins",
    }
    assert acts and all(m["type"] == "act" and m["obs"]["seat"] == 1 for m in acts)
    assert acts[0]["time_left_ms"] == GRACE.move_ms + GRACE.bank_ms
    assert acts[0]["legal"] == [{"take": 1}, {"take": 2}, {"take": 3}]
    assert end["type"] == "end" and end["outcome"] == result.outcome.to_json() and end["obs"]["pile"] == 0


def test_builtin_only_matches_need_no_sandbox(pile: str) -> None:
    result = play_match(pile, [RANDOM, BotSeat("greedy", builtin="greedy")], 3, sandbox="no-such-backend")
    assert result.outcome.ranks in ([1, 2], [2, 1])
    assert all(s.moves > 0 and s.stderr == "" for s in result.seats)


@pytest.mark.parametrize("example", ["sdk_bot", "node_bot"])
def test_every_game_agnostic_example_bot_plays_through_run_match(pile: str, example: str) -> None:
    result = play(pile, [BotSeat(example, code_dir=example_bot(example)), RANDOM], limits=replace(GRACE, move_ms=2000))
    assert result.seats[0].fault is None, result.seats[0].stderr
    assert result.seats[0].moves > 0 and "match over" in result.seats[0].stderr  # its on_end ran in the grace


def test_a_relative_code_dir_works(pile: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(EXAMPLES)
    result = play(pile, [BotSeat("relative", code_dir=Path("sdk_bot")), RANDOM], limits=replace(FAST, move_ms=2000))
    assert result.seats[0].fault is None, result.seats[0].stderr


@pytest.mark.parametrize("example", ["sdk_bot", "node_bot", "love_letter"])
def test_example_bots_play_love_letter(example: str) -> None:
    seats = [BotSeat(example, code_dir=example_bot(example)), RANDOM, RANDOM]
    result = play_match("love_letter", seats, 11)
    assert result.seats[0].fault is None, result.seats[0].stderr
    assert result.seats[0].moves > 0


def test_seats_start_concurrently(pile: str) -> None:
    seats = [BotSeat(f"node{i}", code_dir=EXAMPLES / "node_bot") for i in range(4)]
    single = play(pile, seats[:2], limits=replace(FAST, move_ms=2000))
    four = play(pile, seats, limits=replace(FAST, move_ms=2000))
    assert all(s.fault is None for s in four.seats)
    # Four bots start in about the time of two, not twice as long (generous: a busy CI box is noisy).
    assert four.wall_ms < single.wall_ms * 2.5 + 200


# ----- faults ----------------------------------------------------------------------------------------------------
def test_a_crashing_bot_is_ranked_last_with_its_traceback(pile: str, bot: Callable[..., Path]) -> None:
    result = play(pile, [hostile(bot, "crash"), RANDOM, RANDOM])
    assert_completed_with_fault(result, 0, "crash")
    assert "exited with status 1" in result.seats[0].fault.detail  # type: ignore[union-attr]
    assert "deliberate crash" in result.seats[0].stderr
    assert [s.fault for s in result.seats[1:]] == [None, None]


def test_a_hanging_bot_times_out(pile: str, bot: Callable[..., Path]) -> None:
    began = time.monotonic()
    result = play(pile, [hostile(bot, "hang"), RANDOM])
    assert_completed_with_fault(result, 0, "timeout")
    # a sleeping bot is charged wall time / wall_factor: caught after (move + bank) * factor = 0.66 s
    assert time.monotonic() - began < 5


def test_a_bot_sleeping_through_every_move_times_out_within_its_game(pile: str, bot: Callable[..., Path]) -> None:
    # The league's time control scaled down tenfold, same ratios (move 1 s, bank 10 s, wall_factor as the league's):
    # sleeping 1.9 moves' worth on every move is overdrawn 1.9 / 1.1 - 1 = 0.73 of a move each time, so the bank of
    # ten moves lasts 13 moves and the 14th is a timeout, however little CPU the bot uses. (With waiting charged at
    # half its wall time it never ran out, taking 1.9 times its budget on every move of every game.)
    limits = replace(FAST, move_ms=100, bank_ms=1000)
    result = play(pile, [hostile(bot, "sleepy", SLEEP_MS="190"), RANDOM], limits=limits, options={"pile": 200})
    assert_completed_with_fault(result, 0, "timeout")
    assert 10 <= result.seats[0].moves <= 13, result.seats[0].moves  # (a busy machine may only make it shorter)
    assert result.seats[0].cpu_ms is not None and result.seats[0].cpu_ms < result.seats[0].time_ms / 4


def test_a_cpu_spinning_bot_times_out_on_cpu_time(pile: str, bot: Callable[..., Path]) -> None:
    began = time.monotonic()
    result = play(pile, [hostile(bot, "spin"), RANDOM])
    assert_completed_with_fault(result, 0, "timeout")
    assert time.monotonic() - began < 5


def test_a_slow_bot_uses_up_its_bank_then_times_out(pile: str, bot: Callable[..., Path]) -> None:
    limits = replace(FAST, move_ms=100, bank_ms=250, wall_factor=10.0)  # CPU time decides, even on a busy machine
    seats = [hostile(bot, "slow", SPIN_MS="180"), RANDOM]
    result = play(pile, seats, limits=limits, options={"pile": 60})
    assert_completed_with_fault(result, 0, "timeout")
    # 80-90 ms over the move limit each time: the bank of 250 ms lasts two or three moves, then the bot times out
    assert 2 <= result.seats[0].moves <= 3
    assert result.seats[0].cpu_ms is not None and result.seats[0].cpu_ms >= 2 * 170


def test_a_bot_printing_garbage_is_malformed(pile: str, bot: Callable[..., Path]) -> None:
    result = play(pile, [RANDOM, hostile(bot, "garbage")])
    assert_completed_with_fault(result, 1, "malformed")
    assert "not one JSON object" in result.seats[1].fault.detail  # type: ignore[union-attr]


def test_an_oversized_line_is_refused(pile: str, bot: Callable[..., Path]) -> None:
    result = play(pile, [hostile(bot, "oversized"), RANDOM])
    assert_completed_with_fault(result, 0, "oversized")


def test_a_bot_flooding_stdout_is_killed(pile: str, bot: Callable[..., Path]) -> None:
    result = play(pile, [hostile(bot, "flood"), RANDOM])
    assert_completed_with_fault(result, 0, "oversized")


def test_a_bot_flooding_stdout_with_lines_is_stopped(pile: str, bot: Callable[..., Path]) -> None:
    result = play(pile, [hostile(bot, "flood_lines"), RANDOM])
    assert_completed_with_fault(result, 0, "malformed")
    assert "no reply was expected" in result.seats[0].fault.detail  # type: ignore[union-attr]


def test_a_bot_that_talks_out_of_turn_is_malformed(pile: str, bot: Callable[..., Path]) -> None:
    result = play(pile, [hostile(bot, "chatty"), RANDOM])
    assert_completed_with_fault(result, 0, "malformed")


def test_an_illegal_action_is_a_fault_with_the_rule(pile: str, bot: Callable[..., Path]) -> None:
    result = play(pile, [hostile(bot, "illegal"), RANDOM])
    assert_completed_with_fault(result, 0, "illegal")
    assert result.seats[0].fault.detail == '{"take":99}: you may take 1 to 3 counters'  # type: ignore[union-attr]


def test_an_action_of_no_declared_shape_is_refused_before_the_engine_sees_it(
    pile: str, bot: Callable[..., Path]
) -> None:
    result = play(pile, [hostile(bot, "misshapen"), RANDOM])
    assert_completed_with_fault(result, 0, "illegal")
    detail = result.seats[0].fault.detail  # type: ignore[union-attr]
    shape = "the action does not have a declared shape: 'three' is not of type 'integer' (at ['take'])"
    assert detail == '{"take":"three"}: ' + shape


def test_a_bot_that_exits_early_is_an_exit_fault(pile: str, bot: Callable[..., Path]) -> None:
    result = play(pile, [hostile(bot, "exit_early"), RANDOM, RANDOM])
    assert_completed_with_fault(result, 0, "exit")


def test_a_bot_that_never_sends_ready_is_a_startup_fault(pile: str, bot: Callable[..., Path]) -> None:
    began = time.monotonic()
    result = play(pile, [hostile(bot, "never_ready"), RANDOM], limits=replace(FAST, startup_ms=500))
    assert_completed_with_fault(result, 0, "startup")
    assert result.seats[0].fault.move is None  # type: ignore[union-attr]
    assert result.seats[0].moves == 0
    assert time.monotonic() - began < 5


def test_output_trouble_before_ready_is_a_startup_fault(pile: str, bot: Callable[..., Path]) -> None:
    result = play(pile, [hostile(bot, "oversized_ready"), RANDOM])
    assert_completed_with_fault(result, 0, "startup")
    assert result.seats[0].fault.detail.startswith("oversized: a line longer than")  # type: ignore[union-attr]


def test_a_bot_that_does_not_start_is_a_startup_fault(pile: str, bot: Callable[..., Path]) -> None:
    result = play(pile, [hostile(bot, "syntax_error"), RANDOM])
    assert_completed_with_fault(result, 0, "startup")
    assert "SyntaxError" in result.seats[0].stderr


def test_a_directory_without_an_entry_point_is_a_startup_fault(pile: str, tmp_path: Path) -> None:
    result = play(pile, [RANDOM, BotSeat("empty", code_dir=tmp_path)])
    assert_completed_with_fault(result, 1, "startup")
    assert "neither main.py nor bot.toml" in result.seats[1].fault.detail  # type: ignore[union-attr]


def test_a_bot_toml_naming_a_missing_program_is_a_startup_fault(pile: str, tmp_path: Path) -> None:
    (tmp_path / "bot.toml").write_text('command = ["no-such-program"]\n')
    result = play(pile, [RANDOM, BotSeat("missing", code_dir=tmp_path)])
    assert_completed_with_fault(result, 1, "startup")
    assert "not found" in result.seats[1].stderr


def test_stderr_is_capped_keeping_its_beginning_and_end(pile: str, bot: Callable[..., Path]) -> None:
    result = play(pile, [hostile(bot, "stderr_flood"), RANDOM])
    stderr = result.seats[0].stderr
    assert result.seats[0].fault is None
    assert stderr.startswith("BEGIN") and stderr.rstrip().endswith("END")
    assert "bytes of stderr dropped" in stderr and len(stderr) < FAST.stderr_keep_bytes + 200


def test_a_bot_ignoring_the_end_is_killed_after_the_grace_period(pile: str, bot: Callable[..., Path]) -> None:
    limits = replace(FAST, end_grace_ms=300)
    began = time.monotonic()
    result = play(pile, [hostile(bot, "ignore_end"), RANDOM], limits=limits)
    assert result.seats[0].fault is None
    assert 0.3 <= time.monotonic() - began < 3


def test_by_default_bots_are_killed_as_soon_as_the_match_is_over(pile: str, bot: Callable[..., Path]) -> None:
    seats = [hostile(bot, "ignore_end"), hostile(bot, "echo_start")]
    result = play(pile, seats, limits=replace(FAST, end_grace_ms=0))
    assert [s.fault for s in result.seats] == [None, None]
    # No grace to wait for, not even for the bot that ignores the end: the match took far less than 300 ms more
    # than its moves did, and what the bots wrote on stderr before the end is kept.
    moves_ms = sum(m["ms"] for m in result.replay["moves"])
    startup_ms = max(s.startup_ms or 0 for s in result.seats)
    assert result.wall_ms - moves_ms - startup_ms < 300, result.wall_ms
    messages = [json.loads(line) for line in result.seats[1].stderr.splitlines()]
    assert messages[0]["type"] == "start" and messages[-1]["type"] in ("act", "end")
    assert wait_closed(10)


def test_several_faulty_bots_share_the_last_rank(pile: str, bot: Callable[..., Path]) -> None:
    result = play(pile, [hostile(bot, "crash"), RANDOM, hostile(bot, "garbage"), RANDOM], seed=2)
    assert result.outcome.ranks[0] == result.outcome.ranks[2] == 3
    assert sorted([result.outcome.ranks[1], result.outcome.ranks[3]]) in ([1, 2], [1, 1])
    assert [f["seat"] for f in result.replay["faults"]] == [0, 2]


# ----- bad requests are errors of the caller ---------------------------------------------------------------------
def test_bad_requests_raise_value_errors(pile: str) -> None:
    with pytest.raises(ValueError, match="no game called"):
        play_match("no_such_game", [RANDOM, RANDOM], 1)
    with pytest.raises(ValueError, match="no built-in player 'nobody'"):
        play_match(pile, [RANDOM, BotSeat("x", builtin="nobody")], 1)
    with pytest.raises(ValueError, match="played by 2 to 4 players"):
        play_match(pile, [RANDOM], 1)
    with pytest.raises(ValueError, match="pile"):
        play_match(pile, [RANDOM, RANDOM], 1, {"pile": -1})
    with pytest.raises(ValueError, match="exactly one"):
        BotSeat("both", builtin="random", code_dir=Path("/tmp"))
