"""A game-agnostic example bot using the SDK: plays a uniformly random legal action.

Works for every game whose legal-action list is complete (no templates with free fields)."""

from __future__ import annotations

import random

from parlour_sdk import Context, log, run

TYPE_CHECKING = False
if TYPE_CHECKING:  # annotations only, as in the SDK: importing typing would slow the bot's start-up
    from typing import Any


def act(obs: dict[str, Any], legal: list[dict[str, Any]], ctx: Context) -> tuple[dict[str, Any], str]:
    choice = random.choice(legal)
    return choice, f"random pick of {len(legal)}"


def on_end(ctx: Context, obs: dict[str, Any]) -> None:
    log(f"seat {ctx.seat}: match over after {ctx.moves} moves, outcome {ctx.outcome}")


if __name__ == "__main__":
    run(act, on_end=on_end)
