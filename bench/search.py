"""The search bots' figures (docs/search.md, "Figures"): strength against the house heuristics, with 95% Wilson
intervals, and the forward model's costs.

    python bench/search.py strength love_letter --players 2 --games 400 --time-ms 100 --jobs 2
    python bench/search.py strength ranczo --players 4 --games 400            # a full table of heuristic bots
    python bench/search.py strength barbarossa --players 3 --games 400        # against the reasoner
    python bench/search.py times love_letter --games 400 --times 25 100 400   # strength against time per move
    python bench/search.py costs                                               # clone, sample, simulated games/s

Strength: one ``search`` player (the built-in, at ``--time-ms`` a move) and ``players - 1`` of the game's heuristic
(Barbarossa's is the reasoner), the search's seat rotating with the seed. A *win* is rank 1, shared or not; with
``n`` players a fair share is ``1/n``. Games run in ``--jobs`` processes, each ``nice``d (the search's clock is wall
time: a loaded machine weakens it, so the load average is printed with the figures).
"""

from __future__ import annotations

import argparse
import functools
import math
import os
import random
import statistics
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench.common import load_average  # noqa: E402
from games.base import Player  # noqa: E402
from games.registry import builtin_players, get_game, make_player  # noqa: E402
from games.search import random_playout  # noqa: E402
from games.search_player import SEARCH, SearchPlayer, has_sampler, round_of_tokens  # noqa: E402
from games.seen import Seen  # noqa: E402
from games.simulate import wilson_interval  # noqa: E402


def opponent(game_id: str) -> str:
    """The game's strongest house player besides the search: its first player that is not ``random``."""
    return next(name for name in builtin_players(game_id) if name not in ("random", SEARCH))


Knobs = tuple[tuple[str, float], ...]  # the search player's attributes to set (``--set name=value``)


def play_one(job: tuple[str, int, int, float, int, Knobs]) -> tuple[bool, float, int]:
    """One game: (the search won (rank 1), its longest move in ms, its mean iterations per searched move)."""
    game_id, players, seed, time_ms, seed_visits, knobs = job
    game = get_game(game_id)
    state = game.new_state(players, seed)
    mine = seed % players
    other = opponent(game_id)
    bots: list[Player[Any]] = [
        make_player(game_id, SEARCH if s == mine else other, seed * 10 + s) for s in range(players)
    ]
    for index, bot in enumerate(bots):
        bot.start(index, players, state.options)
        if isinstance(bot, SearchPlayer):
            bot.time_ms, bot.seed_visits = time_ms, seed_visits
            for name, value in knobs:
                setattr(bot, name, value)
    longest = 0.0
    while (seat := state.to_move()) is not None:
        began = time.perf_counter()
        action = bots[seat].act(state.observation(seat), state.legal_actions())
        if seat == mine:
            longest = max(longest, time.perf_counter() - began)
        state.apply(action)
    search = bots[mine]
    assert isinstance(search, SearchPlayer)
    iterations = round(statistics.mean(search.iterations)) if search.iterations else 0
    return state.outcome().ranks[mine] == 1, longest * 1000, iterations


def _nice() -> None:
    os.nice(10)


def strength(
    game_id: str,
    players: int,
    games: int,
    time_ms: float,
    jobs: int,
    seed_visits: int | None = None,
    knobs: Knobs = (),
) -> dict[str, float]:
    searchable = has_sampler(get_game(game_id).state_class)
    visits = builtin_players(game_id)[SEARCH].seed_visits if seed_visits is None else seed_visits
    for name, _ in knobs:
        if not hasattr(SearchPlayer, name):
            raise SystemExit(f"the search player has no knob {name!r}")
    jobs_list = [(game_id, players, k, time_ms, visits, knobs) for k in range(games)]
    began = time.perf_counter()
    with ProcessPoolExecutor(max_workers=jobs, initializer=_nice) as pool:
        results = list(pool.map(play_one, jobs_list, chunksize=4))
    wins = sum(won for won, _, _ in results)
    low, high = wilson_interval(wins, games)
    fair = 1 / players
    row = {
        "win_rate": wins / games,
        "low": low,
        "high": high,
        "share_of_fair": wins / games / fair,
        "max_move_ms": max(ms for _, ms, _ in results),
        "mean_iterations": statistics.mean(it for _, _, it in results),
    }
    print(
        f"{game_id} {players}p search@{time_ms:g}ms (seed visits {visits}"
        f"{''.join(f', {name} {value:g}' for name, value in knobs)}) vs {players - 1}x {opponent(game_id)}: "
        f"{wins}/{games} wins = "
        f"{row['win_rate']:.1%} (95% {low:.1%}-{high:.1%}), {row['share_of_fair']:.2f}x a fair share ({fair:.0%}); "
        f"longest move {row['max_move_ms']:.0f} ms, {row['mean_iterations']:.0f} iterations a move"
        f"{'' if searchable else ' [NO SAMPLER: plays as the heuristic]'}; "
        f"{time.perf_counter() - began:.0f} s, load {load_average()}",
        flush=True,
    )
    return row


def _per_second(run: object, seconds: float) -> float:
    assert callable(run)
    count, began = 0, time.perf_counter()
    while time.perf_counter() - began < seconds:
        run()
        count += 1
    return count / (time.perf_counter() - began)


def costs(seconds: float = 2.0) -> None:
    """Clone and sample costs of every game (mid-game, at the 10th decision), and Love Letter's simulated games per
    second on this one core: whole matches, and single rounds (the search's horizon)."""
    for game_id in ("love_letter", "high_society", "ranczo", "ten", "barbarossa"):
        game = get_game(game_id)
        rng = random.Random(1)
        state = game.new_state(game.min_players, 3)
        seen = Seen(game=game_id, seat=0, players=game.min_players, start=game.start_info(game.min_players, {}))
        # Random moves to the seat's first decision after the 10th (what it was told recorded on the way).
        while (seat := state.to_move()) is not None and (seat != 0 or len(state.history) < 10):
            if seat == 0:
                seen.record(state.observation(0))
            player = make_player(game_id, "random", len(state.history))
            player.start(seat, state.players, state.options)
            state.apply(player.act(state.observation(seat), state.legal_actions()))
        seen.record(state.observation(0))
        clone_us = 1e6 / _per_second(state.clone, seconds / 4)
        sample = "no sampler"
        if has_sampler(game.state_class):
            draw = functools.partial(game.sample, seen, rng)
            sample = f"{1e6 / _per_second(draw, seconds / 4):.0f} us"
        print(f"{game_id} {game.min_players}p: clone {clone_us:.0f} us, sample {sample}", flush=True)
    game = get_game("love_letter")
    rng = random.Random(2)
    matches = _per_second(lambda: random_playout(game.new_state(2, rng.getrandbits(32)), rng), seconds)
    print(f"love_letter 2p: {matches:.0f} random whole matches a second (to 7 tokens)")
    seen = Seen(game="love_letter", seat=0, players=2)
    fresh = game.new_state(2, 5)
    seen.record(fresh.observation(0))
    playout, _ = round_of_tokens(seen, lambda state, seat, legal: rng.choice(legal))

    def one_round() -> None:
        playout(game.sample(seen, rng), rng, math.inf)

    print(f"love_letter 2p: {_per_second(one_round, seconds):.0f} sampled rounds a second (sample + random round)")
    searcher = make_player("love_letter", SEARCH, 1)
    assert isinstance(searcher, SearchPlayer)
    searcher.start(0, 2, {})
    playout, _ = round_of_tokens(seen, searcher._playout_policy)

    def modelled_round() -> None:
        playout(game.sample(seen, rng), rng, math.inf)

    rounds = _per_second(modelled_round, seconds)
    print(f"love_letter 2p: {rounds:.0f} sampled rounds a second, the other seat played by the search's heuristic")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    one = sub.add_parser("strength", help="the search against the game's heuristic")
    one.add_argument("game")
    one.add_argument("--players", type=int)
    one.add_argument("--games", type=int, default=400)
    one.add_argument("--time-ms", type=float, default=100)
    one.add_argument("--jobs", type=int, default=2)
    one.add_argument("--seed-visits", type=int, help="the heuristic move's head start (default: the game's player's)")
    curve = sub.add_parser("times", help="strength against time per move")
    curve.add_argument("game")
    curve.add_argument("--players", type=int)
    curve.add_argument("--games", type=int, default=400)
    curve.add_argument("--times", type=float, nargs="+", default=[25, 100, 400])
    curve.add_argument("--jobs", type=int, default=2)
    for command in (one, curve):
        command.add_argument(
            "--set", nargs="*", default=[], metavar="NAME=VALUE", help="search player knobs: playout_epsilon=1"
        )
    cost = sub.add_parser("costs", help="clone and sample costs, simulated games a second")
    cost.add_argument("--seconds", type=float, default=2.0)
    args = parser.parse_args(argv)
    if args.command == "costs":
        costs(args.seconds)
        return 0
    players = args.players or get_game(args.game).min_players
    for time_ms in [args.time_ms] if args.command == "strength" else args.times:
        knobs = tuple((name, float(value)) for name, value in (item.split("=", 1) for item in args.set))
        strength(args.game, players, args.games, time_ms, args.jobs, getattr(args, "seed_visits", None), knobs)
    return 0


if __name__ == "__main__":
    sys.exit(main())
