"""The built-in player ``search`` of every game: ISMCTS (games/search.py) for a fixed time per move, on the seat's own
record of what it was told (``Seen``), never on the real state.

It keeps its ``Seen`` from the observations it is handed in ``act`` (and the game's public start fields), exactly as
the SDK keeps one for a bot. A game without a sampler yet cannot be searched: the player then plays its game's
heuristic player's moves and says so in its description (``fallback`` is true). A game may set the player's knobs
(``heuristic_playouts``, ``seed_visits``...) in ``games/<id>/search_knobs.py`` (``search_knobs``; docs/search.md).
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from typing import Any, ClassVar

from games.base import Action, Game, Outcome, Player, State, has_sampler, module_beside
from games.search import (
    DEFAULT_TIME_MS,
    EXPLORATION,
    MAX_PLAYOUT_DECISIONS,
    Evaluate,
    OutOfTime,
    Playout,
    Policy,
    concrete_actions,
    has_null,
    ismcts,
    rank_rewards,
    rewards_of,
)
from games.seen import Seen

SEARCH = "search"

# How a game's simulated games end and are scored, made for one decision from the seat's record and a model of the
# other seats: (playout, evaluate).
Horizon = Callable[[Seen, Policy], tuple[Playout, Evaluate]]


def whole_game(seen: Seen, players: Policy) -> tuple[Playout, Evaluate]:
    """Playouts to the end of the game, every seat played by ``players`` (the playout policy), scored by rank."""

    def playout(state: State, rng: random.Random, deadline: float) -> None:
        for _ in range(MAX_PLAYOUT_DECISIONS):
            if state.is_over():
                return
            if time.perf_counter() > deadline:
                raise OutOfTime
            mover, legal = state.to_move(), state.legal_actions()
            play(state, legal, rng.choice(legal) if mover is None else players(state, mover, legal))

    return playout, rank_rewards


def play(state: State, legal: list[Action], action: Action) -> None:
    """Play a policy's move: ``advance`` when it is one of ``legal`` as listed (the same object: a player answers
    with one of its list), else ``apply`` (a filled template, or a copy), which checks it."""
    if any(action is listed for listed in legal):
        state.advance(action)
    else:
        state.apply(action)


def round_of_tokens(seen: Seen, players: Policy) -> tuple[Playout, Evaluate]:
    """For a match of rounds that award tokens (``round`` and ``tokens`` in the observation: Love Letter, Ranczo):
    playouts to the end of the current round, every seat played by ``players`` (the playout policy),
    scored by the rank of the tokens each seat gained since the decision (by the outcome if the match ended). A
    round is what a move changes; the rest of the match is noise that a 100 ms budget cannot average away
    (docs/decisions.md, "Search bots")."""
    before = list(seen.current["tokens"])
    start_round = seen.current["round"]

    def playout(state: State, rng: random.Random, deadline: float) -> None:
        for _ in range(MAX_PLAYOUT_DECISIONS):
            if state.is_over() or state.public_view()["round"] != start_round:
                return
            if time.perf_counter() > deadline:
                raise OutOfTime
            mover, legal = state.to_move(), state.legal_actions()
            play(state, legal, rng.choice(legal) if mover is None else players(state, mover, legal))

    def evaluate(state: State) -> list[float]:
        if state.is_over():
            return rank_rewards(state)
        tokens = state.public_view()["tokens"]
        gains = [now - then for now, then in zip(tokens, before, strict=True)]
        return rewards_of(Outcome.from_scores(gains))

    return playout, evaluate


def horizon_of(observation: dict[str, Any]) -> Horizon:
    """Rounds that award tokens end a simulated game early; any other game is played to its end."""
    rounds = isinstance(observation.get("round"), int) and isinstance(observation.get("tokens"), list)
    return round_of_tokens if rounds else whole_game


class SearchPlayer(Player[Any]):
    """ISMCTS with playouts by the game's heuristic, ``time_ms`` per decision; the heuristic player's move is among the
    candidates, and it stands in when the game has no sampler or no simulated game fits in the time."""

    name = SEARCH
    game_id: ClassVar[str] = ""
    game_class: ClassVar[Game]  # the engine (set by ``search_player``: this module does not import the registry)
    heuristic: ClassVar[type[Player[Any]]]
    time_ms: float = DEFAULT_TIME_MS  # per decision; a benchmark or test may set it on one player
    # A fixed number of iterations instead (with time_ms as a limit still): reproducible play for tests.
    max_iterations: int | None = None
    seed_visits: int = 0  # the heuristic's move's head start (virtual visits; games/search.py, ismcts)
    model_opponents: bool = True  # the other seats play the heuristic in the tree (else UCB: SO-ISMCTS as such)
    # Playouts by the game's heuristic (every seat; else uniformly random), and how often the searcher's own moves in
    # them are random instead of the heuristic's.
    heuristic_playouts: bool = True
    playout_epsilon: float = 0.0
    exploration: float = EXPLORATION  # UCB's constant (games/search.py)

    def __init__(self, seed: int = 0) -> None:
        super().__init__(seed)
        self.game = self.game_class
        self.fallback = self.heuristic(self.rng.getrandbits(32))
        self.seen = Seen(game=self.game_id, seat=0, players=0)
        self.searchable = has_sampler(self.game.state_class)
        self.iterations: list[int] = []  # per searched decision, for the benchmarks and tests
        self.models: dict[int, Player[Any]] = {}  # every seat's model (the heuristic), the searcher's own included
        self.playout_rng = random.Random(self.rng.getrandbits(64))

    def start(self, seat: int, players: int, options: dict[str, Any]) -> None:
        super().start(seat, players, options)
        self.fallback.start(seat, players, options)
        start = self.game.start_info(players, options)
        self.seen = Seen(game=self.game_id, seat=seat, players=players, options=dict(options), start=start)
        self.iterations = []
        self.models = {}
        for each in range(players):
            self.models[each] = self.heuristic(self.rng.getrandbits(32))
            self.models[each].start(each, players, options)
        self.playout_rng.seed(self.rng.getrandbits(64))

    def act(self, obs: Any, legal: list[Action]) -> Action:
        began = time.perf_counter()
        self.seen.record(obs)
        if not self.searchable:
            return self.fallback.act(obs, legal)
        if len(legal) == 1 and not has_null(legal[0]):
            return legal[0]
        # The heuristic's move is a candidate (the only good fill of a template the search may see) and the answer
        # when not one simulated game fits in the time.
        seeds = [self.fallback.act(obs, legal)]
        rng = random.Random(self.rng.getrandbits(64))
        opponents = self._opponents if self.model_opponents else None
        playout, evaluate = horizon_of(obs)(self.seen, self._playout_policy)
        result = ismcts(
            self.game,
            self.seen,
            legal,
            rng,
            time_ms=max(self.time_ms - (time.perf_counter() - began) * 1000, 0.0),
            iterations=self.max_iterations,
            playout=playout,
            evaluate=evaluate,
            seed_actions=seeds,
            seed_visits=self.seed_visits,
            exploration=self.exploration,
            opponents=opponents,
        )
        self.iterations.append(result.iterations)
        return result.action

    def _opponents(self, state: State, seat: int, legal: list[Action]) -> Action:
        """What the heuristic would play in ``seat``'s place, from that seat's own view of the determinization."""
        return self.models[seat].act(state.observation(seat), legal)

    def _playout_policy(self, state: State, seat: int, legal: list[Action]) -> Action:
        """A playout's move: the heuristic's for every seat (each from its own view of the determinization), the
        searcher's own at random ``playout_epsilon`` of the time; every move at random without ``heuristic_playouts``
        (a game whose heuristic is too slow to play whole simulated games)."""
        if not self.heuristic_playouts or (seat == self.seen.seat and self.playout_rng.random() < self.playout_epsilon):
            concrete = concrete_actions(state, legal, self.playout_rng)  # templates filled at random
            if concrete:
                return self.playout_rng.choice(concrete)
        return self._opponents(state, seat, legal)


def search_knobs(game: Game) -> dict[str, Any]:
    """The game's own settings of the search player: ``KNOBS`` of ``search_knobs.py`` beside its engine (found the way
    samplers are), each an attribute of ``SearchPlayer`` (a game whose heuristic is too slow for whole playouts turns
    ``heuristic_playouts`` off, say). Empty for a game without one."""
    module = module_beside(game.state_class, "search_knobs")
    if module is None:
        return {}
    knobs: dict[str, Any] = module.KNOBS
    unknown = [name for name in knobs if not hasattr(SearchPlayer, name)]
    assert not unknown, f"{module.__name__} sets what the search player does not have: {unknown}"
    return knobs


def search_player(game: Game, players: dict[str, type[Player[Any]]]) -> type[SearchPlayer]:
    """The ``search`` player class of ``game``, falling back on its strongest other built-in player."""
    game_id = game.id
    knobs = search_knobs(game)
    heuristic = next((cls for name, cls in players.items() if name != "random"), players["random"])
    searchable = has_sampler(game.state_class)
    playouts = "heuristic" if knobs.get("heuristic_playouts", SearchPlayer.heuristic_playouts) else "random"
    description = (
        f"information-set MCTS, {DEFAULT_TIME_MS:g} ms a move, {playouts} playouts"
        if searchable
        else f"information-set MCTS once the game has a sampler; until then it plays as {heuristic.name}"
    )
    return type(
        f"SearchPlayer_{game_id}",
        (SearchPlayer,),
        {
            "game_id": game_id,
            "game_class": game,
            "heuristic": heuristic,
            "description": description,
            "__module__": __name__,
            **knobs,
        },
    )
