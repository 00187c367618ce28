"""Every game Parlour knows. Adding a game is its folder and one line in ``_ENGINES``; everything else reads from here.

A game's folder ``games/<id>/`` holds everything about it (tests/games/test_game_folders.py checks each one):

- ``__init__.py`` with ``LADDER``, the game's defaults for the league's ladder (``ladder_defaults``);
- ``declaration.py`` with the types of its ``Observation`` and ``Action``, which its spec names (games/spec.py);
- ``engine.py`` with ``GAME`` (a ``Game`` instance) and ``players.py`` with ``PLAYERS`` (built-in player classes by
  name, ``random`` among them);
- ``viewer.js``, its replay renderer (``renderer_path``; docs/viewer.md);
- ``RULES.md``, the rules reference for bot authors (``rules_text``);
- ``example/main.py``, a complete bot on the plain protocol (``example_dir``);
- ``playthrough.txt``, its golden playthrough (``games.playthrough.golden_path``), and ``tests/``, its own tests.

Other packages find a game's files through the functions here, never by a path of their own. Modules load on first
use. ``games/template/`` is a complete game to copy (docs/adding-a-game.md); it is not listed here, so the league
never offers it.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterator, Mapping
from functools import cache
from pathlib import Path
from types import ModuleType
from typing import Any

from games.base import Game, LadderDefaults, Player

_ENGINES: dict[str, str] = {  # game id -> its package
    "love_letter": "games.love_letter",
    "ranczo": "games.ranczo",
    "high_society": "games.high_society",
    "ten": "games.ten",
    "barbarossa": "games.barbarossa",
}


class UnknownGame(KeyError):
    def __str__(self) -> str:
        return f"no game called {self.args[0]!r}; known games: {', '.join(sorted(_ENGINES))}"


class _Registry(Mapping[str, Game]):
    def __getitem__(self, game_id: str) -> Game:
        return get_game(game_id)

    def __iter__(self) -> Iterator[str]:
        return iter(sorted(_ENGINES))

    def __len__(self) -> int:
        return len(_ENGINES)


GAMES: Mapping[str, Game] = _Registry()


@cache
def get_game(game_id: str) -> Game:
    if game_id not in _ENGINES:
        raise UnknownGame(game_id)
    game: Game = importlib.import_module(f"{_ENGINES[game_id]}.engine").GAME
    assert game.id == game_id, f"{_ENGINES[game_id]} registers {game.id!r}, not {game_id!r}"
    return game


@cache
def builtin_players(game_id: str) -> Mapping[str, type[Player[Any]]]:
    get_game(game_id)
    own: Mapping[str, type[Player[Any]]] = importlib.import_module(f"{_ENGINES[game_id]}.players").PLAYERS
    assert "random" in own, f"{game_id} has no built-in 'random' player"
    # Every game's built-in players end with ``search``, the ISMCTS "boss" on its own forward model (docs/search.md).
    from games.search_player import SEARCH, search_player

    return {**own, SEARCH: search_player(get_game(game_id), dict(own))}


def make_player(game_id: str, name: str, seed: int = 0) -> Player[Any]:
    """A fresh built-in player; raises ``KeyError`` with the known names when ``name`` is unknown."""
    players = builtin_players(game_id)
    if name not in players:
        raise KeyError(f"{game_id} has no built-in player {name!r}; known: {', '.join(sorted(players))}")
    return players[name](seed)


# ----- a game's folder -------------------------------------------------------------------------------------------

# The replay viewer's shell that every game's renderer plugs into: viewer.js (with frames.js, page.js, drawing.js),
# kit.js, generic.js, viewer.css (docs/viewer.md). The league's site and the local viewer (bots/authoring/viewer.py)
# both serve it from here.
VIEWER_DIR = Path(__file__).resolve().parent / "viewer"
RULES_FILE = "RULES.md"
RENDERER_FILE = "viewer.js"


def _package(game_id: str) -> ModuleType:
    if game_id not in _ENGINES:
        raise UnknownGame(game_id)
    return importlib.import_module(_ENGINES[game_id])


def game_dir(game_id: str) -> Path:
    """The folder of a registered game (raises ``UnknownGame`` for any other id, so no id reaches the filesystem)."""
    module_file = _package(game_id).__file__
    assert module_file is not None, f"{_ENGINES[game_id]} is not a regular package"
    return Path(module_file).resolve().parent


def ladder_defaults(game_id: str) -> LadderDefaults:
    """The game's own ladder defaults (its package's ``LADDER``; empty when it sets none)."""
    ladder: LadderDefaults = getattr(_package(game_id), "LADDER", LadderDefaults())
    return ladder


def rules_path(game_id: str) -> Path:
    return game_dir(game_id) / RULES_FILE


def rules_text(game_id: str) -> str:
    """The game's rules reference (Markdown), or "" when it has none."""
    path = rules_path(game_id)
    return path.read_text(encoding="utf-8") if path.is_file() else ""


def example_dir(game_id: str) -> Path:
    """The folder of the game's example bot (``main.py``, standard library only)."""
    return game_dir(game_id) / "example"


def renderer_path(game_id: str) -> Path | None:
    """The game's replay renderer, or ``None`` when the viewer falls back to its generic view."""
    path = game_dir(game_id) / RENDERER_FILE
    return path if path.is_file() else None
