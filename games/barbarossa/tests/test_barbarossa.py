"""Barbarossa: the lexicon's quality, every check of games/barbarossa/RULES.md, edge cases and the built-in players."""

from __future__ import annotations

import json
import random
import re
import subprocess
import sys
from typing import Any

import pytest

from games.barbarossa.engine import (
    ARROW_TABLE,
    FEATURES,
    GAME,
    LAST_ARROW,
    LEXICON,
    LEXICON_PATH,
    LONGEST_WORD,
    POSITIONS,
    TRACK,
    WORDS,
    BarbarossaState,
    answer_for,
    candidate_words,
    letter_at,
    yes_features,
)
from games.barbarossa.players import (
    LARGEST_SCULPTURE,
    PLAYERS,
    TARGET_CHANCE,
    BarbarossaRandomPlayer,
    Reasoner,
    first_after_arrow,
    knowledge,
    public_knowledge,
    round_chance,
    telling_position,
)
from games.barbarossa.tuning import between_reasoners
from games.base import IllegalAction, InvalidOptions, canonical
from games.registry import example_dir
from games.simulate import play, win_rate

EXAMPLE_BOT = example_dir("barbarossa") / "main.py"

# Objects of a 4-player game, two per seat (o0 o1 | o2 o3 | o4 o5 | o6 o7).
WORDS4 = [["anchor", "apple"], ["bear", "bus"], ["cat", "cake"], ["dog", "drum"]]
WORDS3 = [["anchor", "apple", "axe"], ["bear", "bus", "boot"], ["cat", "cake", "cup"]]


def created(players: int = 4, words: list[list[str]] | None = None, **options: Any) -> BarbarossaState:
    """A game right after creation; each sculpture shows the word's first two ``yes`` features."""
    state = GAME.new_state(players, 1, options)
    assert isinstance(state, BarbarossaState)
    for seat_words in words or (WORDS4 if players == 4 else WORDS3):
        for word in seat_words:
            state.apply({"create": {"word": word, "sculpture": yes_features(word)[:2]}})
    return state


def oid(state: BarbarossaState, word: str) -> str:
    return next(obj["id"] for obj in state.objects if obj["word"] == word)


def obj(state: BarbarossaState, word: str) -> dict[str, Any]:
    return next(o for o in state.objects if o["word"] == word)


def pass_window(state: BarbarossaState) -> None:
    while state.phase == "curse":
        state.apply({"pass": True})


def to_next_elfstone(state: BarbarossaState) -> None:
    """The mover pays its way to the next elfstone space: no hat moves and no decision follows."""
    here = state.wizards[state.current]
    steps = next(k for k in range(1, 4) if TRACK[(here + k) % len(TRACK)] == "elfstone")
    state.apply({"move": steps})


def move_to(state: BarbarossaState, space: int) -> None:
    steps = (space - state.wizards[state.current]) % len(TRACK)
    assert 1 <= steps <= 6
    state.apply({"move": steps})


def curse_guesses(state: BarbarossaState, plan: list[tuple[int, str]]) -> list[str]:
    """Play ``plan`` of (guesser, word) right curse guesses in order; movers walk between elfstones, others pass."""
    lines: list[str] = []
    plan = list(plan)
    for _ in range(500):
        if not plan or state.is_over():
            break
        if state.phase == "move":
            to_next_elfstone(state)
        elif state.phase == "curse" and state.to_move() == plan[0][0]:
            _, word = plan.pop(0)
            lines += state.apply({"curse": {"guess": {"object": oid(state, word), "word": word}}})
        else:
            state.apply({"pass": True})
    assert not plan, f"could not play {plan}"
    return lines


def ask(state: BarbarossaState, word: str, feature: str) -> list[str]:
    return state.apply({"ask": {"object": oid(state, word), "feature": feature}})


def unchanged(state: BarbarossaState, action: Any, match: str) -> None:
    before, history = canonical(state.full_view()), list(state.history)
    with pytest.raises(IllegalAction, match=match):
        state.apply(action)
    assert canonical(state.full_view()) == before and state.history == history


def feature_with(word: str, value: str) -> str:
    return next(f for f in FEATURES if answer_for(word, f) == value)


# ----- the lexicon ---------------------------------------------------------------------------------------------------
def test_the_lexicon_file_has_exactly_the_specs_format() -> None:
    data = json.loads(LEXICON_PATH.read_text(encoding="utf-8"))
    assert set(data) == {"features", "words"}
    assert isinstance(data["features"], list) and isinstance(data["words"], dict)
    assert len(set(data["features"])) == len(data["features"])
    for row in data["words"].values():
        assert set(row) <= set(data["features"])


def test_the_lexicon_has_at_least_300_words_and_40_features() -> None:
    assert len(WORDS) >= 300
    assert len(FEATURES) >= 40


def test_every_word_is_a_lower_case_ascii_word_and_every_feature_an_identifier() -> None:
    assert all(re.fullmatch(r"[a-z]+", word) for word in WORDS)
    assert all(re.fullmatch(r"[a-z][a-z0-9_]*", feature) for feature in FEATURES)


def test_every_value_is_yes_no_or_maybe_and_a_missing_one_means_cant_say() -> None:
    values = {value for row in LEXICON["words"].values() for value in row.values()}
    assert values == {"yes", "no", "maybe"}
    assert any(len(row) < len(FEATURES) for row in LEXICON["words"].values()), "some 'can't say' values exist"


def test_every_word_has_at_least_8_yes_and_8_no_features() -> None:
    for word, row in LEXICON["words"].items():
        values = list(row.values())
        assert values.count("yes") >= 8, word
        assert values.count("no") >= 8, word


def test_no_two_words_have_identical_feature_rows() -> None:
    rows = [canonical({f: LEXICON["words"][w].get(f) for f in FEATURES}) for w in WORDS]
    assert len(set(rows)) == len(rows)


def test_every_feature_is_yes_for_between_5_and_95_percent_of_the_words() -> None:
    for feature in FEATURES:
        share = sum(answer_for(w, feature) == "yes" for w in WORDS) / len(WORDS)
        assert 0.05 <= share <= 0.95, (feature, share)


@pytest.mark.parametrize(
    ("if_yes", "then_yes"),
    [
        ("is_mammal", "is_animal"),
        ("is_animal", "is_alive"),
        ("is_plant", "is_alive"),
        ("has_four_legs", "has_legs"),
        ("has_more_than_four_legs", "has_legs"),
        ("has_feathers", "has_wings"),
        ("has_feathers", "lays_eggs"),
        ("bigger_than_a_car", "bigger_than_a_person"),
        ("fits_in_a_hand", "can_be_carried"),
        ("is_fruit_or_vegetable", "is_edible"),
        ("is_sweet", "is_edible"),
        ("is_cooked", "is_edible"),
        ("has_an_engine", "is_man_made"),
        ("uses_electricity", "is_man_made"),
        ("is_vehicle", "is_man_made"),
        ("is_building", "is_man_made"),
        ("is_musical_instrument", "makes_noise"),
        ("found_in_kitchen", "found_in_a_house"),
        ("found_at_sea", "found_outdoors"),
    ],
)
def test_similar_words_answer_consistently(if_yes: str, then_yes: str) -> None:
    wrong = [w for w in WORDS if answer_for(w, if_yes) == "yes" and answer_for(w, then_yes) != "yes"]
    assert wrong == []


@pytest.mark.parametrize(
    ("one", "other"),
    [
        ("is_animal", "is_man_made"),
        ("is_plant", "is_man_made"),
        ("is_animal", "is_plant"),
        ("fits_in_a_hand", "bigger_than_a_person"),
    ],
)
def test_exclusive_features_are_never_both_yes(one: str, other: str) -> None:
    assert [w for w in WORDS if answer_for(w, one) == "yes" and answer_for(w, other) == "yes"] == []


def test_the_specs_example_creation_is_legal() -> None:
    state = GAME.new_state(4, 0)
    state.apply({"create": {"word": "anchor", "sculpture": ["made_of_metal", "found_at_sea"]}})
    assert state.objects[0]["word"] == "anchor"


def test_the_start_message_carries_the_lexicon() -> None:
    info = GAME.start_info(4, GAME.new_state(4, 0).options)
    assert info == {"lexicon": LEXICON}
    info["lexicon"]["words"].clear()
    assert LEXICON["words"], "start_info hands out a copy"


# ----- setup and creation --------------------------------------------------------------------------------------------
def test_four_players_make_two_objects_and_three_players_three() -> None:
    assert len(created(4).objects) == 8
    assert len(created(3).objects) == 9
    assert [o["maker"] for o in created(3).objects] == [0, 0, 0, 1, 1, 1, 2, 2, 2]


def test_creation_runs_in_seat_order_then_seat_0_starts() -> None:
    state = GAME.new_state(3, 5)
    order = []
    while state.phase == "create":
        order.append(state.to_move())
        state.apply(state.legal_actions()[1])
    assert order == [0, 0, 0, 1, 1, 1, 2, 2, 2]
    assert state.phase == "move" and state.to_move() == 0


def test_everyone_starts_with_12_elfstones_3_curses_a_hat_at_0_and_the_wizard_on_space_0() -> None:
    state = created()
    assert state.elfstones == [12] * 4 and state.curses == [3] * 4
    assert state.hats == [0] * 4 and state.wizards == [0] * 4
    assert TRACK[0] == "question" and len(TRACK) == 12


def test_the_creation_decision_lists_the_template_and_one_ready_made_creation() -> None:
    state = GAME.new_state(4, 9)
    template, suggestion = state.legal_actions()
    assert template == {"create": {"word": None, "sculpture": None}}
    word, sculpture = suggestion["create"]["word"], suggestion["create"]["sculpture"]
    assert 1 <= len(sculpture) <= 5 and all(answer_for(word, f) == "yes" for f in sculpture)
    state.apply(suggestion)
    assert state.legal_actions()[1]["create"]["word"] != word, "the next suggestion is another word"


def test_a_template_with_nulls_is_rejected_with_a_clear_message() -> None:
    state = GAME.new_state(4, 0)
    unchanged(state, {"create": {"word": None, "sculpture": None}}, "fill in its null fields")
    unchanged(state, {"create": {"word": "anchor", "sculpture": None}}, "'sculpture' is null")
    state = created()
    move_to(state, 6)
    ask(state, "bear", feature_with("bear", "no"))
    unchanged(state, {"guess": {"object": oid(state, "bear"), "word": None}}, "'word' is null")


def test_a_sculpture_shows_only_features_that_are_yes_for_the_word() -> None:
    state = GAME.new_state(4, 0)
    unchanged(state, {"create": {"word": "anchor", "sculpture": ["is_animal"]}}, "only true features")
    unchanged(state, {"create": {"word": "anchor", "sculpture": ["is_purple"]}}, "not a feature")


def test_a_sculpture_shows_1_to_5_distinct_features() -> None:
    state = GAME.new_state(4, 0)
    shown = yes_features("airplane")
    unchanged(state, {"create": {"word": "airplane", "sculpture": []}}, "1 to 5 features")
    unchanged(state, {"create": {"word": "airplane", "sculpture": shown[:6]}}, "1 to 5 features")
    unchanged(state, {"create": {"word": "airplane", "sculpture": [shown[0], shown[0]]}}, "same feature twice")
    state.apply({"create": {"word": "airplane", "sculpture": shown[:5]}})


def test_the_sculpture_size_is_an_option() -> None:
    state = GAME.new_state(4, 0, {"sculpture_min": 2, "sculpture_max": 3})
    unchanged(state, {"create": {"word": "anchor", "sculpture": ["made_of_metal"]}}, "2 to 3 features")
    with pytest.raises(InvalidOptions):
        GAME.new_state(4, 0, {"sculpture_min": 4, "sculpture_max": 3})


def test_unknown_words_are_rejected() -> None:
    unchanged(GAME.new_state(4, 0), {"create": {"word": "Anchor", "sculpture": ["made_of_metal"]}}, "not a word")


def test_a_player_may_not_reuse_a_word_but_two_players_may_choose_the_same_word() -> None:
    state = GAME.new_state(4, 0)
    state.apply({"create": {"word": "anchor", "sculpture": ["made_of_metal"]}})
    unchanged(state, {"create": {"word": "anchor", "sculpture": ["found_at_sea"]}}, "already made an object")
    state.apply({"create": {"word": "apple", "sculpture": ["is_edible"]}})
    state.apply({"create": {"word": "anchor", "sculpture": ["found_at_sea"]}})
    assert [o["word"] for o in state.objects[:3]] == ["anchor", "apple", "anchor"]


def test_sculptures_stay_hidden_until_creation_ends_and_words_stay_secret_after() -> None:
    state = GAME.new_state(4, 0)
    state.apply({"create": {"word": "anchor", "sculpture": ["made_of_metal"]}})
    state.apply({"create": {"word": "apple", "sculpture": ["is_edible"]}})
    assert state.observation(1)["objects"][0]["sculpture"] is None
    assert state.observation(0)["objects"][0]["sculpture"] == ["made_of_metal"]
    assert state.observation(0)["objects"][0]["word"] == "anchor"
    assert "word" not in state.observation(1)["objects"][0]
    for words in WORDS4[1:]:
        for word in words:
            state.apply({"create": {"word": word, "sculpture": yes_features(word)[:1]}})
    assert state.observation(1)["objects"][0]["sculpture"] == ["made_of_metal"]
    assert "word" not in state.observation(1)["objects"][0]
    assert "word" not in state.public_view()["objects"][0]


# ----- moving and the spaces -----------------------------------------------------------------------------------------
def test_a_roll_moves_the_wizard_1_to_6_spaces_with_the_seeded_die() -> None:
    rolls = set()
    for seed in range(40):
        state = created()
        state.rng.seed(seed)
        state.apply({"roll": True})
        rolls.add(state.last_roll)
        assert state.wizards[0] == state.last_roll
        again = created()
        again.rng.seed(seed)
        again.apply({"roll": True})
        assert again.last_roll == state.last_roll
    assert rolls == {1, 2, 3, 4, 5, 6}


def test_paying_elfstones_moves_exactly_one_space_per_stone() -> None:
    state = created()
    state.apply({"move": 3})
    assert state.wizards[0] == 3 and state.elfstones[0] == 9 and TRACK[3] == "dwarf"


def test_a_paid_move_is_1_to_6_and_never_more_than_the_stones_owned() -> None:
    state = created()
    unchanged(state, {"move": 7}, "1 to 6")
    unchanged(state, {"move": 0}, "1 to 6")
    unchanged(state, {"move": 2.0}, "whole number")
    unchanged(state, {"move": True}, "whole number")
    state.elfstones[0] = 2
    assert [a for a in state.legal_actions() if "move" in a] == [{"move": 1}, {"move": 2}]
    unchanged(state, {"move": 3}, "you have 2")


def test_an_elfstone_space_gives_one_stone_but_never_more_than_13() -> None:
    state = created()
    state.apply({"move": 1})
    assert state.elfstones[0] == 12  # paid 1, gained 1
    pass_window(state)
    state.elfstones[1] = 13
    state.rng.seed(next(s for s in range(100) if random.Random(s).randint(1, 6) == 1))
    state.apply({"roll": True})
    assert state.last_roll == 1 and TRACK[state.wizards[1]] == "elfstone"
    assert state.elfstones[1] == 13


def test_a_dragon_moves_every_other_hat_plus_1_and_the_ghost_plus_2() -> None:
    state = created()
    state.apply({"move": 2})
    assert TRACK[2] == "dragon" and state.hats == [0, 1, 1, 1]
    pass_window(state)
    state.wizards[1] = 2
    state.apply({"move": 6})
    assert TRACK[8] == "ghost" and state.hats == [2, 1, 3, 3]


def test_a_dwarf_must_ask_for_a_letter_and_only_the_asker_learns_it() -> None:
    state = created()
    state.apply({"move": 3})
    assert state.phase == "dwarf" and all("letter" in a for a in state.legal_actions())
    assert len(state.legal_actions()) == 6 * (LONGEST_WORD + 1)
    state.apply({"letter": {"object": oid(state, "bear"), "position": 2}})
    assert state.observation(0)["letters"] == [{"object": oid(state, "bear"), "position": 2, "letter": "e"}]
    assert state.observation(1)["letters"] == []
    assert state.observation(2)["letter_requests"] == [
        {"asker": 0, "object": oid(state, "bear"), "position": 2, "curse": False}
    ]
    assert "letter" not in json.dumps(state.public_view()["letter_requests"])


def test_a_letter_past_the_end_of_the_word_is_none_and_last_is_the_last_letter() -> None:
    assert letter_at("bear", 5) == "none" and letter_at("bear", "last") == "r" and letter_at("bear", 1) == "b"


def test_a_letter_request_names_an_opponents_object_and_a_valid_position() -> None:
    state = created()
    state.apply({"move": 3})
    unchanged(state, {"letter": {"object": oid(state, "anchor"), "position": 1}}, "your own object")
    unchanged(state, {"letter": {"object": oid(state, "bear"), "position": LONGEST_WORD + 1}}, "position")
    unchanged(state, {"letter": {"object": oid(state, "bear"), "position": "first"}}, "position")
    unchanged(state, {"letter": {"object": "o99", "position": 1}}, "no object 'o99'")


# ----- question rounds -----------------------------------------------------------------------------------------------
def test_the_answer_always_equals_the_lexicon_value() -> None:
    state = created()
    move_to(state, 6)
    for feature in FEATURES[:20]:
        if state.phase != "question":
            break
        ask(state, "bus", feature)
        assert state.questions[-1]["answer"] == answer_for("bus", feature)


def test_answers_in_random_playouts_always_equal_the_lexicon_value() -> None:
    for seed in range(15):
        state = play("barbarossa", [PLAYERS["random"](seed * 7 + s) for s in range(3 + seed % 2)], seed)
        words = {o["id"]: o["word"] for o in state.objects}
        assert state.questions, "random players ask questions"
        for q in state.questions:
            assert q["answer"] == answer_for(words[q["object"]], q["feature"])


def test_a_no_in_the_first_round_opens_the_second_round() -> None:
    state = created()
    move_to(state, 6)
    assert state.question_round == 1
    assert not any("guess" in a or "stop" in a for a in state.legal_actions())
    ask(state, "bear", feature_with("bear", "yes"))
    assert state.question_round == 1
    ask(state, "bear", feature_with("bear", "no"))
    assert state.question_round == 2 and state.to_move() == 0
    legal = state.legal_actions()
    assert {"stop": True} in legal and {"guess": {"object": oid(state, "bear"), "word": None}} in legal


def test_maybe_and_cant_say_keep_the_round_going(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delitem(LEXICON["words"]["bear"], "is_sweet")
    state = created()
    move_to(state, 6)
    ask(state, "bear", feature_with("bear", "maybe"))
    ask(state, "bear", "is_sweet")
    assert [q["answer"] for q in state.questions] == ["maybe", "cant_say"]
    assert state.question_round == 1


def test_a_no_in_the_second_round_ends_the_turn() -> None:
    state = created()
    move_to(state, 6)
    ask(state, "bear", "is_vehicle")
    ask(state, "bear", "is_animal")
    assert state.question_round == 2
    ask(state, "bus", "is_animal")
    assert state.question_round is None and state.phase == "curse" and state.to_move() == 1


def test_a_guess_ends_the_second_round_right_or_wrong() -> None:
    state = created()
    move_to(state, 6)
    ask(state, "bear", "is_vehicle")
    state.apply({"guess": {"object": oid(state, "bear"), "word": "wolf"}})
    assert state.phase == "curse" and state.guesses[-1]["right"] is False
    assert obj(state, "bear")["arrows"] == 0


def test_stop_ends_the_second_round_and_is_not_allowed_in_the_first() -> None:
    state = created()
    move_to(state, 6)
    unchanged(state, {"stop": True}, "round two")
    unchanged(state, {"guess": {"object": oid(state, "bear"), "word": "bear"}}, "second question round")
    ask(state, "bear", "is_vehicle")
    state.apply({"stop": True})
    assert state.phase == "curse"


def test_a_question_is_asked_once_a_game() -> None:
    state = created()
    move_to(state, 6)
    ask(state, "bear", "is_animal")
    assert {"ask": {"object": oid(state, "bear"), "feature": "is_animal"}} not in state.legal_actions()
    unchanged(state, {"ask": {"object": oid(state, "bear"), "feature": "is_animal"}}, "already asked")


def test_questions_are_about_opponents_objects_and_known_features() -> None:
    state = created()
    move_to(state, 6)
    unchanged(state, {"ask": {"object": oid(state, "anchor"), "feature": "is_animal"}}, "your own")
    unchanged(state, {"ask": {"object": oid(state, "bear"), "feature": "is_purple"}}, "not a feature")
    unchanged(state, {"ask": {"object": oid(state, "bear")}}, "exactly the fields")


def test_questions_may_be_about_solved_objects() -> None:
    state = created()
    curse_guesses(state, [(1, "cat"), (3, "cat")])
    pass_window(state)
    while state.current != 0:
        to_next_elfstone(state)
        pass_window(state)
    move_to(state, 6)
    assert {"ask": {"object": oid(state, "cat"), "feature": "is_animal"}} in state.legal_actions()
    ask(state, "cat", "is_animal")


def test_a_player_with_no_question_left_goes_straight_to_the_second_round() -> None:
    state = created()
    for o in state.objects:
        if o["maker"] != 0:
            state.asked.update((o["id"], f) for f in FEATURES)
    move_to(state, 6)
    assert state.question_round == 2
    assert state.legal_actions()[-1] == {"stop": True} and not any("ask" in a for a in state.legal_actions())


# ----- guesses and scoring -------------------------------------------------------------------------------------------
def test_the_arrow_table_is_the_specs() -> None:
    assert ARROW_TABLE == {1: -2, 2: -2, 3: -1, 4: 0, 5: 1, 6: 1, 7: 2, 8: 2, 9: 1, 10: 0, 11: -1, 12: -2, 13: -2}


def test_the_first_arrow_of_the_game_moves_its_maker_minus_2() -> None:
    state = created()
    state.apply({"move": 2})  # dragon: seats 1-3 +1
    pass_window(state)
    state.apply({"move": 1})
    pass_window(state)
    state.apply({"move": 2})  # seat 2 on the dragon: seats 0, 1, 3 +1
    assert state.hats == [1, 2, 1, 2]
    state.apply({"pass": True})  # seat 3
    state.apply({"curse": {"guess": {"object": oid(state, "bear"), "word": "bear"}}})  # seat 0
    assert state.arrows_total == 1
    assert state.hats == [6, 0, 1, 2]


def test_the_first_solver_scores_5_and_the_second_3() -> None:
    state = created()
    curse_guesses(state, [(1, "anchor"), (2, "anchor")])
    assert obj(state, "anchor")["solved_by"] == [1, 2]
    assert state.hats[1] == 5 and state.hats[2] == 3


def test_the_fifth_arrow_moves_its_maker_plus_1() -> None:
    state = created()
    curse_guesses(state, [(1, "anchor"), (2, "anchor"), (3, "bear"), (0, "bear")])
    before = state.hats[2]
    curse_guesses(state, [(1, "cat")])
    assert state.arrows_total == 5
    assert state.hats[2] == before + 1


def test_the_13th_arrow_ends_the_game_with_the_penalty() -> None:
    state = created()
    plan = [(1, "anchor"), (2, "anchor"), (3, "bear"), (0, "bear"), (1, "cat"), (3, "cat"), (2, "dog")]
    plan += [(0, "dog"), (3, "apple"), (1, "apple"), (0, "bus"), (2, "bus")]
    curse_guesses(state, plan)
    assert state.arrows_total == 12 and not state.is_over()
    maker_before = state.hats[2]
    lines = curse_guesses(state, [(1, "cake")])
    assert state.is_over() and state.end_reason == "last_arrow" and state.to_move() is None
    assert any("13th arrow ends the game" in line for line in lines)
    assert state.hats[2] == max(0, maker_before - 2)
    assert state.penalties == [0, 0, 2, 5]  # cake has one arrow, drum none
    assert state.scores == [max(0, h - p) for h, p in zip(state.hats, state.penalties, strict=True)]
    outcome = state.outcome()
    best = max(outcome.scores)
    assert [r == 1 for r in outcome.ranks] == [s == best for s in outcome.scores]


def test_no_object_ever_holds_a_third_arrow() -> None:
    state = created()
    curse_guesses(state, [(1, "anchor"), (2, "anchor")])
    while state.phase != "curse" or state.to_move() != 3:
        if state.phase == "move":
            to_next_elfstone(state)
        else:
            state.apply({"pass": True})
    templates = [a["curse"]["guess"]["object"] for a in state.legal_actions() if "guess" in a.get("curse", {})]
    assert oid(state, "anchor") not in templates
    unchanged(state, {"curse": {"guess": {"object": oid(state, "anchor"), "word": "anchor"}}}, "2 arrows")


def test_nobody_can_guess_their_own_object() -> None:
    state = created()
    move_to(state, 6)
    ask(state, "bear", "is_vehicle")
    assert {"guess": {"object": oid(state, "anchor"), "word": None}} not in state.legal_actions()
    unchanged(state, {"guess": {"object": oid(state, "anchor"), "word": "anchor"}}, "their own object")


def test_a_player_cannot_guess_an_object_they_already_solved() -> None:
    state = created()
    curse_guesses(state, [(1, "anchor")])
    while state.phase != "curse" or state.to_move() != 1:
        if state.phase == "move":
            to_next_elfstone(state)
        else:
            state.apply({"pass": True})
    unchanged(state, {"curse": {"guess": {"object": oid(state, "anchor"), "word": "anchor"}}}, "already solved")


def test_a_guessed_word_must_be_in_the_lexicon_and_stays_private() -> None:
    state = created()
    move_to(state, 6)
    ask(state, "bear", "is_vehicle")
    unchanged(state, {"guess": {"object": oid(state, "bear"), "word": "grizzly"}}, "not a word of the lexicon")
    lines = state.apply({"guess": {"object": oid(state, "bear"), "word": "wolf"}})
    assert state.observation(0)["guesses"][-1]["word"] == "wolf"
    assert "word" not in state.observation(1)["guesses"][-1]
    assert "word" not in state.public_view()["guesses"][-1]
    assert not any("wolf" in line for line in lines), "narration is public"


# Words of the engine's own narration that are also lexicon words (the board's "arrow", the scoring "hat").
NARRATION_WORDS = {"arrow", "hat"}


def test_the_public_narration_never_names_a_secret_word_before_the_end() -> None:
    """Stumble 27: the narration is public (a table's spectators and its replay read it move by move), so no line names
    an object's word or a guessed word until the lines that end the game reveal them."""
    assert set(WORDS) >= NARRATION_WORDS  # the exceptions are real lexicon words, nothing more
    for seed in range(12):
        players = 3 + seed % 2
        state = GAME.new_state(players, seed)
        bots = [PLAYERS["reasoner" if s % 2 else "random"](seed * 7 + s) for s in range(players)]
        for seat, bot in enumerate(bots):
            bot.start(seat, players, state.options)
        guessed: set[str] = set()
        while not state.is_over():
            seat = state.to_move()
            assert seat is not None
            action = bots[seat].act(state.observation(seat), state.legal_actions())
            guess = action.get("guess") or (action.get("curse") or {}).get("guess")
            if guess:
                guessed.add(guess["word"])
            lines = state.apply(action)
            public = lines
            if state.is_over():  # the words are told in the last lines, after the final scores
                public = lines[: next(i for i, line in enumerate(lines) if line.startswith("final hats"))]
            secret = {o["word"] for o in state.objects if o["word"]} | guessed
            said = set(re.findall(r"[a-z_']+", " ".join(public)))
            assert not (said & secret) - NARRATION_WORDS, (seed, public)
        assert lines[-1].startswith("the words were: ")


def test_hats_never_go_below_zero() -> None:
    state = created()
    curse_guesses(state, [(1, "anchor")])
    assert state.hats[0] == 0


def test_the_game_stops_the_moment_a_hat_reaches_the_end() -> None:
    state = created(finish=6)
    state.apply({"move": 1})
    pass_window(state)
    state.apply({"move": 2})  # seat 1 on the dragon: seats 0, 2, 3 reach 1
    state.apply({"curse": {"guess": {"object": oid(state, "anchor"), "word": "anchor"}}})  # seat 2: 1 + 5
    assert state.is_over() and state.winners == [2] and state.end_reason == "finish"
    assert state.hats[0] == 1, "the maker's hat does not move after the guesser reached the end"
    assert state.outcome().ranks[2] == 1 and state.outcome().ranks.count(1) == 1


def test_a_dragon_can_bring_several_hats_to_the_end_together_and_they_share_first() -> None:
    state = created(finish=5)
    for seat_move in [2, 2, 2, 2]:
        state.apply({"move": seat_move})
        pass_window(state)
    assert state.hats == [3, 3, 3, 3]
    state.apply({"move": 3})  # seat 0 to the dragon on space 5
    pass_window(state)
    assert state.hats == [3, 4, 4, 4]
    state.apply({"move": 3})  # seat 1 to space 5
    assert state.is_over() and state.winners == [2, 3]
    assert state.outcome().ranks == [3, 3, 1, 1]
    assert state.scores == [0, 0, 5, 5]  # the others lose 5 per object without an arrow


def test_hats_stop_at_the_end_of_the_track() -> None:
    state = created(finish=5)
    state.hats = [0, 4, 0, 0]
    state.wizards[0] = 2
    state.apply({"move": 6})  # ghost: +2
    assert state.hats[1] == 5


def test_the_penalty_can_be_switched_off() -> None:
    state = created(finish=5, penalty=False)
    for _ in range(4):
        state.apply({"move": 2})
        pass_window(state)
    state.apply({"move": 3})
    pass_window(state)
    state.apply({"move": 3})
    assert state.scores == [4, 4, 5, 5]


# ----- curses --------------------------------------------------------------------------------------------------------
def test_the_curse_window_runs_from_the_movers_left_and_the_mover_has_none() -> None:
    state = created()
    state.apply({"move": 1})
    order = []
    while state.phase == "curse":
        order.append(state.to_move())
        state.apply({"pass": True})
    assert order == [1, 2, 3] and state.current == 1
    state.apply({"move": 3})
    state.apply({"letter": {"object": oid(state, "anchor"), "position": 1}})
    order = []
    while state.phase == "curse":
        order.append(state.to_move())
        state.apply({"pass": True})
    assert order == [2, 3, 0]


def test_a_curse_asks_a_letter_or_guesses_and_costs_a_token() -> None:
    state = created()
    state.apply({"move": 1})
    state.apply({"curse": {"letter": {"object": oid(state, "anchor"), "position": "last"}}})
    assert state.curses[1] == 2
    assert state.observation(1)["letters"] == [{"object": oid(state, "anchor"), "position": "last", "letter": "r"}]
    assert state.letter_requests[-1]["curse"] is True
    state.apply({"curse": {"guess": {"object": oid(state, "bus"), "word": "car"}}})
    assert state.curses[2] == 2 and state.guesses[-1] == {
        "guesser": 2,
        "object": oid(state, "bus"),
        "right": False,
        "curse": True,
        "word": "car",
    }


def test_seats_without_curse_tokens_are_skipped() -> None:
    state = created()
    state.curses[2] = 0
    state.apply({"move": 1})
    order = []
    while state.phase == "curse":
        order.append(state.to_move())
        state.apply({"pass": True})
    assert order == [1, 3]


def test_curses_come_back_once_after_five_were_used() -> None:
    state = created()
    state.curses, state.curses_used = [3, 1, 1, 3], 3  # seats 1 and 2 have already spent two tokens each
    state.apply({"move": 1})
    state.apply({"curse": {"letter": {"object": oid(state, "anchor"), "position": 1}}})  # the 4th token used
    assert state.curses[1] == 0 and not state.refilled[1]
    state.apply({"curse": {"letter": {"object": oid(state, "anchor"), "position": 2}}})  # the 5th
    assert state.curses[1] == 3 and state.curses[2] == 3 and state.refilled == [False, True, True, False]
    state.apply({"pass": True})  # seat 3
    state.curses[1] = 1
    to_next_elfstone(state)  # seat 1's turn
    pass_window(state)
    to_next_elfstone(state)  # seat 2's turn: the window is 3, 0, 1
    state.apply({"pass": True})
    state.apply({"pass": True})
    state.apply({"curse": {"letter": {"object": oid(state, "anchor"), "position": 3}}})
    assert state.curses[1] == 0, "a seat takes tokens back once a game"


def test_curses_are_not_offered_during_a_question_round() -> None:
    state = created()
    move_to(state, 6)
    assert not any("curse" in a or "pass" in a for a in state.legal_actions())
    unchanged(state, {"pass": True}, "not an action in the question phase")


# ----- the state machine and the interface ---------------------------------------------------------------------------
def test_malformed_actions_are_rejected_without_changing_the_state() -> None:
    state = created()
    for bad, match in [
        ({"roll": True, "move": 2}, "exactly one key"),
        ({"roll": 1}, "roll"),
        ({"fly": True}, "not an action"),
        ({"curse": {"letter": {"object": oid(state, "bear"), "position": 1}}}, "not an action in the move phase"),
    ]:
        unchanged(state, bad, match)
    state.apply({"move": 1})
    unchanged(state, {"curse": {"steal": {}}}, "a curse is")
    unchanged(state, {"pass": False}, "passing")


def test_observations_never_contain_another_players_word_before_the_end() -> None:
    for seed in range(8):
        players = [PLAYERS["random"](seed * 5 + s) for s in range(4)]
        state = GAME.new_state(4, seed)
        for seat, player in enumerate(players):
            player.start(seat, 4, state.options)
        while not state.is_over():
            seat = state.to_move()
            assert seat is not None
            for viewer in range(4):
                obs = state.observation(viewer)
                for o in obs["objects"]:
                    assert ("word" in o) == (o["maker"] == viewer)
                for g in obs["guesses"]:
                    assert ("word" in g) == (g["guesser"] == viewer)
            public = state.public_view()
            assert all("word" not in o for o in public["objects"])
            state.apply(players[seat].act(state.observation(seat), state.legal_actions()))
        assert all(o["word"] for o in state.observation(0)["objects"]), "every word is revealed at the end"


def test_the_observation_has_every_field_the_spec_lists() -> None:
    obs = created().observation(2)
    for name in (
        "seat",
        "players",
        "phase",
        "objects",
        "letters",
        "questions",
        "hats",
        "elfstones",
        "curses",
        "wizards",
        "arrows_total",
        "question_round",
    ):
        assert name in obs
    assert set(obs["objects"][0]) == {"id", "maker", "sculpture", "arrows", "solved_by"}
    assert set(obs["objects"][4]) == {"id", "maker", "sculpture", "arrows", "solved_by", "word"}


def test_perturb_hidden_swaps_a_word_for_one_the_observer_cannot_rule_out() -> None:
    state = created()
    move_to(state, 3)
    state.apply({"letter": {"object": oid(state, "bear"), "position": 1}})
    rng = random.Random(4)
    for _ in range(30):
        other = state.perturb_hidden(0, rng)
        assert other is not None
        assert other.observation(0) == state.observation(0)
        assert other.full_view() != state.full_view()
        changed = [o for o, p in zip(state.objects, other.objects, strict=True) if o["word"] != p["word"]]
        assert len(changed) == 1 and changed[0]["maker"] != 0
        new = next(p for p in other.objects if p["id"] == changed[0]["id"])
        assert all(answer_for(new["word"], f) == "yes" for f in new["sculpture"])
        if new["id"] == oid(state, "bear"):
            assert new["word"].startswith("b")


def test_perturb_hidden_returns_none_once_the_game_is_over() -> None:
    state = created(finish=5)
    for steps in [2, 2, 2, 2, 3]:
        state.apply({"move": steps})
        pass_window(state)
    state.apply({"move": 3})
    assert state.is_over() and state.perturb_hidden(0, random.Random(1)) is None


def test_options_are_validated() -> None:
    assert GAME.new_state(3, 0).options == {"finish": 30, "penalty": True, "sculpture_min": 1, "sculpture_max": 5}
    for bad in ({"deck": []}, {"finish": 0}, {"finish": "30"}, {"penalty": 1}, {"sculpture_max": 11}):
        with pytest.raises(InvalidOptions):
            GAME.new_state(3, 0, bad)


def test_candidate_words_follow_sculpture_answers_and_letters() -> None:
    found = candidate_words(["is_animal", "has_feathers"], [("can_fly", "no")], [(1, "p")])
    assert found == {"penguin"}
    assert candidate_words(["has_feathers"], exclude=["penguin"]) == {
        w for w in WORDS if answer_for(w, "has_feathers") == "yes"
    } - {"penguin"}


# ----- built-in players ----------------------------------------------------------------------------------------------
def test_the_random_player_fills_templates_with_valid_objects_and_guesses() -> None:
    for seed in range(10):
        state = play("barbarossa", [BarbarossaRandomPlayer(seed + s) for s in range(4)], seed)
        assert state.is_over()
        assert all(o["word"] in LEXICON["words"] for o in state.objects)


def test_the_reasoner_knows_the_candidates_of_every_opponent_object() -> None:
    state = created()
    move_to(state, 6)
    ask(state, "bear", "is_mammal")
    known = knowledge(state.observation(0))
    assert set(known) == {o["id"] for o in state.objects if o["maker"] != 0}
    assert "bear" in known[oid(state, "bear")]
    assert all(answer_for(w, "is_mammal") == "yes" for w in known[oid(state, "bear")])


def test_the_reasoner_guesses_a_word_it_is_sure_of() -> None:
    state = created(words=[["anchor", "apple"], ["penguin", "bus"], ["cat", "cake"], ["dog", "drum"]])
    move_to(state, 6)
    reasoner = Reasoner(0)
    reasoner.start(0, 4, state.options)
    penguin = oid(state, "penguin")
    for feature in FEATURES:
        if len(knowledge(state.observation(0))[penguin]) == 1 or state.phase != "question":
            break
        if answer_for("penguin", feature) != "no":
            ask(state, "penguin", feature)
    ask(state, "bus", "is_animal")
    assert state.question_round == 2
    assert reasoner.act(state.observation(0), state.legal_actions()) == {
        "guess": {"object": penguin, "word": "penguin"}
    }


def made(sculptures: list[list[tuple[str, list[str]]]]) -> BarbarossaState:
    """A 4-player game right after creation with the given (word, sculpture) objects, seat by seat."""
    state = GAME.new_state(4, 1)
    assert isinstance(state, BarbarossaState)
    for seat in sculptures:
        for word, sculpture in seat:
            state.apply({"create": {"word": word, "sculpture": sculpture}})
    return state


# Every object fits dozens of words, except seat 1's penguin (the 20 birds).
WIDE = [
    [("anchor", ["is_man_made"]), ("apple", ["is_edible"])],
    [("penguin", ["is_animal", "has_feathers"]), ("bus", ["is_man_made"])],
    [("cat", ["is_animal"]), ("cake", ["is_edible"])],
    [("dog", ["is_animal"]), ("drum", ["is_man_made"])],
]


def reasoner_at(state: BarbarossaState, seat: int) -> Reasoner:
    player = Reasoner(seat)
    player.start(seat, state.players, state.options)
    return player


def test_round_chance_is_certain_for_one_word_and_falls_as_the_set_grows() -> None:
    assert round_chance(frozenset({"penguin"})) == 1.0
    birds = frozenset(candidate_words(["is_animal", "has_feathers"]))
    animals = frozenset(candidate_words(["is_animal"]))
    man_made = frozenset(candidate_words(["is_man_made"]))
    assert len(birds) < len(animals) < len(man_made)
    assert 1.0 > round_chance(birds) > round_chance(animals) > round_chance(man_made) > 0.0
    p_words = frozenset(w for w in birds if w.startswith("p"))
    assert round_chance(p_words) > round_chance(birds)


def test_public_knowledge_uses_the_sculpture_and_public_answers_but_no_letters() -> None:
    state = made(WIDE)
    move_to(state, 3)
    state.apply({"letter": {"object": "o2", "position": 1}})
    obs = state.observation(0)
    assert public_knowledge(obs)["o2"] == candidate_words(["is_animal", "has_feathers"])
    assert knowledge(obs)["o2"] == {"parrot", "peacock", "penguin", "pigeon"}


def test_the_reasoner_spends_a_round_it_cannot_use_on_a_question_that_tells_nobody_anything() -> None:
    state = made(WIDE)
    move_to(state, 6)
    reasoner = reasoner_at(state, 0)
    action = reasoner.act(state.observation(0), state.legal_actions())
    asked = action["ask"]
    assert {answer_for(w, asked["feature"]) for w in public_knowledge(state.observation(0))[asked["object"]]} == {"no"}
    state.apply(action)
    assert state.question_round == 2
    # Round two: a guess costs nothing and tells the others only "wrong", so it takes one instead of stopping.
    assert "guess" in reasoner.act(state.observation(0), state.legal_actions())


def test_the_reasoner_works_on_an_object_a_letter_has_brought_within_reach() -> None:
    state = made(WIDE)
    move_to(state, 3)
    state.apply({"letter": {"object": "o2", "position": 1}})  # "p": parrot, peacock, penguin or pigeon
    pass_window(state)
    for _ in range(3):
        to_next_elfstone(state)
        pass_window(state)
    move_to(state, 6)
    assert state.current == 0 and state.question_round == 1
    action = reasoner_at(state, 0).act(state.observation(0), state.legal_actions())
    assert action["ask"]["object"] == "o2"
    words = knowledge(state.observation(0))["o2"]
    assert len({answer_for(w, action["ask"]["feature"]) for w in words}) > 1, "a question that splits the four"


def test_the_reasoner_prefers_a_dwarf_to_a_question_space_with_nothing_worth_asking() -> None:
    state = made(WIDE)
    assert TRACK[3] == "dwarf" and TRACK[6] == "question"
    assert reasoner_at(state, 0).act(state.observation(0), state.legal_actions()) == {"move": 3}


def test_the_reasoner_curses_a_guess_only_when_it_is_sure() -> None:
    state = made(WIDE)
    to_next_elfstone(state)
    assert state.phase == "curse" and state.to_move() == 1
    obs = state.observation(1)
    cat = oid(state, "cat")
    obs["letters"] = [{"object": cat, "position": 1, "letter": "c"}, {"object": cat, "position": 3, "letter": "t"}]
    words = knowledge(obs)[cat]
    assert words == {"cat", "caterpillar"}  # a coin flip
    action = reasoner_at(state, 1).act(obs, state.legal_actions())
    assert "guess" not in action.get("curse", {}), "no curse on a coin flip"
    obs["letters"] += [{"object": cat, "position": "last", "letter": "t"}]
    assert reasoner_at(state, 1).act(obs, state.legal_actions()) == {"curse": {"guess": {"object": cat, "word": "cat"}}}


def test_the_reasoner_places_the_13th_arrow_only_when_that_leaves_it_first() -> None:
    state = created()
    plan = [(1, "anchor"), (2, "anchor"), (3, "bear"), (0, "bear"), (1, "cat"), (3, "cat"), (2, "dog")]
    plan += [(0, "dog"), (3, "apple"), (1, "apple"), (0, "bus"), (2, "bus")]
    curse_guesses(state, plan)
    while state.phase != "curse" or state.to_move() != 1:
        if state.phase == "move":
            to_next_elfstone(state)
        else:
            state.apply({"pass": True})
    assert state.arrows_total == LAST_ARROW - 1
    cake = oid(state, "cake")

    def sure_of_cake() -> dict[str, Any]:
        obs = state.observation(1)
        obs["letters"] += [{"object": cake, "position": p, "letter": letter_at("cake", p)} for p in POSITIONS]
        return obs

    state.hats = [25, 5, 20, 20]  # seat 1 would end the game in last place
    assert not first_after_arrow(sure_of_cake(), cake, state.options)
    assert reasoner_at(state, 1).act(sure_of_cake(), state.legal_actions()) == {"pass": True}
    state.hats = [5, 20, 5, 5]  # +5 for the arrow; cake's maker -2 and -2 penalty; drum's maker -5
    assert first_after_arrow(sure_of_cake(), cake, state.options)
    assert reasoner_at(state, 1).act(sure_of_cake(), state.legal_actions()) == {
        "curse": {"guess": {"object": cake, "word": "cake"}}
    }


def test_the_reasoner_makes_objects_that_a_letter_and_a_question_round_can_solve() -> None:
    for seed in range(8):
        state = GAME.new_state(4, seed)
        creation = reasoner_at(state, 0).act(state.observation(0), state.legal_actions())["create"]
        word, sculpture = creation["word"], creation["sculpture"]
        assert 1 <= len(sculpture) <= LARGEST_SCULPTURE and len(set(sculpture)) == len(sculpture)
        assert all(answer_for(word, f) == "yes" for f in sculpture)
        fits = candidate_words(sculpture)
        position = telling_position(fits)
        told = frozenset(w for w in fits if letter_at(w, position) == letter_at(word, position))
        assert round_chance(frozenset(fits)) < TARGET_CHANCE, "a question round alone is unlikely to solve it"
        assert abs(round_chance(told) - TARGET_CHANCE) < 0.15
        state.apply({"create": creation})


def test_games_between_reasoners_place_arrows_but_do_not_always_run_to_13_early() -> None:
    for players in (3, 4):
        figures = between_reasoners(players, range(6))
        assert figures.mean_arrows >= 8, figures.summary()
        assert figures.finish >= 2, figures.summary()  # some games end by a hat reaching the end of the track
        assert figures.mean_turns >= 25, figures.summary()


def test_the_reasoner_beats_three_random_players() -> None:
    rate, low, _ = win_rate("barbarossa", "reasoner", ["random"] * 3, range(24))
    assert rate >= 0.7 and low > 0.25


def test_the_example_bot_plays_a_whole_game_through_the_protocol() -> None:
    state = GAME.new_state(4, 11)
    others = {seat: PLAYERS["random"](seat) for seat in (0, 2, 3)}
    for seat, player in others.items():
        player.start(seat, 4, state.options)
    bot = subprocess.Popen(
        [sys.executable, str(EXAMPLE_BOT)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        bufsize=1,
    )
    assert bot.stdin and bot.stdout

    def send(message: dict[str, Any]) -> None:
        assert bot.stdin
        bot.stdin.write(json.dumps(message) + "\n")
        bot.stdin.flush()

    try:
        start = {"type": "start", "game": "barbarossa", "seat": 1, "players": 4, "options": state.options}
        start.update(GAME.start_info(4, state.options))
        start["time"] = {"move_ms": 1000, "bank_ms": 10000}
        send(start)
        assert json.loads(bot.stdout.readline()) == {"type": "ready"}
        while not state.is_over():
            seat = state.to_move()
            assert seat is not None
            if seat == 1:
                send({"type": "act", "obs": state.observation(1), "legal": state.legal_actions(), "time_left_ms": 1000})
                reply = json.loads(bot.stdout.readline())
                assert reply["type"] == "action"
                state.apply(reply["action"])
            else:
                state.apply(others[seat].act(state.observation(seat), state.legal_actions()))
        send({"type": "end", "outcome": state.outcome().to_json(), "obs": state.observation(1)})
        # After end the loop waits for another game (a series on the same process), and ends with stdin.
        send(start)
        assert json.loads(bot.stdout.readline()) == {"type": "ready"}
        bot.stdin.close()
        assert bot.wait(timeout=10) == 0
    finally:
        bot.kill()
