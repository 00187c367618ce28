"""docs/architecture.md lists every module of the five packages, and only modules that exist ("Every module").

The modules are those the layering test checks (tests/test_layering.py): every ``.py`` file of games, bots, league,
workers and parlour except tests, migrations and example bots. In the page, each package has a section headed by its
folder (### `league/` ...) whose table names modules relative to it (or to the root) in its first column; a folder
(`api/`) stands for its ``__init__.py``, and `<id>` for every registered game (the pattern each game's folder
follows)."""

from __future__ import annotations

import re

from games.registry import GAMES, game_dir
from tests.test_layering import MODULES, ROOT

MAP = ROOT / "docs" / "architecture.md"
PACKAGE_HEADING = re.compile(r"^### `(\w+)/`", re.M)


def _expand(package: str, name: str) -> list[str]:
    """The module paths one name of the table stands for."""
    if name == f"{package}/":
        name = ""
    elif name.startswith(f"{package}/"):  # written from the repository's root (league/bots/ is not bots/)
        name = name.removeprefix(f"{package}/")
    paths = [f"{package}/{name}__init__.py" if name.endswith("/") or not name else f"{package}/{name}"]
    if "<id>" in name:
        games = sorted(str(game_dir(game_id).relative_to(ROOT / package)) for game_id in GAMES)
        paths = [path.replace("<id>", game) for path in paths for game in games]
    return paths


def listed_modules(text: str) -> dict[str, str]:
    """Each module path the page names, with the package section it was named in."""
    listed: dict[str, str] = {}
    sections = PACKAGE_HEADING.split(text)[1:]
    for package, body in zip(sections[::2], sections[1::2], strict=True):
        body = body.split("\n#")[0]  # the section's own text, up to the next heading
        for row in body.splitlines():
            if not row.startswith("| `"):
                continue
            for name in re.findall(r"`([^`]+)`", row.split("|")[1]):
                for path in _expand(package, name):
                    listed[path] = package
    return listed


def module_paths() -> set[str]:
    return {str(path.relative_to(ROOT)) for path in MODULES.values()}


def test_the_map_has_a_section_for_each_package() -> None:
    assert PACKAGE_HEADING.findall(MAP.read_text()) == ["games", "bots", "league", "workers", "parlour"]


def test_every_module_is_on_the_map() -> None:
    assert sorted(module_paths() - set(listed_modules(MAP.read_text()))) == [], "missing from docs/architecture.md"


def test_the_map_lists_no_module_that_does_not_exist() -> None:
    assert sorted(set(listed_modules(MAP.read_text())) - module_paths()) == [], "no such module"


def test_the_map_reads_names_as_this_module_says() -> None:
    """A planted section: a folder, a module, one written from the root, a game pattern, and a row that is not a module
    row."""
    text = (
        "### `league/` — x\n\n| module | job |\n|---|---|\n| `league/`, `api/` | a |\n"
        "| `views.py`, `league/bots/models.py` | b `not_this.py` |\ntext `nor_this.py`\n\n"
        "### `games/` — y\n\n| `<id>/engine.py` | c |\n## The end\n| `parlour.py` | d |\n"
    )
    listed = listed_modules(text)
    engines = {f"games/{game_dir(game).name}/engine.py" for game in GAMES}
    assert set(listed) == {
        "league/__init__.py",
        "league/api/__init__.py",
        "league/views.py",
        "league/bots/models.py",
        *engines,
    }
    assert len(engines) == len(GAMES) >= 5
