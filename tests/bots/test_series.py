"""Series: several games on the same sandboxed bot processes, each game with its own start, clock, outcome, faults and
replay; a bot that exits after ``end`` is started again; a fault ends the series; no seed twice; nothing left behind.

Every bot here runs in the real bwrap sandbox."""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from bots.runner import BotSeat, FaultCause, SeriesGame, play_match, prepare_series, run_series
from bots.sandbox import wait_closed
from tests.bots.conftest import FAST, example_bot, requires_bwrap, slot_uid_processes

pytestmark = requires_bwrap

# A plain protocol bot for the pile game that says on stderr, at each start, which process it is and how many games
# that process has started; BEHAVIOUR adds what the test needs (after the loop's own handling of each message).
SERIES_BOT = """
import json, os, sys, time
games = 0
me = os.urandom(8).hex()  # which process this is (pids repeat: each sandbox has its own pid namespace)
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "start":
        games += 1
        print(f"GAME {games} PROC {me} UID {os.getuid()}", file=sys.stderr, flush=True)
        print('{"type": "ready"}', flush=True)
        first = True
    elif message["type"] == "act":
        print(f"TIME_LEFT {message['time_left_ms']}", file=sys.stderr, flush=True)
        {BEFORE_ACT}
        first = False
        print(json.dumps({"type": "action", "action": message["legal"][0]}), flush=True)
    else:
        {AFTER_END}
"""


def _bot(root: Path, name: str, before_act: str = "pass", after_end: str = "pass") -> Path:
    directory = root / name
    directory.mkdir(parents=True)
    text = SERIES_BOT.replace("{BEFORE_ACT}", before_act).replace("{AFTER_END}", after_end)
    (directory / "main.py").write_text(text)
    return directory


def _games(*seeds: int, **options: Any) -> list[SeriesGame]:
    return [SeriesGame(seed, options or None) for seed in seeds]


def _procs(stderr: str) -> list[str]:
    """The processes that wrote this log (each says "PROC <random id>" at each start)."""
    return re.findall(r"PROC (\w+)", stderr)


def _without_timings(replay: dict[str, Any]) -> dict[str, Any]:
    moves = [{k: v for k, v in move.items() if k not in ("ms", "cpu_ms")} for move in replay["moves"]]
    return {**replay, "moves": moves}


def test_each_game_of_a_series_is_the_match_run_match_plays_with_its_seed() -> None:
    code = example_bot("love_letter")
    seats = [BotSeat("a", code_dir=code), BotSeat("b", code_dir=code)]
    seeds = (11, 12, 13, 14)
    series = run_series("love_letter", seats, _games(*seeds))
    assert series.complete and series.unplayed == [] and series.stopped_by is None
    assert series.restarts == [0, 0]  # the example bots loop over games: one process each for the whole series
    assert [game.seed for game in series.games] == list(seeds)
    for game in series.games:
        alone = play_match("love_letter", seats, game.seed)
        assert game.faults == alone.faults == [None, None]
        assert game.outcome == alone.outcome
        assert _without_timings(game.replay) == _without_timings(alone.replay)
        assert game.to_json().keys() == alone.to_json().keys()
        assert [seat.moves for seat in game.seats] == [seat.moves for seat in alone.seats]
    # Start-up is paid once: the later games' ready comes from a process that is already running.
    later = [seat.startup_ms for game in series.games[1:] for seat in game.seats]
    assert all(ms is not None and ms < 1000 for ms in later), later


def test_one_process_per_seat_plays_every_game_with_its_own_start_clock_and_log(pile: str, tmp_path: Path) -> None:
    spin = "if first:\n            end = time.process_time() + 0.45\n            while time.process_time() < end: pass"
    code = _bot(tmp_path, "spender", before_act=spin)
    seats = [BotSeat("a", code_dir=code), BotSeat("b", code_dir=code)]
    # CPU time decides (wall_factor 10): 450 ms of CPU in 600 allowed must not turn into a timeout on a busy machine.
    series = run_series(pile, seats, _games(1, 2, 3, pile=9), limits=replace(FAST, wall_factor=10.0))
    assert series.complete and series.restarts == [0, 0]
    for seat in (0, 1):
        logs = [game.seats[seat].stderr for game in series.games]
        assert len({proc for log in logs for proc in _procs(log)}) == 1, logs  # the same process throughout
        assert [re.findall(r"GAME (\d+)", log) for log in logs] == [["1"], ["2"], ["3"]]  # one start per game
        for log in logs:
            # Each game's first move has the full allowance (per-move 300 + bank 300): the 450 ms spent on the
            # previous game's first move came out of that game's bank only. Three such moves in one bank of 300 ms
            # would have timed out.
            left = [int(ms) for ms in re.findall(r"TIME_LEFT (\d+)", log)]
            assert left[0] == FAST.move_ms + FAST.bank_ms and left[1] < left[0], left
    assert all(game.faults == [None, None] for game in series.games)
    assert [game.replay["options"] for game in series.games] == [{"pile": 9}] * 3


def test_the_sdk_loop_gives_every_game_a_fresh_context(pile: str, tmp_path: Path) -> None:
    code = tmp_path / "sdk"
    code.mkdir()
    (code / "main.py").write_text(
        "import os\n"
        "from parlour_sdk import log, run\n"
        "me = os.urandom(8).hex()\n"
        "def on_start(ctx):\n"
        "    log(f'START seat {ctx.seat} moves {ctx.moves} outcome {ctx.outcome} PROC {me}')\n"
        "def act(obs, legal, ctx):\n"
        "    return legal[-1], f'move {ctx.moves}'\n"
        "run(act, on_start=on_start)\n"
    )
    seats = [BotSeat("a", code_dir=code), BotSeat("b", code_dir=example_bot("sdk_bot"))]
    series = run_series(pile, seats, _games(5, 6, 7), limits=FAST)
    assert series.complete and series.restarts == [0, 0]
    logs = [game.seats[0].stderr for game in series.games]
    assert all("START seat 0 moves 0 outcome None" in log for log in logs), logs
    assert len({proc for log in logs for proc in _procs(log)}) == 1
    for game in series.games:
        notes = [move["note"] for move in game.replay["moves"] if move["seat"] == 0]
        assert notes == [f"move {n}" for n in range(len(notes))]  # ctx.moves counts this game's moves only
        assert game.seats[1].fault is None and game.seats[1].moves > 0


def test_a_bot_that_exits_after_end_is_started_again_for_each_game(pile: str, tmp_path: Path) -> None:
    one_game = _bot(tmp_path, "one_game", after_end="break")  # what every bot did before series
    looping = _bot(tmp_path, "looping")
    seats = [BotSeat("a", code_dir=one_game), BotSeat("b", code_dir=looping)]
    series = run_series(pile, seats, _games(21, 22, 23), limits=FAST)
    assert series.complete
    assert series.restarts == [2, 0]
    assert all(game.faults == [None, None] for game in series.games)
    one_pids = [_procs(game.seats[0].stderr) for game in series.games]
    assert len({proc for procs in one_pids for proc in procs}) == 3 and all(len(p) == 1 for p in one_pids)
    assert len({proc for game in series.games for proc in _procs(game.seats[1].stderr)}) == 1
    for game in series.games:
        alone = play_match(pile, seats, game.seed, limits=FAST)
        assert _without_timings(game.replay) == _without_timings(alone.replay) and game.outcome == alone.outcome


@pytest.mark.parametrize("crash_in, games", [(2, 4), (3, 3)])
def test_a_fault_ends_the_series_after_that_game(pile: str, tmp_path: Path, crash_in: int, games: int) -> None:
    crasher = _bot(tmp_path, "crasher", before_act=f"if games == {crash_in}: sys.exit(3)")
    seats = [BotSeat("a", code_dir=crasher), BotSeat("b", code_dir=_bot(tmp_path, "steady"))]
    plan = _games(*range(31, 31 + games))
    series = run_series(pile, seats, plan, limits=FAST)
    assert len(series.games) == crash_in
    assert all(game.faults == [None, None] for game in series.games[: crash_in - 1])
    last = series.games[-1]
    assert last.seats[0].fault is not None and last.seats[0].fault.cause is FaultCause.CRASH
    assert last.seats[1].fault is None and last.outcome.ranks == [2, 1]  # recorded as in one match
    assert any(move["auto"] for move in last.replay["moves"])  # its remaining moves were played for it
    assert series.unplayed == plan[crash_in:]  # left for the caller to reschedule on fresh processes
    assert series.complete is (crash_in == games)
    assert series.stopped_by == (crash_in - 1 if crash_in < games else None)


def test_a_series_repeating_a_seed_is_refused_before_anything_starts(pile: str, tmp_path: Path) -> None:
    seats = [BotSeat("a", code_dir=_bot(tmp_path, "bot")), BotSeat("b", builtin="random")]
    before = len(slot_uid_processes())
    with pytest.raises(ValueError, match="seed 8 appears twice"):
        run_series(pile, seats, _games(7, 8, 9, 8), limits=FAST)
    with pytest.raises(ValueError, match="seed 8 appears twice"):
        prepare_series(pile, seats, [SeriesGame(8), SeriesGame(8, {"pile": 5})], limits=FAST)
    with pytest.raises(ValueError, match="at least one game"):
        run_series(pile, seats, [], limits=FAST)
    with pytest.raises(ValueError, match="pile must be"):  # every game's options are checked up front
        run_series(pile, seats, [SeriesGame(1), SeriesGame(2, {"pile": 0})], limits=FAST)
    assert len(slot_uid_processes()) <= before


def test_a_prepared_series_plays_later_and_leaves_no_process_behind(pile: str, tmp_path: Path) -> None:
    looping = _bot(tmp_path, "looping")
    one_game = _bot(tmp_path, "one_game", after_end="break")
    seats = [BotSeat("a", code_dir=looping), BotSeat("b", code_dir=one_game), BotSeat("c", builtin="random")]
    with prepare_series(pile, seats, _games(41, 42, 43), limits=FAST) as prepared:
        series = prepared.play()
    assert series.complete and series.restarts == [0, 2, 0]
    procs = {proc for game in series.games for seat in game.seats for proc in _procs(seat.stderr)}
    assert len(procs) == 4  # the looping bot's process and each of the one-game bot's three
    assert wait_closed(10)
    uids = {int(uid) for game in series.games for seat in game.seats for uid in re.findall(r"UID (\d+)", seat.stderr)}
    assert not [p for p in slot_uid_processes() if p[1] in uids and _alive(p[0])]
    # Closing an unplayed series tears its bots down too.
    unplayed = prepare_series(pile, seats, _games(44), limits=FAST)
    first = unplayed._first
    assert first is not None
    uids = {conn.proc.uid for conn in first.conns.values()}
    unplayed.close()
    unplayed.close()  # idempotent
    with pytest.raises(RuntimeError):
        unplayed.play()
    assert wait_closed(10)
    assert not [p for p in slot_uid_processes() if p[1] in uids and _alive(p[0])]


def _alive(pid: int) -> bool:
    """A process that runs (a zombie runs nothing: a killed sandbox's pid 1 is reaped by the host's init)."""
    try:
        return "(zombie)" not in Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return False


def test_each_game_is_reported_as_soon_as_it_is_played_and_a_failing_report_ends_the_series(
    pile: str, tmp_path: Path
) -> None:
    code = _bot(tmp_path, "looping")
    seats = [BotSeat("a", code_dir=code), BotSeat("b", builtin="random")]
    reported: list[tuple[int, int, int]] = []  # (index, seed, games already in the result when it was reported)

    with prepare_series(pile, seats, _games(51, 52, 53), limits=FAST) as prepared:
        series = prepared.play(lambda index, game: reported.append((index, game.seed, len(reported))))
    assert series.complete and reported == [(0, 51, 0), (1, 52, 1), (2, 53, 2)]

    class RecordingFailed(Exception):
        pass

    def fail_on_second(index: int, game: object) -> None:
        if index == 1:
            raise RecordingFailed

    with prepare_series(pile, seats, _games(61, 62, 63), limits=FAST) as prepared:
        first = prepared._first
        assert first is not None
        uids = {conn.proc.uid for conn in first.conns.values()}
        with pytest.raises(RecordingFailed):
            prepared.play(fail_on_second)
    assert wait_closed(10)  # the bots are torn down, the third game never started
    assert not [p for p in slot_uid_processes() if p[1] in uids and _alive(p[0])]
