"""High Card's own tests: the worked examples of its rules (RULES.md) and its invariants. A copied game starts from
these. The engine is used directly, so they run whether or not the game is registered."""

from __future__ import annotations

import pytest

from games.base import IllegalAction, InvalidOptions
from games.template.engine import FULL_DECK, GAME, HAND_SIZE

# Dealt one card at a time from the top, seat 0 first: with 2 players seat 0 gets the even positions.
TWO_PLAYER_DECK = [16, 1, 15, 2, 14, 3, 13, 4, 12, 5, 11, 6, 10, 7, 9, 8, *range(1, 17)]


def test_the_deal_is_one_card_at_a_time_and_the_rest_is_the_stock() -> None:
    state = GAME.new_state(2, 1, {"deck": TWO_PLAYER_DECK})
    assert state.observation(0)["hand"] == [9, 10, 11, 12, 13, 14, 15, 16]
    assert state.observation(1)["hand"] == [1, 2, 3, 4, 5, 6, 7, 8]
    assert state.observation(0)["stock"] == 16
    assert "hands" not in state.observation(0) and "stock_cards" not in state.public_view()


def test_the_highest_card_wins_the_trick_and_leads_the_next() -> None:
    state = GAME.new_state(2, 1, {"deck": TWO_PLAYER_DECK})
    state.apply({"card": 9})
    lines = state.apply({"card": 8})
    assert lines[-1] == "seat 0 wins trick 1"
    assert state.to_move() == 0 and state.observation(1)["tricks"] == [1, 0]


def test_among_equal_cards_the_first_played_wins() -> None:
    deck = [5, 5, *[card for card in FULL_DECK if card != 5]]
    state = GAME.new_state(2, 1, {"deck": deck})
    state.apply({"card": 5})
    state.apply({"card": 5})
    assert state.observation(0)["past"][0]["winner"] == 0


def test_a_card_not_in_hand_is_refused_with_the_rule() -> None:
    state = GAME.new_state(2, 1, {"deck": TWO_PLAYER_DECK})
    with pytest.raises(IllegalAction, match="you hold no 1"):
        state.apply({"card": 1})


def test_the_game_ends_after_eight_tricks_and_ranks_by_tricks() -> None:
    state = GAME.new_state(2, 1, {"deck": TWO_PLAYER_DECK})
    while not state.is_over():
        state.apply(state.legal_actions()[-1])
    assert sum(state.outcome().scores) == HAND_SIZE
    assert state.outcome().ranks == [1, 2]


def test_the_deck_option_must_hold_every_card() -> None:
    with pytest.raises(InvalidOptions, match="two of each"):
        GAME.new_state(2, 1, {"deck": [1] * 32})
    with pytest.raises(InvalidOptions, match="no option"):
        GAME.new_state(2, 1, {"hand_size": 5})
