"""A series holds one core: its runner thread and its bots run on it from the bots' start to the series' end; two
series never share a core; a bot that spins on that core is still timed out."""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path

import pytest

from bots.runner import BotSeat, FaultCause, SeriesGame, run_series
from bots.runner.cores import CoreClaim, current_core
from tests.bots.conftest import FAST, requires_bwrap

two_cores = pytest.mark.skipif(len(os.sched_getaffinity(0)) < 2, reason="needs at least two cores")

# Answers every request with the first legal action and, as its note, the cores it may run on; on the game given by
# SPIN_IN it spins instead of answering.
WHERE_BOT = """
import json, os, sys
games = 0
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "start":
        games += 1
        print('{"type": "ready"}', flush=True)
    elif message["type"] == "act":
        while games == {SPIN_IN}:
            pass
        note = ",".join(map(str, sorted(os.sched_getaffinity(0))))
        print(json.dumps({"type": "action", "action": message["legal"][0], "note": note}), flush=True)
"""


def _bot(root: Path, spin_in: int = 0) -> Path:
    directory = root / f"where-{spin_in}"
    directory.mkdir()
    (directory / "main.py").write_text(WHERE_BOT.replace("{SPIN_IN}", str(spin_in)))
    return directory


@two_cores
@requires_bwrap
def test_a_series_runs_its_bots_on_the_core_its_runner_holds_and_unpins_the_runner_after(
    pile: str, tmp_path: Path
) -> None:
    before = os.sched_getaffinity(0)
    code = _bot(tmp_path)
    series = run_series(
        pile, [BotSeat("a", code_dir=code), BotSeat("b", code_dir=code)], [SeriesGame(1), SeriesGame(2)]
    )
    assert series.complete and all(game.faults == [None, None] for game in series.games)
    notes = {move["note"] for game in series.games for move in game.replay["moves"]}
    assert len(notes) == 1 and "," not in notes.pop()  # every move of both bots, in both games: one and the same core
    assert os.sched_getaffinity(0) == before


@two_cores
@requires_bwrap
def test_a_bot_spinning_on_the_series_core_is_still_timed_out(pile: str, tmp_path: Path) -> None:
    code = _bot(tmp_path, spin_in=2)
    seats = [BotSeat("spinner", code_dir=code), BotSeat("builtin:random", builtin="random")]
    began = time.monotonic()
    series = run_series(pile, seats, [SeriesGame(1), SeriesGame(2), SeriesGame(3)], limits=FAST)
    elapsed = time.monotonic() - began
    fault = series.games[1].faults[0]
    assert fault is not None and fault.cause == FaultCause.TIMEOUT, fault
    assert series.stopped_by == 1 and [game.seed for game in series.unplayed] == [3]
    # Charged by CPU time: the move ends within (move + bank) of CPU, however the core is shared with the runner.
    assert elapsed < (FAST.move_ms + FAST.bank_ms) * FAST.wall_factor / 1000 + 5, elapsed


def _claim_on_a_thread(
    lock_dir: Path, claimed: list[int | None], hold: threading.Event, done: threading.Barrier
) -> None:
    claim = CoreClaim(lock_dir)
    claim.claim()
    claimed.append(claim.core)
    if claim.core is not None:
        assert os.sched_getaffinity(0) == {claim.core} and current_core() == claim.core
    done.wait(10)
    hold.wait(10)
    claim.release()
    claimed.append(-1 if os.sched_getaffinity(0) == os.sched_getaffinity(os.getpid()) else -2)


@two_cores
def test_series_running_at_once_claim_different_cores_and_the_one_too_many_runs_unpinned(tmp_path: Path) -> None:
    cores = len(os.sched_getaffinity(0))
    claimed: list[int | None] = []
    hold = threading.Event()
    done = threading.Barrier(cores + 2)
    threads = [
        threading.Thread(target=_claim_on_a_thread, args=(tmp_path, claimed, hold, done)) for _ in range(cores + 1)
    ]
    for thread in threads:
        thread.start()
    done.wait(10)  # every thread has tried to claim while the others hold theirs
    got = list(claimed)
    hold.set()
    for thread in threads:
        thread.join(10)
    assert sorted(core for core in got if core is not None) == sorted(os.sched_getaffinity(0))  # each core once
    assert got.count(None) == 1
    assert claimed[len(got) :] == [-1] * (cores + 1)  # every thread unpinned again on release


def test_a_claim_is_given_back_and_can_be_taken_again(tmp_path: Path) -> None:
    first = CoreClaim(tmp_path)
    first.claim()
    core = first.core
    first.release()
    first.release()  # idempotent
    second = CoreClaim(tmp_path)
    second.claim()
    assert second.core == core  # free again (None both times on a one-core machine)
    second.release()
