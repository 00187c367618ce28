"""A game-agnostic example bot using the SDK: plays a uniformly random legal action.

Works for every game whose legal-action list is complete (no templates with free fields)."""

from __future__ import annotations

import random

from parlour_sdk import log, run


def act(obs: dict, legal: list[dict], ctx) -> tuple[dict, str]:
    choice = random.choice(legal)
    return choice, f"random pick of {len(legal)}"


def on_end(ctx, obs: dict) -> None:
    log(f"seat {ctx.seat}: match over after {ctx.moves} moves, outcome {ctx.outcome}")


if __name__ == "__main__":
    run(act, on_end=on_end)
