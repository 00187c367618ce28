"""The SDK's type stubs are generated from the games' declarations and kept up to date (bots/authoring/stubs.py)."""

from __future__ import annotations

import ast

import pytest

from bots.authoring.stubs import stub, stub_path
from games.registry import GAMES
from games.schema import schemas


@pytest.mark.parametrize("game_id", list(GAMES))
def test_each_games_stub_is_the_one_its_declaration_generates(game_id: str) -> None:
    assert stub_path(game_id).read_text() == stub(game_id), "rewrite them: python -m bots.authoring.stubs --write"


@pytest.mark.parametrize("game_id", list(GAMES))
def test_a_stub_declares_every_observation_field_and_both_names(game_id: str) -> None:
    tree = ast.parse(stub(game_id))
    defined = {node.name for node in tree.body if isinstance(node, ast.ClassDef)}
    defined |= {
        target.id
        for node in tree.body
        if isinstance(node, ast.Assign)
        for target in node.targets
        if isinstance(target, ast.Name)
    }
    assert {"Observation", "Action"} <= defined
    observation = next(node for node in tree.body if isinstance(node, ast.ClassDef) and node.name == "Observation")
    fields = [
        node.target.id
        for node in observation.body
        if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name)
    ]
    assert fields == list(schemas(game_id).observation["properties"])
