"""Every game Parlour knows. Adding a game is one line in ``_ENGINES``; everything else reads from here.

A game package ``games/<id>/`` provides ``engine.py`` with ``GAME`` (a ``Game`` instance) and ``players.py``
with ``PLAYERS`` (built-in player classes by name, ``random`` among them). Modules load on first use.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterator, Mapping
from functools import cache

from games.base import Game, Player

_ENGINES: dict[str, str] = {
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
    game = importlib.import_module(f"{_ENGINES[game_id]}.engine").GAME
    assert game.id == game_id, f"{_ENGINES[game_id]} registers {game.id!r}, not {game_id!r}"
    return game


@cache
def builtin_players(game_id: str) -> Mapping[str, type[Player]]:
    get_game(game_id)
    players = importlib.import_module(f"{_ENGINES[game_id]}.players").PLAYERS
    assert "random" in players, f"{game_id} has no built-in 'random' player"
    return players


def make_player(game_id: str, name: str, seed: int = 0) -> Player:
    """A fresh built-in player; raises ``KeyError`` with the known names when ``name`` is unknown."""
    players = builtin_players(game_id)
    if name not in players:
        raise KeyError(f"{game_id} has no built-in player {name!r}; known: {', '.join(sorted(players))}")
    return players[name](seed)
