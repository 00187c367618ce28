"""What Barbarossa's forward model costs a search: µs per ``clone()`` and per ``sample()`` at three phases of random
games, and per whole random playout played with ``advance()`` only (docs/search.md "Barbarossa").

.venv/bin/python bench/barbarossa_forward.py              # 3 rounds, medians
.venv/bin/python bench/barbarossa_forward.py --rounds 1
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import TypeVar

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from games.barbarossa.engine import GAME, WORDS, BarbarossaState
from games.base import Action, has_sampler
from games.seen import Seen

T = TypeVar("T")
PHASES = ("after creation", "mid-game", "late")
GAMES = 20


def pick(state: BarbarossaState, rng: random.Random) -> Action:
    """A uniformly random legal entry, its template filled: the suggested creation, or a random word to guess."""
    legal = state.legal_actions()
    action = rng.choice(legal)
    if "create" in action and action["create"]["word"] is None:
        return legal[1]
    guess = action.get("guess") or (action.get("curse") or {}).get("guess")
    if guess is not None and guess["word"] is None:
        filled = {"object": guess["object"], "word": rng.choice(WORDS)}
        return {"guess": filled} if "guess" in action else {"curse": {"guess": filled}}
    return action


def new_game(seed: int) -> BarbarossaState:
    state = GAME.new_state(3 + seed % 2, seed)
    assert isinstance(state, BarbarossaState)
    return state


def playout(seed: int) -> BarbarossaState:
    state, rng = new_game(seed), random.Random(seed)
    while state.to_move() is not None:
        state.advance(pick(state, rng))
    return state


def positions() -> dict[str, list[BarbarossaState]]:
    """Copies of random games' states: the first move after creation, the middle decision and the fifth from last."""
    found: dict[str, list[BarbarossaState]] = {phase: [] for phase in PHASES}
    for seed in range(GAMES):
        length = len(playout(seed).history)
        state, rng = new_game(seed), random.Random(seed)
        marks = dict(zip(PHASES, (state.players * state.per_player, length // 2, length - 5), strict=True))
        while state.to_move() is not None:
            for phase, at in marks.items():
                if len(state.history) == at:
                    found[phase].append(state.clone())
            state.advance(pick(state, rng))
    return found


def seen_at(state: BarbarossaState) -> Seen:
    seat = state.to_move()
    assert seat is not None
    seen = Seen(game="barbarossa", seat=seat, players=state.players, options=dict(state.options))
    seen.record(state.observation(seat))
    return seen


def per_item(call: Callable[[T], object], items: list[T]) -> float:
    """µs per call of ``call`` on each of ``items``."""
    began = time.perf_counter()
    for item in items:
        call(item)
    return (time.perf_counter() - began) / len(items) * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    at = positions()
    seen = {phase: [seen_at(state) for state in states] for phase, states in at.items()}
    sampled = has_sampler(BarbarossaState)
    figures: dict[str, list[float]] = {}
    for _ in range(args.rounds):
        figures.setdefault("advance-only playout", []).append(per_item(playout, list(range(40))))
        for phase, states in at.items():
            figures.setdefault(f"clone, {phase}", []).append(per_item(BarbarossaState.clone, states * 100))
        for phase, seens in seen.items():
            if sampled:
                draw = partial(GAME.sample, rng=random.Random(1))
                figures.setdefault(f"sample, {phase}", []).append(per_item(draw, seens * 50))
    for name, values in figures.items():
        print(f"{name}: {statistics.median(values):.1f} µs")


if __name__ == "__main__":
    main()
