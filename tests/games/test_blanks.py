"""Every game's description of its templates' blanks (games/blanks.py), along random games: each null has a blank,
every blank offers choices, and a template filled from any of its choices is an action the engine accepts — what
the table page's controls rely on (docs/tables.md "Actions with blanks")."""

from __future__ import annotations

import copy
import json
import random
from typing import Any

import pytest

from games.blanks import null_paths
from games.registry import GAMES, make_player


def _fill(template: dict[str, Any], blanks: list[dict[str, Any]], lists: dict[str, Any], rng: random.Random) -> Any:
    action = copy.deepcopy(template)
    chosen: dict[str, Any] = {}
    for blank in blanks:
        assert blank["kind"] in ("one", "some"), blank  # the games enumerate every blank they have
        offered = lists[blank["choices"]]
        if "per" in blank:
            offered = offered[str(chosen[json.dumps(blank["per"])])]
        values = [c["value"] if isinstance(c, dict) else c for c in offered]
        if "labels" in blank:
            assert all(str(v) in lists[blank["labels"]] for v in values), blank
        assert values, blank
        if blank["kind"] == "one":
            value: Any = rng.choice(values)
        else:
            high = min(blank["max"], len(values))
            assert blank["min"] <= high, blank
            value = rng.sample(values, rng.randint(blank["min"], high))
        chosen[json.dumps(blank["path"])] = value
        node = action
        for step in blank["path"][:-1]:
            node = node[step]
        node[blank["path"][-1]] = value
    return action


@pytest.mark.parametrize("game_id", sorted(GAMES))
def test_filled_blanks_are_legal(game_id: str) -> None:
    game = GAMES[game_id]
    rng = random.Random(3)
    filled = described_templates = 0
    for seed in range(2):
        players = min(3, game.max_players)
        state = game.new_state(players, seed)
        bots = [make_player(game_id, "random", seat) for seat in range(players)]
        for seat, bot in enumerate(bots):
            bot.start(seat, players, game.start_info(players, {}))
        while not state.is_over():
            seat = state.to_move()
            assert seat is not None
            legal = state.legal_actions()
            described = state.blanks(legal)
            assert len(described["blanks"]) == len(legal)
            for template, blanks in zip(legal, described["blanks"], strict=True):
                covered = [b["path"] for b in blanks]
                for path in null_paths(template):  # every null is a blank (or lies in a "some" blank's list)
                    assert path in covered or path[:-1] in covered or not blanks, (template, blanks)
                if blanks:
                    described_templates += 1
                    trial = state.clone()
                    trial.apply(_fill(template, blanks, described["lists"], rng))  # raises if illegal
                    filled += 1
            state.apply(bots[seat].act(state.observation(seat), legal))
    assert filled == described_templates
    # Barbarossa and TEN have templates; a game without any has nothing to describe.
    assert filled > 0 or game_id not in ("barbarossa", "ten")
