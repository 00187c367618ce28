"""The template game (games/template/) is a game a newcomer can copy into a sixth one (docs/adding-a-game.md): the
copy, renamed and registered, is a complete game. The template itself runs the conformance suite with every game
(tests/games/test_conformance.py) and is never offered by the league."""

from __future__ import annotations

import shutil
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from games import registry
from games.playthrough import golden_path, render
from games.reference_tables import up_to_date
from games.schema import schemas
from tests.games import test_conformance, test_game_folders
from tests.games.registering import TEMPLATE, registered

TEMPLATE_DIR = Path(__file__).resolve().parents[2] / "games" / "template"


def test_the_template_is_not_a_registered_game() -> None:
    assert TEMPLATE not in registry.GAMES
    with pytest.raises(registry.UnknownGame):
        registry.get_game(TEMPLATE)


def test_the_template_keeps_every_part_of_a_game_and_its_tables_are_generated() -> None:
    with registered(TEMPLATE, "games.template"):
        test_game_folders.test_every_registered_game_keeps_all_of_itself_in_its_folder(TEMPLATE)
        assert up_to_date(TEMPLATE)


def _copy_template(root: Path, game_id: str) -> None:
    """What docs/adding-a-game.md asks: copy the folder, then name the game after its folder."""
    folder = root / game_id
    shutil.copytree(TEMPLATE_DIR, folder, ignore=shutil.ignore_patterns("__pycache__"))
    (folder / "tests" / "test_template.py").rename(folder / "tests" / f"test_{game_id}.py")
    for path in folder.rglob("*"):
        if path.suffix in {".py", ".md", ".txt"}:
            text = path.read_text(encoding="utf-8")
            text = text.replace("games.template", game_id).replace('id="template"', f'id="{game_id}"')
            text = text.replace("game template ", f"game {game_id} ").replace("(`template`)", f"(`{game_id}`)")
            path.write_text(text, encoding="utf-8")


@pytest.fixture
def sixth(tmp_path: Path) -> Iterator[str]:
    game_id = "sixth_game"
    _copy_template(tmp_path, game_id)
    sys.path.insert(0, str(tmp_path))
    try:
        with registered(game_id, game_id):
            yield game_id
    finally:
        sys.path.remove(str(tmp_path))
        for name in [name for name in sys.modules if name == game_id or name.startswith(f"{game_id}.")]:
            del sys.modules[name]


def test_a_copy_of_the_template_registered_under_a_new_id_is_a_complete_game(sixth: str) -> None:
    game = registry.get_game(sixth)
    assert game.id == sixth and registry.game_dir(sixth).name == sixth
    assert schemas(sixth).observation["title"] == "Observation"
    assert render(sixth) == golden_path(sixth).read_text()  # its golden playthrough came along
    test_conformance.test_every_game_has_a_random_and_a_stronger_builtin_player(sixth)
    test_conformance.test_illegal_actions_raise_and_leave_the_state_unchanged(sixth)
    test_conformance.test_replaying_the_recorded_actions_reproduces_every_state(sixth)
    test_conformance.test_observations_and_actions_have_their_declared_shapes(sixth)
    test_conformance.test_the_declared_chance_is_the_games(sixth)
    test_conformance.test_wrong_player_counts_are_refused(sixth)
