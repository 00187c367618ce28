"""The author kit without the league (league/authors/kit.py): one wheel of ``bots`` and ``games``, served by the site
at a stable address, named on /first-bot/ and in every starter kit's README, and installable for real: built from
this checkout, ``pip install``-ed with ``--no-index`` into a fresh virtual environment that holds nothing but its two
dependencies, and played with from a folder outside the checkout exactly as the kit's README says."""

from __future__ import annotations

import email.parser
import io
import json
import re
import shlex
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
import zipfile
from pathlib import Path

import pytest
from django.test import Client
from packaging.requirements import Requirement

from bots.authoring import starter
from games.registry import GAMES
from league.authors import kit

CHECKOUT = Path(kit.__file__).resolve().parents[2]
WHEEL_URL = re.compile(r"pip install (\S+/sdk/parlour-[\w.+]+-py3-none-any\.whl)")


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return kit.build_wheel(tmp_path_factory.mktemp("kit-wheel"))


def _metadata(archive: zipfile.ZipFile) -> email.message.Message:
    name = next(n for n in archive.namelist() if n.endswith(".dist-info/METADATA"))
    return email.parser.Parser().parsestr(archive.read(name).decode())


def test_the_wheel_holds_the_engines_the_runner_and_the_sdk_and_nothing_of_the_league(wheel: Path) -> None:
    assert wheel.name == f"parlour-{kit.version()}-py3-none-any.whl"
    archive = zipfile.ZipFile(wheel)
    names = set(archive.namelist())
    tops = {name.split("/")[0] for name in names}
    assert tops == {"bots", "games", f"parlour-{kit.version()}.dist-info"}
    # What python -m bots play, arena, view and compare need: the CLI, the runner, the SDK, every game with its
    # rules, viewer and example bot, and the viewer's shell.
    for needed in (
        "bots/__main__.py",
        "bots/authoring/cli.py",
        "bots/authoring/arena.py",
        "bots/authoring/compare.py",
        "bots/authoring/viewer.py",
        "bots/runner/match.py",
        "bots/sdk/__init__.py",
        "games/registry.py",
        "games/viewer/viewer.js",
        "games/barbarossa/lexicon.json",
    ):
        assert needed in names, needed
    for game_id in GAMES:
        for part in ("engine.py", "players.py", "RULES.md", "viewer.js", "example/main.py"):
            assert f"games/{game_id}/{part}" in names, (game_id, part)
    # No tests, no game template, no compiled files; no module that imports Django.
    assert not [n for n in names if "/tests/" in n or n.startswith("games/template/") or n.endswith(".pyc")]
    django = re.compile(rb"^\s*(from|import) django", re.M)
    assert not [n for n in names if n.endswith(".py") and django.search(archive.read(n))]
    metadata = _metadata(archive)
    assert metadata["Name"] == "parlour" and metadata["Version"] == kit.version()
    required = {Requirement(text).name: Requirement(text).specifier for text in metadata.get_all("Requires-Dist")}
    assert required.keys() == {"orjson", "jsonschema"}  # what bots/ and games/ import; no league dependency
    assert required == {Requirement(text).name: Requirement(text).specifier for text in kit.dependencies()}


def test_the_same_checkout_is_built_once_and_kept(tmp_path: Path) -> None:
    first = kit.cached_wheel(tmp_path)
    stamp = first.stat().st_mtime_ns
    assert first.name == kit.wheel_name() and first.parent.name == kit.key()[:24]
    assert kit.cached_wheel(tmp_path) == first and first.stat().st_mtime_ns == stamp  # not built again
    assert [p.name for p in (tmp_path / "sdk").iterdir() if not p.name.startswith(".")] == [first.parent.name]


def test_the_site_serves_the_wheel_at_a_stable_address(client: Client, db, settings, tmp_path: Path) -> None:
    settings.VAR_DIR = tmp_path
    address = f"/sdk/{kit.wheel_name()}"
    response = client.get(address)
    assert response.status_code == 200
    assert response["Content-Type"] == "application/zip"
    assert response["Content-Disposition"] == f'attachment; filename="{kit.wheel_name()}"'
    assert response["Cache-Control"] == "no-cache" and response["ETag"] == f'"{kit.key()}"'
    body = b"".join(response.streaming_content)  # type: ignore[attr-defined]
    assert (
        zipfile.ZipFile(io.BytesIO(body)).testzip() is None
        and "bots/__main__.py" in zipfile.ZipFile(io.BytesIO(body)).namelist()
    )
    # Asked again with its ETag: nothing to send.
    assert client.get(address, headers={"If-None-Match": response["ETag"]}).status_code == 304
    assert client.head(address).status_code == 200
    assert client.post(address).status_code == 405
    # Another version's name: a sentence that names the current one, not a stack trace.
    missing = client.get("/sdk/parlour-0.0.1-py3-none-any.whl")
    assert missing.status_code == 404
    page = missing.content.decode()
    assert "There is no such version of the author kit here" in page and f'href="{address}"' in page


def test_a_wheel_that_cannot_be_built_is_a_sentence_not_a_500(client: Client, db, settings, tmp_path: Path) -> None:
    settings.VAR_DIR = tmp_path / "a-file"
    settings.VAR_DIR.write_text("not a folder: nothing can be kept under it")
    response = client.get(f"/sdk/{kit.wheel_name()}")
    assert response.status_code == 503
    assert "The author kit could not be built just now" in response.content.decode()


def test_the_first_bot_page_and_every_starter_kit_name_the_wheel(client: Client, db) -> None:
    address = f"http://testserver/sdk/{kit.wheel_name()}"
    page = client.get("/first-bot/").content.decode()
    assert f"pip install {address}" in page
    assert "checkout" not in page and starter.RUNTIME_WHEEL_PLACEHOLDER not in page
    for game_id in GAMES:
        archive = zipfile.ZipFile(io.BytesIO(client.get(f"/games/{game_id}/starter.zip").content))
        readme = archive.read(f"{game_id}-bot/README.md").decode()
        assert f"pip install {address}" in readme, game_id
        assert "checkout" not in readme
        assert f"python -m bots play {game_id} {game_id}-bot/" in readme
        # The upload form the README sends its reader to opens on the kit's game.
        assert f"http://testserver/bots/new/?game={game_id}" in readme


def _documented_commands(readme: str) -> tuple[str, list[str]]:
    """The README's install line (the wheel's address) and its `python -m bots` lines, as a person would copy them."""
    url = WHEEL_URL.search(readme)
    assert url, "the README names no wheel to install"
    commands = [line.strip() for line in readme.splitlines() if line.strip().startswith("python -m bots ")]
    assert commands, "the README shows no python -m bots command"
    return url.group(1), commands


def test_the_wheel_installs_into_a_fresh_venv_without_the_league_and_plays_a_kit(
    client: Client, db, settings, tmp_path: Path
) -> None:
    """The whole way a person goes: download a starter kit, pip install the wheel its README names into a new
    virtual environment, and run the README's `python -m bots play` from the kit's folder, away from the checkout."""
    began = time.monotonic()
    settings.VAR_DIR = tmp_path / "var"
    archive = client.get("/games/love_letter/starter.zip").content
    home = tmp_path / "author"  # the author's machine: no checkout anywhere near
    zipfile.ZipFile(io.BytesIO(archive)).extractall(home)
    url, commands = _documented_commands((home / "love_letter-bot" / "README.md").read_text())

    # The wheel as the site serves it, saved under the name pip reads from its address.
    response = client.get(url.removeprefix("http://testserver"))
    assert response.status_code == 200
    wheels = tmp_path / "wheels"
    wheels.mkdir()
    (wheels / url.rsplit("/", 1)[1]).write_bytes(b"".join(response.streaming_content))  # type: ignore[attr-defined]

    # Its two dependencies (and theirs), fetched as wheels the ordinary way: the install itself is --no-index, so it
    # fails if the kit asks for anything else (Django, the league's other dependencies).
    deps = tmp_path / "deps"
    subprocess.run(
        [sys.executable, "-m", "pip", "download", "-q", "--only-binary=:all:", "-d", str(deps), *kit.dependencies()],
        check=True,
        capture_output=True,
        timeout=120,
    )
    venv = tmp_path / "parlour-env"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, capture_output=True, timeout=120)
    python = venv / "bin" / "python"
    install = subprocess.run(
        [str(python), "-m", "pip", "install", "-q", "--no-index", "--find-links", str(wheels), "--find-links",
         str(deps), str(wheels / url.rsplit("/", 1)[1])],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert install.returncode == 0, install.stderr

    # A person's shell: the venv's python first on PATH, none of the checkout's settings, and no league to import.
    environment = {
        "PATH": f"{venv / 'bin'}:/usr/bin:/bin",
        "HOME": str(home),
        "LANG": "C.UTF-8",
        "VIRTUAL_ENV": str(venv),
    }
    nothing = subprocess.run(
        [str(python), "-c", "import importlib.util as u; print([m for m in ('django', 'league', 'workers', 'parlour') "
         "if u.find_spec(m)])"],
        cwd=home, env=environment, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert nothing.stdout.strip() == "[]", nothing.stderr
    where = subprocess.run(
        [str(python), "-c", "import bots, games; print(bots.__file__); print(games.__file__)"],
        cwd=home, env=environment, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert all(str(venv) in line and str(CHECKOUT) not in line for line in where.stdout.split()), where.stdout

    play = next(command for command in commands if command.startswith("python -m bots play "))
    played = subprocess.run(shlex.split(play), cwd=home, env=environment, capture_output=True, text=True, timeout=120)
    assert played.returncode == 0, played.stderr
    assert "rank 1" in played.stdout and "love_letter-bot/" in played.stdout, played.stdout
    # The JSON result of the same match: every seat finished, no fault.
    as_json = subprocess.run(
        [*shlex.split(play), "--json"], cwd=home, env=environment, capture_output=True, text=True, timeout=120
    )
    assert as_json.returncode == 0, as_json.stderr
    seats = json.loads(as_json.stdout)["seats"]
    assert seats[0]["label"] == "love_letter-bot/"
    assert all(seat["fault"] is None and seat["moves"] > 0 for seat in seats), seats

    def run(command: list[str]) -> str:
        done = subprocess.run(command, cwd=home, env=environment, capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, f"{shlex.join(command)}: {done.stderr}"
        return done.stdout

    # The README's arena line as it is, and its compare line against a copy of the bot (the "previous version" a
    # person keeps), bounded: two equal bots would take the sequential test long to decide.
    arena = next(command for command in commands if command.startswith("python -m bots arena "))
    assert "Pairwise score" in run(shlex.split(arena))
    compare = next(command for command in commands if command.startswith("python -m bots compare "))
    shutil.copytree(home / "love_letter-bot", home / "love_letter-bot-v1")
    assert "games" in run([*shlex.split(compare), "--max-games", "20"])

    # view: a replay written by play, served in the league's viewer (the page, the shell, the game's renderer).
    run([*shlex.split(play), "--replay", "out.json"])
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    viewer = subprocess.Popen(
        ["python", "-m", "bots", "view", "out.json", "--no-browser", "--port", str(port)],
        cwd=home, env=environment, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        assert viewer.stdout is not None
        assert f"http://127.0.0.1:{port}/" in viewer.stdout.readline()  # it serves once it says where
        for path in ("/", "/static/league/viewer/viewer.js", "/static/games/love_letter/viewer.js", "/frames"):
            with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=30) as answer:
                assert answer.status == 200 and answer.read(), path
    finally:
        viewer.terminate()
        viewer.wait(timeout=30)
    assert time.monotonic() - began < 90, "the install test should stay well under a minute and a half"
