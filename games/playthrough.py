"""Golden playthroughs: one game written out state by state, for a human eye and for regression tests.

python -m games.playthrough love_letter            # print it
python -m games.playthrough --write                # rewrite every golden file, games/<id>/playthrough.txt
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from games.registry import GAMES, builtin_players, game_dir, get_game, make_player

GOLDEN_FILE = "playthrough.txt"
GOLDEN_SEED = 7
# Long legal lists (every bid combination) are cut in the file: the first ones show their shape.
LEGAL_SHOWN = 24


def _dump(value: object) -> str:
    return json.dumps(value, sort_keys=True)


def render(game_id: str, seed: int = GOLDEN_SEED, players: int | None = None) -> str:
    """Play ``game_id`` with its strongest built-in players (the last listed) and write out every decision."""
    game = get_game(game_id)
    count = players or game.min_players
    # The search player is left out: it plays by the clock, and a golden playthrough must not depend on one.
    names = [name for name in builtin_players(game_id) if name != "search"]
    bots = [make_player(game_id, names[-1] if seat % 2 == 0 else "random", seed + seat) for seat in range(count)]
    state = game.new_state(count, seed)
    for start_seat, bot in enumerate(bots):
        bot.start(start_seat, count, state.options)
    lines = [f"game {game.id} version {game.version} players {count} seed {seed}", ""]
    step = 0
    while (seat := state.to_move()) is not None:
        obs, legal = state.observation(seat), state.legal_actions()
        action = bots[seat].act(obs, legal)
        lines += [
            f"## step {step}: seat {seat} to move",
            f"public: {_dump(state.public_view())}",
            f"observation: {_dump(obs)}",
            f"legal: {_dump(legal[:LEGAL_SHOWN])}"
            + (f" ... and {len(legal) - LEGAL_SHOWN} more" if len(legal) > LEGAL_SHOWN else ""),
            f"action: {_dump(action)}",
        ]
        lines += [f"  > {line}" for line in state.apply(action)]
        step += 1
    lines += ["", f"final: {_dump(state.full_view())}", f"outcome: {_dump(state.outcome().to_json())}"]
    return "\n".join(lines) + "\n"


def golden_path(game_id: str) -> Path:
    """The golden file sits in the game's own folder, beside its engine."""
    return game_dir(game_id) / GOLDEN_FILE


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("game", nargs="?", choices=sorted(GAMES))
    parser.add_argument("--seed", type=int, default=GOLDEN_SEED)
    parser.add_argument("--write", action="store_true", help="rewrite the golden files")
    args = parser.parse_args()
    if args.write:
        for game_id in [args.game] if args.game else list(GAMES):
            golden_path(game_id).write_text(render(game_id))
            print(f"wrote {golden_path(game_id)}")
    elif args.game:
        print(render(args.game, args.seed), end="")
    else:
        parser.error("name a game, or pass --write")


if __name__ == "__main__":
    main()
