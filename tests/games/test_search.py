"""The search (games/search.py) and the built-in player ``search`` of every game (games/search_player.py).

The template game (High Card, games/template) has a sampler, so the search is exercised end to end here whatever the
five league games' samplers do; every league game's ``search`` player plays legal whole games, searching where its
game has a sampler and as its game's heuristic where it has none yet."""

from __future__ import annotations

import gc
import math
import random
import time
from collections.abc import Iterator
from typing import Any

import pytest

from games.base import Player, canonical, has_sampler
from games.registry import GAMES, builtin_players, get_game, make_player
from games.search import concrete_actions, ismcts, step
from games.search_player import SEARCH, SearchPlayer, horizon_of, search_knobs, whole_game
from games.seen import Seen
from tests.games.registering import TEMPLATE, registered

GAMES_VS_RANDOM = 40
FAST_MS = 20  # the search's time per move in these tests (the default, 100 ms, is the benchmarks')


@pytest.fixture
def template() -> Iterator[str]:
    with registered(TEMPLATE, "games.template") as game_id:
        yield game_id


def _play(
    game_id: str, players: int, seed: int, names: list[str], time_ms: float = FAST_MS, iterations: int | None = None
) -> tuple[Any, float]:
    """One whole game; returns its outcome and the longest move any ``search`` player took (seconds of this thread's
    CPU: the search's clock is wall time, but on a shared machine the wall clock also counts other processes, and
    the process's CPU the suite's other threads, such as a browser test's live server still winding down)."""
    state = get_game(game_id).new_state(players, seed)
    bots: list[Player[Any]] = [make_player(game_id, name, seed * 10 + seat) for seat, name in enumerate(names)]
    for seat, bot in enumerate(bots):
        bot.start(seat, players, state.options)
        if isinstance(bot, SearchPlayer):
            bot.time_ms, bot.max_iterations = time_ms, iterations
    longest = 0.0
    # The suite's own heap is set aside: by the time this runs in CI it holds a million objects or more, and a full
    # collection costs about 200 ms a million here (CI once measured a 293 ms move). A bot's process holds its own.
    gc.collect()
    gc.freeze()
    try:
        while (seat := state.to_move()) is not None:
            began = time.thread_time()
            action = bots[seat].act(state.observation(seat), state.legal_actions())
            if isinstance(bots[seat], SearchPlayer):
                longest = max(longest, time.thread_time() - began)
            state.apply(action)  # raises IllegalAction for an illegal move
    finally:
        gc.unfreeze()
    return state.outcome(), longest


def test_every_game_has_the_search_player_besides_its_own() -> None:
    for game_id in GAMES:
        players = builtin_players(game_id)
        assert list(players)[-1] == SEARCH and "random" in players
        assert issubclass(players[SEARCH], SearchPlayer) and players[SEARCH].game_id == game_id
        says_fallback = "until then" in players[SEARCH].description
        assert says_fallback == (not has_sampler(get_game(game_id).state_class))


@pytest.mark.parametrize("game_id", list(GAMES))
def test_the_search_player_plays_legal_whole_games_within_its_time(game_id: str) -> None:
    game = get_game(game_id)
    for players in sorted({game.min_players, game.max_players}):
        names = [SEARCH] + ["random"] * (players - 1)
        _, longest = _play(game_id, players, seed=players, names=names)
        # The search stops before its deadline and drops an iteration that reaches it; one step of the engine (High
        # Society's 2,048 bids), the heuristic's move or a collection of the garbage may still run past it.
        assert longest < (FAST_MS + 150) / 1000, f"{game_id}: {longest * 1000:.0f} ms for one move"


def test_the_search_beats_random_clearly_at_high_card(template: str) -> None:
    """A fixed number of iterations (and no time limit to speak of): the same games on any machine."""
    wins = decided = 0
    for seed in range(GAMES_VS_RANDOM):
        names = [SEARCH, "random"] if seed % 2 == 0 else ["random", SEARCH]
        outcome, _ = _play(template, 2, seed, names, time_ms=10_000, iterations=300)
        mine, theirs = outcome.ranks[seed % 2], outcome.ranks[1 - seed % 2]
        decided += mine != theirs
        wins += mine < theirs
    # High Card is mostly luck (a third of these games are tied; random wins 14 of the 27 others on these seeds, the
    # greedy player 20): 3 in 4 of the decided games is far beyond a coin (p < 0.01 over 27 games).
    assert decided >= 20 and wins >= 0.75 * decided, f"{wins} wins of {decided} decided games"


def test_the_search_respects_its_time(template: str) -> None:
    game = get_game(template)
    state = game.new_state(2, 5)
    seen = Seen(game=template, seat=0, players=2)
    seen.record(state.observation(0))
    for time_ms in (10, 60):
        result = ismcts(game, seen, state.legal_actions(), random.Random(1), time_ms=time_ms)
        assert result.iterations > 1 and result.seconds < (time_ms + 200) / 1000  # wall time, on a shared machine
        assert result.action in state.legal_actions()
        assert sum(result.visits.values()) == result.iterations


def test_the_search_reads_only_the_seats_record(template: str) -> None:
    """The same record gives the same move, whatever the hidden cards really are (another seed, same hand)."""
    game = get_game(template)
    state = game.new_state(2, 7)
    other = state.perturb_hidden(0, random.Random(3))
    assert other is not None and canonical(other.full_view()) != canonical(state.full_view())
    moves = []
    for real in (state, other):
        seen = Seen(game=template, seat=0, players=2)
        seen.record(real.observation(0))
        moves.append(ismcts(game, seen, real.legal_actions(), random.Random(9), time_ms=1e6, iterations=200).action)
    assert moves[0] == moves[1]


@pytest.mark.parametrize("game_id", ["ten", "barbarossa"])
def test_templates_are_filled_into_actions_the_engine_accepts(game_id: str) -> None:
    """Games that list templates (null fields to fill): every concrete candidate is played by ``apply``, checked."""
    game = get_game(game_id)
    rng = random.Random(4)
    filled = 0
    for seed in range(3):
        state = game.new_state(game.min_players + 1, seed)
        while not state.is_over() and len(state.history) < 150:
            legal = state.legal_actions()
            candidates = concrete_actions(state, legal, rng, fills=3)
            assert candidates
            for action in candidates:
                trial = state.clone()
                step(trial, action)  # apply for a filled template: an illegal fill raises IllegalAction
                filled += action not in legal
            step(state, rng.choice(candidates))
    assert filled > 0


@pytest.mark.parametrize("game_id", ["high_society", "ten", "barbarossa", "love_letter", "ranczo"])
def test_playouts_of_the_heuristic_reach_the_horizon_with_moves_the_engine_accepts(game_id: str) -> None:
    """The search player's playout policy (every seat its game's heuristic, filled templates included) plays a
    sampled state on to its horizon: the game's end, or the end of the round for games of rounds of tokens."""
    game = get_game(game_id)
    players = game.min_players
    state = game.new_state(players, 11)
    searcher = make_player(game_id, SEARCH, 3)
    assert isinstance(searcher, SearchPlayer)
    searcher.start(0, players, state.options)
    while state.to_move() != 0:
        state.apply(state.legal_actions()[0])
    searcher.seen.record(state.observation(0), state.legal_actions())
    playout, evaluate = horizon_of(state.observation(0))(searcher.seen, searcher._playout_policy)
    for seed in range(3):
        sample = game.sample(searcher.seen, random.Random(seed))
        playout(sample, random.Random(seed), math.inf)
        rewards = evaluate(sample)
        assert len(rewards) == players and all(0 <= reward <= 1 for reward in rewards)
        if horizon_of(state.observation(0)) is whole_game:
            assert sample.is_over()
        else:
            assert sample.is_over() or sample.public_view()["round"] != state.observation(0)["round"]


def test_the_searchers_own_playout_moves_are_the_heuristics_but_for_epsilon() -> None:
    game = get_game("love_letter")
    state = game.new_state(2, 4)
    while state.to_move() != 0:
        state.apply(state.legal_actions()[0])
    searcher = make_player("love_letter", SEARCH, 5)
    assert isinstance(searcher, SearchPlayer)
    searcher.start(0, 2, state.options)
    searcher.seen.record(state.observation(0))
    legal = state.legal_actions()
    heuristic = make_player("love_letter", "heuristic", 1)
    heuristic.start(0, 2, state.options)
    best = canonical(heuristic.act(state.observation(0), legal))
    searcher.playout_epsilon = 0.0
    # The heuristic breaks exact ties at random: compare with the set of its own choices over many calls.
    own = {canonical(heuristic.act(state.observation(0), legal)) for _ in range(50)} | {best}
    assert {canonical(searcher._playout_policy(state, 0, legal)) for _ in range(50)} <= own
    searcher.playout_epsilon = 1.0
    assert len({canonical(searcher._playout_policy(state, 0, legal)) for _ in range(200)}) == len(
        {canonical(action) for action in legal}
    )


def test_a_games_search_knobs_set_its_search_player_and_nothing_else() -> None:
    """``games/<id>/search_knobs.py`` (found beside the engine, as samplers are) sets that game's search player."""
    assert search_knobs(get_game("ranczo"))["seed_visits"] > 0
    assert search_knobs(get_game("ten"))["heuristic_playouts"] is False
    for game_id in GAMES:
        knobs = search_knobs(get_game(game_id))
        player = builtin_players(game_id)[SEARCH]
        for name in ("seed_visits", "heuristic_playouts", "playout_epsilon", "exploration"):
            assert getattr(player, name) == knobs.get(name, getattr(SearchPlayer, name)), (game_id, name)
        assert ("heuristic playouts" in player.description) == knobs.get("heuristic_playouts", True)
