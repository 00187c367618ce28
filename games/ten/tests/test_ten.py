"""TEN engine tests (the rules: games/ten/RULES.md). Positions are built with the ``deck`` option."""

from __future__ import annotations

import itertools
import json
import random
import subprocess
import sys
from typing import Any

import pytest

from games.base import IllegalAction, InvalidOptions, canonical
from games.registry import example_dir
from games.simulate import play, win_rate
from games.ten.engine import (
    COLOURS,
    DEFAULT_CURRENCY,
    GAME,
    TenState,
    build_catalogue,
    face_from_json,
    face_json,
    payment_options,
    score_cards,
)
from games.ten.players import PLAYERS, TenHeuristicPlayer, TenRandomPlayer, fill_payment

EXAMPLE_BOT = example_dir("ten") / "main.py"


# ----- helpers -------------------------------------------------------------------------------------------------------
def num(colour: str, value: int) -> dict[str, Any]:
    return {"kind": "number", "colour": colour, "value": value}


def cur(pips: int) -> dict[str, Any]:
    return {"kind": "currency", "pips": pips}


def wild(colour: str | None = None, value: int | None = None) -> dict[str, Any]:
    return {"kind": "wild", "colour": colour, "value": value}


def deck_with(top: list[dict[str, Any]], players: int = 3, options: dict[str, Any] | None = None) -> list[dict]:
    """A whole deck whose first cards are ``top``; the rest follow in catalogue order (numbers low first)."""
    rest = build_catalogue(players, GAME._check_options(players, dict(options or {})))
    for card in top:
        rest.remove(face_from_json(card))
    return [*top, *(face_json(face) for face in rest)]


def new(top: list[dict[str, Any]], players: int = 3, **options: Any) -> TenState:
    state = GAME.new_state(players, 1, {**options, "deck": deck_with(top, players, options)})
    assert isinstance(state, TenState)
    return state


def obs(state: TenState, seat: int = 0) -> dict[str, Any]:
    return state.observation(seat)


def ids_of(cards: list[dict[str, Any]]) -> list[int]:
    return [card["id"] for card in cards]


def card_locations(state: TenState) -> list[int]:
    view = state.full_view()
    ids = ids_of(view["deck"]) + ids_of(view["play_area"]) + ids_of(view["market"]) + ids_of(view["discard"])
    ids += [cid for col in view["collection"] for cid in ids_of(col)]
    if view["auction"] is not None:
        ids.append(view["auction"]["card"]["id"])
    return ids


def assert_conserved(state: TenState) -> None:
    """Every card is in exactly one place, and tokens only moved between the bank and the players."""
    ids = card_locations(state)
    assert sorted(ids) == list(range(len(state.faces))), "a card was lost or duplicated"
    bank = state.full_view()["bank"]
    start = state.options["start_coins"] * state.players
    assert sum(state.coins) == start + bank["black_out"] - bank["black_in"]
    assert sum(state.fiasco) == bank["fiasco_out"] - bank["fiasco_in"]
    assert all(0 <= coins <= state.options["coin_cap"] for coins in state.coins)
    assert all(f >= 0 for f in state.fiasco)


def flip(state: TenState, times: int = 1) -> list[str]:
    lines: list[str] = []
    for _ in range(times):
        lines += state.apply({"flip": True})
    return lines


def pass_all(state: TenState) -> None:
    while state.phase == "auction":
        state.apply({"pass": True})


# ----- RULES.md "Checks the engine passes" ---------------------------------------------------------------------------
def test_numbers_6_3_currency_1_number_3_bust_on_the_total_and_each_other_player_gains_a_token() -> None:
    state = new([num("red", 6), num("blue", 3), cur(1), num("green", 3)])
    totals = []
    for _ in range(3):
        flip(state)
        totals.append(state.total)
        assert state.phase == "flip"
    lines = flip(state)
    assert totals == [6, 9, 8]
    assert any("total 11" in line for line in lines) and any("fiasko" in line for line in lines)
    assert state.fiasco == [1, 0, 0]
    assert state.coins == [5, 6, 6]
    assert sorted(card["value"] for card in obs(state)["market"]) == [3, 3, 6]
    assert state.active == 1 and state.phase == "flip"
    assert_conserved(state)


def test_a_fiasko_on_the_total_gives_the_others_tokens_only_up_to_their_cap() -> None:
    state = new([cur(2), num("red", 9), num("blue", 4)], start_coins=9)
    flip(state, 3)  # totals -2, 7, 11
    assert state.fiasco == [1, 0, 0]
    assert state.coins == [9, 10, 10]


def test_currency_3_3_3_2_in_a_row_busts_on_the_fourth_and_nobody_else_gains() -> None:
    state = new([cur(3), cur(3), cur(3), cur(2)])
    flip(state, 3)
    assert state.phase == "flip" and state.pips == 9 and state.total == -9
    flip(state)
    assert state.fiasco == [1, 0, 0]
    assert state.coins == [5, 5, 5]
    assert state.market == [] and len(state.discard) == 4
    assert state.active == 1
    assert_conserved(state)


def test_red_1_2_3_a_red_colour_wild_blue_9_and_number_wild_8_score_6() -> None:
    cards = [num("red", 1), num("red", 2), num("red", 3), wild("red"), num("blue", 9), wild(value=8)]
    assert score_cards(cards) == 4 + 2


def test_a_complete_red_run_1_to_9_scores_10() -> None:
    assert score_cards([num("red", v) for v in range(1, 10)]) == 10
    assert score_cards([num("red", v) for v in range(1, 9)]) == 8


def test_cards_and_tokens_are_conserved_at_every_point_of_random_games() -> None:
    for seed in range(12):
        players = 2 + seed % 4
        state = GAME.new_state(players, seed)
        assert isinstance(state, TenState)
        bots = [TenRandomPlayer(seed * 10 + s) for s in range(players)]
        for seat, bot in enumerate(bots):
            bot.start(seat, players, state.options)
        while (seat := state.to_move()) is not None:
            assert_conserved(state)
            state.apply(bots[seat].act(state.observation(seat), state.legal_actions()))
        assert_conserved(state)


# ----- setup and options ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize(("players", "size"), [(2, 82), (3, 99), (4, 129), (5, 129)])
def test_the_deck_has_the_rules_size_for_each_player_count(players: int, size: int) -> None:
    state = GAME.new_state(players, 0)
    assert obs(state)["deck_left"] == size
    faces = build_catalogue(players, state.options)
    assert sum(1 for f in faces if f[0] == "wild") == 18


def test_the_three_player_deck_drops_the_4_plus_cards() -> None:
    faces = build_catalogue(3, GAME._check_options(3, {}))
    red = sorted(f[2] for f in faces if f[0] == "number" and f[1] == "red")
    assert red == [1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 8, 9]
    pips = sorted(f[3] for f in faces if f[0] == "currency")
    assert pips == [1] * 5 + [2] * 4 + [3] * 4 + [4] * 4 + [5] * 4


def test_each_player_starts_with_5_black_tokens_and_seat_0_flips_first() -> None:
    state = GAME.new_state(4, 3)
    assert state.coins == [5, 5, 5, 5] and state.fiasco == [0, 0, 0, 0]
    assert state.to_move() == 0 and state.legal_actions() == [{"flip": True}]


def test_options_are_filled_with_the_rules_defaults() -> None:
    options = GAME.new_state(3, 0).options
    assert options["coin_cap"] == 10 and options["start_coins"] == 5
    assert options["currency_cards"] == DEFAULT_CURRENCY
    assert options["marks_four_plus"] == {"numbers": [1, 2, 3, 4, 5, 6], "currency": [1, 1, 2, 2, 3, 3]}
    assert options["marks_three"] == {"numbers": [1, 2, 3], "currency": [1, 2, 3, 4, 5]}
    assert options["deck"] is None
    assert set(GAME.spec.options_schema) == set(options)


@pytest.mark.parametrize(
    "options",
    [
        {"no_such_option": 1},
        {"coin_cap": 0},
        {"coin_cap": "10"},
        {"coin_cap": True},
        {"start_coins": 11},
        {"start_coins": -1},
        {"currency_cards": {"1": 1, "2": 6, "3": 6, "4": 4, "5": 4}},
        {"currency_cards": {"x": 1}},
        {"currency_cards": []},
        {"marks_four_plus": {"numbers": [7, 7], "currency": []}},
        {"marks_three": {"numbers": [1], "currency": [9]}},
        {"marks_three": {"numbers": [1]}},
        {"deck": "shuffled"},
        {"deck": [num("red", 1)]},
    ],
)
def test_bad_options_are_refused(options: dict[str, Any]) -> None:
    with pytest.raises(InvalidOptions):
        GAME.new_state(2, 0, options)


def test_a_deck_with_a_wrong_card_or_a_wrong_id_is_refused() -> None:
    deck = deck_with([], 2)
    with pytest.raises(InvalidOptions):
        GAME.new_state(2, 0, {"deck": [num("red", 9), *deck[1:]]})  # two red 9s, no red 1
    with pytest.raises(InvalidOptions):
        GAME.new_state(2, 0, {"deck": [{**deck[0], "id": 5}, *deck[1:]]})  # id 5 is not a red 1
    with pytest.raises(InvalidOptions):
        GAME.new_state(2, 0, {"deck": [{**deck[0], "kind": "joker"}, *deck[1:]]})


def test_the_deck_option_is_dealt_top_first_and_ids_may_be_given_or_left_out() -> None:
    top = [num("yellow", 7), cur(4)]
    state = new(top)
    deck = state.full_view()["deck"]
    assert [face_from_json(c) for c in deck[:2]] == [face_from_json(c) for c in top]
    again = GAME.new_state(3, 9, {"deck": deck})
    assert again.full_view()["deck"] == deck
    flip(state)
    assert obs(state)["play_area"] == [deck[0]]


def test_custom_currency_cards_and_coin_cap_change_the_game() -> None:
    options = {"currency_cards": {"1": 10, "2": 6, "3": 6, "4": 4, "5": 4}, "coin_cap": 7}
    state = GAME.new_state(4, 0, options)
    assert obs(state)["deck_counts"]["currency"]["1"] == 10
    assert obs(state)["coin_cap"] == 7


# ----- flipping and rewards ------------------------------------------------------------------------------------------
def test_the_first_flip_of_a_turn_is_compulsory() -> None:
    state = new([num("red", 2)])
    before = canonical(state.full_view())
    with pytest.raises(IllegalAction, match="first flip of a turn is compulsory"):
        state.apply({"stop": "numbers"})
    assert canonical(state.full_view()) == before
    flip(state)
    assert state.legal_actions() == [{"flip": True}, {"stop": "numbers"}, {"stop": "coins"}]


def test_a_total_of_exactly_ten_and_pips_of_exactly_ten_do_not_bust() -> None:
    state = new([num("red", 4), num("blue", 6)])
    flip(state, 2)
    assert state.total == 10 and state.phase == "flip" and state.fiasco == [0, 0, 0]
    state = new([cur(5), cur(5)])
    flip(state, 2)
    assert state.pips == 10 and state.total == -10 and state.phase == "flip"


def test_currency_makes_room_below_zero_for_later_numbers() -> None:
    state = new([cur(4), num("red", 9), num("red", 5)])
    flip(state, 3)
    assert state.total == 10 and state.phase == "flip"


def test_taking_the_numbers_gives_the_cards_pays_the_others_the_pips_and_opens_buying() -> None:
    state = new([num("red", 2), cur(3), num("red", 3)])
    flip(state, 3)
    state.apply({"stop": "numbers"})
    assert sorted((c["colour"], c["value"]) for c in obs(state)["collection"][0]) == [("red", 2), ("red", 3)]
    assert state.coins == [5, 8, 8]
    assert state.phase == "buy" and state.to_move() == 0
    assert state.discard and state.play_area == [] and state.total == 0 and state.pips == 0
    assert state.legal_actions() == [{"buy": None}]  # the market is empty
    state.apply({"buy": None})
    assert state.active == 1 and state.phase == "flip"
    assert_conserved(state)


def test_taking_the_coins_sends_the_numbers_to_the_market_and_skips_buying() -> None:
    state = new([num("red", 2), cur(3), num("blue", 3)])
    flip(state, 3)
    state.apply({"stop": "coins"})
    assert state.coins == [8, 5, 5]
    assert sorted((c["colour"], c["value"]) for c in obs(state)["market"]) == [("blue", 3), ("red", 2)]
    assert state.collections[0] == []
    assert state.active == 1 and state.phase == "flip"
    assert_conserved(state)


def test_tokens_beyond_the_cap_are_not_taken() -> None:
    state = new([cur(5), cur(4)], start_coins=8)
    flip(state, 2)
    state.apply({"stop": "coins"})
    assert state.coins == [10, 8, 8]


def test_a_fiasko_gives_no_buying_and_a_fiasco_token() -> None:
    state = new([num("red", 9), num("red", 8)])
    flip(state, 2)
    assert state.fiasco == [1, 0, 0] and state.phase == "flip" and state.active == 1
    assert sorted(c["value"] for c in obs(state)["market"]) == [8, 9]
    assert state.legal_actions() == [{"flip": True}]


# ----- auctions ------------------------------------------------------------------------------------------------------
def test_a_wild_is_auctioned_at_once_from_the_left_of_the_active_player_and_never_counts_to_the_total() -> None:
    state = new([num("red", 5), wild("blue")])
    flip(state, 2)
    view = obs(state)
    assert view["phase"] == "auction" and view["total"] == 5 and len(view["play_area"]) == 1
    assert view["auction"]["card"]["kind"] == "wild" and view["auction"]["bids"] == [None, None, None]
    order = []
    for bid in (None, 2, 3):
        order.append(state.to_move())
        state.apply({"pass": True} if bid is None else {"bid": bid})
    assert order == [1, 2, 0]
    assert state.phase == "pay" and state.to_move() == 0
    assert obs(state)["auction"]["bids"] == [3, "pass", 2]


def test_a_bid_must_beat_the_highest_bid_and_not_exceed_what_the_bidder_can_pay() -> None:
    state = new([wild()])
    flip(state)
    state.apply({"bid": 4})  # seat 1
    with pytest.raises(IllegalAction, match="higher than the highest bid"):
        state.apply({"bid": 4})
    with pytest.raises(IllegalAction, match="exceed what the bidder can pay"):
        state.apply({"bid": 6})
    with pytest.raises(IllegalAction):
        state.apply({"bid": 5.0})
    assert state.legal_actions() == [{"pass": True}, {"bid": 5}]


def test_fiasco_tokens_and_number_cards_count_toward_what_a_bidder_can_pay() -> None:
    state = new([num("red", 1), num("red", 2), num("red", 9), num("red", 8), wild()], players=2)
    flip(state, 2)
    state.apply({"stop": "numbers"})
    state.apply({"buy": None})
    flip(state, 2)  # seat 1 busts: one fiasco token
    flip(state)  # seat 0 flips the full wild
    assert state.to_move() == 1
    assert state.legal_actions()[-1] == {"bid": 5 + 3}
    state.apply({"pass": True})
    assert state.legal_actions()[-1] == {"bid": 5 + 2}


def test_when_everyone_passes_the_wild_is_discarded_and_the_active_player_goes_on() -> None:
    state = new([num("red", 5), wild("green")])
    flip(state, 2)
    wild_id = state.auction["card"] if state.auction else None
    pass_all(state)
    assert state.phase == "flip" and state.to_move() == 0 and state.discard == [wild_id]
    assert state.legal_actions() == [{"flip": True}, {"stop": "numbers"}, {"stop": "coins"}]
    assert_conserved(state)


def test_the_winner_of_an_auction_pays_takes_the_wild_and_the_active_player_goes_on() -> None:
    state = new([wild(value=7)])
    flip(state)
    state.apply({"bid": 2})
    state.apply({"pass": True})
    state.apply({"pass": True})
    assert state.to_move() == 1
    legal = state.legal_actions()
    assert {"pay": {"coins": 2, "fiasco": 0, "cards": []}} in legal
    state.apply({"pay": {"coins": 2, "fiasco": 0, "cards": []}})
    assert state.coins == [5, 3, 5]
    assert obs(state)["collection"][1][0]["kind"] == "wild"
    assert state.phase == "flip" and state.to_move() == 0 and state.auction is None
    assert state.legal_actions() == [{"flip": True}, {"stop": "numbers"}, {"stop": "coins"}]
    assert_conserved(state)


def test_paying_with_number_cards_sends_them_to_the_discard_pile_and_wilds_cannot_pay() -> None:
    state = new([num("red", 1), num("blue", 1), wild("red"), wild(), cur(1)], players=2)
    flip(state, 2)
    state.apply({"stop": "numbers"})
    state.apply({"buy": None})
    flip(state)  # seat 1 flips the red colour-wild
    state.apply({"bid": 1})  # seat 0
    state.apply({"pass": True})
    red1, blue1 = sorted(state.collections[0])
    state.apply({"pay": {"coins": 0, "fiasco": 0, "cards": [red1]}})
    assert red1 in state.discard and red1 not in state.collections[0]
    state.apply({"flip": True})  # the full wild
    state.apply({"bid": 2})  # seat 0: 5 coins + blue 1
    state.apply({"pass": True})
    wild_id = next(cid for cid in state.collections[0] if state.faces[cid][0] == "wild")
    with pytest.raises(IllegalAction, match="wild cards cannot pay"):
        state.apply({"pay": {"coins": 1, "fiasco": 0, "cards": [wild_id]}})
    with pytest.raises(IllegalAction, match="not in seat 0's collection"):
        state.apply({"pay": {"coins": 1, "fiasco": 0, "cards": [9999]}})
    with pytest.raises(IllegalAction, match="fill in"):
        state.apply({"pay": {"coins": 1, "fiasco": 0, "cards": [None]}})
    state.apply({"pay": {"coins": 1, "fiasco": 0, "cards": [blue1]}})
    assert_conserved(state)


def test_a_payment_must_reach_the_price_and_hold_no_unit_it_could_do_without() -> None:
    state = new([num("red", 9), num("red", 8), wild()], players=2)
    flip(state, 2)  # seat 0 busts: a fiasco token
    flip(state)  # seat 1 flips the full wild
    state.apply({"bid": 4})  # seat 0: 5 black tokens and a fiasco token
    state.apply({"pass": True})
    before = canonical(state.full_view())
    with pytest.raises(IllegalAction, match="does not reach"):
        state.apply({"pay": {"coins": 3, "fiasco": 0, "cards": []}})
    with pytest.raises(IllegalAction, match="overpays"):
        state.apply({"pay": {"coins": 2, "fiasco": 1, "cards": []}})
    with pytest.raises(IllegalAction, match="only 1 fiasco"):
        state.apply({"pay": {"coins": 0, "fiasco": 2, "cards": []}})
    with pytest.raises(IllegalAction, match="a payment is an object"):
        state.apply({"pay": {"coins": 4}})
    assert canonical(state.full_view()) == before
    assert state.legal_actions() == [
        {"pay": {"coins": 4, "fiasco": 0, "cards": []}},
        {"pay": {"coins": 1, "fiasco": 1, "cards": []}},
    ]
    state.apply({"pay": {"coins": 1, "fiasco": 1, "cards": []}})
    assert state.coins == [4, 5] and state.fiasco == [0, 0]
    assert_conserved(state)


def test_fiasco_tokens_alone_may_overpay_when_one_fewer_would_be_short() -> None:
    top = [num("red", 9), num("red", 8), num("blue", 9), num("blue", 8), num("green", 9), num("green", 8), wild()]
    state = new(top, players=2)
    flip(state, 6)  # seat 0, seat 1, seat 0 bust
    assert state.fiasco == [2, 1]
    flip(state)  # seat 1 flips the full wild
    state.apply({"bid": 5})  # seat 0
    state.apply({"pass": True})
    legal = state.legal_actions()
    assert {"pay": {"coins": 0, "fiasco": 2, "cards": []}} in legal
    assert {"pay": {"coins": 2, "fiasco": 1, "cards": []}} in legal
    with pytest.raises(IllegalAction, match="overpays"):
        state.apply({"pay": {"coins": 3, "fiasco": 1, "cards": []}})
    state.apply({"pay": {"coins": 0, "fiasco": 2, "cards": []}})
    assert state.coins == [5, 5] and state.fiasco == [0, 1]
    assert_conserved(state)


def test_payment_options_follow_the_no_change_rule() -> None:
    # price 4 with 1 coin, 2 fiasco tokens, 1 card: exact payments, or fiasco tokens alone as few as reach it
    assert payment_options(4, 1, 2, 1) == [(1, 1, 0), (0, 2, 0), (0, 1, 1)]
    assert payment_options(3, 0, 1, 0) == [(0, 1, 0)]
    assert payment_options(5, 10, 0, 0) == [(5, 0, 0)]
    assert payment_options(5, 0, 0, 4) == []


# ----- buying --------------------------------------------------------------------------------------------------------
def _state_with_market() -> TenState:
    """Seat 0 sends red 4 and blue 2 to the market, then seat 1 takes green 1."""
    state = new([num("red", 4), num("blue", 2), num("green", 1)], players=2)
    flip(state, 2)
    state.apply({"stop": "coins"})
    flip(state)
    state.apply({"stop": "numbers"})
    return state


def test_after_taking_the_numbers_one_market_card_may_be_bought_at_its_value() -> None:
    state = _state_with_market()
    red4 = next(c["id"] for c in obs(state)["market"] if c["value"] == 4)
    legal = state.legal_actions()
    assert legal[0] == {"buy": None}
    assert {"buy": red4, "pay": {"coins": 4, "fiasco": 0, "cards": []}} in legal
    assert {"buy": red4, "pay": {"coins": 3, "fiasco": 0, "cards": [None]}} in legal
    with pytest.raises(IllegalAction, match="overpays"):
        state.apply({"buy": red4, "pay": {"coins": 5, "fiasco": 0, "cards": []}})
    with pytest.raises(IllegalAction, match="not in the market"):
        state.apply({"buy": 9999, "pay": {"coins": 4, "fiasco": 0, "cards": []}})
    green1 = state.collections[1][0]
    state.apply({"buy": red4, "pay": {"coins": 3, "fiasco": 0, "cards": [green1]}})
    assert red4 in state.collections[1] and green1 in state.discard and red4 not in state.market
    assert state.coins[1] == 2 and state.active == 0 and state.phase == "flip"
    assert_conserved(state)


def test_buying_ends_the_turn() -> None:
    state = _state_with_market()
    state.apply({"buy": None})
    with pytest.raises(IllegalAction):
        state.apply({"buy": None})
    assert state.phase == "flip"


# ----- the end -------------------------------------------------------------------------------------------------------
def _play_to(state: TenState, deck_left: int) -> None:
    """Every turn: flip once, pass every auction, take the coins; until ``deck_left`` cards remain."""
    while len(state.deck) > deck_left:
        if state.phase == "auction":
            pass_all(state)
        elif state.phase == "flip" and not state.flipped:
            flip(state)
        else:
            state.apply({"stop": "coins"})
    if state.phase == "auction":
        pass_all(state)


def test_flipping_the_last_card_ends_the_game_after_that_turn_with_a_final_buy_from_the_left() -> None:
    state = new([], players=3)
    _play_to(state, 1)
    if state.flipped:
        state.apply({"stop": "coins"})
    active = state.active
    flip(state)
    assert state.deck == []
    if state.phase == "auction":
        pass_all(state)
    if state.phase == "flip":
        assert state.legal_actions() == [{"stop": "numbers"}, {"stop": "coins"}]
        with pytest.raises(IllegalAction, match="deck is empty"):
            state.apply({"flip": True})
        state.apply({"stop": "coins"})
    assert state.phase == "final_buy"
    order = []
    while not state.is_over():
        order.append(state.to_move())
        state.apply({"buy": None})
    assert order == [(active + 1) % 3, (active + 2) % 3, active]
    assert state.to_move() is None and state.legal_actions() == []
    assert_conserved(state)


def test_the_active_player_buys_in_the_turn_and_again_at_the_final_buy() -> None:
    state = new([], players=2)
    _play_to(state, 1)
    if state.flipped:
        state.apply({"stop": "coins"})
    flip(state)
    if state.phase == "auction":
        pass_all(state)
    if state.phase == "flip":
        state.apply({"stop": "numbers"})
        assert state.phase == "buy"
        state.apply({"buy": None})
    assert state.phase == "final_buy" and len(state.final_order) == 2


def test_a_wild_as_the_last_card_is_auctioned_then_the_active_player_must_stop() -> None:
    deck = deck_with([], 2)
    last_wild = next(i for i, c in enumerate(deck) if c["kind"] == "wild")
    deck.append(deck.pop(last_wild))
    state = GAME.new_state(2, 0, {"deck": deck})
    assert isinstance(state, TenState)
    _play_to(state, 1)
    if state.flipped:
        state.apply({"stop": "coins"})
    flip(state)
    assert state.phase == "auction" and state.deck == []
    pass_all(state)
    assert state.legal_actions() == [{"stop": "numbers"}, {"stop": "coins"}]


def test_a_fiasko_on_the_last_card_goes_to_the_final_buy() -> None:
    deck = deck_with([], 2)
    nine = next(i for i, c in enumerate(deck) if c.get("value") == 9 and c["kind"] == "number")
    eight = next(i for i, c in enumerate(deck) if c.get("value") == 8 and c["kind"] == "number")
    last_two = [deck[eight], deck[nine]]
    deck = [c for i, c in enumerate(deck) if i not in (eight, nine)] + last_two
    state = GAME.new_state(2, 0, {"deck": deck})
    assert isinstance(state, TenState)
    _play_to(state, 2)
    if state.flipped:
        state.apply({"stop": "coins"})
    flip(state, 2)
    assert state.phase == "final_buy" and state.fiasco[state.active] >= 1


# ----- scoring -------------------------------------------------------------------------------------------------------
def test_only_the_longest_run_of_each_colour_counts_and_duplicates_count_once() -> None:
    cards = [num("red", v) for v in (1, 2, 4, 5, 6, 6)] + [num("blue", 9), num("green", 3), num("green", 4)]
    assert score_cards(cards) == 3 + 1 + 2


def test_a_colour_wild_alone_is_a_run_of_one_and_helps_only_its_own_colour() -> None:
    assert score_cards([wild("red")]) == 1
    assert score_cards([wild("red"), wild("red")]) == 2
    assert score_cards([num("blue", 1), num("blue", 3), wild("red")]) == 1 + 1


def test_a_number_wild_goes_to_the_colour_where_it_helps_most() -> None:
    cards = [
        num("red", 1),
        num("red", 2),
        num("blue", 3),
        num("blue", 4),
        num("blue", 6),
        num("blue", 7),
        wild(value=5),
    ]
    assert score_cards(cards) == 2 + 5
    cards = [num("red", 4), num("red", 6), num("blue", 6), wild(value=5)]
    assert score_cards(cards) == 3 + 1


def test_each_wild_is_used_once_when_two_colours_want_it() -> None:
    cards = [num("red", 4), num("red", 6), num("blue", 4), num("blue", 6), wild(value=5)]
    assert score_cards(cards) == 3 + 1
    assert score_cards([*cards, wild()]) == 3 + 3


def test_the_full_wild_is_any_number_in_any_colour_and_can_complete_a_run_of_ten() -> None:
    red = [num("red", v) for v in range(1, 10) if v != 5]
    assert score_cards(red) == 4
    assert score_cards([*red, wild()]) == 10
    assert score_cards([*red, wild(value=5)]) == 10
    assert score_cards([*red, wild("red")]) == 10
    assert score_cards([*red, wild("blue")]) == 4 + 1


def test_wilds_alone_make_runs() -> None:
    assert score_cards([wild(value=3), wild(value=4), wild()]) == 3
    assert score_cards([wild(value=3), wild(value=5)]) == 1 + 1
    assert score_cards([]) == 0


def _reference_score(cards: list[dict[str, Any]]) -> int:
    """Brute force: try every placement of every wild (colour, value) and score the longest runs."""
    fixed = {(c["colour"], c["value"]) for c in cards if c["kind"] == "number"}
    choices = []
    for card in cards:
        if card["kind"] != "wild":
            continue
        colours = [card["colour"]] if card["colour"] else list(COLOURS)
        values = [card["value"]] if card["value"] else list(range(1, 10))
        choices.append([(c, v) for c in colours for v in values])
    best = 0
    for placement in itertools.product(*choices):
        have = fixed | set(placement)
        total = 0
        for colour in COLOURS:
            run = longest = 0
            for v in range(1, 10):
                run = run + 1 if (colour, v) in have else 0
                longest = max(longest, run)
            total += 10 if longest == 9 else longest
        best = max(best, total)
    return best


def test_the_wild_assignment_matches_a_brute_force_search_on_random_collections() -> None:
    rng = random.Random(5)
    wilds = [wild(c) for c in COLOURS] * 2 + [wild(value=v) for v in range(1, 10)] + [wild()]
    for _ in range(100):
        cards = [num(rng.choice(COLOURS), rng.randint(1, 9)) for _ in range(rng.randint(0, 14))]
        cards += rng.sample(wilds, rng.choice([0, 1, 2, 2, 3]))
        assert score_cards(cards) == _reference_score(cards), cards


def _card_id(state: TenState, card: dict[str, Any], taken: set[int]) -> int:
    face = face_from_json(card)
    cid = next(i for i, f in enumerate(state.faces) if f == face and i not in taken)
    taken.add(cid)
    return cid


def test_the_outcome_ranks_by_score_then_black_tokens_then_fiasco_tokens_and_shares_full_ties() -> None:
    state = new([], players=4)
    taken: set[int] = set()
    runs = [
        [num("red", 1), num("red", 2), num("red", 3)],
        [num("blue", 4), num("blue", 5), wild("blue")],
        [num("green", 7), wild(value=8), wild()],
        [num("yellow", 9)],
    ]
    for seat, cards in enumerate(runs):
        for card in cards:
            cid = _card_id(state, card, taken)
            state.deck.remove(cid)
            state.collections[seat].append(cid)
    state.phase = "over"
    state.coins = [4, 4, 4, 9]
    state.fiasco = [1, 2, 1, 0]
    outcome = state.outcome()
    assert outcome.scores == [3, 3, 3, 1]
    assert outcome.ranks == [2, 1, 2, 4]
    state.coins = [5, 4, 4, 9]
    assert state.outcome().ranks == [1, 2, 3, 4]


def test_a_whole_game_outcome_scores_each_collection() -> None:
    state = play("ten", [TenRandomPlayer(1), TenRandomPlayer(2), TenRandomPlayer(3)], seed=11)
    assert isinstance(state, TenState)
    final = state.observation(0)
    assert state.outcome().scores == [score_cards(col) for col in final["collection"]]
    assert final["phase"] == "over"


# ----- information, views and actions --------------------------------------------------------------------------------
def test_the_observation_has_every_field_of_the_rules_in_its_format() -> None:
    state = new([num("red", 5), cur(2), wild("yellow")])
    flip(state, 3)
    view = obs(state, 2)
    for field in (
        "seat",
        "players",
        "phase",
        "play_area",
        "total",
        "pips",
        "deck_left",
        "market",
        "collection",
        "coins",
        "fiasco",
        "auction",
    ):
        assert field in view
    assert view["seat"] == 2 and view["players"] == 3 and view["phase"] == "auction"
    assert view["play_area"][0] == {"id": view["play_area"][0]["id"], "kind": "number", "colour": "red", "value": 5}
    assert set(view["play_area"][1]) == {"id", "kind", "pips"}
    assert view["auction"]["card"] == {
        "id": view["auction"]["card"]["id"],
        "kind": "wild",
        "colour": "yellow",
        "value": None,
    }
    assert view["auction"]["bids"] == [None, None, None] and view["auction"]["high"] is None
    assert view["total"] == 3 and view["pips"] == 2 and view["deck_left"] == 96
    assert len(view["collection"]) == len(view["coins"]) == len(view["fiasco"]) == 3
    assert json.loads(json.dumps(view)) == view


def test_the_observation_shows_what_the_deck_holds_but_not_its_order() -> None:
    state = new([num("red", 5), num("red", 6)])
    counts = obs(state)["deck_counts"]
    assert counts["number"]["5"] == 8 and counts["colour"]["red"]["5"] == 2 and counts["wild"] == 18
    flip(state)
    assert obs(state)["deck_counts"]["colour"]["red"]["5"] == 1
    assert "deck" not in obs(state) and "deck" in state.full_view()
    other = state.perturb_hidden(0, random.Random(1))
    assert other is not None
    assert other.observation(0) == obs(state) and other.full_view() != state.full_view()


def test_nothing_is_hidden_once_the_deck_is_gone() -> None:
    state = new([], players=2)
    _play_to(state, 1)
    assert state.perturb_hidden(0, random.Random(0)) is None


def test_every_listed_action_is_accepted_and_every_filled_template_too() -> None:
    rng = random.Random(3)
    for seed in range(3):
        state = GAME.new_state(3, seed)
        assert isinstance(state, TenState)
        bots = [TenRandomPlayer(seed + s) for s in range(3)]
        for seat, bot in enumerate(bots):
            bot.start(seat, 3, state.options)
        while (seat := state.to_move()) is not None:
            legal = state.legal_actions()
            mine = [c["id"] for c in obs(state, seat)["collection"][seat] if c["kind"] == "number"]
            for action in rng.sample(legal, min(2, len(legal))):
                filled = fill_payment(action, rng.sample(mine, len(mine)))
                state.clone().apply(filled)
            state.apply(bots[seat].act(obs(state, seat), legal))


def test_an_illegal_action_names_the_rule_and_changes_nothing() -> None:
    state = new([num("red", 5), wild("blue")])
    flip(state)
    before = canonical(state.full_view())
    for bad, rule in [
        ({"bid": 3}, "flips or stops"),
        ({"flip": 1}, "flips or stops"),
        ({"stop": "cards"}, "flips or stops"),
        ({"buy": None}, "flips or stops"),
    ]:
        with pytest.raises(IllegalAction, match=rule):
            state.apply(bad)
    assert canonical(state.full_view()) == before and len(state.history) == 1
    flip(state)
    with pytest.raises(IllegalAction, match="bid once"):
        state.apply({"flip": True})
    with pytest.raises(IllegalAction, match="at least 1"):
        state.apply({"bid": 0})


def test_the_narration_tells_what_happened() -> None:
    state = new([num("red", 5), cur(2), num("blue", 9)])
    lines = flip(state, 3)
    assert lines[0] == "seat 0 flips red 5: total 5"
    assert lines[1] == "seat 0 flips currency 2: total 3, pips 2"
    assert "seat 0 flips blue 9: total 12" in lines and "seat 1 takes 2 black token(s)" in lines


# ----- players -------------------------------------------------------------------------------------------------------
def test_the_builtin_players_are_random_and_heuristic() -> None:
    assert PLAYERS["random"] is TenRandomPlayer and PLAYERS["heuristic"] is TenHeuristicPlayer
    assert set(PLAYERS) == {"random", "heuristic"}


def test_the_heuristic_stops_when_the_bust_risk_is_high() -> None:
    state = new([num("red", 5), num("red", 4)], players=3)
    flip(state, 2)
    bot = TenHeuristicPlayer(0)
    bot.start(0, 3, state.options)
    assert bot.act(obs(state, 0), state.legal_actions()) == {"stop": "numbers"}
    state = new([num("red", 1)], players=3)
    flip(state)
    assert bot.act(obs(state, 0), state.legal_actions()) == {"flip": True}


def test_the_heuristic_beats_two_random_players() -> None:
    rate, low, _high = win_rate("ten", "heuristic", ["random", "random"], range(20))
    assert rate >= 0.8 and low > 0.55


def test_the_example_bot_plays_a_whole_game_over_the_protocol() -> None:
    state = GAME.new_state(3, 4)
    bots = [None, TenRandomPlayer(1), TenRandomPlayer(2)]
    for seat, bot in enumerate(bots):
        if bot:
            bot.start(seat, 3, state.options)
    proc = subprocess.Popen(
        [sys.executable, str(EXAMPLE_BOT)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    assert proc.stdin and proc.stdout

    def send(message: dict[str, Any]) -> None:
        assert proc.stdin
        proc.stdin.write(json.dumps(message) + "\n")
        proc.stdin.flush()

    def receive() -> dict[str, Any]:
        assert proc.stdout
        return json.loads(proc.stdout.readline())

    try:
        send(
            {
                "type": "start",
                "game": "ten",
                "seat": 0,
                "players": 3,
                "options": state.options,
                "time": {"move_ms": 1000, "bank_ms": 10000},
            }
        )
        assert receive() == {"type": "ready"}
        while (seat := state.to_move()) is not None:
            if seat == 0:
                send({"type": "act", "obs": obs(state, 0), "legal": state.legal_actions(), "time_left_ms": 10000})
                reply = receive()
                assert reply["type"] == "action"
                state.apply(reply["action"])
            else:
                bot = bots[seat]
                assert bot is not None
                state.apply(bot.act(obs(state, seat), state.legal_actions()))
        send({"type": "end", "outcome": state.outcome().to_json(), "obs": obs(state, 0)})
        # After end the loop waits for another game (a series on the same process), and ends with stdin.
        send({"type": "start", "game": "ten", "seat": 0, "players": 3, "options": state.options, "time": {}})
        assert receive() == {"type": "ready"}
        proc.stdin.close()
        assert proc.wait(timeout=10) == 0
    finally:
        proc.kill()
