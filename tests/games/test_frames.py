"""games.frames: a replay re-simulated into the frames the viewer draws, for every registered game."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

from games.frames import ALL_HANDS_OMITS, ReplayError, VersionMismatch, all_hands_views, expand_views, frames
from games.registry import GAMES, builtin_players, get_game, make_player


def _replay(game_id: str, seed: int = 3, players: int | None = None) -> dict[str, Any]:
    game = get_game(game_id)
    count = players or game.min_players
    names = ["heuristic" if "heuristic" in builtin_players(game_id) else "random", "random"] * 3
    seats = [make_player(game_id, names[seat], seed * 10 + seat) for seat in range(count)]
    state = game.new_state(count, seed)
    for seat, player in enumerate(seats):
        player.start(seat, count, state.options)
    moves = []
    while (seat := state.to_move()) is not None:
        state.apply(seats[seat].act(state.observation(seat), state.legal_actions()))
        note = "a note" if len(moves) == 1 else None
        moves.append({"seat": seat, "action": state.history[-1], "ms": 1.5, "note": note, "auto": len(moves) == 2})
    return {
        "format": "parlour-replay/1",
        "game": game_id,
        "version": game.version,
        "players": count,
        "seed": seed,
        "options": {},
        "seats": [f"bot{seat} v1" for seat in range(count)],
        "moves": moves,
        "faults": [],
        "outcome": state.outcome().to_json(),
    }


@pytest.fixture(params=list(GAMES))
def game_id(request: pytest.FixtureRequest) -> str:
    return request.param


def test_every_step_shows_what_the_spectator_saw_with_the_narration(game_id: str) -> None:
    replay = _replay(game_id)
    document = frames(replay)
    game = get_game(game_id)
    state = game.new_state(replay["players"], replay["seed"])
    views = expand_views(document)
    assert len(document["frames"]) == len(views) == len(replay["moves"]) + 1
    assert views[0] == state.public_view() and document["frames"][0]["move"] is None
    for step, move in enumerate(replay["moves"], start=1):
        lines = state.apply(move["action"])
        frame = document["frames"][step]
        assert views[step] == state.public_view(), f"step {step}"
        assert frame["lines"] == lines
        assert frame["move"] == {k: move[k] for k in ("seat", "action", "ms", "note", "auto")}
        assert frame["to_move"] == state.to_move()
    assert document["over"] is True and document["revealed"] == state.full_view()
    assert document["outcome"] == replay["outcome"] and document["seats"] == replay["seats"]
    assert json.loads(json.dumps(document)) == document


def test_a_seat_sees_its_own_observation_and_nothing_more(game_id: str) -> None:
    replay = _replay(game_id, seed=5)
    game = get_game(game_id)
    seat = replay["players"] - 1
    state = game.new_state(replay["players"], replay["seed"])
    views = expand_views(frames(replay, seat))
    assert views[0] == state.observation(seat)
    for step, move in enumerate(replay["moves"], start=1):
        state.apply(move["action"])
        assert views[step] == state.observation(seat), f"step {step}"


def test_frames_send_only_what_changed_after_the_first_step() -> None:
    document = frames(_replay("love_letter"))
    assert "view" in document["frames"][0]
    later = document["frames"][1:]
    assert all("view" not in frame and "patch" in frame for frame in later)
    assert any(len(frame["patch"]) < len(document["frames"][0]["view"]) for frame in later)


def test_a_replay_from_another_engine_version_is_refused_clearly() -> None:
    replay = _replay("love_letter")
    replay["version"] = "0"
    with pytest.raises(VersionMismatch, match="recorded with love_letter engine v0, but this server runs v1"):
        frames(replay)


@pytest.mark.parametrize("seat", [-1, 2, 99, True, "1"])
def test_a_seat_that_is_not_at_the_table_is_refused(seat: Any) -> None:
    with pytest.raises(ValueError, match="seat must be a seat number from 0 to 1") as raised:
        frames(_replay("love_letter", players=2), seat)
    assert not isinstance(raised.value, ReplayError)


def test_an_illegal_move_names_the_move() -> None:
    replay = _replay("love_letter")
    replay["moves"][4]["action"] = {"card": 99}
    with pytest.raises(ReplayError, match="move 5 is illegal in engine v1"):
        frames(replay)


def test_a_move_for_the_wrong_seat_is_refused() -> None:
    replay = _replay("love_letter", players=2)
    replay["moves"][0]["seat"] = 1 - replay["moves"][0]["seat"]
    with pytest.raises(ReplayError, match="move 1 is recorded for seat"):
        frames(replay)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"format": "something/2"}, "not a parlour-replay/1 document"),
        ({"game": "chess"}, "no game called 'chess'"),
        ({"players": None}, "how many players"),
        ({"seed": "x"}, "no seed"),
        ({"moves": {}}, "no move list"),
        ({"players": 9}, "set-up is refused"),
    ],
)
def test_a_broken_replay_says_what_is_wrong(change: dict[str, Any], message: str) -> None:
    replay = {**_replay("love_letter"), **change}
    with pytest.raises(ReplayError, match=message):
        frames(replay)


def test_an_unfinished_replay_reveals_nothing() -> None:
    replay = _replay("love_letter")
    replay["moves"] = replay["moves"][:5]
    document = frames(copy.deepcopy(replay))
    assert document["over"] is False and document["revealed"] is None and len(document["frames"]) == 6
    # "Show all hands" has nothing to show either: hands stay hidden until the end.
    assert document["all_hands"] is None and all_hands_views(document) is None


def test_a_finished_replay_shows_all_hands_at_every_step_to_the_spectator(game_id: str) -> None:
    replay = _replay(game_id, seed=7)
    document = frames(replay)
    game = get_game(game_id)
    state = game.new_state(replay["players"], replay["seed"])
    views = all_hands_views(document)
    assert views is not None and len(views) == len(replay["moves"]) + 1

    def expected() -> dict[str, Any]:
        shown = {key: value for key, value in state.full_view().items() if key not in ALL_HANDS_OMITS}
        return {**state.public_view(), **shown}

    assert views[0] == expected()
    for step, move in enumerate(replay["moves"], start=1):
        state.apply(move["action"])
        assert views[step] == expected(), f"step {step}"
    assert "deck" not in document["all_hands"][0]["view"]


def test_only_the_spectators_document_carries_all_hands() -> None:
    replay = _replay("love_letter", seed=8)
    assert frames(replay, 0)["all_hands"] is None
    hands = expand_views(frames(replay), "all_hands")
    # Love Letter hides the hands from the spectator, so "all hands" has them at the deal already.
    assert "hands" in hands[0] and len(hands[0]["hands"]) == replay["players"]
