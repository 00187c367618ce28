"""python -m bots: as a bot author uses it (subprocesses for love_letter, in-process for the test game)."""

from __future__ import annotations

import json
import subprocess
import sys
import zipfile
from collections.abc import Callable
from pathlib import Path

import pytest

from bots.authoring.cli import main
from games.registry import example_dir
from tests.bots.conftest import EXAMPLES, requires_bwrap

REPO = Path(__file__).resolve().parents[2]


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "bots", *args], cwd=REPO, capture_output=True, text=True, timeout=60, check=False
    )


@requires_bwrap
def test_it_plays_a_python_file_against_builtins_and_prints_json(tmp_path: Path) -> None:
    bot = tmp_path / "mybot.py"
    bot.write_text((example_dir("love_letter") / "main.py").read_text())
    done = cli("play", "love_letter", str(bot), "builtin:random", "builtin:random", "--seed", "7", "--json")
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["game"] == "love_letter" and result["seed"] == 7
    assert sorted(result["outcome"]["ranks"])[0] == 1
    assert [seat["label"] for seat in result["seats"]] == [str(bot), "builtin:random", "builtin:random"]
    assert all(seat["fault"] is None for seat in result["seats"])
    assert {"rank", "score", "fault", "moves", "stderr", "time_ms"} <= set(result["seats"][0])


@requires_bwrap
def test_it_plays_a_zip_and_a_directory_and_writes_the_replay(tmp_path: Path) -> None:
    archive = tmp_path / "bot.zip"
    with zipfile.ZipFile(archive, "w") as zipped:
        zipped.write(EXAMPLES / "node_bot" / "bot.toml", "node_bot/bot.toml")
        zipped.write(EXAMPLES / "node_bot" / "main.js", "node_bot/main.js")
    replay = tmp_path / "replay.json"
    done = cli("play", "love_letter", str(archive), str(EXAMPLES / "sdk_bot"), "--replay", str(replay))
    assert done.returncode == 0, done.stderr
    assert "result (" in done.stdout and "rank 1" in done.stdout
    data = json.loads(replay.read_text())
    assert data["format"] == "parlour-replay/1" and data["seats"] == [str(archive), str(EXAMPLES / "sdk_bot")]
    assert data["faults"] == []


def test_the_none_sandbox_warns_loudly() -> None:
    done = cli("play", "love_letter", str(EXAMPLES / "sdk_bot"), "builtin:random", "--sandbox", "none", "--json")
    assert done.returncode == 0, done.stderr
    assert "SANDBOX DISABLED" in done.stderr
    assert json.loads(done.stdout)["seats"][0]["fault"] is None


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["play", "no_such_game", "builtin:random"], "no game called 'no_such_game'"),
        (["play", "love_letter", "/no/such/bot.py", "builtin:random"], "/no/such/bot.py: no such file"),
        (["play", "love_letter", "builtin:nobody", "builtin:random"], "no built-in player 'nobody'"),
        (["play", "love_letter", "builtin:random"], "played by 2 to"),
        (["play", "love_letter", "builtin:random", "builtin:random", "--option", "novalue"], "KEY=VALUE"),
        (["play", "love_letter", "builtin:random", "builtin:random", "--option", "colour=red"], "colour"),
        (["play", "love_letter", "builtin:random", "builtin:random", "--move-ms", "0"], "move_ms"),
        (["play", "love_letter", "builtin:random", "builtin:random", "--seed", "x"], "invalid int value"),
        (["fly"], "invalid choice"),
        (["connect", "--url", "http://127.0.0.1:9", "bot.py"], "the following arguments are required: --token"),
        (["connect", "--token", "prb_x", "--url", "http://127.0.0.1:9", "/no/such/bot.py"], "no such file"),
        (["connect", "--token", "prb_x", "--url", "http://127.0.0.1:9", "builtin:random"], "not a built-in player"),
    ],
)
def test_bad_arguments_exit_2_with_one_clear_line(args: list[str], message: str) -> None:
    done = cli(*args)
    assert done.returncode == 2
    assert message in done.stderr
    assert "Traceback" not in done.stderr and done.stdout == ""


def test_a_bad_upload_exits_2(tmp_path: Path) -> None:
    broken = tmp_path / "broken.zip"
    broken.write_bytes(b"PK\x03\x04 this is no zip")
    empty = tmp_path / "empty.zip"
    with zipfile.ZipFile(empty, "w") as zipped:
        zipped.writestr("readme.txt", "no entry point")
    text = tmp_path / "bot.txt"
    text.write_text("print()")
    for path, message in ((broken, "not a valid zip"), (empty, "no entry point"), (text, "must be a .py file")):
        done = cli("play", "love_letter", str(path), "builtin:random")
        assert done.returncode == 2, done.stderr
        assert message in done.stderr and "Traceback" not in done.stderr


def test_builtin_players_only(pile: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["play", pile, "builtin:greedy", "builtin:random", "--seed", "3", "--option", "pile=9"]) == 0
    out = capsys.readouterr().out
    assert "parlour_test_pile v1, seed 3, 2 players" in out and "seat 0: builtin:greedy" in out


@requires_bwrap
def test_faults_are_shown_in_the_log(pile: str, bot: Callable[..., Path], capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["play", pile, str(bot("crash")), "builtin:random", "--move-ms", "500", "--bank-ms", "100"]) == 0
    out = capsys.readouterr().out
    assert "FAULT seat 0" in out and "crash: exited with status 1" in out
    assert "(auto: built-in random after a fault)" in out
    assert "deliberate crash" in out  # the bot's stderr


@requires_bwrap
def test_check_reports_a_working_sandbox() -> None:
    done = cli("check")
    assert done.returncode == 0 and "ok" in done.stdout
