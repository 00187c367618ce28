"""bots.runner.table: a match with an outside seat (a person), real sandboxed bots around it."""

from __future__ import annotations

import time
from typing import Any

import pytest

from bots.results import FaultCause
from bots.runner import BotSeat
from bots.runner.table import play_table
from games.base import Action
from games.registry import GAMES, get_game, make_player
from tests.bots.conftest import FAST, example_bot, requires_bwrap

PERSON = BotSeat("person", builtin="random")


class Scripted:
    """An outside seat played by a built-in random player of its own seed (as a person would, from the observation
    and the legal actions only), or one that never answers."""

    def __init__(self, game_id: str = "love_letter", answer: bool = True) -> None:
        self.answer = answer
        self.player = make_player(game_id, "random", 99)
        self.asked: list[int] = []
        self.seen: list[int] = []

    def wait(self, seat: int, move_index: int, obs: dict[str, Any], legal: list[Action]) -> Action | None:
        self.asked.append(move_index)
        return self.player.act(obs, legal) if self.answer else None

    def moved(self, moves: list[dict[str, Any]]) -> None:
        self.seen.append(len(moves))


@pytest.mark.parametrize("game_id", sorted(GAMES))
def test_the_outside_seat_plays_every_decision_of_its_own(game_id: str) -> None:
    players = get_game(game_id).min_players
    seats = [PERSON] + [BotSeat(f"random-{i}", builtin="random") for i in range(1, players)]
    source = Scripted(game_id)
    result = play_table(game_id, seats, 3, None, {0}, source, limits=FAST)
    moves = result.replay["moves"]
    mine = [i for i, move in enumerate(moves) if move["seat"] == 0]
    assert source.asked == mine and mine
    assert not any(moves[i]["auto"] for i in mine)
    assert result.seats[0].fault is None and result.seats[0].moves == len(mine)
    # the source heard of every decision, in order, the last one with the whole game
    assert source.seen == list(range(1, len(moves) + 1))
    state = get_game(game_id).replay(players, 3, {}, [move["action"] for move in moves])
    assert state.is_over()


def test_a_person_whose_clock_runs_out_forfeits_and_random_plays_on() -> None:
    seats = [BotSeat("random", builtin="random"), PERSON]
    result = play_table("love_letter", seats, 5, None, {1}, Scripted(answer=False), limits=FAST)
    fault = result.seats[1].fault
    assert fault is not None and fault.cause == FaultCause.TIMEOUT
    assert result.outcome.ranks[1] == 2
    assert all(move["auto"] for move in result.replay["moves"] if move["seat"] == 1)


@requires_bwrap
def test_sandboxed_bots_wait_while_the_person_thinks() -> None:
    class Slow(Scripted):
        def wait(self, seat: int, move_index: int, obs: dict[str, Any], legal: list[Action]) -> Action | None:
            time.sleep(0.4)  # longer than the bots' whole clock (FAST: 300 ms + 300 ms bank)
            return super().wait(seat, move_index, obs, legal)

    bot = BotSeat("example", code_dir=example_bot("love_letter"))
    result = play_table("love_letter", [bot, PERSON], 2, None, {1}, Slow(), limits=FAST)
    assert result.seats[0].fault is None, result.seats[0].stderr[-500:]
    assert result.seats[1].fault is None
    assert result.seats[0].moves > 0


def test_outside_seats_must_be_seats_of_the_table() -> None:
    with pytest.raises(ValueError, match="outside seats"):
        play_table("ten", [PERSON, PERSON], 1, None, {2}, Scripted())
    with pytest.raises(ValueError, match="outside seats"):
        play_table("ten", [PERSON, PERSON], 1, None, set(), Scripted())
