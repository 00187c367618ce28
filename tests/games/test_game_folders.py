"""A game in one folder: everything about a game lives in ``games/<id>/``, found through ``games.registry``, so adding
a game touches its folder and one line of the registry, and nothing at run time reads docs/ or tests/."""

from __future__ import annotations

import ast
import io
import re
import tokenize
from pathlib import Path

import pytest

from games import registry
from games.base import LadderDefaults
from games.playthrough import golden_path

ROOT = Path(__file__).resolve().parents[2]
GAMES_DIR = ROOT / "games"
RUNTIME = ("games", "bots", "league", "workers")  # the packages that ship (templates/ is checked with them)


@pytest.mark.parametrize("game_id", list(registry.GAMES))
def test_every_registered_game_keeps_all_of_itself_in_its_folder(game_id: str) -> None:
    folder = registry.game_dir(game_id)
    assert folder == GAMES_DIR / game_id
    for part in (
        "__init__.py",
        "declaration.py",
        "engine.py",
        "players.py",
        "viewer.js",
        "RULES.md",
        "example/main.py",
    ):
        assert (folder / part).is_file(), f"games/{game_id}/{part} is missing"
    assert registry.renderer_path(game_id) == folder / "viewer.js"
    assert registry.example_dir(game_id) == folder / "example"
    assert golden_path(game_id) == folder / "playthrough.txt" and golden_path(game_id).is_file()
    assert (folder / "tests" / f"test_{game_id}.py").is_file()
    rules = registry.rules_text(game_id)
    assert rules.startswith("# ") and "## Observation reference" in rules


@pytest.mark.parametrize("game_id", list(registry.GAMES))
def test_the_ladder_defaults_are_the_games_and_the_league_takes_them(game_id: str, settings) -> None:
    from league.ladder.scheduling import ladder_config

    defaults = registry.ladder_defaults(game_id)
    assert defaults and set(defaults) <= set(LadderDefaults.__annotations__)
    assert all(settings.LADDER_GAMES[game_id][key] == value for key, value in defaults.items())
    config = ladder_config(game_id)  # the league accepts them (table sizes the game allows, whole numbers)
    assert config.games_per_hour == defaults.get("games_per_hour", config.games_per_hour)


def test_an_unknown_game_id_never_reaches_the_filesystem() -> None:
    for bad in ("../league", "viewer", "no_such_game", "love_letter/../../docs"):
        with pytest.raises(registry.UnknownGame):
            registry.game_dir(bad)
        with pytest.raises(registry.UnknownGame):
            registry.rules_text(bad)


def test_the_viewer_shell_is_static_files_only() -> None:
    # settings.STATICFILES_DIRS publishes the whole folder: nothing but the viewer's own JS and CSS may be in it.
    names = {path.name for path in registry.VIEWER_DIR.iterdir()}
    assert names == {"viewer.js", "frames.js", "page.js", "drawing.js", "kit.js", "generic.js", "viewer.css"}


def _runtime_files(suffixes: tuple[str, ...]) -> list[Path]:
    files = [path for package in RUNTIME for suffix in suffixes for path in (ROOT / package).rglob(f"*{suffix}")]
    files += [path for suffix in suffixes for path in (ROOT / "templates").rglob(f"*{suffix}")]
    return [
        path
        for path in files
        if "tests" not in path.relative_to(ROOT).parts
        and "migrations" not in path.parts
        and not any(path.is_relative_to(GAMES_DIR / game_id) for game_id in registry.GAMES)
    ]


def _string_literals(path: Path) -> list[str]:
    tokens = tokenize.generate_tokens(io.StringIO(path.read_text(encoding="utf-8")).readline)
    found = []
    for token in tokens:
        if token.type == tokenize.STRING:
            try:
                found.append(ast.literal_eval(token.string))
            except ValueError:  # an f-string: its text is checked by the path test below
                found.append(token.string)
    return [value for value in found if isinstance(value, str)]


def test_no_code_outside_a_games_folder_names_the_game_except_the_registry() -> None:
    """What adding a sixth game may touch: its folder, and one line in games/registry.py. So no other runtime module
    names a game, imports a game's package, or builds a path into one."""
    ids = set(registry.GAMES)
    offenders = []
    for path in _runtime_files((".py",)):
        if path == GAMES_DIR / "registry.py":
            continue
        named = ids & set(_string_literals(path))
        imported = {
            name
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
            if isinstance(node, ast.ImportFrom) and node.module
            for name in ids
            if node.module == f"games.{name}" or node.module.startswith(f"games.{name}.")
        }
        if named | imported:
            offenders.append(f"{path.relative_to(ROOT)}: {sorted(named | imported)}")
    for path in _runtime_files((".html", ".js", ".css")):
        text = path.read_text(encoding="utf-8")
        if named := {game_id for game_id in ids if re.search(rf"\b{game_id}\b", text)}:
            offenders.append(f"{path.relative_to(ROOT)}: {sorted(named)}")
    assert offenders == []


def test_no_runtime_code_reads_docs_or_tests_or_another_packages_folder_by_path() -> None:
    # A path built from a package's own location into docs/, tests/ or a sibling package, e.g. ROOT / "docs" / ...
    crossing = re.compile(
        r"""(parents?\[?\d*\]?|parent\.parent|BASE_DIR)[^\n]*["'](docs|tests|games|bots|league)["']"""
    )
    offenders = [
        f"{path.relative_to(ROOT)}:{number}: {line.strip()}"
        for path in _runtime_files((".py",))
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if crossing.search(line) or re.search(r"""["']docs["']\s*/|/\s*["']docs["']""", line)
    ]
    assert offenders == []
