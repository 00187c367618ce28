"""Random playouts per second on one core for every registered game, and where the time goes.

    .venv/bin/python bench/engines.py [--seconds 3] [game ...]

For each game: complete random games per second (legal actions + observation of the mover + apply, as a match
runs them), then the split of that time between legal_actions, observation and apply. Medians over 3 repeats.
"""

from __future__ import annotations

import argparse
import statistics
import time

from games.registry import GAMES, get_game, make_player


def playouts(game_id: str, seconds: float) -> tuple[float, dict[str, float]]:
    game = get_game(game_id)
    spent = {"legal_actions": 0.0, "observation": 0.0, "apply": 0.0}
    games = 0
    clock = time.perf_counter
    start = clock()
    while clock() - start < seconds:
        players = game.min_players + games % (game.max_players - game.min_players + 1)
        state = game.new_state(players, games)
        bots = [make_player(game_id, "random", games * 10 + seat) for seat in range(players)]
        for seat, bot in enumerate(bots):
            bot.start(seat, players, state.options)
        while (seat := state.to_move()) is not None:
            t0 = clock()
            legal = state.legal_actions()
            t1 = clock()
            obs = state.observation(seat)
            t2 = clock()
            action = bots[seat].act(obs, legal)
            t3 = clock()
            state.apply(action)
            t4 = clock()
            spent["legal_actions"] += t1 - t0
            spent["observation"] += t2 - t1
            spent["apply"] += t4 - t3
        games += 1
    elapsed = clock() - start
    return games / elapsed, {key: value / elapsed for key, value in spent.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("games", nargs="*", default=list(GAMES))
    parser.add_argument("--seconds", type=float, default=3.0)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    print(f"{'game':<14} {'playouts/s':>11} {'legal':>7} {'obs':>7} {'apply':>7}")
    for game_id in args.games:
        runs = [playouts(game_id, args.seconds) for _ in range(args.repeats)]
        rate = statistics.median(run[0] for run in runs)
        split = {key: statistics.median(run[1][key] for run in runs) for key in runs[0][1]}
        print(
            f"{game_id:<14} {rate:>11.1f} {split['legal_actions']:>6.0%} {split['observation']:>6.0%} "
            f"{split['apply']:>6.0%}"
        )


if __name__ == "__main__":
    main()
