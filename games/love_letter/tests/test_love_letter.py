"""Love Letter engine: the checks of games/love_letter/RULES.md, its edge cases and the built-in players.

Positions are built with the ``deck`` option. Dealing order: the top card is burned, with 2 players the next three
go face up, then one card to each seat starting with seat 0, then the draws, seat 0 first.
"""

from __future__ import annotations

import json
import random
import subprocess
import sys
from collections import Counter
from typing import Any

import pytest

from games.base import IllegalAction, InvalidOptions
from games.love_letter.engine import FULL_DECK, GAME, LoveLetterState
from games.love_letter.players import Beliefs
from games.registry import example_dir, make_player
from games.simulate import play, win_rate

EXAMPLE_BOT = example_dir("love_letter") / "main.py"


def stacked(players: int, burned: int, up: list[int], hands: list[int], draws: list[int]) -> list[int]:
    """A whole deck: the given cards in dealing order, then the unused cards (ascending) as later draws."""
    top = [burned, *up, *hands, *draws]
    rest = Counter(FULL_DECK) - Counter(top)
    assert sum(Counter(top).values()) + sum(rest.values()) == 16, "more copies of a card than the deck holds"
    assert (players == 2) == (len(up) == 3)
    return top + sorted(rest.elements())


def new(players: int, burned: int, up: list[int], hands: list[int], draws: list[int]) -> LoveLetterState:
    state = GAME.new_state(players, 1, {"deck": stacked(players, burned, up, hands, draws)})
    assert isinstance(state, LoveLetterState)
    return state


def run(state: LoveLetterState, *actions: dict[str, Any]) -> list[str]:
    lines: list[str] = []
    for action in actions:
        lines += state.apply(action)
    return lines


def count_cards(state: LoveLetterState) -> int:
    view = state.full_view()
    set_aside = len(view["set_aside_up"]) + (view["burned"] is not None)
    return sum(map(len, view["hands"])) + len(view["deck"]) + sum(map(len, view["discards"])) + set_aside


def illegal(state: LoveLetterState, action: dict[str, Any]) -> str:
    before, history = json.dumps(state.full_view(), sort_keys=True), list(state.history)
    with pytest.raises(IllegalAction) as error:
        state.apply(action)
    assert json.dumps(state.full_view(), sort_keys=True) == before and state.history == history
    return str(error.value)


# ----- RULES.md "Checks the engine passes" ---------------------------------------------------------------------------
def test_a_guard_cannot_name_guard() -> None:
    state = new(2, 8, [7, 6, 3], [1, 2], [1])
    assert {"card": 1, "target": 1, "guess": 1} not in state.legal_actions()
    assert illegal(state, {"card": 1, "target": 1, "guess": 1}) == "a Guard cannot name Guard"


def test_a_prince_cannot_target_a_protected_player() -> None:
    # Seat 1 plays a Handmaid; seat 0 then holds a Prince.
    state = new(2, 8, [7, 6, 3], [1, 2], [5, 4])
    run(state, {"card": 1, "target": 1, "guess": 3}, {"card": 4})
    assert state.to_move() == 0 and state.observation(0)["protected"] == [False, True]
    assert illegal(state, {"card": 5, "target": 1}) == "seat 1 is protected by the Handmaid"
    assert [a for a in state.legal_actions() if a["card"] == 5] == [{"card": 5, "target": 0}]


@pytest.mark.parametrize("royal", [5, 6])
def test_the_countess_rule_forces_the_countess_discard_beside_a_king_or_a_prince(royal: int) -> None:
    state = new(2, 8, [3, 3, 1], [royal, 1], [7])
    assert state.legal_actions() == [{"card": 7}]
    name = "King" if royal == 6 else "Prince"
    assert illegal(state, {"card": royal, "target": 1}) == (
        f"you hold the Countess with a {name}, so you must discard the Countess"
    )
    run(state, {"card": 7})
    assert state.full_view()["hands"][0] == [royal]


def test_the_countess_may_be_discarded_at_any_other_time_or_kept() -> None:
    state = new(2, 5, [3, 3, 1], [8, 1], [7])
    assert state.legal_actions() == [{"card": 7}, {"card": 8}]
    state = new(2, 5, [3, 3, 1], [2, 1], [7])
    assert {"card": 7} in state.legal_actions() and {"card": 2, "target": 1} in state.legal_actions()


def test_a_prince_on_the_princess_holder_knocks_them_out_without_a_new_card() -> None:
    state = new(3, 1, [], [5, 8, 2], [1])
    lines = run(state, {"card": 5, "target": 1})
    view = state.full_view()
    assert view["out"] == [False, True, False] and view["hands"][1] == [] and view["discards"][1] == [8]
    assert "seat 1 is out of the round" in lines
    # Only seat 0's draw and seat 2's draw for its turn came off the deck: seat 1 drew no replacement.
    assert state.to_move() == 2 and view["deck_size"] == 16 - 1 - 3 - 2


def test_a_prince_on_yourself_holding_the_princess_knocks_you_out() -> None:
    state = new(3, 1, [], [8, 2, 2], [5])
    run(state, {"card": 5, "target": 0})
    assert state.full_view()["out"] == [True, False, False] and state.full_view()["discards"][0] == [5, 8]
    assert state.to_move() == 1


def test_a_prince_with_an_empty_deck_gives_the_burned_card() -> None:
    # Ten harmless turns empty the deck; on the last, seat 1 plays a Prince on seat 0, who takes the burned card.
    state = new(2, 8, [6, 3, 3], [7, 5], [4, 4, 2, 2, 1, 1, 1, 1, 1, 5])
    run(
        state,
        {"card": 4},  # seat 0 keeps the Countess
        {"card": 4},
        {"card": 2},  # seat 1 is protected: the Priest has no target
        {"card": 2, "target": 0},
        *[{"card": 1, "target": t, "guess": 2} for t in (1, 0, 1, 0, 1)],
    )
    assert state.observation(1)["deck_size"] == 0 and state.observation(1)["hand"] == [5, 5]
    lines = run(state, {"card": 5, "target": 0})
    assert "the deck is empty: seat 0 takes the burned card" in lines
    last = state.observation(0)["last_round"]
    assert last["hands"] == [8, 5] and last["burned"] is None and last["winners"] == [0]
    assert last["discards"][0] == [4, 2, 1, 1, 1, 7]


def test_a_two_player_round_sets_four_cards_aside_three_visible_and_a_ten_card_deck() -> None:
    state = GAME.new_state(2, 11)
    view, obs = state.full_view(), state.observation(1)
    assert view["burned"] is not None and len(view["set_aside_up"]) == 3
    assert obs["set_aside_up"] == view["set_aside_up"] and "burned" not in obs
    # The deck held 10 after dealing; seat 0 has already drawn the first card of its turn.
    assert obs["deck_size"] == 9 and view["hand_sizes"] == [2, 1]


@pytest.mark.parametrize("players", [3, 4])
def test_with_three_or_four_players_only_the_burned_card_is_set_aside(players: int) -> None:
    obs = GAME.new_state(players, 5).observation(0)
    assert obs["set_aside_up"] == [] and obs["deck_size"] == 16 - 1 - players - 1


@pytest.mark.parametrize("players", [2, 3, 4])
def test_cards_are_conserved_at_every_point_of_random_matches(players: int) -> None:
    for seed in range(40):
        state = GAME.new_state(players, seed)
        bots = [make_player("love_letter", "random", seed + s) for s in range(players)]
        assert count_cards(state) == 16
        while (seat := state.to_move()) is not None:
            state.apply(bots[seat].act(state.observation(seat), state.legal_actions()))
            assert count_cards(state) == 16
            assert state.card_count() == 16
            view = state.full_view()
            assert Counter(
                [c for h in view["hands"] for c in h]
                + view["deck"]
                + [c for d in view["discards"] for c in d]
                + view["set_aside_up"]
                + ([view["burned"]] if view["burned"] is not None else [])
            ) == Counter(FULL_DECK)


# ----- round end and the match -----------------------------------------------------------------------------------
def harmless_round(hand_0: int, hand_1: int, draws: list[int], burned: int, up: list[int]) -> LoveLetterState:
    """A 2-player round in which nobody is knocked out: each seat plays what it draws and keeps its first card."""
    state = new(2, burned, up, [hand_0, hand_1], draws)
    while state.observation(0)["round"] == 1:
        seat = state.to_move()
        drawn = state.observation(seat)["hand"][-1]
        options = [a for a in state.legal_actions() if a["card"] == drawn]
        safe = [a for a in options if a.get("guess") not in (hand_0, hand_1)] or options
        state.apply(safe[0])
        assert not any(state.observation(0)["out"]) or state.observation(0)["round"] == 2
    return state


def test_at_the_showdown_the_highest_card_wins_the_round() -> None:
    state = harmless_round(6, 5, [4, 4, 3, 2, 2, 1, 1, 1, 1, 1], 8, [7, 3, 5])
    last = state.observation(0)["last_round"]
    assert last["showdown"] and last["hands"] == [6, 5] and last["winners"] == [0]
    assert state.observation(0)["tokens"] == [1, 0]


def test_a_showdown_tie_is_broken_by_the_higher_total_of_discards() -> None:
    # Both keep a Prince; seat 0 discards 7+4+2+1+1 = 15, seat 1 discards 4+2+1+1+1 = 9.
    state = harmless_round(5, 5, [7, 4, 4, 2, 2, 1, 1, 1, 1, 1], 8, [6, 3, 3])
    last = state.observation(0)["last_round"]
    assert last["hands"] == [5, 5] and [sum(d) for d in last["discards"]] == [15, 9]
    assert last["winners"] == [0] and state.observation(0)["tokens"] == [1, 0]


def test_a_full_showdown_tie_lets_every_tied_player_win_a_token() -> None:
    # Both keep a Prince and discard 10 in all (4+3+1+1+1 and 4+2+2+1+1); the Baron ties harmlessly.
    state = harmless_round(5, 5, [4, 4, 3, 2, 1, 2, 1, 1, 1, 1], 8, [7, 6, 3])
    last = state.observation(0)["last_round"]
    assert [sum(d) for d in last["discards"]] == [10, 10]
    assert last["winners"] == [0, 1] and state.observation(0)["tokens"] == [1, 1]


def test_the_last_player_standing_wins_the_round_and_starts_the_next() -> None:
    state = new(3, 8, [], [1, 2, 3], [1, 4])
    run(state, {"card": 1, "target": 1, "guess": 2})  # seat 1 is out
    assert state.to_move() == 2
    run(state, {"card": 3, "target": 0})  # seat 2 keeps a Handmaid and Barons seat 0's Guard
    obs = state.observation(2)
    assert obs["round"] == 2 and obs["tokens"] == [0, 0, 1] and obs["last_round"]["winners"] == [2]
    assert not obs["last_round"]["showdown"] and obs["last_round"]["hands"] == [None, None, 4]
    assert obs["starter"] == 2 and state.to_move() == 2


def test_the_round_ends_after_the_turn_that_empties_the_deck() -> None:
    state = new(2, 8, [6, 3, 3], [5, 5], [7, 4, 4, 2, 2, 1, 1, 1, 1, 1])
    for _ in range(9):
        seat = state.to_move()
        drawn = state.observation(seat)["hand"][-1]
        state.apply(next(a for a in state.legal_actions() if a["card"] == drawn and a.get("guess") != 5))
    assert state.observation(1)["deck_size"] == 0 and state.observation(1)["round"] == 1
    run(state, {"card": 1, "target": 0, "guess": 2})
    assert state.observation(0)["round"] == 2


def test_with_several_round_winners_the_first_clockwise_from_the_previous_starter_starts() -> None:
    state = new(3, 8, [], [5, 4, 5], [2])
    # Arrange the last turn of a round started by seat 1: seats 0 and 2 tie on a Prince with equal discards.
    state.starter, state.current = 1, 1
    state.hands = [[5], [4, 2], [5]]
    state.deck = []
    state.discards = [[7, 3], [1, 1, 1, 1, 1, 2, 3], [6, 4]]
    assert count_cards(state) == 16
    run(state, {"card": 4})
    obs = state.observation(0)
    assert obs["last_round"]["winners"] == [0, 2] and obs["tokens"] == [1, 0, 1]
    assert obs["starter"] == 2 and state.to_move() == 2


def test_when_the_previous_starter_is_among_the_winners_they_start_again() -> None:
    state = harmless_round(5, 5, [4, 4, 3, 2, 1, 2, 1, 1, 1, 1], 8, [7, 6, 3])
    assert state.observation(0)["last_round"]["winners"] == [0, 1]
    assert state.observation(0)["starter"] == 0 and state.to_move() == 0


def test_a_new_round_reshuffles_and_forgets_the_last_rounds_state() -> None:
    state = harmless_round(6, 5, [4, 4, 3, 2, 2, 1, 1, 1, 1, 1], 8, [7, 3, 5])
    obs = state.observation(0)
    assert obs["discards"] == [[], []] and obs["out"] == [False, False] and obs["protected"] == [False, False]
    assert obs["known"] == {} and obs["moves"] == [] and obs["deck_size"] == 9 and count_cards(state) == 16


@pytest.mark.parametrize(("players", "target"), [(2, 7), (3, 5), (4, 4)])
def test_the_token_target_depends_on_the_player_count(players: int, target: int) -> None:
    state = GAME.new_state(players, 3)
    assert state.observation(0)["target_tokens"] == target
    bots = [make_player("love_letter", "random", s) for s in range(players)]
    while (seat := state.to_move()) is not None:
        state.apply(bots[seat].act(state.observation(seat), state.legal_actions()))
    tokens = state.observation(0)["tokens"]
    assert max(tokens) == target
    outcome = state.outcome()
    assert outcome.scores == tokens
    assert [rank == 1 for rank in outcome.ranks] == [t == target for t in tokens]


@pytest.mark.parametrize("players", [3, 4])
def test_a_match_ends_as_soon_as_someone_reaches_the_target(players: int) -> None:
    state = new(players, 8, [], [1, 2, 3, 4][:players], [1])
    target = state.observation(0)["target_tokens"]
    state.tokens = [target - 1] * players
    run(state, {"card": 1, "target": 1, "guess": 2})  # seat 1 is out
    while state.observation(0)["round"] == 1 and not state.is_over():
        state.apply(state.legal_actions()[0])
    assert state.is_over() and state.to_move() is None and state.legal_actions() == []
    winners = state.observation(0)["last_round"]["winners"]
    assert [state.outcome().ranks[s] for s in winners] == [1] * len(winners)
    assert all(state.outcome().ranks[s] > 1 for s in range(players) if s not in winners)
    with pytest.raises(IllegalAction, match="the game is over"):
        state.apply({"card": 1})


def test_ranks_after_the_winner_follow_the_tokens_and_ties_share_a_rank() -> None:
    state = new(4, 8, [], [6, 2, 3, 4], [1])
    # Arrange the last turn of a round: seat 1 misses with a Guard, then seat 0's King wins the showdown.
    state.tokens = [3, 1, 2, 1]
    state.current, state.hands, state.deck = 1, [[6], [2, 1], [3], [4]], []
    run(state, {"card": 1, "target": 2, "guess": 5})
    assert state.is_over() and state.observation(0)["last_round"]["winners"] == [0]
    assert state.outcome().scores == [4, 1, 2, 1] and state.outcome().ranks == [1, 3, 2, 3]


# ----- card effects ----------------------------------------------------------------------------------------------
def test_a_right_guard_guess_knocks_the_target_out_and_a_wrong_one_does_nothing() -> None:
    state = new(3, 8, [], [1, 2, 3], [1, 1])
    lines = run(state, {"card": 1, "target": 1, "guess": 3})
    assert lines == ["seat 0 plays Guard on seat 1, naming Baron: wrong"] and not any(state.observation(0)["out"])
    lines = run(state, {"card": 1, "target": 2, "guess": 3})
    assert lines[-1] == "seat 2 is out of the round, discarding a Baron"
    assert state.observation(0)["out"] == [False, False, True] and state.observation(0)["discards"][2] == [3]


def test_a_priest_shows_the_hand_to_its_player_only() -> None:
    state = new(3, 8, [], [2, 6, 3], [1])
    run(state, {"card": 2, "target": 1})
    assert state.observation(0)["known"] == {"1": 6}
    assert state.observation(2)["known"] == {} and state.observation(1)["known"] == {}
    assert state.observation(1)["seen_by"] == {"0": 6}
    assert "6" not in json.dumps(state.public_view()["moves"])


def test_a_baron_knocks_out_the_lower_card_and_both_learn_the_other_card() -> None:
    state = new(3, 8, [], [3, 2, 5], [6])
    run(state, {"card": 3, "target": 1})
    obs = state.observation(0)
    assert obs["out"] == [False, True, False] and obs["discards"][1] == [2]
    assert state.observation(1)["known"] == {"0": 6}
    assert obs["known"] == {}  # what seat 0 saw is now public in seat 1's discards


def test_a_baron_on_a_higher_card_knocks_out_its_own_player() -> None:
    state = new(2, 8, [7, 6, 3], [1, 5], [3])
    run(state, {"card": 3, "target": 1})
    assert state.observation(0)["round"] == 2 and state.observation(0)["last_round"]["winners"] == [1]


def test_a_baron_tie_knocks_out_nobody_and_both_learn_the_other_card() -> None:
    state = new(3, 8, [], [3, 2, 5], [2])
    lines = run(state, {"card": 3, "target": 1})
    assert lines == ["seat 0 plays Baron against seat 1: a tie, nothing happens"]
    assert state.observation(0)["out"] == [False, False, False]
    assert state.observation(0)["known"] == {"1": 2} and state.observation(1)["known"] == {"0": 2}
    assert state.observation(2)["known"] == {}


def test_the_handmaid_protects_until_the_start_of_its_players_next_turn() -> None:
    state = new(3, 8, [], [4, 2, 3], [1, 1, 1, 1])
    run(state, {"card": 4})
    assert state.observation(1)["protected"] == [True, False, False]
    assert {"card": 2, "target": 0} not in state.legal_actions()
    run(state, {"card": 1, "target": 2, "guess": 5})
    assert state.observation(2)["protected"] == [True, False, False]
    run(state, {"card": 1, "target": 1, "guess": 5})
    # Seat 0's turn has begun: the protection has expired.
    assert state.to_move() == 0 and state.observation(0)["protected"] == [False, False, False]
    assert {"card": 1, "target": 1, "guess": 5} in state.legal_actions()


def test_with_every_other_player_protected_cards_play_without_target_and_the_prince_targets_yourself() -> None:
    state = new(2, 8, [7, 6, 3], [2, 4], [1, 1, 5])
    run(state, {"card": 1, "target": 1, "guess": 3}, {"card": 4})
    assert state.observation(0)["protected"] == [False, True]
    # Seat 0 holds Priest and Prince.
    assert state.legal_actions() == [{"card": 2}, {"card": 5, "target": 0}]
    assert illegal(state, {"card": 2, "target": 1}) == "seat 1 is protected by the Handmaid"
    lines = run(state, {"card": 2})
    assert lines == ["seat 0 plays Priest: every other player in the round is protected, no effect"]
    assert state.observation(0)["known"] == {}


def test_all_protected_guard_is_played_without_target_or_guess() -> None:
    state = new(2, 8, [7, 6, 3], [2, 4], [1, 1])
    run(state, {"card": 2, "target": 1}, {"card": 4})
    assert state.legal_actions() == [{"card": 1}]
    assert "every other player in the round is protected" in illegal(state, {"card": 1, "guess": 5})


def test_the_prince_forces_a_discard_without_effect_and_a_new_draw() -> None:
    state = new(3, 8, [], [5, 3, 2], [1, 6])
    lines = run(state, {"card": 5, "target": 1})
    view = state.full_view()
    assert lines == ["seat 0 plays Prince on seat 1: seat 1 discards a Baron", "seat 1 draws a new card"]
    assert view["discards"][1] == [3] and view["out"] == [False, False, False]
    assert view["hands"][1] == [6, 1]  # seat 1 drew the Guard for the Prince, then the King for its turn


def test_a_prince_on_yourself_discards_your_other_card_and_draws() -> None:
    state = new(3, 8, [], [5, 3, 2], [4, 6])
    run(state, {"card": 5, "target": 0})
    view = state.full_view()
    assert view["discards"][0] == [5, 4] and view["hands"][0] == [6] and state.to_move() == 1


def test_the_king_swaps_hands_and_updates_what_everyone_knows() -> None:
    # Seat 1 sees seat 2's Baron with a Priest; then seat 2 plays a King on seat 0.
    state = new(3, 8, [], [5, 3, 1], [4, 2, 6])
    run(state, {"card": 4}, {"card": 2, "target": 2})
    assert state.observation(1)["known"] == {"2": 1}
    # Seat 2 holds Guard and King; its Guard cannot touch seat 0 (protected), so it plays the King on seat 1.
    assert state.observation(2)["protected"] == [True, False, False]
    run(state, {"card": 6, "target": 1})
    hands = state.full_view()["hands"]
    assert hands[1] == [1] and hands[2] == [3]
    # Seat 1 now holds the Guard it had seen; it knows seat 2 holds its old Baron.
    assert state.observation(1)["known"] == {"2": 3}
    assert state.observation(2)["known"] == {"1": 1}
    assert state.observation(0)["known"] == {}


def test_the_king_moves_a_third_players_knowledge_with_the_card() -> None:
    state = new(3, 8, [], [2, 3, 5], [1, 1, 6])
    run(state, {"card": 2, "target": 1})  # seat 0 sees seat 1's Baron
    run(state, {"card": 1, "target": 2, "guess": 7})  # seat 1 keeps the Baron
    assert state.observation(0)["known"] == {"1": 3}
    run(state, {"card": 6, "target": 1})  # seat 2 trades its Prince for seat 1's Baron
    assert state.observation(0)["known"] == {"2": 3}  # the Baron moved, and seat 0 knows where
    assert state.observation(1)["known"] == {"2": 3} and state.observation(2)["known"] == {"1": 5}
    assert state.observation(1)["seen_by"] == {"2": 5}


def test_knowledge_is_dropped_when_the_seen_card_may_have_been_played() -> None:
    state = new(3, 8, [], [2, 1, 4], [1, 4, 5, 2, 1])
    run(state, {"card": 2, "target": 1})  # seat 0 sees a Guard
    run(state, {"card": 4})  # seat 1 plays its Handmaid: it still holds the Guard
    assert state.observation(0)["known"] == {"1": 1}
    run(state, {"card": 4}, {"card": 1})  # seat 2's Handmaid; seat 0's Guard finds nobody to target
    # Seat 1 now holds two Guards and plays one: seat 0 can no longer tell which card stayed.
    assert state.full_view()["hands"][1] == [1, 1]
    run(state, {"card": 1, "target": 0, "guess": 3})
    assert state.observation(0)["known"] == {} and state.observation(1)["seen_by"] == {}


def test_a_voluntary_princess_discard_is_offered_and_knocks_its_player_out() -> None:
    state = new(3, 7, [], [8, 2, 3], [4])
    assert {"card": 8} in state.legal_actions()
    lines = run(state, {"card": 8})
    assert lines == ["seat 0 discards the Princess", "seat 0 is out of the round, discarding a Handmaid"]
    assert state.observation(1)["out"] == [True, False, False] and state.observation(1)["discards"][0] == [8, 4]


def test_a_knocked_out_player_takes_no_more_turns() -> None:
    state = new(3, 8, [], [1, 2, 3], [1, 4, 4])
    run(state, {"card": 1, "target": 1, "guess": 2})
    assert state.to_move() == 2
    run(state, {"card": 4})
    assert state.to_move() == 0


# ----- illegal actions -------------------------------------------------------------------------------------------
def test_illegal_actions_name_the_rule_they_break() -> None:
    state = new(3, 8, [], [1, 2, 3], [6])
    assert illegal(state, {"card": 5, "target": 1}).startswith("you do not hold a Prince")
    assert illegal(state, {"card": 6, "target": 0}) == "a King must target another player, not yourself"
    assert illegal(state, {"card": 6, "target": 7}) == "there is no seat 7 in a 3-player game"
    assert illegal(state, {"card": 6}) == "a King must name a 'target': you may choose seat(s) 1, 2"
    assert illegal(state, {"card": 6, "target": 1, "guess": 3}) == "only a Guard names a card; a King takes no 'guess'"
    assert illegal(state, {"card": 1, "target": 1}).startswith("a Guard must name a card")
    assert illegal(state, {"card": 1, "target": 1, "guess": 9}).startswith("'guess' must be a card value")
    assert illegal(state, {"card": True, "target": 1}).startswith("'card' must be a card value")
    assert illegal(state, {"target": 1}) == "an action must name the 'card' you discard"
    assert illegal(state, {"card": 6, "target": 1, "note": "hi"}).startswith("unknown field(s) 'note'")


def test_an_out_player_cannot_be_targeted() -> None:
    state = new(3, 8, [], [1, 2, 3], [1, 4])
    run(state, {"card": 1, "target": 1, "guess": 2}, {"card": 4})
    assert illegal(state, {"card": 1, "target": 1, "guess": 2}) == "seat 1 is out of the round"


def test_a_card_without_a_target_refuses_one() -> None:
    state = new(3, 8, [], [4, 2, 3], [7])
    assert illegal(state, {"card": 4, "target": 1}) == 'a Handmaid has no target; play it as {"card": 4}'


def test_legal_actions_are_listed_in_a_stable_order() -> None:
    state = new(3, 8, [], [5, 2, 3], [1])
    legal = state.legal_actions()
    guards = [a for a in legal if a["card"] == 1]
    assert guards[:2] == [{"card": 1, "target": 1, "guess": 2}, {"card": 1, "target": 1, "guess": 3}]
    assert len(guards) == 2 * 7
    assert [a for a in legal if a["card"] == 5] == [{"card": 5, "target": t} for t in range(3)]
    assert legal == state.clone().legal_actions()


# ----- options, observations and views ---------------------------------------------------------------------------
@pytest.mark.parametrize(
    "options",
    [
        {"deck": list(FULL_DECK)[:-1]},
        {"deck": [*list(FULL_DECK)[:-1], 1]},
        {"deck": [*FULL_DECK[:-1], "8"]},
        {"deck": [*FULL_DECK[:-1], True]},
        {"deck": "12345"},
        {"decks": [list(FULL_DECK)]},
        {"target_tokens": 3},
    ],
)
def test_bad_options_are_refused(options: dict[str, Any]) -> None:
    with pytest.raises(InvalidOptions):
        GAME.new_state(2, 1, options)


def test_the_deck_option_deals_the_first_round_and_later_rounds_are_shuffled() -> None:
    deck = stacked(2, 8, [7, 6, 3], [1, 2], [1])
    a, b = GAME.new_state(2, 1, {"deck": deck}), GAME.new_state(2, 2, {"deck": deck})
    assert a.full_view() == b.full_view()
    assert a.full_view()["deck"] == deck[7:]
    run(a, {"card": 1, "target": 1, "guess": 2})
    run(b, {"card": 1, "target": 1, "guess": 2})
    assert a.observation(0)["round"] == b.observation(0)["round"] == 2
    assert a.full_view()["deck"] != b.full_view()["deck"]


def test_the_observation_has_every_field_of_the_spec() -> None:
    obs = GAME.new_state(3, 9).observation(1)
    spec_fields = {"seat", "players", "round", "hand", "discards", "tokens", "target_tokens", "out", "protected"}
    spec_fields |= {"deck_size", "set_aside_up", "known", "last_round"}
    assert spec_fields <= set(obs)
    assert obs["seat"] == 1 and obs["players"] == 3 and obs["round"] == 1 and obs["last_round"] is None
    assert len(obs["hand"]) == 1 and obs["discards"] == [[], [], []] and obs["tokens"] == [0, 0, 0]
    assert json.loads(json.dumps(obs)) == obs


def test_the_observation_shows_no_other_hand_the_deck_or_the_burned_card() -> None:
    state = new(2, 8, [7, 6, 3], [1, 2], [1])
    obs = state.observation(1)
    assert obs["hand"] == [2] and "hands" not in obs and "deck" not in obs and "burned" not in obs
    public = state.public_view()
    assert "hands" not in public and "deck" not in public and "burned" not in public
    assert public["hand_sizes"] == [2, 1]


def test_last_round_reveals_the_hands_left_the_burned_card_and_the_winners() -> None:
    state = new(2, 8, [7, 6, 3], [1, 2], [1])
    run(state, {"card": 1, "target": 1, "guess": 2})
    last = state.observation(1)["last_round"]
    assert last == {
        "round": 1,
        "hands": [1, None],
        "burned": 8,
        "set_aside_up": [7, 6, 3],
        "discards": [[1], [2]],
        "showdown": False,
        "winners": [0],
    }


def test_moves_record_this_rounds_public_plays() -> None:
    state = new(3, 8, [], [1, 2, 3], [1])
    run(state, {"card": 1, "target": 1, "guess": 2})
    assert state.observation(2)["moves"] == [{"seat": 0, "card": 1, "target": 1, "guess": 2, "out": [1]}]


def test_perturbing_hidden_cards_never_changes_the_observation() -> None:
    rng = random.Random(4)
    state = new(3, 8, [], [2, 3, 5], [1, 1, 6])
    run(state, {"card": 2, "target": 1})
    for _ in range(50):
        other = state.perturb_hidden(0, rng)
        assert other is not None
        assert other.observation(0) == state.observation(0)
        assert other.full_view()["hands"][1] == state.full_view()["hands"][1]  # seat 0 knows a card there


# ----- built-in players and the example bot ----------------------------------------------------------------------
def test_beliefs_rule_out_a_wrong_guard_guess() -> None:
    state = new(2, 8, [7, 6, 3], [1, 2], [1, 1])
    run(state, {"card": 1, "target": 1, "guess": 5})
    beliefs = Beliefs(state.observation(0))
    assert 5 not in beliefs.hand_of(1) and abs(sum(beliefs.hand_of(1).values()) - 1) < 1e-9


def test_the_heuristic_names_a_card_it_has_seen() -> None:
    state = new(3, 8, [], [2, 6, 4], [1, 1, 1])
    run(
        state,
        {"card": 2, "target": 1},
        {"card": 1, "target": 2, "guess": 3},
        {"card": 4},
    )
    player = make_player("love_letter", "heuristic", 1)
    player.start(0, 3, state.options)
    assert player.act(state.observation(0), state.legal_actions()) == {"card": 1, "target": 1, "guess": 6}


def test_the_heuristic_never_discards_the_princess_when_it_has_a_choice() -> None:
    player = make_player("love_letter", "heuristic", 1)
    for seed in range(200):
        state = GAME.new_state(2, seed)
        player.start(0, 2, state.options)
        legal = state.legal_actions()
        if {"card": 8} in legal and len(legal) > 1:
            assert player.act(state.observation(0), legal) != {"card": 8}


def test_the_heuristic_beats_random_in_most_two_player_matches() -> None:
    rate, _low, _high = win_rate("love_letter", "heuristic", ["random"], range(80))
    assert rate >= 0.8  # measured 97% over 500 seeds


def test_the_example_bot_plays_whole_matches_over_the_protocol() -> None:
    for seed, players in [(1, 2), (2, 3), (3, 4)]:
        state = GAME.new_state(players, seed)
        bot_seat = seed % players
        others = {s: make_player("love_letter", "random", seed + s) for s in range(players) if s != bot_seat}
        proc = subprocess.Popen(
            [sys.executable, str(EXAMPLE_BOT)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
        )
        assert proc.stdin is not None and proc.stdout is not None

        def ask(message: dict[str, Any], proc: subprocess.Popen = proc) -> dict[str, Any]:
            proc.stdin.write(json.dumps(message) + "\n")
            proc.stdin.flush()
            return json.loads(proc.stdout.readline())

        start = {"type": "start", "game": "love_letter", "seat": bot_seat, "players": players, "options": {}}
        assert ask({**start, "time": {"move_ms": 1000, "bank_ms": 10000}}) == {"type": "ready"}
        while (seat := state.to_move()) is not None:
            obs, legal = state.observation(seat), state.legal_actions()
            if seat == bot_seat:
                reply = ask({"type": "act", "obs": obs, "legal": legal, "time_left_ms": 10000})
                assert reply["type"] == "action"
                state.apply(reply["action"])
            else:
                state.apply(others[seat].act(obs, legal))
        end = {"type": "end", "outcome": state.outcome().to_json(), "obs": state.observation(bot_seat)}
        proc.stdin.write(json.dumps(end) + "\n")
        proc.stdin.close()
        assert proc.wait(timeout=10) == 0


def test_the_example_bot_exits_at_end_of_input() -> None:
    done = subprocess.run([sys.executable, str(EXAMPLE_BOT)], input="", capture_output=True, text=True, timeout=10)
    assert done.returncode == 0 and done.stdout == ""


def test_a_heuristic_match_replays_identically() -> None:
    bots = [make_player("love_letter", "heuristic", 5), make_player("love_letter", "random", 6)]
    state = play("love_letter", bots, 5)
    replayed = GAME.replay(2, 5, {}, state.history)
    assert replayed.full_view() == state.full_view() and replayed.outcome() == state.outcome()
