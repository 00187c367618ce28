"""High Society: the checks and the worked example of games/high_society/RULES.md, and its edge cases."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from fractions import Fraction
from typing import Any

import pytest

from games.base import IllegalAction, InvalidOptions, RandomPlayer, canonical
from games.high_society.engine import (
    GAME,
    MONEY,
    MONEY_TOTAL,
    STATUS_DECK,
    HighSocietyState,
    _bids_for,
    card_json,
    score,
)
from games.high_society.players import HeuristicPlayer
from games.registry import example_dir, rules_path
from games.simulate import play, win_rate

P, GOSSIP, FAUX, FRAUD = "prestige", "discard", "minus5", "halve"
PASS = {"pass": True}
EXAMPLE_BOT = example_dir("high_society") / "main.py"


def deck(*top: Any) -> list[dict[str, Any]]:
    """The whole deck in the observation format: ``top`` first, then the rest with the red-ring cards last."""
    rest = list(STATUS_DECK)
    for card in top:
        rest.remove(card)
    rest.sort(key=lambda c: (c in (P, FRAUD), str(c)))
    return [card_json(c) for c in [*top, *rest]]


def new(*top: Any, players: int = 3) -> HighSocietyState:
    state = GAME.new_state(players, 1, {"deck": deck(*top)})
    assert isinstance(state, HighSocietyState)
    return state


def run(state: HighSocietyState, *moves: tuple[int, dict[str, Any]]) -> list[str]:
    """Apply ``moves`` (seat, action), checking each seat is the one to move."""
    lines: list[str] = []
    for seat, action in moves:
        assert state.to_move() == seat, f"expected seat {seat} to move, not {state.to_move()}"
        lines += state.apply(action)
    return lines


def bid(*values: int) -> dict[str, Any]:
    return {"bid": list(values)}


def give(state: HighSocietyState, winner: int) -> None:
    """Everyone but ``winner`` passes; the winner, if asked, bids its smallest card. When the winner sits just before
    the revealer, it is never asked and takes the card for nothing."""
    auction, card = state.auctions, state.card
    while state.to_move() is not None and state.auctions == auction and state.phase == "bid":
        seat = state.to_move()
        state.apply(bid(min(state.hands[seat])) if seat == winner else PASS)
    assert state.won[winner][-1] == card


def pass_through(state: HighSocietyState) -> None:
    """One decision: pass, or discard the smallest guest when Gossip asks for one."""
    state.apply(PASS if state.phase == "bid" else state.legal_actions()[0])


def random_playout(seed: int, players: int, on_step: Any = None) -> HighSocietyState:
    state = GAME.new_state(players, seed)
    bots = [RandomPlayer(seed * 10 + seat) for seat in range(players)]
    while (seat := state.to_move()) is not None:
        if on_step:
            on_step(state)
        state.apply(bots[seat].act(state.observation(seat), state.legal_actions()))
    return state


# ----- RULES.md "Checks the engine passes" -------------------------------------------------------------------------
def test_the_rulebook_scoring_example_gives_exactly_14() -> None:
    assert score([3, 9, FAUX, P, P, FRAUD]) == Fraction(14)


def test_the_rulebook_scoring_example_played_out_gives_14_in_the_outcome() -> None:
    state = new(3, 9, FAUX, P, P, FRAUD, P)
    run(state, (0, bid(1)), (1, PASS), (2, PASS))  # guest 3
    run(state, (0, bid(2)), (1, PASS), (2, PASS))  # guest 9
    # Faux pas: seat 0 is the first to pass, so takes it and its 3 back; seats 1 and 2 lose their bids.
    run(state, (0, bid(3)), (1, bid(12)), (2, bid(15)), (0, PASS))
    run(state, (0, bid(4)), (1, PASS), (2, PASS))  # prestige
    run(state, (0, bid(6)), (1, PASS), (2, PASS))  # prestige
    run(state, (0, PASS))  # Fraud
    assert state.is_over() and state.won[0] == [3, 9, FAUX, P, P, FRAUD]
    assert state.money_left() == [93, 94, 91]
    outcome = state.outcome()
    assert outcome.scores == [14, 0, 0] and isinstance(outcome.scores[0], int)
    assert outcome.ranks == [1, 2, 3]


def test_money_is_conserved_hand_plus_bids_plus_spent_is_106_at_every_point() -> None:
    def check(state: HighSocietyState) -> None:
        for seat in range(state.players):
            cards = state.hands[seat] + state.bids[seat] + state.spent[seat]
            assert sum(cards) == MONEY_TOTAL == 106
            assert sorted(cards) == sorted(MONEY)

    for seed in range(40):
        check(random_playout(seed, 3 + seed % 3, check))


def test_the_game_ends_on_the_fourth_red_ring_card_and_never_auctions_it() -> None:
    state = new(P, P, FRAUD, P)
    give(state, 2)
    give(state, 1)
    run(state, (1, PASS))  # Fraud, the third red-ring card, is auctioned as a scandal
    assert state.is_over() and state.to_move() is None and state.legal_actions() == []
    assert state.auctions == 3 and state.red == 4
    view = state.public_view()
    assert view["card"] is None and view["ending_card"] == {"kind": "prestige"}
    assert sum(len(cards) for cards in view["won"]) == 3
    assert view["deck_left"] == 12


def test_fraud_as_the_fourth_red_ring_card_also_ends_the_game_unauctioned() -> None:
    state = new(P, P, P, FRAUD)
    for winner in (2, 1, 0):
        give(state, winner)
    assert state.is_over() and state.public_view()["ending_card"] == {"kind": "scandal", "effect": "halve"}


def test_at_most_15_auctions_happen_when_the_fourth_red_ring_card_is_last() -> None:
    state = new()  # the helper puts the four red-ring cards at the bottom, the fourth one 16th
    while not state.is_over():
        pass_through(state)
    assert state.auctions == 15 and state.full_view()["deck"] == []


def test_random_games_never_hold_more_than_15_auctions() -> None:
    for seed in range(100):
        state = random_playout(seed, 3 + seed % 3)
        assert state.auctions <= 15 and state.red == 4


def test_a_scandal_auction_ends_on_the_first_pass_even_the_revealers_first_action() -> None:
    state = new(FAUX, 5)
    lines = run(state, (0, PASS))
    assert state.won[0] == [FAUX]
    assert state.card == 5 and state.to_move() == 0 and state.auctions == 2
    assert "seat 0 passes and takes Faux pas (-5)" in lines


def test_the_first_to_pass_a_scandal_takes_back_their_bid_and_everyone_else_loses_theirs() -> None:
    state = new(FAUX, 5)
    run(state, (0, bid(1)), (1, bid(2)), (2, bid(3)), (0, bid(4)), (1, PASS))
    assert state.won == [[], [FAUX], []]
    assert state.money_left() == [106 - 5, 106, 106 - 3]
    assert state.spent == [[4, 1], [], [3]]
    assert state.to_move() == 1 and state.card == 5  # the taker starts the next auction


# ----- Gossip ------------------------------------------------------------------------------------------------------
def test_gossip_makes_its_taker_discard_one_of_their_guests_then_they_reveal_the_next_card() -> None:
    state = new(4, 9, P, GOSSIP, 7)
    run(state, (0, PASS), (1, bid(1)), (2, PASS))  # guest 4 to seat 1
    run(state, (1, bid(2)), (2, PASS), (0, PASS))  # guest 9 to seat 1
    run(state, (1, bid(3)), (2, PASS), (0, PASS))  # prestige to seat 1
    run(state, (1, PASS))  # seat 1 takes Gossip
    assert state.to_move() == 1 and state.phase == "discard" and state.card is None
    # Only guests are offered: the prestige card is never discarded this way.
    assert state.legal_actions() == [{"discard": 4}, {"discard": 9}]
    run(state, (1, {"discard": 4}))
    assert state.won[1] == [9, P] and state.discarded == [4, GOSSIP]
    assert state.card == 7 and state.to_move() == 1


def test_gossip_with_no_guest_waits_and_takes_the_next_guest_its_owner_wins() -> None:
    state = new(GOSSIP, P, 6, 8)
    run(state, (0, PASS))
    assert state.pending == [True, False, False] and state.won[0] == [GOSSIP]
    assert state.card == P and state.to_move() == 0  # no discard decision: the next auction starts
    run(state, (0, bid(1)), (1, PASS), (2, PASS))  # prestige: never taken by the Gossip
    assert state.won[0] == [GOSSIP, P] and state.pending[0]
    run(state, (0, PASS), (1, bid(1)), (2, PASS))  # guest 6 goes to seat 1: seat 0's Gossip still waits
    assert state.pending[0] and state.won[1] == [6]
    run(state, (1, PASS), (2, PASS))  # seat 0 is left in and takes guest 8 for nothing
    assert state.won[0] == [P] and state.pending == [False, False, False]
    assert state.discarded == [8, GOSSIP]
    assert state.observation(2)["pending_discard"] == [False, False, False]


def test_prestige_is_never_discarded_by_gossip() -> None:
    state = new(P, GOSSIP)
    run(state, (0, bid(1)), (1, PASS), (2, PASS))
    run(state, (0, PASS))
    assert state.phase == "bid" and state.pending[0] and state.won[0] == [P, GOSSIP]


def test_a_waiting_gossip_at_the_end_costs_nothing() -> None:
    assert score([GOSSIP]) == 0 and score([GOSSIP, P]) == 0


def test_discarding_a_guest_you_do_not_own_is_refused_and_changes_nothing() -> None:
    state = new(4, GOSSIP)
    give(state, 2)
    run(state, (2, PASS))
    before = canonical(state.full_view())
    for bad in ({"discard": 5}, {"discard": "4"}, {"discard": True}, PASS, bid(1)):
        with pytest.raises(IllegalAction, match="Gossip"):
            state.apply(bad)
    assert canonical(state.full_view()) == before


# ----- luxury auctions ---------------------------------------------------------------------------------------------
def test_a_player_left_in_without_having_bid_pays_nothing() -> None:
    state = new(7)
    lines = run(state, (0, PASS), (1, PASS))
    assert state.won[2] == [7] and state.money_left() == [106, 106, 106]
    assert "seat 2 wins guest 7 for 0" in lines
    assert state.to_move() == 2  # the winner starts the next auction


def test_the_winner_pays_their_bid_and_the_others_take_theirs_back() -> None:
    state = new(7)
    run(state, (0, bid(3)), (1, bid(4)), (2, PASS), (0, bid(2)), (1, PASS))
    assert state.won[0] == [7]
    assert state.spent == [[3, 2], [], []] and state.money_left() == [101, 106, 106]
    assert state.to_move() == 0


def test_bid_cards_are_added_to_those_already_in_front_of_the_player() -> None:
    state = new(7)
    run(state, (0, bid(3)), (1, bid(4)), (2, PASS))
    # Seat 0 must beat 4 with 3 already down: adding 1 is not enough, 2 is.
    with pytest.raises(IllegalAction, match="exceed the highest bid 4"):
        state.apply(bid(1))
    run(state, (0, bid(2)))
    assert state.bids[0] == [3, 2] and state.highest_bid() == 5


def test_a_player_who_cannot_beat_the_highest_bid_must_pass() -> None:
    state = new(7, 5)
    run(state, (0, bid(25, 20, 15, 12, 10, 8, 6, 4, 3)), (1, PASS), (2, PASS))  # seat 0 keeps 2 and 1
    run(state, (0, bid(1)), (1, bid(4)), (2, bid(6)))
    assert state.to_move() == 0 and state.legal_actions() == [PASS]
    with pytest.raises(IllegalAction, match="cannot beat it: pass"):
        state.apply(bid(2))


def test_passed_players_are_skipped_for_the_rest_of_the_auction() -> None:
    state = new(7, players=4)
    run(state, (0, bid(1)), (1, PASS), (2, bid(2)), (3, bid(3)), (0, bid(3)), (2, PASS), (3, PASS))
    assert state.won[0] == [7]


def test_a_bid_is_accepted_in_any_order_and_recorded_largest_first() -> None:
    state = new(7)
    run(state, (0, bid(4, 8)))
    assert state.history == [{"bid": [8, 4]}] and state.bids[0] == [8, 4]


def test_every_combination_of_money_cards_is_listed_in_order_of_total() -> None:
    state = new(7)
    legal = state.legal_actions()
    assert legal[0] == PASS and len(legal) == 1 + 2**11 - 1
    totals = [sum(action["bid"]) for action in legal[1:]]
    assert totals == sorted(totals) and totals[0] == 1 and totals[-1] == 106
    assert all(action["bid"] == sorted(action["bid"], reverse=True) for action in legal[1:])
    run(state, (0, bid(10)))
    assert all(sum(action["bid"]) > 10 for action in state.legal_actions()[1:])


@pytest.mark.parametrize(
    ("action", "rule"),
    [
        ({"bid": [5]}, "not in your hand"),
        ({"bid": [8, 8]}, "listed twice"),
        ({"bid": []}, "one or more money cards"),
        ({"bid": 8}, "one or more money cards"),
        ({"bid": [8.0]}, "integers"),
        ({"bid": [True]}, "integers"),
        ({"pass": 1}, '{"pass": true}'),
        ({"pass": False}, '{"pass": true}'),
        ({"discard": 7}, "during an auction"),
        ({"bid": [8], "pass": True}, "during an auction"),
    ],
)
def test_malformed_auction_actions_name_the_rule_and_change_nothing(action: dict[str, Any], rule: str) -> None:
    state = new(7)
    before = canonical(state.full_view())
    with pytest.raises(IllegalAction, match=rule.replace("{", r"\{").replace("}", r"\}")):
        state.apply(action)
    assert canonical(state.full_view()) == before and state.history == []


# ----- scoring -----------------------------------------------------------------------------------------------------
def test_faux_pas_comes_before_the_doubling_and_fraud_halves_a_negative_score_exactly() -> None:
    assert score([2, FAUX, P]) == -6
    assert score([2, FAUX, P, FRAUD]) == -3
    assert score([5, FRAUD]) == Fraction(5, 2)


def _finished(won: list[list[Any]], money: list[int]) -> HighSocietyState:
    """A finished game with the given cards owned and money left (built directly: auctions cannot fix both)."""
    state = new(P, P, P, FRAUD, players=len(won))
    for winner in range(state.players - 1, state.players - 4, -1):
        give(state, winner)
    assert state.is_over()
    state.won = [list(cards) for cards in won]
    for seat, target in enumerate(money):
        totals, subsets = _bids_for(MONEY)
        hand = list(subsets[totals.index(target)])
        state.hands[seat] = hand
        state.spent[seat] = sorted((c for c in MONEY if c not in hand), reverse=True)
    return state


def test_the_player_with_least_money_is_cast_out_even_with_the_best_score() -> None:
    state = _finished([[10, P], [2], [3]], [50, 60, 70])
    assert state.cast_out() == [True, False, False]
    assert state.outcome().scores == [20, 2, 3] and state.outcome().ranks == [3, 2, 1]


def test_players_tied_for_least_money_are_all_cast_out_and_share_the_last_rank() -> None:
    state = _finished([[10], [9], [1], [2]], [50, 50, 70, 80])
    assert state.cast_out() == [True, True, False, False]
    assert state.outcome().ranks == [3, 3, 2, 1]


def test_when_every_player_ties_for_least_money_all_are_cast_out_and_share_one_rank() -> None:
    state = _finished([[10], [9], [1]], [60, 60, 60])
    assert state.cast_out() == [True, True, True]
    assert state.outcome().ranks == [1, 1, 1]
    assert any("all are cast out" in line for line in state._final_lines())


def test_a_tie_on_score_goes_to_the_player_with_more_money_left() -> None:
    state = _finished([[1], [2, 8], [4, 6]], [10, 60, 70])
    assert state.outcome().ranks == [3, 2, 1]


def test_a_tie_on_score_and_money_goes_to_the_highest_single_guest() -> None:
    state = _finished([[1], [2, 8], [4, 6]], [10, 60, 60])
    assert state.outcome().ranks == [3, 1, 2]


def test_a_tie_on_score_money_and_highest_guest_shares_the_rank() -> None:
    state = _finished([[1], [2, 3, 5], [1, 4, 5]], [10, 60, 60])
    assert state.outcome().ranks == [3, 1, 1]


def test_fractional_scores_are_exact_floats() -> None:
    state = _finished([[5, FRAUD], [2], [1]], [80, 60, 70])
    assert state.outcome().scores == [2.5, 2, 1] and state.outcome().ranks == [1, 3, 2]


# ----- information, options and views -------------------------------------------------------------------------------
def test_the_observation_has_every_field_the_spec_lists() -> None:
    state = new(7)
    run(state, (0, bid(8, 4)))
    obs = state.observation(1)
    for field in ("seat", "players", "money", "money_of", "bids", "card", "won", "red_revealed", "deck_left"):
        assert field in obs
    assert obs["seat"] == 1 and obs["players"] == 3
    assert obs["money"] == list(MONEY) and obs["money_of"][0] == [25, 20, 15, 12, 10, 6, 3, 2, 1]
    assert obs["bids"] == [[8, 4], [], []] and obs["card"] == {"kind": "guest", "value": 7}
    assert obs["passed"] == [False, False, False] and obs["pending_discard"] == [False, False, False]
    assert obs["deck_left"] == 15 and obs["red_revealed"] == 0 and "deck" not in obs
    assert json.loads(json.dumps(obs)) == obs


def test_card_formats_for_prestige_and_scandals() -> None:
    assert card_json(P) == {"kind": "prestige"}
    assert card_json(GOSSIP) == {"kind": "scandal", "effect": "discard"}
    assert new(FRAUD).observation(0)["card"] == {"kind": "scandal", "effect": "halve"}
    assert new(P).observation(0)["red_revealed"] == 1


def test_perturbing_the_hidden_deck_order_changes_nothing_any_seat_sees() -> None:
    state = new(7)
    other = state.perturb_hidden(0, random.Random(1))
    assert other is not None and other.full_view()["deck"] != state.full_view()["deck"]
    assert all(other.observation(seat) == state.observation(seat) for seat in range(3))


def test_nothing_is_hidden_when_the_rest_of_the_deck_is_identical_prestige_cards() -> None:
    state = new(*[c for c in STATUS_DECK if c != P], P)
    while state.deck != [P, P]:
        pass_through(state)
    assert state.perturb_hidden(0, random.Random(1)) is None


def test_the_deck_option_must_hold_exactly_the_16_status_cards() -> None:
    good = deck()
    for bad in (good[:-1], [*good, card_json(3)], [card_json(3), *good[1:]], "abc", [*good[:-1], {"kind": "king"}]):
        with pytest.raises(InvalidOptions):
            GAME.new_state(3, 1, {"deck": bad})
    with pytest.raises(InvalidOptions):
        GAME.new_state(3, 1, {"decks": good})
    with pytest.raises(InvalidOptions):
        GAME.new_state(6, 1)


def test_the_same_seed_deals_the_same_deck_and_a_given_deck_is_dealt_top_first() -> None:
    assert GAME.new_state(3, 5).full_view() == GAME.new_state(3, 5).full_view()
    state = new(9, GOSSIP)
    assert state.card == 9 and state.deck[0] == GOSSIP


# ----- built-in players and the example bot ------------------------------------------------------------------------
def test_the_heuristic_beats_two_random_players_most_of_the_time() -> None:
    rate, low, _high = win_rate("high_society", "heuristic", ["random", "random"], range(150))
    assert rate >= 0.8, (rate, low)


def test_heuristic_players_finish_games_against_each_other() -> None:
    for seed in range(20):
        players = [HeuristicPlayer(seed * 10 + seat) for seat in range(3 + seed % 3)]
        state = play("high_society", players, seed)
        assert state.is_over()


def _bot_move(proc: subprocess.Popen[str], message: dict[str, Any]) -> dict[str, Any]:
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write(json.dumps(message) + "\n")
    proc.stdin.flush()
    return json.loads(proc.stdout.readline())


def test_the_example_bot_plays_a_whole_game_over_the_protocol() -> None:
    state = GAME.new_state(3, 11)
    randoms = [RandomPlayer(seat) for seat in range(3)]
    proc = subprocess.Popen(
        [sys.executable, str(EXAMPLE_BOT)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    try:
        start = {"type": "start", "game": "high_society", "seat": 1, "players": 3, "options": state.options}
        assert _bot_move(proc, {**start, "time": {"move_ms": 1000, "bank_ms": 10000}}) == {"type": "ready"}
        while (seat := state.to_move()) is not None:
            obs, legal = state.observation(seat), state.legal_actions()
            if seat == 1:
                reply = _bot_move(proc, {"type": "act", "obs": obs, "legal": legal, "time_left_ms": 5000})
                assert reply["type"] == "action"
                state.apply(reply["action"])
            else:
                state.apply(randoms[seat].act(obs, legal))
        assert proc.stdin is not None
        end = {"type": "end", "outcome": state.outcome().to_json(), "obs": state.observation(1)}
        proc.stdin.write(json.dumps(end) + "\n")
        proc.stdin.flush()
        # After end the loop waits for another game (a series on the same process), and ends with stdin.
        assert _bot_move(proc, {**start, "time": {"move_ms": 1000, "bank_ms": 10000}}) == {"type": "ready"}
        proc.stdin.close()
        assert proc.wait(timeout=10) == 0
    finally:
        proc.kill()


def _doc_messages() -> list[dict[str, Any]]:
    text = rules_path("high_society").read_text()
    blocks = text.split("```json\n")[1:]
    return [json.loads(block.split("```")[0]) for block in blocks]


def test_the_protocol_examples_in_the_docs_are_what_the_engine_produces() -> None:
    start, _ready, act, action, end = _doc_messages()
    state = GAME.new_state(3, 1, start["options"])
    run(state, (0, bid(3)), (1, bid(25, 20, 15, 12, 10)), (2, PASS), (0, PASS))
    run(state, (1, bid(8, 6, 4, 1)), (2, PASS), (0, PASS))
    run(state, (1, bid(2)), (2, bid(3)), (0, bid(4)))
    assert act["obs"] == state.observation(1) and act["legal"] == state.legal_actions()
    state.apply(action["action"])

    state = new(8, P, P, FRAUD, P)
    run(state, (0, bid(10)), (1, bid(12)), (2, PASS), (0, PASS))
    run(state, (1, PASS), (2, bid(15)), (0, PASS))
    run(state, (2, PASS), (0, bid(20)), (1, PASS))
    run(state, (0, PASS))
    assert end["obs"] == state.observation(0) and end["outcome"] == state.outcome().to_json()
