"""Template context shared by every page."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest

from games.registry import GAMES


def games(request: HttpRequest) -> dict[str, Any]:
    return {"all_games": [GAMES[game_id] for game_id in GAMES]}
