"""The SDK: the protocol loop over real pipes of text, what it costs a bot to import, its bytecode in the sandbox."""

from __future__ import annotations

import functools
import inspect
import io
import json
import subprocess
from pathlib import Path

import pytest

from bots.runner import BotSeat, play_match
from bots.sandbox import SDK_DIR, SYSTEM_PYTHON, get_sandbox
from bots.sdk import Context, _arity, run
from tests.bots.conftest import FAST, requires_bwrap


def _messages(*messages: dict) -> io.StringIO:
    return io.StringIO("".join(json.dumps(m) + "\n" for m in messages))


START = {"type": "start", "game": "g", "seat": 1, "players": 2, "options": {"x": 1}, "time": {"move_ms": 5}}
ACT = {"type": "act", "obs": {"n": 3}, "legal": [{"take": 1}, {"take": 2}], "time_left_ms": 900}
END = {"type": "end", "outcome": {"ranks": [2, 1]}, "obs": {"n": 0}}


def test_run_answers_start_and_act_and_returns_after_end() -> None:
    out = io.StringIO()
    seen: list[tuple] = []

    def act(obs: dict, legal: list[dict], ctx: Context) -> tuple[dict, str]:
        return legal[-1], f"{ctx.seat}/{ctx.players} {ctx.time_left_ms}"

    inp = _messages(START, ACT, END)
    ctx = run(act, on_end=lambda ctx, obs: seen.append((ctx.outcome, obs)), stdin=inp, stdout=out)
    replies = [json.loads(line) for line in out.getvalue().splitlines()]
    assert replies == [{"type": "ready"}, {"type": "action", "action": {"take": 2}, "note": "1/2 900"}]
    assert seen == [({"ranks": [2, 1]}, {"n": 0})]
    observations = [{"n": 3}, {"n": 0}]
    assert ctx == Context("g", 1, 2, {"x": 1}, {"move_ms": 5}, START, 900, 1, {"ranks": [2, 1]}, observations)
    assert "seat=1" in repr(ctx) and Context() == Context() and Context().options == {}


class _Callable:
    def __call__(self, obs: dict, legal: list[dict], ctx: Context) -> dict:
        return legal[0]

    def method(self, obs: dict, legal: list[dict]) -> dict:
        return legal[0]


def _three(obs: dict, legal: list[dict], ctx: Context, extra: int = 0) -> dict:
    return legal[0]


@pytest.mark.parametrize(
    "func",
    [
        lambda obs, legal: legal[0],
        lambda obs, legal, ctx: legal[0],
        lambda *args: args[1][0],
        lambda obs, legal, *, key=1: legal[0],
        _Callable(),
        _Callable().method,
        functools.partial(_three, extra=1),
        _three,
        len,
    ],
)
def test_the_arity_of_act_is_read_as_inspect_would(func: object) -> None:
    try:
        params = inspect.signature(func).parameters.values()  # type: ignore[arg-type]
        expected = (
            3
            if any(p.kind is p.VAR_POSITIONAL for p in params)
            else sum(1 for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD))
        )
    except (TypeError, ValueError):
        expected = 2
    assert _arity(func) == expected  # type: ignore[arg-type]


def test_importing_the_sdk_pulls_in_nothing_slow(tmp_path: Path) -> None:
    (tmp_path / "parlour_sdk").symlink_to(SDK_DIR, target_is_directory=True)
    code = "import sys, parlour_sdk; print(sorted(m for m in ('typing', 'dataclasses', 'inspect') if m in sys.modules))"
    done = subprocess.run(
        [SYSTEM_PYTHON, "-c", code], env={"PYTHONPATH": str(tmp_path)}, capture_output=True, text=True, check=True
    )
    assert done.stdout.strip() == "[]"


_PYC_PROBE = """import json, subprocess, sys
verbose = subprocess.run([sys.executable, "-v", "-c", "import parlour_sdk"], capture_output=True, text=True).stderr
print("SDK " + " ".join(line for line in verbose.splitlines() if "parlour_sdk" in line), file=sys.stderr, flush=True)
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "start":
        print('{"type": "ready"}', flush=True)
    elif message["type"] == "act":
        print(json.dumps({"type": "action", "action": message["legal"][0]}), flush=True)
    else:
        break
"""


@requires_bwrap
def test_sandboxed_bots_load_the_sdk_from_its_precompiled_bytecode(pile: str, tmp_path: Path) -> None:
    get_sandbox("bwrap").check()
    (tmp_path / "main.py").write_text(_PYC_PROBE)
    tmp_path.chmod(0o755)
    (tmp_path / "main.py").chmod(0o644)
    result = play_match(pile, [BotSeat("probe", code_dir=tmp_path), BotSeat("r", builtin="random")], 1, limits=FAST)
    assert result.seats[0].fault is None, result.seats[0].stderr
    assert "code object from '/parlour/parlour_sdk/__pycache__/__init__.cpython-" in result.seats[0].stderr


def test_the_context_keeps_what_the_seat_was_told_as_a_seen() -> None:
    """``ctx.seen``: the start message's game fields (not the protocol's) and every observation, as sent."""
    start = {**START, "game": "love_letter", "protocol": 1, "lexicon": ["a"]}
    acts = [{**ACT, "obs": {"n": n}} for n in (3, 2)]
    records: list[list[dict]] = []

    def act(obs: dict, legal: list[dict], ctx: Context) -> dict:
        records.append(list(ctx.seen.observations))
        assert ctx.seen.current == obs
        return legal[0]

    ctx = run(act, stdin=_messages(start, *acts, END), stdout=io.StringIO())
    assert records == [[{"n": 3}], [{"n": 3}, {"n": 2}]]
    seen = ctx.seen
    assert (seen.game, seen.seat, seen.players, seen.options) == ("love_letter", 1, 2, {"x": 1})
    assert seen.start == {"lexicon": ["a"]} and seen.observations == [{"n": 3}, {"n": 2}, {"n": 0}]


# A bot that uses the engines in the sandbox: it times `import parlour_sdk` and loading its game, checks at every
# decision that ctx.seen holds every observation so far, draws a sample where the game has a sampler, and notes it.
_ENGINE_PROBE = """import time
began = time.perf_counter()
import parlour_sdk
imported = time.perf_counter()
from parlour_sdk import engine, log, run
from parlour_sdk.search import concrete_actions, step
import random
timed = []

def on_start(ctx):
    before = time.perf_counter()
    engine.load(ctx.game)
    timed.append(time.perf_counter() - before)
    log(f"import_ms={(imported - began) * 1000:.1f} load_ms={timed[0] * 1000:.1f} from {engine.__file__}")

def act(obs, legal, ctx):
    assert ctx.seen.current is obs and len(ctx.seen.observations) == ctx.moves + 1
    game = engine.load(ctx.game)
    state = game.new_state(ctx.players, 1)
    step(state, concrete_actions(state, state.legal_actions(), random.Random(1))[0])
    if not engine.has_sampler(ctx.game):
        return legal[0], "engine ok, no sampler"
    sample = ctx.sample(random.Random(ctx.moves))
    same = sample.observation(ctx.seat) == obs and sample.legal_actions() == legal
    return legal[0], "engine ok, sample " + ("ok" if same else "differs")

run(act, on_start=on_start)
"""


@requires_bwrap
@pytest.mark.parametrize("game_id", ["love_letter", "high_society"])
def test_a_sandboxed_bot_loads_its_engine_keeps_its_seen_and_samples(game_id: str, tmp_path: Path) -> None:
    from games.base import has_sampler
    from games.registry import get_game

    get_sandbox("bwrap").check()
    (tmp_path / "main.py").write_text(_ENGINE_PROBE)
    tmp_path.chmod(0o755)
    (tmp_path / "main.py").chmod(0o644)
    players = get_game(game_id).min_players
    seats = [BotSeat("probe", code_dir=tmp_path)] + [BotSeat("r", builtin="random")] * (players - 1)
    result = play_match(game_id, seats, 2, limits=FAST)
    probe = result.seats[0]
    assert probe.fault is None, probe.stderr
    assert "from /parlour/parlour_sdk/engine.py" in probe.stderr and "load_ms=" in probe.stderr
    expected = "engine ok, sample ok" if has_sampler(get_game(game_id).state_class) else "engine ok, no sampler"
    notes = [m["note"] for m in result.replay["moves"] if m["seat"] == 0]
    assert notes and set(notes) == {expected}
