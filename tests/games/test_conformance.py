"""The conformance suite every registered game runs (docs/design.md, "The game-engine interface": Conformance)."""

from __future__ import annotations

import json
import random
from collections.abc import Iterator

import pytest

from games.base import IllegalAction, Outcome, State, canonical
from games.playthrough import golden_path, render
from games.registry import GAMES, builtin_players, get_game, make_player
from games.schema import schemas, validator
from games.simulate import MAX_DECISIONS
from tests.games.registering import TEMPLATE, registered

PLAYOUT_SEEDS = range(500)
# The leak check perturbs every seat's hidden information, which costs a full copy per seat: it runs at this share of
# the decisions (drawn from the seed's generator, so the same ones every run), which over 100 games is still
# thousands of checks spread over every phase of every game.
LEAK_CHECK_SHARE = 0.2
# Validating a whole observation against its schema costs up to a millisecond (TEN's): it runs at this share of the
# decisions, and on every observation of the final state.
SHAPE_CHECK_SHARE = 0.1
GAME_IDS = [*GAMES, TEMPLATE]  # the template game passes what every game passes (it is registered for the test)


def _player_count(game_id: str, seed: int) -> int:
    game = get_game(game_id)
    return game.min_players + seed % (game.max_players - game.min_players + 1)


def _random_playout(game_id: str, seed: int, on_decision=None) -> State:
    """A full game of random players; ``on_decision(state, rng)`` runs before every decision."""
    state = get_game(game_id).new_state(_player_count(game_id, seed), seed)
    players = [make_player(game_id, "random", seed * 10 + seat) for seat in range(state.players)]
    for seat, player in enumerate(players):
        player.start(seat, state.players, state.options)
    rng = random.Random(seed)
    for _ in range(MAX_DECISIONS):
        seat = state.to_move()
        if seat is None:
            return state
        if on_decision:
            on_decision(state, rng)
        legal = state.legal_actions()
        assert legal, f"seed {seed}: seat {seat} must act but has no legal action"
        assert 0 <= seat < state.players
        state.apply(players[seat].act(state.observation(seat), legal))
    raise AssertionError(f"seed {seed}: the game did not end after {MAX_DECISIONS} decisions")


def _assert_valid_outcome(outcome: Outcome, players: int) -> None:
    assert len(outcome.ranks) == len(outcome.scores) == players
    assert min(outcome.ranks) == 1
    assert all(1 <= rank <= players for rank in outcome.ranks)
    for seat, rank in enumerate(outcome.ranks):
        # Competition ranking: a rank equals 1 + the number of seats strictly better.
        assert rank == 1 + sum(1 for other in outcome.ranks if other < rank), (seat, outcome)


def _json_round_trips(value: object) -> bool:
    return json.loads(json.dumps(value)) == value


@pytest.fixture(params=GAME_IDS)
def game_id(request: pytest.FixtureRequest) -> Iterator[str]:
    if request.param == TEMPLATE:
        with registered(TEMPLATE, "games.template"):
            yield TEMPLATE
    else:
        yield request.param


def test_every_game_has_a_random_and_a_stronger_builtin_player(game_id: str) -> None:
    names = list(builtin_players(game_id))
    assert "random" in names
    assert len(names) >= 2


def test_random_playouts_from_500_seeds_end_with_a_valid_outcome(game_id: str) -> None:
    for seed in PLAYOUT_SEEDS:
        state = _random_playout(game_id, seed)
        assert state.is_over() and state.to_move() is None and state.legal_actions() == []
        _assert_valid_outcome(state.outcome(), state.players)


def test_every_view_is_json_and_observations_leak_nothing_hidden(game_id: str) -> None:
    checked_leaks = 0

    def check(state: State, rng: random.Random) -> None:
        nonlocal checked_leaks
        if rng.random() >= LEAK_CHECK_SHARE:
            return
        assert _json_round_trips(state.public_view())
        assert _json_round_trips(state.full_view())
        assert _json_round_trips(state.legal_actions())
        for observer in range(state.players):
            obs = state.observation(observer)
            assert _json_round_trips(obs)
            other = state.perturb_hidden(observer, rng)
            if other is not None:
                assert other.full_view() != state.full_view(), "perturb_hidden changed nothing"
                assert other.observation(observer) == obs, f"seat {observer} sees another seat's hidden cards"
                checked_leaks += 1

    for seed in range(0, 100):
        _random_playout(game_id, seed, check)
    # The spec says whether anything is hidden; perturb_hidden agrees, and then thousands of checks ran.
    if get_game(game_id).spec.has_hidden_information:
        assert checked_leaks > 1000
    else:
        assert checked_leaks == 0


def _mutations(action: dict) -> list[object]:
    """Actions near a legal one: values pushed out of range, wrong types, extra or missing keys."""
    out: list[object] = [{}, [], "pass", None, {"no_such_field": 1}, {**action, "no_such_field": 1}]
    for key, value in action.items():
        out.append({k: v for k, v in action.items() if k != key})
        out.append({**action, key: 999})
        out.append({**action, key: -1})
        out.append({**action, key: "x"})
        if isinstance(value, int):
            out.append({**action, key: float(value) + 0.5})
            # Equal in Python (1 == 1.0 == True) but not the same action: the engine must not take them.
            out.append({**action, key: float(value)})
            if value in (0, 1):
                out.append({**action, key: not value if isinstance(value, bool) else bool(value)})
    return out


def test_illegal_actions_raise_and_leave_the_state_unchanged(game_id: str) -> None:
    rejected = 0

    def check(state: State, rng: random.Random) -> None:
        nonlocal rejected
        if rng.random() > 0.3:
            return
        legal = state.legal_actions()
        legal_keys = {canonical(action) for action in legal}
        before, history = canonical(state.full_view()), list(state.history)
        for bad in [{}, [], None, "pass", {"no_such_field": 1}]:
            with pytest.raises(IllegalAction):
                state.apply(bad)  # type: ignore[arg-type]
        for bad in _mutations(rng.choice(legal)):
            if canonical(bad) in legal_keys:
                continue
            try:
                state.apply(bad)  # type: ignore[arg-type]
            except IllegalAction as error:
                assert str(error), "an IllegalAction must say which rule"
                rejected += 1
                assert canonical(state.full_view()) == before and state.history == history
            else:
                raise AssertionError(f"{bad!r} was accepted but is not a legal action")

    for seed in range(0, 60):
        _random_playout(game_id, seed, check)
    assert rejected > 0


def test_replaying_the_recorded_actions_reproduces_every_state(game_id: str) -> None:
    game = get_game(game_id)
    for seed in range(0, 50):
        snapshots: list[str] = []

        def snapshot(state: State, _rng: random.Random, snapshots: list[str] = snapshots) -> None:
            snapshots.append(canonical(state.full_view()))

        state = _random_playout(game_id, seed, snapshot)
        replayed = game.new_state(state.players, seed, state.options)
        for step, action in enumerate(state.history):
            assert canonical(replayed.full_view()) == snapshots[step], f"seed {seed}: differs at step {step}"
            replayed.apply(json.loads(json.dumps(action)))
        assert canonical(replayed.full_view()) == canonical(state.full_view())
        assert replayed.outcome() == state.outcome()


def test_a_clone_is_independent_of_its_original(game_id: str) -> None:
    state = get_game(game_id).new_state(get_game(game_id).min_players, 3)
    before = canonical(state.full_view())
    copy = state.clone()
    copy.apply(copy.legal_actions()[-1])
    assert canonical(state.full_view()) == before
    assert state.history == []


def test_the_forward_model_clones_and_advances_as_apply_does(game_id: str) -> None:
    """A search copies a state and plays the copy on with ``advance``: the copy shares nothing with the original
    (which a whole simulated game leaves unchanged), and ``advance`` reaches exactly what ``apply`` reaches."""
    for seed in range(30):
        rng = random.Random(seed)
        state = get_game(game_id).new_state(_player_count(game_id, seed), seed)
        # Random players fill the templates some games list (free fields are null in the legal list).
        players = [make_player(game_id, "random", seed * 10 + seat) for seat in range(state.players)]
        for seat, player in enumerate(players):
            player.start(seat, state.players, state.options)

        def pick(position: State, players: list = players) -> dict:
            seat = position.to_move()
            assert seat is not None
            return players[seat].act(position.observation(seat), position.legal_actions())

        while state.to_move() is not None:
            action = pick(state)
            if rng.random() < 0.1:
                before, rng_state = canonical(state.full_view()), state.rng.getstate()
                copy = state.clone()
                while copy.to_move() is not None:
                    copy.advance(pick(copy))
                assert copy.outcome().ranks
                assert canonical(state.full_view()) == before and state.rng.getstate() == rng_state
            stepped = state.clone()
            stepped.advance(action)
            state.apply(action)
            assert canonical(stepped.full_view()) == canonical(state.full_view()), f"seed {seed}"
            assert stepped.to_move() == state.to_move()
            assert canonical(stepped.legal_actions()) == canonical(state.legal_actions())


def test_the_golden_playthrough_is_unchanged(game_id: str) -> None:
    path = golden_path(game_id)
    assert path.exists(), f"no golden file; write it with: python -m games.playthrough --write {game_id}"
    assert render(game_id) == path.read_text(), f"{path.name} changed; review it, then rewrite with --write"


def test_wrong_player_counts_are_refused(game_id: str) -> None:
    from games.base import InvalidOptions

    game = get_game(game_id)
    for bad in (game.min_players - 1, game.max_players + 1):
        with pytest.raises(InvalidOptions):
            game.new_state(bad, 1)


def _errors(check, value: object) -> list[str]:
    return [f"{list(error.absolute_path)}: {error.message}" for error in check.iter_errors(value)]


def test_observations_and_actions_have_their_declared_shapes(game_id: str) -> None:
    """The declaration is the truth the schema, the runner's reply check, the SDK's types and the docs are built on:
    every observation, every legal action (templates included) and every played action fits it."""
    declared = schemas(game_id)
    observation, legal_entry, action = (validator(s) for s in (declared.observation, declared.legal, declared.action))
    checked = 0

    def check(state: State, rng: random.Random) -> None:
        nonlocal checked
        if rng.random() >= SHAPE_CHECK_SHARE:
            return
        for seat in range(state.players):
            assert _errors(observation, state.observation(seat)) == []
        for entry in state.legal_actions()[:50]:
            assert _errors(legal_entry, entry) == [], entry
            if "null" not in canonical(entry):  # a template is complete once its free fields are filled in
                assert _errors(action, entry) == [], entry
        checked += 1

    for seed in range(0, 20):
        state = _random_playout(game_id, seed, check)
        for seat in range(state.players):
            assert _errors(observation, state.observation(seat)) == []
        for played in state.history:
            assert _errors(action, played) == [], played
        assert _errors(validator(declared.options), state.options) == []
    assert checked > 20


def test_the_declared_chance_is_the_games(game_id: str) -> None:
    """A game with chance plays the same actions differently under another seed (or refuses them); a game without
    plays them the same."""
    game = get_game(game_id)
    state = _random_playout(game_id, 1)
    differs = False
    for seed in (2, 3, 4, 5):
        try:
            other = game.replay(state.players, seed, state.options, state.history)
        except IllegalAction:
            differs = True
            continue
        differs = differs or canonical(other.full_view()) != canonical(state.full_view())
    assert differs == game.spec.has_chance
