"""A search bot to make your own: information-set MCTS on the game's own engine, in the time the clock allows.

Every decision it draws states of the game that agree with everything this seat was told (``ctx.seen``; the hidden
cards re-dealt, never peeked at), searches them with ``parlour_sdk.search.ismcts`` and plays the most visited move.
Make it stronger where the comments say PLUG IN: a playout policy smarter than random, an evaluation that stops
playouts early, candidate moves of your own. docs/search.md (the site's "Write a bot" guide) explains each part.

Runs as it is on the league (the engines are mounted beside the SDK) and locally with the author kit's wheel:
    python -m bots play GAME this-folder/ builtin:heuristic --sandbox none
with a bot.toml that says:  command = ["python3", "main_search.py"]
"""

from __future__ import annotations

import random

from parlour_sdk import Context, engine, log, run
from parlour_sdk.search import ismcts, random_playout, rank_rewards

TYPE_CHECKING = False
if TYPE_CHECKING:  # annotations only: importing typing would slow the bot's start-up
    from typing import Any

    from games.base import State

TIME_MS = 100  # search time per move; never more than half of what the clock allows (see think_ms)
SAFETY_MS = 30  # the process's own overhead per move: reading, writing, the garbage collector

rng = random.Random()


def think_ms(ctx: Context) -> float:
    """How long to search this move: TIME_MS, but never beyond the clock (``time_left_ms`` includes the bank)."""
    return max(1.0, min(TIME_MS, ctx.time_left_ms / 2 - SAFETY_MS))


# ----- PLUG IN: how a simulated game goes on and how it is scored --------------------------------------------------
def playout(state: State, rng: random.Random, deadline: float) -> None:
    """Play ``state`` on. Random to the end is the default; a policy that prefers good moves (or stops at a horizon,
    e.g. the end of a round, and lets ``evaluate`` score the position) makes every iteration worth more."""
    random_playout(state, rng, deadline)  # raises OutOfTime past the deadline: check it in your own loop too


def evaluate(state: State) -> list[float]:
    """Each seat's reward in [0, 1] for a state ``playout`` left. By rank at the end of the game by default."""
    return rank_rewards(state)


# ----- the bot ---------------------------------------------------------------------------------------------------
def act(obs: dict[str, Any], legal: list[dict[str, Any]], ctx: Context) -> tuple[dict[str, Any], str]:
    game = engine.load(ctx.game)
    if not engine.has_sampler(ctx.game):
        return rng.choice(legal), "no sampler for this game yet: a random move"
    result = ismcts(
        game,
        ctx.seen,
        legal,
        rng,
        time_ms=think_ms(ctx),
        playout=playout,
        evaluate=evaluate,
        seed_actions=[],  # PLUG IN: concrete moves of your own to consider (the search fills templates at random)
    )
    return result.action, f"{result.iterations} iterations"


def on_start(ctx: Context) -> None:
    engine.load(ctx.game)  # load the engine while the start-up clock runs, not the first move's


def on_end(ctx: Context, obs: dict[str, Any]) -> None:
    log(f"seat {ctx.seat}: outcome {ctx.outcome}")


if __name__ == "__main__":
    run(act, on_start=on_start, on_end=on_end)
