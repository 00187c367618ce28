"""The game engines as a bot's forward model: the same code and version the league runs, read-only.

    import random
    from parlour_sdk import engine, run

    def act(obs, legal, ctx):
        state = ctx.sample(random.Random())       # a full state drawn from what this seat was told
        state.advance(legal[0])                   # clone, legal_actions, advance, to_move, is_over, outcome...

``load(game_id)`` imports that one game (nothing of the others) and returns its ``Game``: ``new_state``, ``sample``.
``sample(seen, rng)`` draws a state that agrees with everything ``seen`` holds (``ctx.seen``, kept by ``run``) and
nothing else: the hidden cards re-dealt, never read from the real game (docs/search.md).

Where the engines are: in the league's sandbox at ``/parlour/engines/games``, beside the SDK (this module puts that
folder first on ``sys.path`` when it is imported, so a bot file of its own called ``games`` cannot hide them, and a
starter kit's own copy of the SDK finds them there too); with ``python -m bots play`` the same; with the author
kit's wheel installed they are the ``games`` package itself.
Standard library only. Importing this module costs what importing ``games.base`` does; ``load`` adds one game.
"""

from __future__ import annotations

import os
import sys

# Beside this package (the league's SDK, or python -m bots play's link to it), then the sandbox's own place: a starter
# kit's copy of the SDK in the bot's folder finds the league's engines there too.
_PLACES = (os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "engines"), "/parlour/engines")
for _place in _PLACES:
    if os.path.isdir(os.path.join(_place, "games")):
        if _place not in sys.path:
            sys.path.insert(0, _place)
        break

from games.base import Game, State  # noqa: E402  (the engines are importable from here on)
from games.registry import get_game  # noqa: E402
from games.seen import Seen  # noqa: E402

TYPE_CHECKING = False
if TYPE_CHECKING:
    import random

__all__ = ["Game", "Seen", "State", "has_sampler", "load", "sample"]


def load(game_id: str) -> Game:
    """The engine of ``game_id`` (``games.registry.UnknownGame``, a ``KeyError``, for any other name)."""
    return get_game(game_id)


def sample(seen: Seen, rng: random.Random) -> State:
    """A state drawn from ``seen`` (``ctx.seen``) with ``rng``: ``load(seen.game).sample(seen, rng)``."""
    return load(seen.game).sample(seen, rng)


def has_sampler(game_id: str) -> bool:
    """Whether ``game_id`` can draw samples yet (``sample`` raises ``NotImplementedError`` otherwise)."""
    from games.base import has_sampler as implemented

    return implemented(load(game_id).state_class)
