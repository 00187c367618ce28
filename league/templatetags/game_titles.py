"""``{{ table.game|game_title }}``: a game's title ("High Society") wherever a person reads it, never its id
("high_society"); a model field with the games as choices says the same with ``get_game_display``."""

from __future__ import annotations

from django import template

from games.registry import GAMES

register = template.Library()


@register.filter
def game_title(game_id: str) -> str:
    game = GAMES.get(game_id)
    return game.title if game is not None else game_id
