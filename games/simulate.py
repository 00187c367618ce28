"""Play whole games in process with built-in players: for tests, win-rate measurements and benchmarks."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from games.base import Outcome, Player, State
from games.registry import get_game, make_player

# No game in Parlour needs more decisions than this; a playout that does is a bug in the engine.
MAX_DECISIONS = 20_000


def play(
    game_id: str,
    players: Sequence[Player[Any]],
    seed: int,
    options: dict[str, Any] | None = None,
) -> State:
    """Play one game to the end; returns the final state (its ``history`` is the replay)."""
    state = get_game(game_id).new_state(len(players), seed, options)
    for seat, player in enumerate(players):
        player.start(seat, len(players), state.options)
    for _ in range(MAX_DECISIONS):
        mover = state.to_move()
        if mover is None:
            return state
        state.apply(players[mover].act(state.observation(mover), state.legal_actions()))
    raise RuntimeError(f"{game_id} seed {seed}: no end after {MAX_DECISIONS} decisions")


def play_builtins(game_id: str, names: Sequence[str], seed: int) -> Outcome:
    """One game between built-in players named ``names`` (seat order); each player gets its own seed."""
    players = [make_player(game_id, name, seed * 100 + seat) for seat, name in enumerate(names)]
    return play(game_id, players, seed).outcome()


def win_rate(game_id: str, hero: str, others: Sequence[str], seeds: range) -> tuple[float, float, float]:
    """How often ``hero`` ranks first (ties for first count as a win) against ``others``, seat rotated by seed.

    Returns (rate, low, high): the rate and its 95% Wilson interval."""
    wins = 0
    for seed in seeds:
        names = list(others)
        hero_seat = seed % (len(names) + 1)
        names.insert(hero_seat, hero)
        if play_builtins(game_id, names, seed).ranks[hero_seat] == 1:
            wins += 1
    return (wins / len(seeds), *wilson_interval(wins, len(seeds)))


def wilson_interval(successes: int, trials: int, z: float = 1.96) -> tuple[float, float]:
    if trials == 0:
        return (0.0, 1.0)
    p = successes / trials
    denom = 1 + z * z / trials
    centre = (p + z * z / (2 * trials)) / denom
    half = z * ((p * (1 - p) / trials + z * z / (4 * trials * trials)) ** 0.5) / denom
    return (centre - half, centre + half)
