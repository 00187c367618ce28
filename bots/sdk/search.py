"""The search bots' engine, for a bot of your own: information-set MCTS on the game's forward model
(``games/search.py``, docs/search.md). Importing it loads the engines' base (``parlour_sdk.engine``), not a game.

    from parlour_sdk import engine, run
    from parlour_sdk.search import ismcts

    def act(obs, legal, ctx):
        game = engine.load(ctx.game)
        return ismcts(game, ctx.seen, legal, rng, time_ms=min(100, ctx.time_left_ms // 2)).action
"""

from __future__ import annotations  # noqa: I001  (the engine module first: it puts the engines on sys.path)

from . import engine as _engine  # noqa: F401  (puts the engines on sys.path)

from games.search import (
    DEFAULT_TIME_MS,
    Evaluate,
    Filled,
    Node,
    OutOfTime,
    Playout,
    SearchResult,
    concrete_actions,
    ismcts,
    random_playout,
    rank_rewards,
    step,
)

__all__ = [
    "DEFAULT_TIME_MS",
    "Evaluate",
    "Filled",
    "Node",
    "OutOfTime",
    "Playout",
    "SearchResult",
    "concrete_actions",
    "ismcts",
    "random_playout",
    "rank_rewards",
    "step",
]
