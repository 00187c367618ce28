"""Ranczo Party: the checks and worked examples of games/ranczo/RULES.md, every edge case of the rules, and the
built-in players.

Positions are built either with the ``deck`` option (real deals and real plays) or, for late-game situations, by
laying out a grid directly with ``position`` (which checks that all 49 cards are accounted for).
"""

from __future__ import annotations

import json
import random
import subprocess
import sys
from collections import Counter
from itertools import chain
from typing import Any

import pytest

from games.base import IllegalAction, InvalidOptions
from games.ranczo.engine import BALLOON, CARD_COUNT, GAME, VALUE, RanczoState, card_json
from games.ranczo.players import PLAYERS, HeuristicPlayer
from games.registry import example_dir, make_player
from games.simulate import play, play_builtins

EXAMPLE_BOT = example_dir("ranczo") / "main.py"

# Card ids: value v owns ids 7(v-1) … 7(v-1)+6; the first of them is the balloon card for values 2 to 6.
HEN, GOOSE, GOAT, SHEEP, PIG, COW, HORSE = (7 * v for v in range(7))
BALLOON_GOAT, BALLOON_PIG = GOAT, PIG


def ids(value: int, count: int = 7, balloon: bool = True) -> list[int]:
    """The first ``count`` ids of ``value`` (starting with the balloon card unless ``balloon`` is False)."""
    first = 7 * (value - 1) + (0 if balloon else 1)
    return list(range(first, first + count))


def deck_from(top: list[int]) -> list[dict[str, Any]]:
    """A ``deck`` option: the given card ids first, then every other card in id order."""
    assert len(set(top)) == len(top)
    return [card_json(card) for card in top + [c for c in range(CARD_COUNT) if c not in top]]


def dealt(players: int, hands: list[list[int]], first: int, draws: list[int], **options: Any) -> RanczoState:
    """A real deal: ``hands`` (7 each, seat order), the first grid card, then the next cards of the deck."""
    assert all(len(hand) == 7 for hand in hands) and len(hands) == players
    state = GAME.new_state(players, 0, {"deck": deck_from([*chain(*hands), first, *draws]), **options})
    assert isinstance(state, RanczoState)
    return state


def position(
    grid: dict[tuple[int, int], int],
    hands: list[list[int]],
    deck: list[int] | None = None,
    current: int = 0,
) -> RanczoState:
    """A position laid out directly: ``grid`` maps (row, value) to a card id; the deck defaults to every card not
    on the grid or in a hand. The seat to move is assumed to have drawn already (the turn's play comes next)."""
    state = GAME.new_state(len(hands), 0)
    assert isinstance(state, RanczoState)
    for (_row, value), card in grid.items():
        assert VALUE[card] == value, f"card {card} is not a {value}"
    placed = [*grid.values(), *chain(*hands)]
    if deck is None:
        deck = [card for card in range(CARD_COUNT) if card not in placed]
    assert sorted(placed + deck) == list(range(CARD_COUNT)), "every card must be somewhere exactly once"
    state.hands = [sorted(hand) for hand in hands]
    state.deck = list(deck)
    state.deck_buried_by = [None] * len(deck)
    state.grid = dict(grid)
    state.row_counts = Counter(row for row, _ in grid)
    state.col_counts = [0] * 8
    for _, value in grid:
        state.col_counts[value] += 1
    state.top = min(row for row, _ in grid)
    state.bottom = max(row for row, _ in grid)
    state.current = current
    state.out = [False] * len(hands)
    state._mark_out([])
    return state


def full_grid(rows: range = range(7), columns: range = range(1, 8)) -> dict[tuple[int, int], int]:
    """Rows ``rows`` by ``columns`` filled: the card at (row, v) is the (row - rows.start)-th id of v, so the first
    row holds the balloon cards."""
    return {(row, v): 7 * (v - 1) + (row - rows.start) for row in rows for v in columns}


def cards_everywhere(state: RanczoState) -> list[int]:
    return sorted([*chain(*state.hands), *state.deck, *state.grid.values()])


def assert_conserved(state: RanczoState) -> None:
    assert cards_everywhere(state) == list(range(CARD_COUNT))
    assert all(hand for hand in state.hands), "no hand is ever empty"
    assert len(state.deck_buried_by) == len(state.deck)
    # Tokens: every complete line on the grid was scored exactly once, by someone, this round.
    complete = 0
    for row in range(state.top, state.bottom + 1):
        cells = [state.grid[(row, v)] for v in range(1, 8) if (row, v) in state.grid]
        if len(cells) == 7:
            complete += 1 + sum(BALLOON[c] for c in cells)
    for value in range(1, 8):
        cells = [c for (_, v), c in state.grid.items() if v == value]
        if len(cells) == 7:
            complete += 1 + sum(BALLOON[c] for c in cells)
    assert sum(state.round_tokens) == complete
    finished = (
        state.round_results if len(state.round_results) == state.round else [*state.round_results, state.round_tokens]
    )
    assert state.tokens == [sum(result[seat] for result in finished) for seat in range(state.players)]


def assert_grid_is_valid(state: RanczoState) -> None:
    rows = {row for row, _ in state.grid}
    assert state.bottom - state.top + 1 <= 7, "an 8th row"
    assert rows == set(range(state.top, state.bottom + 1)), "rows are contiguous and none is empty"
    for (_, value), card in state.grid.items():
        assert VALUE[card] == value, "a card sits in the column of its value"
    # A dict keyed by (row, value) cannot hold two cards of one value in a row; check the counts agree with it.
    assert sum(state.row_counts.values()) == len(state.grid) == sum(state.col_counts)


def random_game(players: int, seed: int, options: dict[str, Any] | None = None, each=None) -> RanczoState:
    state = GAME.new_state(players, seed, options)
    assert isinstance(state, RanczoState)
    bots = [make_player("ranczo", "random", seed * 10 + s) for s in range(players)]
    while (seat := state.to_move()) is not None:
        if each:
            each(state)
        state.apply(bots[seat].act(state.observation(seat), state.legal_actions()))
    if each:
        each(state)
    return state


# ----- RULES.md "Checks the engine passes" -----------------------------------------------------------------------
def test_the_seeds_scoring_example_gives_exactly_5_tokens() -> None:
    # Krzysiek's balloon goat completes column 3 (six plain goats already there) and a row holding the balloon pig:
    # column 1 + 1 (the goat's balloon), row 1 + 1 (the goat) + 1 (the pig) = 5.
    grid = {(0, 1): HEN, (0, 2): GOOSE + 1, (0, 4): SHEEP + 1, (0, 5): BALLOON_PIG, (0, 6): COW + 1, (0, 7): HORSE}
    grid.update({(row, 3): GOAT + row for row in range(1, 7)})
    state = position(grid, [[BALLOON_GOAT, HEN + 1], [HEN + 2]])
    lines = state.apply({"play": BALLOON_GOAT, "row": 0})
    assert state.tokens == [5, 0]
    assert state.last is not None and state.last["tokens"] == 5
    assert "seat 0 completes row 0 and gains 3 token(s)" in lines
    assert "seat 0 completes column 3 and gains 2 token(s)" in lines


@pytest.mark.parametrize("players", [2, 3, 4])
def test_cards_are_conserved_at_every_point(players: int) -> None:
    for seed in range(40):
        random_game(players, seed, each=assert_conserved)


def test_cards_are_conserved_across_the_rounds_of_the_multi_variant() -> None:
    for seed in range(10):
        state = random_game(3, seed, {"rounds": 3}, each=assert_conserved)
        assert len(state.round_results) == 3


def test_no_placement_ever_creates_an_8th_row_or_a_second_card_of_one_value_in_a_row() -> None:
    def check(state: RanczoState) -> None:
        assert_grid_is_valid(state)
        for action in state.legal_actions():
            if "play" in action:
                value = VALUE[action["play"]]
                assert (action["row"], value) not in state.grid
                assert max(state.bottom, action["row"]) - min(state.top, action["row"]) + 1 <= 7

    for seed in range(60):
        random_game(2 + seed % 3, seed, each=check)


# ----- setup -----------------------------------------------------------------------------------------------------
def test_each_player_is_dealt_seven_cards_and_the_next_card_opens_the_grid() -> None:
    state = dealt(3, [ids(1), ids(2), ids(3)], SHEEP, [PIG])
    assert state.hands[1] == ids(2) and state.hands[2] == ids(3)
    assert state.grid == {(0, 4): SHEEP}
    assert len(state.deck) == CARD_COUNT - 3 * 7 - 1 - 1


def test_seat_0_starts_having_drawn_the_top_card_of_the_deck() -> None:
    state = dealt(2, [ids(1), ids(2)], SHEEP, [PIG])
    assert state.to_move() == 0
    assert state.hands[0] == sorted([*ids(1), PIG])
    assert state.observation(0)["hand_sizes"] == [8, 7]


def test_a_random_deal_gives_every_seat_seven_cards_and_one_card_on_the_grid() -> None:
    for players in (2, 3, 4):
        state = GAME.new_state(players, 11)
        assert [len(hand) for hand in state.hands] == [8] + [7] * (players - 1)
        assert len(state.grid) == 1 and next(iter(state.grid))[0] == 0
        assert len(state.deck) == CARD_COUNT - 7 * players - 2


def test_there_are_49_cards_seven_of_each_value_and_one_balloon_card_per_value_2_to_6() -> None:
    assert Counter(VALUE) == {v: 7 for v in range(1, 8)}
    assert sorted(VALUE[c] for c in range(CARD_COUNT) if BALLOON[c]) == [2, 3, 4, 5, 6]


def test_the_default_options_are_one_round_and_a_shuffled_deck() -> None:
    assert GAME.new_state(2, 1).options == {"rounds": 1}


def test_the_deck_option_fills_in_missing_ids() -> None:
    deck = [{"value": card_json(c)["value"], "balloon": card_json(c)["balloon"]} for c in range(CARD_COUNT)]
    deck.reverse()
    state = GAME.new_state(2, 0, {"deck": deck})
    filled = state.options["deck"]
    assert [(c["value"], c["balloon"]) for c in filled] == [(c["value"], c["balloon"]) for c in deck]
    assert sorted(c["id"] for c in filled) == list(range(CARD_COUNT))
    assert [c["id"] for c in filled[:7]] == list(range(42, 49)), "free ids of a face are taken lowest first"
    plain = [{"value": v} for v in range(1, 8) for _ in range(6)] + [{"value": 1}, {"value": 7}]
    plain += [{"value": v, "balloon": True} for v in range(2, 7)]
    assert len(GAME.new_state(2, 0, {"deck": plain}).options["deck"]) == CARD_COUNT


@pytest.mark.parametrize(
    ("deck", "message"),
    [
        ("all", "list of all 49"),
        ([card_json(c) for c in range(48)], "list of all 49"),
        ([*(card_json(c) for c in range(48)), {"value": 1}], "7 cards of each value"),
        ([card_json(c) for c in range(48)] + [{"value": 7, "balloon": True}], "only values 2 to 6"),
        ([{"value": 2, "balloon": c <= 8} if VALUE[c] == 2 else card_json(c) for c in range(49)], "one balloon"),
        ([{**card_json(c), "id": 1} if c == 0 else card_json(c) for c in range(49)], "appears twice"),
        ([{**card_json(c), "id": 8} if c == 7 else card_json(c) for c in range(49)], "not that card"),
        ([{**card_json(c), "colour": "red"} if c == 0 else card_json(c) for c in range(49)], "unknown field"),
        ([{"value": "3"}] + [card_json(c) for c in range(1, 49)], "value from 1 to 7"),
        ([{"value": 1, "balloon": 1}] + [card_json(c) for c in range(1, 49)], "true or false"),
        ([3] + [card_json(c) for c in range(1, 49)], "must be an object"),
    ],
)
def test_a_wrong_deck_option_is_refused(deck: object, message: str) -> None:
    with pytest.raises(InvalidOptions, match=message):
        GAME.new_state(2, 0, {"deck": deck})


@pytest.mark.parametrize("rounds", [0, 13, -1, "2", True, 1.0, None])
def test_the_rounds_option_must_be_an_integer_from_1_to_12(rounds: object) -> None:
    with pytest.raises(InvalidOptions, match="rounds"):
        GAME.new_state(2, 0, {"rounds": rounds})


def test_unknown_options_are_refused() -> None:
    with pytest.raises(InvalidOptions, match="no option"):
        GAME.new_state(2, 0, {"balloons": 10})


def test_every_option_is_in_the_options_schema() -> None:
    schema = GAME.spec.options_schema
    assert set(schema) == {"rounds", "deck"}
    assert schema["rounds"]["default"] == 1


# ----- placement ----------------------------------------------------------------------------------------------------
def test_the_seeds_opening_example_a_3_or_5_beside_the_sheep_or_a_sheep_above_or_below_it() -> None:
    # First card a sheep (4): the starting player may put a goat (3) or a pig (5) in its row, or another sheep in a
    # new row above or below it.
    hand = [HEN, GOOSE, GOAT, SHEEP + 1, PIG, COW, HORSE]
    state = dealt(2, [hand, [HEN + 1, HEN + 2, HEN + 3, HEN + 4, HEN + 5, HEN + 6, GOOSE + 1]], SHEEP, [HORSE + 1])
    assert state.legal_actions() == [
        {"play": GOAT, "row": 0},
        {"play": SHEEP + 1, "row": -1},
        {"play": SHEEP + 1, "row": 1},
        {"play": PIG, "row": 0},
    ]


def test_a_card_touching_only_diagonally_cannot_be_placed() -> None:
    # Grid: a sheep in row 0 and a pig beside it. A cow may go beside the pig, but not in row 1 (only diagonal).
    state = position({(0, 4): SHEEP, (0, 5): PIG}, [[COW, GOAT], [HEN]])
    assert {"play": COW, "row": 0} in state.legal_actions()
    with pytest.raises(IllegalAction, match="must touch a card"):
        state.apply({"play": COW, "row": 1})


def test_a_card_may_slide_into_an_existing_row_under_a_card_of_its_own_value() -> None:
    # RULES.md "A turn" 2, interpretation: plain orthogonal contact. Row 1 exists (a sheep under the first sheep): a pig
    # may go into row 1 beside that sheep and under the pig, a cow into row 1 under the cow (a gap at column 5).
    grid = {(0, 4): SHEEP, (0, 5): PIG, (0, 6): COW, (1, 4): SHEEP + 1}
    state = position(grid, [[PIG + 1, COW + 1], [HEN]])
    assert state.legal_actions() == [
        {"play": PIG + 1, "row": -1},
        {"play": PIG + 1, "row": 1},
        {"play": COW + 1, "row": -1},
        {"play": COW + 1, "row": 1},
    ]


def test_a_row_may_have_gaps_between_its_cards() -> None:
    # Row 1 holds a sheep; a cow can go in row 1 under the cow of row 0, leaving column 5 of row 1 empty.
    grid = {(0, 4): SHEEP, (0, 5): PIG, (0, 6): COW, (1, 4): SHEEP + 1}
    state = position(grid, [[COW + 1], [HEN]])
    state.apply({"play": COW + 1, "row": 1})
    assert (1, 6) in state.grid and (1, 5) not in state.grid


def test_a_new_row_may_be_started_only_directly_above_the_top_row_or_below_the_bottom_row() -> None:
    state = position({(0, 4): SHEEP, (1, 4): SHEEP + 1}, [[SHEEP + 2], [HEN]])
    assert state.legal_actions() == [{"play": SHEEP + 2, "row": -1}, {"play": SHEEP + 2, "row": 2}]
    with pytest.raises(IllegalAction, match=r"directly above the top row \(row -1\)"):
        state.apply({"play": SHEEP + 2, "row": -2})
    with pytest.raises(IllegalAction, match=r"below the bottom row \(row 2\)"):
        state.apply({"play": SHEEP + 2, "row": 3})


def test_a_row_holds_only_one_card_of_each_value() -> None:
    state = position({(0, 4): SHEEP, (0, 5): PIG}, [[PIG + 1], [HEN]])
    with pytest.raises(IllegalAction, match="already holds a pig"):
        state.apply({"play": PIG + 1, "row": 0})


def test_no_8th_row_may_be_started() -> None:
    # Seven rows exist (-3 … 3, a column of sheep): another sheep has nowhere to go, a pig only beside them.
    grid = {(row, 4): SHEEP + row + 3 for row in range(-3, 3)}
    grid[(3, 5)] = PIG
    grid[(3, 4 + 0)] = SHEEP + 6
    state = position(grid, [[PIG + 1, GOAT], [HEN]])
    rows = state.rows_for(5)
    assert rows == [-3, -2, -1, 0, 1, 2]  # beside every sheep, never row -4 or row 4
    with pytest.raises(IllegalAction, match="already has 7 rows"):
        state.apply({"play": PIG + 1, "row": 4})
    with pytest.raises(IllegalAction, match="already has 7 rows"):
        state.apply({"play": GOAT, "row": -4})


def test_an_action_naming_a_card_not_in_hand_is_refused() -> None:
    state = dealt(2, [ids(3), ids(5)], SHEEP, [HEN])
    with pytest.raises(IllegalAction, match="card 28 is not in your hand"):
        state.apply({"play": 28, "row": 0})
    with pytest.raises(IllegalAction, match="not in your hand"):
        state.apply({"bury": 999})
    with pytest.raises(IllegalAction, match="integer"):
        state.apply({"play": 14, "row": 0.0})
    with pytest.raises(IllegalAction, match="integer id"):
        state.apply({"play": True, "row": 0})
    with pytest.raises(IllegalAction, match="name its row"):
        state.apply({"play": 14})
    with pytest.raises(IllegalAction, match="unexpected field"):
        state.apply({"play": 14, "row": 0, "note": "hi"})
    with pytest.raises(IllegalAction, match='"bury"'):
        state.apply({"pass": True})


def test_an_illegal_action_leaves_the_state_unchanged() -> None:
    state = dealt(2, [ids(3), ids(5)], SHEEP, [HEN])
    before = json.dumps(state.full_view(), sort_keys=True)
    for bad in ({"play": GOAT, "row": 5}, {"bury": GOAT}, {"play": PIG, "row": 0}):
        with pytest.raises(IllegalAction):
            state.apply(bad)
    assert json.dumps(state.full_view(), sort_keys=True) == before and state.history == []


# ----- compulsory play and burying -----------------------------------------------------------------------------------
def stuck_deal(players: int = 2) -> RanczoState:
    """First card a hen; nobody holds a goose or a hen, so nobody can play (the top deck cards are cows)."""
    hands = [ids(4), ids(5), ids(6), ids(7)][:players]
    draws = [c for c in ids(6) + ids(7) if c not in chain(*hands)][:4]
    return dealt(players, hands, HEN, draws)


def test_playing_is_compulsory_and_burying_is_refused_while_a_play_is_legal() -> None:
    state = dealt(2, [ids(3), ids(5)], SHEEP, [HEN])
    assert all("play" in action for action in state.legal_actions())
    with pytest.raises(IllegalAction, match="playing a card is compulsory"):
        state.apply({"bury": GOAT})


def test_a_player_who_cannot_play_puts_a_card_of_their_choice_under_the_deck() -> None:
    state = stuck_deal()
    assert state.legal_actions() == [{"bury": card} for card in state.hands[0]]
    deck_before = list(state.deck)
    lines = state.apply({"bury": SHEEP + 3})
    assert state.deck[-1] == SHEEP + 3 and state.deck[:-1] == deck_before[1:]  # seat 1 drew the old top card
    assert SHEEP + 3 not in state.hands[0] and len(state.hands[0]) == 7
    assert lines[0] == "seat 0 cannot play and puts a card under the deck"
    assert "24" not in " ".join(lines) and "sheep" not in " ".join(lines), "the buried card stays hidden"


def test_a_buried_card_is_not_shown_to_the_other_players() -> None:
    state = stuck_deal(3)
    state.apply({"bury": SHEEP + 3})
    obs = state.observation(1)
    assert obs["last"] == {"seat": 0, "action": "bury"}
    assert SHEEP + 3 not in [cell["id"] for cell in obs["grid"]] + [card["id"] for card in obs["hand"]]


def test_a_full_cycle_of_buries_ends_the_game() -> None:
    # RULES.md "End of game" 2 (interpretation): every player in turn buries a card: the game ends.
    state = stuck_deal(2)
    state.apply({"bury": state.hands[0][0]})
    assert not state.is_over() and state.to_move() == 1
    lines = state.apply({"bury": state.hands[1][0]})
    assert state.is_over() and state.to_move() is None
    assert lines[-2] == "the game ends: every player in turn put a card under the deck"
    assert state.outcome().ranks == [1, 1]


def test_a_play_in_between_restarts_the_cycle_of_buries() -> None:
    # Three players, first card a hen; seat 1 holds a goose. Buries by 0, a play by 1, buries by 2 and 0: no end yet.
    hands = [ids(4), [*ids(5, 6, balloon=False), GOOSE], ids(6)]
    state = dealt(3, hands, HEN, [*ids(7)])
    state.apply({"bury": state.hands[0][0]})
    state.apply({"play": GOOSE, "row": 0})
    assert state.buries_in_a_row == 0
    state.apply({"bury": state.hands[2][0]})
    state.apply({"bury": state.hands[0][0]})
    assert not state.is_over() and state.buries_in_a_row == 2


# ----- the end of the deck -------------------------------------------------------------------------------------------
def late_position() -> RanczoState:
    """Three players, the deck empty; the grid is full but for the six cards of row 6 (kept: its horse)."""
    grid = full_grid()
    row6 = [grid.pop((6, v)) for v in range(1, 7)]
    return position(grid, [row6[:3], [row6[3]], row6[4:]], deck=[])


def test_once_the_deck_is_empty_play_goes_on_without_drawing() -> None:
    state = late_position()
    state.apply({"play": state.hands[0][0], "row": 6})
    assert state.to_move() == 2 and len(state.hands[2]) == 2 and state.deck == []


def test_a_player_holding_a_single_card_with_the_deck_empty_takes_no_more_turns() -> None:
    state = late_position()
    assert state.out == [False, True, False]
    assert state.observation(0)["out"] == [False, True, False]
    state.apply({"play": state.hands[0][0], "row": 6})
    assert state.to_move() == 2, "seat 1 holds one card: skipped"
    state.apply({"play": state.hands[2][0], "row": 6})
    assert state.out == [False, True, True] and state.to_move() == 0


def test_the_game_ends_as_soon_as_every_player_holds_exactly_one_card() -> None:
    state = late_position()
    state.apply({"play": state.hands[0][0], "row": 6})
    state.apply({"play": state.hands[2][0], "row": 6})
    lines = state.apply({"play": state.hands[0][0], "row": 6})
    assert state.is_over() and [len(hand) for hand in state.hands] == [1, 1, 1]
    assert "the game ends: every player holds exactly one card" in lines
    assert cards_everywhere(state) == list(range(CARD_COUNT))


def test_a_card_buried_under_an_empty_deck_is_drawn_by_the_next_player_but_an_idle_player_stays_idle() -> None:
    # Four players, the deck empty; columns 1-4 are full. Seat 0 holds only cows (no pig or horse is on the grid, so
    # no cow can be placed), seat 1 holds a single horse and takes no more turns, seat 2 holds the pigs.
    grid = full_grid(columns=range(1, 5))
    cows, horses, pigs = ids(6), ids(7), ids(5)
    state = position(grid, [cows, [horses[0]], pigs, horses[1:]], deck=[])
    assert state.out == [False, True, False, False]
    assert state.legal_actions() == [{"bury": cow} for cow in cows]
    state.apply({"bury": COW + 3})
    assert state.to_move() == 2 and COW + 3 in state.hands[2] and state.deck == []
    assert state.out[1] and len(state.hands[1]) == 1, "refilling the deck does not bring seat 1 back"


def test_hands_shrink_by_one_card_a_turn_once_the_deck_is_empty() -> None:
    def check(state: RanczoState) -> None:
        if not state.deck and not state.over:
            seat = state.current
            assert len(state.hands[seat]) >= 2, "a seat to move with an empty deck holds two cards or more"

    for seed in range(30):
        random_game(2 + seed % 3, seed, each=check)


# ----- scoring -------------------------------------------------------------------------------------------------------
def test_completing_a_row_without_balloons_scores_1_token() -> None:
    grid = {(1, v): 7 * (v - 1) + 1 for v in range(1, 7)}  # row 1: plain 1-6
    state = position(grid, [[HORSE], [HEN]])
    state.apply({"play": HORSE, "row": 1})
    assert state.tokens == [1, 0]


def test_completing_a_column_scores_1_token_plus_its_balloon_card() -> None:
    grid = {(row, 3): GOAT + row for row in range(6)}  # the balloon goat in row 0 and five plain goats
    state = position(grid, [[GOAT + 6], [HEN]])
    assert state.legal_actions() == [{"play": GOAT + 6, "row": -1}, {"play": GOAT + 6, "row": 6}]
    lines = state.apply({"play": GOAT + 6, "row": 6})
    assert state.tokens == [2, 0]
    assert lines[1] == "seat 0 completes column 3 and gains 2 token(s)"


def test_a_row_with_every_balloon_scores_6() -> None:
    grid = {(0, v): 7 * (v - 1) for v in range(2, 8)}  # balloon goose … balloon cow, a horse
    state = position(grid, [[HEN], [HEN + 1]])
    state.apply({"play": HEN, "row": 0})
    assert state.tokens == [6, 0]


def test_tokens_go_to_the_player_who_placed_the_completing_card() -> None:
    grid = {(1, v): 7 * (v - 1) + 1 for v in range(1, 7)}
    state = position(grid, [[HEN + 2, GOOSE + 2], [HORSE, HEN + 3]])
    state.apply({"play": HEN + 2, "row": 2})
    state.apply({"play": HORSE, "row": 1})
    assert state.tokens == [0, 1]


def test_equal_tokens_share_the_rank() -> None:
    state = stuck_deal(2)
    state.apply({"bury": state.hands[0][0]})
    state.apply({"bury": state.hands[1][0]})
    assert state.outcome().scores == [0, 0] and state.outcome().ranks == [1, 1]


def test_most_tokens_wins() -> None:
    for seed in range(20):
        state = random_game(3, seed)
        outcome = state.outcome()
        best = max(outcome.scores)
        assert [r == 1 for r in outcome.ranks] == [s == best for s in outcome.scores]


# ----- the "multi" variant -------------------------------------------------------------------------------------------
def test_the_multi_variant_plays_one_round_per_player_each_started_by_the_next_seat() -> None:
    starters: list[int] = []

    def record(state: RanczoState) -> None:
        if len(starters) < state.round:
            starters.append(state.current)

    state = random_game(3, 5, {"rounds": 3}, each=record)
    assert starters == [0, 1, 2]
    assert len(state.round_results) == 3
    assert state.tokens == [sum(result[seat] for result in state.round_results) for seat in range(3)]
    assert state.outcome().scores == state.tokens


def test_a_new_round_deals_a_fresh_grid_and_keeps_the_tokens() -> None:
    state = dealt(2, [ids(4), ids(5)], HEN, ids(6), rounds=2)
    state.tokens = [3, 1]  # as if the first round had scored
    state.apply({"bury": state.hands[0][0]})
    lines = state.apply({"bury": state.hands[1][0]})
    assert not state.is_over() and state.round == 2 and state.to_move() == 1
    assert "round 2 of 2 begins; seat 1 starts" in lines
    assert state.tokens == [3, 1] and state.round_tokens == [0, 0]
    assert len(state.grid) == 1 and [len(hand) for hand in state.hands] == [7, 8]


def test_the_deck_option_fixes_only_the_first_round() -> None:
    deck = deck_from([*ids(4), *ids(5), HEN, *ids(6)])  # nobody can play: two buries end round 1
    one, two = (GAME.new_state(2, seed, {"deck": deck, "rounds": 2}) for seed in (1, 2))
    assert one.full_view() == two.full_view()
    for state in (one, two):
        state.apply({"bury": SHEEP})
        state.apply({"bury": PIG})
        assert state.round == 2
    assert one.full_view()["hands"] != two.full_view()["hands"], "round 2 is shuffled with the seed"


# ----- information ---------------------------------------------------------------------------------------------------
def test_the_observation_has_every_field_the_rules_list() -> None:
    state = dealt(3, [ids(1), ids(2), ids(3)], SHEEP, [PIG])
    obs = state.observation(1)
    for field in ("seat", "players", "hand", "grid", "rows", "deck_size", "hand_sizes", "tokens"):
        assert field in obs
    assert obs["seat"] == 1 and obs["players"] == 3
    assert obs["hand"][0] == {"id": GOOSE, "value": 2, "balloon": True}
    assert obs["grid"] == [{"row": 0, "value": 4, "balloon": True, "id": SHEEP}]
    assert obs["rows"] == [0, 0] and obs["deck_size"] == 26
    assert obs["hand_sizes"] == [8, 7, 7] and obs["tokens"] == [0, 0, 0]
    assert obs["to_move"] == 0 and obs["round"] == 1 and obs["rounds"] == 1


def test_the_observation_shows_neither_other_hands_nor_the_deck() -> None:
    state = dealt(2, [ids(1), ids(2)], SHEEP, [PIG])
    text = json.dumps(state.observation(1))
    for card in [*ids(1), PIG]:
        assert f'"id": {card},' not in text
    assert not {"hands", "deck", "deck_buried_by"} & set(state.observation(1))


def test_perturb_hidden_swaps_hidden_cards_and_keeps_the_observation() -> None:
    state = dealt(3, [ids(1), ids(2), ids(3)], SHEEP, [PIG])
    other = state.perturb_hidden(0, random.Random(1))
    assert other is not None
    assert other.observation(0) == state.observation(0)
    assert other.full_view() != state.full_view()
    assert cards_everywhere(other) == list(range(CARD_COUNT))


def test_perturb_hidden_never_moves_a_card_the_observer_buried() -> None:
    state = stuck_deal(3)
    state.apply({"bury": SHEEP + 3})
    for seed in range(50):
        other = state.perturb_hidden(0, random.Random(seed))
        assert other is not None and other.deck[-1] == SHEEP + 3


def test_perturb_hidden_returns_none_when_the_observer_knows_every_card() -> None:
    # Two players, the deck empty, the opponent's one card is the only one off the grid and out of our hand.
    grid = full_grid()
    a, b, c = grid.pop((6, 1)), grid.pop((6, 2)), grid.pop((6, 3))
    state = position(grid, [[a, b], [c]], deck=[])
    assert state.perturb_hidden(0, random.Random(0)) is None
    assert state.perturb_hidden(1, random.Random(0)) is None


def test_the_public_view_hides_every_hand_and_the_full_view_shows_them() -> None:
    state = dealt(2, [ids(1), ids(2)], SHEEP, [PIG])
    assert "hands" not in state.public_view() and "hand" not in state.public_view()
    assert state.full_view()["hands"][1] == [card_json(c) for c in ids(2)]
    assert state.full_view()["deck"] == [card_json(c) for c in state.deck]


# ----- built-in players and the example bot ------------------------------------------------------------------------
def test_the_builtin_players_are_random_and_heuristic() -> None:
    assert set(PLAYERS) == {"random", "heuristic"}


def test_the_heuristic_completes_a_line_when_it_can() -> None:
    grid = {(1, v): 7 * (v - 1) + 1 for v in range(1, 7)}
    grid[(0, 4)] = SHEEP
    state = position(grid, [[HORSE, HEN + 2, SHEEP + 2], [HEN + 3]])
    player = HeuristicPlayer(0)
    player.start(0, 2, state.options)
    assert player.act(state.observation(0), state.legal_actions()) == {"play": HORSE, "row": 1}


def test_the_heuristic_does_not_leave_a_line_one_card_short_when_it_can_avoid_it() -> None:
    # Row 0 holds 1-5; a cow there would leave it one horse short. A goose below the goose is safe.
    grid = {(0, v): 7 * (v - 1) + 1 for v in range(1, 6)}
    state = position(grid, [[COW, GOOSE + 2], [HEN]])
    player = HeuristicPlayer(0)
    player.start(0, 2, state.options)
    action = player.act(state.observation(0), state.legal_actions())
    assert action["play"] == GOOSE + 2


def test_the_heuristic_beats_random_in_two_player_games() -> None:
    seeds = range(60)
    more = 0
    for seed in seeds:
        hero = seed % 2
        names = ["random", "random"]
        names[hero] = "heuristic"
        scores = play_builtins("ranczo", names, seed).scores
        more += scores[hero] > scores[1 - hero]
    assert more / len(seeds) >= 0.85  # 98.8% over 1,000 seeds


def test_the_heuristic_beats_two_random_players() -> None:
    seeds = range(60)
    wins = 0
    for seed in seeds:
        names = ["random", "random"]
        names.insert(seed % 3, "heuristic")
        wins += play_builtins("ranczo", names, seed).ranks[seed % 3] == 1
    assert wins / len(seeds) >= 0.8  # 97% over 1,000 seeds


def test_a_game_of_heuristics_ends_normally() -> None:
    state = play("ranczo", [make_player("ranczo", "heuristic", s) for s in range(4)], 3)
    assert state.is_over() and sum(state.tokens) > 0


def _drive_example_bot(seed: int) -> RanczoState:
    state = GAME.new_state(2, seed)
    opponent = make_player("ranczo", "random", seed)
    opponent.start(1, 2, state.options)
    bot = subprocess.Popen(
        [sys.executable, str(EXAMPLE_BOT)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1
    )
    stdin, stdout = bot.stdin, bot.stdout
    assert stdin and stdout

    def ask(message: dict[str, Any]) -> dict[str, Any]:
        stdin.write(json.dumps(message) + "\n")
        stdin.flush()
        reply: dict[str, Any] = json.loads(stdout.readline())
        return reply

    try:
        start = {
            "type": "start",
            "protocol": 1,
            "game": "ranczo",
            "seat": 0,
            "players": 2,
            "options": state.options,
            "time": {"move_ms": 1000, "bank_ms": 10000},
        }
        assert ask(start) == {"type": "ready"}
        while (seat := state.to_move()) is not None:
            if seat == 0:
                reply = ask(
                    {"type": "act", "obs": state.observation(0), "legal": state.legal_actions(), "time_left_ms": 1000}
                )
                assert reply["type"] == "action"
                state.apply(reply["action"])
            else:
                state.apply(opponent.act(state.observation(1), state.legal_actions()))
        stdin.write(
            json.dumps({"type": "end", "outcome": state.outcome().to_json(), "obs": state.observation(0)}) + "\n"
        )
        stdin.close()
        assert bot.wait(timeout=10) == 0
    finally:
        if bot.poll() is None:
            bot.kill()
    return state


def test_the_example_bot_plays_whole_games_over_the_protocol() -> None:
    wins = 0
    for seed in range(6):
        state = _drive_example_bot(seed)
        wins += state.outcome().ranks[0] == 1
    assert wins >= 4
