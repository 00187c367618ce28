"""Starter kits: what is in the zip, that it is a valid upload, and that the kit's bot really plays (play_match)."""

from __future__ import annotations

import io
import json
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from bots.authoring import starter
from bots.authoring.stubs import stub
from bots.packaging import package_upload, unpack
from bots.runner import BotSeat, play_match
from bots.sandbox import Limits
from games.registry import GAMES, example_dir, get_game
from games.schema import schemas
from tests.bots.conftest import requires_bwrap

SDK = Path(starter.__file__).parents[1] / "sdk"
SDK_FILES = {"parlour_sdk/__init__.py", "parlour_sdk/engine.py", "parlour_sdk/search.py"}
FILES = {"main.py", "main_sdk.py", "main_search.py", "README.md", "smoke_test.py", "sample_messages.jsonl", *SDK_FILES}


def _extract(game_id: str, dest: Path) -> Path:
    zipfile.ZipFile(io.BytesIO(starter.build_kit(game_id))).extractall(dest)
    folder = dest / f"{game_id}-bot"
    for path in [dest, *dest.rglob("*")]:
        path.chmod(0o755 if path.is_dir() else 0o644)  # readable by the sandbox's uid
    return folder


@pytest.mark.parametrize("game_id", list(GAMES))
def test_the_kit_holds_the_example_bot_the_sdk_and_a_readme_from_the_engine(game_id: str) -> None:
    archive = zipfile.ZipFile(io.BytesIO(starter.build_kit(game_id)))
    names = archive.namelist()
    declared = {f"{game_id}_types.pyi", "schema.json"}  # generated from the game's declaration
    assert {name.split("/", 1)[1] for name in names} == FILES | declared
    assert {n.split("/")[0] for n in names} == {f"{game_id}-bot"}
    read = lambda name: archive.read(f"{game_id}-bot/{name}").decode()  # noqa: E731
    assert read("main.py") == (example_dir(game_id) / "main.py").read_text()
    for name in SDK_FILES:
        assert read(name) == (SDK / name.split("/")[1]).read_text()
    assert read("main_search.py") == starter.SEARCH_TEMPLATE.read_text()
    assert read(f"{game_id}_types.pyi") == stub(game_id)
    assert json.loads(read("schema.json"))["observation"] == schemas(game_id).observation
    readme = read("README.md")
    ref = starter.reference(game_id)
    assert get_game(game_id).spec.summary in readme and "## The rules in brief" in readme
    for field in ref.fields:
        assert f"| `{field.name}` |" in readme
    for kind in ("start", "ready", "act", "action", "end"):
        assert f'"type": "{kind}"' in readme
    assert f"python -m bots play {game_id}" in readme and "curl" in readme
    messages = [json.loads(line) for line in read("sample_messages.jsonl").splitlines()]
    assert messages[0]["type"] == "start" and messages[0]["game"] == game_id
    assert messages[-1]["type"] == "end" and {m["type"] for m in messages[1:-1]} == {"act"}
    # The example act in the README is one the engine really sent: its obs has exactly the documented fields.
    assert set(ref.messages["act"]["obs"]) <= {field.name for field in ref.fields}


def test_the_kit_is_the_same_bytes_each_time() -> None:
    assert starter.build_kit("ten") == starter.build_kit("ten")


def test_the_kit_zip_is_a_valid_upload_with_main_py_at_the_top(tmp_path: Path) -> None:
    package = package_upload(starter.build_kit("ranczo"), "kit.zip")
    unpack(package.archive, tmp_path / "bot")
    assert (tmp_path / "bot" / "main.py").is_file() and package.language == "python"


@pytest.mark.parametrize("game_id", list(GAMES))
def test_the_kits_smoke_test_passes_with_its_own_bot(tmp_path: Path, game_id: str) -> None:
    folder = _extract(game_id, tmp_path)
    done = subprocess.run([sys.executable, "smoke_test.py"], cwd=folder, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.strip().endswith("all answers legal")


def test_the_smoke_test_catches_an_illegal_answer(tmp_path: Path) -> None:
    folder = _extract("love_letter", tmp_path)
    (folder / "main.py").write_text(
        "import json, sys\nfor line in sys.stdin:\n    m = json.loads(line)\n"
        "    if m['type'] == 'start': print(json.dumps({'type': 'ready'}), flush=True)\n"
        "    elif m['type'] == 'act': print(json.dumps({'type': 'action', 'action': {'card': 9}}), flush=True)\n"
        "    else: break\n"
    )
    done = subprocess.run([sys.executable, "smoke_test.py"], cwd=folder, capture_output=True, text=True, timeout=60)
    assert done.returncode == 1 and "NOT LEGAL" in done.stdout


@pytest.mark.parametrize("game_id", list(GAMES))
def test_the_kits_bot_plays_a_whole_match(tmp_path: Path, game_id: str) -> None:
    folder = _extract(game_id, tmp_path)
    players = get_game(game_id).min_players
    seats = [BotSeat(label="kit", code_dir=folder)] + [BotSeat(label="r", builtin="random")] * (players - 1)
    result = play_match(game_id, seats, seed=3, sandbox="none")
    assert result.seats[0].fault is None, result.seats[0]
    assert result.seats[0].moves > 0


@requires_bwrap
def test_the_kits_sdk_bot_plays_in_the_sandbox_with_notes_and_its_log(tmp_path: Path) -> None:
    folder = _extract("love_letter", tmp_path)
    (folder / "bot.toml").write_text('command = ["python3", "main_sdk.py"]\n')
    (folder / "bot.toml").chmod(0o644)
    seats = [BotSeat(label="kit", code_dir=folder), BotSeat(label="h", builtin="heuristic")]
    # A grace period after `end`, so that the kit's on_end gets to log (the league kills bots at once: protocol.md).
    result = play_match("love_letter", seats, seed=4, limits=Limits.for_game("love_letter", end_grace_ms=2000))
    mine = result.seats[0]
    assert mine.fault is None and mine.cpu_ms is not None
    moves = [m for m in result.replay["moves"] if m["seat"] == 0]
    assert moves and all(m["note"].endswith("legal actions") and "cpu_ms" in m for m in moves)
    assert "the match is over after" in mine.stderr


def test_the_reference_pretty_printer_keeps_short_values_on_one_line() -> None:
    assert starter.pretty({"a": [1, 2]}) == '{"a": [1, 2]}'
    long = starter.pretty({"key": list(range(60))}, width=40)
    assert long.startswith("{\n") and json.loads(long) == {"key": list(range(60))}
    cut = starter.shorten({"words": {str(i): {"f": i} for i in range(50)}, "list": list(range(20))})
    assert cut["list"][-1] == "… 12 more" and cut["words"]["…"] == "10 more keys"


def _search_kit(game_id: str, tmp_path: Path) -> Path:
    folder = _extract(game_id, tmp_path)
    (folder / "bot.toml").write_text('command = ["python3", "main_search.py"]\n')
    (folder / "bot.toml").chmod(0o644)
    return folder


@requires_bwrap
def test_the_kits_search_template_searches_in_the_sandbox(tmp_path: Path) -> None:
    """The kit's own copy of the SDK finds the league's engines in the sandbox, samples and searches."""
    seats = [
        BotSeat(label="kit", code_dir=_search_kit("love_letter", tmp_path)),
        BotSeat(label="h", builtin="heuristic"),
    ]
    result = play_match("love_letter", seats, seed=5)
    assert result.seats[0].fault is None, result.seats[0].stderr
    notes = [m["note"] for m in result.replay["moves"] if m["seat"] == 0]
    assert notes and all(note.endswith(" iterations") for note in notes)
    assert sum(int(note.split()[0]) for note in notes) > len(notes)  # it searched, not just answered


def test_the_kits_search_template_plays_a_templated_game_locally(tmp_path: Path) -> None:
    """TEN lists payment templates: the search fills them into legal actions (local play, no sandbox)."""
    seats = [BotSeat(label="kit", code_dir=_search_kit("ten", tmp_path)), BotSeat(label="r", builtin="random")]
    result = play_match("ten", seats, seed=2, sandbox="none")
    assert result.seats[0].fault is None, result.seats[0].stderr
    assert result.seats[0].moves > 0
