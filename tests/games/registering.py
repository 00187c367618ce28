"""Registering a game that ``games/registry.py`` does not list, for one test: the template game, or a copy of it."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import pytest

from games import registry, schema

TEMPLATE = "template"  # games/template/: the game a newcomer copies (docs/adding-a-game.md), never in the league


def _forget() -> None:
    # Each of these remembers games by id; a game registered for one test must not outlive it.
    for cached in (registry.get_game, registry.builtin_players, schema.schemas, schema._action_validator):
        cached.cache_clear()


@contextmanager
def registered(game_id: str, package: str) -> Iterator[str]:
    """``game_id`` played by ``package`` (its ``engine.py`` and ``players.py``) while the block runs."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setitem(registry._ENGINES, game_id, package)
        _forget()
        try:
            yield game_id
        finally:
            _forget()
