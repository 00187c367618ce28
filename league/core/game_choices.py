"""The registered games as a model field's choices."""

from __future__ import annotations

from games.registry import GAMES


def game_choices() -> list[tuple[str, str]]:
    return [(game_id, GAMES[game_id].title) for game_id in GAMES]
